#include "processor/attributes/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include <re2/re2.h>
#include <charconv>
#include <climits>

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::MapReader;

namespace {

// The type yaml.v3 (the Collector's YAML decoder) gives a plain scalar: true/True/TRUE and
// false..., integers in Go's syntax with '_' separators, a sign and 0x / 0o / 0b prefixes,
// floats of YAML's form, and .inf / .nan; anything else is a string. `value` is rewritten
// to the plain number text the processor parses (0x10 -> 16, 1_000 -> 1000, .inf -> inf).
AttributesProcessorConfig::Type resolve_plain_scalar(std::string& value) {
  using T = AttributesProcessorConfig::Type;
  static const std::set<std::string> kTrue{"true", "True", "TRUE"}, kFalse{"false", "False", "FALSE"};
  if (kTrue.count(value) || kFalse.count(value)) return T::kBool;
  static const std::map<std::string, std::string> kSpecial{
      {".inf", "inf"},   {".Inf", "inf"},  {".INF", "inf"},   {"+.inf", "inf"},
      {"+.Inf", "inf"},  {"+.INF", "inf"}, {"-.inf", "-inf"}, {"-.Inf", "-inf"},
      {"-.INF", "-inf"}, {".nan", "nan"},  {".NaN", "nan"},   {".NAN", "nan"}};
  if (auto it = kSpecial.find(value); it != kSpecial.end()) {
    value = it->second;
    return T::kDouble;
  }
  std::string plain;
  for (char c : value)
    if (c != '_') plain += c;
  std::string_view digits = plain;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) base = 16;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'o' || digits[1] == 'O')) base = 8;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) base = 2;
  if (base != 10) digits.remove_prefix(2);
  std::uint64_t magnitude = 0;
  if (!digits.empty() && digits.front() != '-' && digits.front() != '+') {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    if (ec == std::errc() && end == digits.data() + digits.size() &&
        magnitude <= (negative ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(INT64_MAX))) {
      value = negative ? std::to_string(magnitude == std::uint64_t{1} << 63
                                            ? INT64_MIN
                                            : -static_cast<std::int64_t>(magnitude))
                       : std::to_string(magnitude);
      return T::kInt;
    }
  }
  // YAML's float form: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  static const RE2 kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (RE2::FullMatch(plain, kFloat) &&
      tern::text::parse_whole<double>(plain[0] == '+' ? plain.substr(1) : plain)) {
    value = plain[0] == '+' ? plain.substr(1) : plain;
    return T::kDouble;
  }
  return T::kString;
}

}  // namespace

// The `attributes` and `resource` processors (resource_processor_type). The Collector's
// resource processor lists its actions under `attributes`; Tern also takes `actions` there
// (its first spelling), not both.
void decode_actions(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, AttributesProcessorConfig& c,
                    bool resource) {
  using A = AttributesProcessorConfig::Action;
  std::string list_key = "actions";
  if (resource && (r.has("attributes") || !r.has("actions"))) {
    if (r.has("actions")) {
      ctx.error(r.mark("actions"),
                fmt::format("{}: list the actions under attributes or actions, not both", r.path()));
    }
    list_key = "attributes";
  }
  YAML::Node actions = r.get(list_key);
  if (resource) r.get(list_key == "actions" ? "attributes" : "actions");  // known: no "unknown key" for it
  if (actions.IsDefined() && !actions.IsNull() && !actions.IsSequence()) {
    ctx.error(actions.Mark(), fmt::format("{}: expected a list", r.sub_path(list_key)));
  } else if (actions.IsSequence()) {
    for (std::size_t i = 0; i < actions.size(); ++i) {
      MapReader a(ctx, actions[i], fmt::format("{}[{}]", r.sub_path(list_key), i));
      AttributesProcessorConfig::Entry e;
      using T = AttributesProcessorConfig::Type;
      const bool has_value = a.has("value"), has_from = a.has("from_attribute");
      a.str("key", e.key);
      {
        // As the Collector (its YAML decoder), a plain scalar that reads as a bool, an
        // integer or a float is one; a quoted one is a string.
        const YAML::Node v = a.get("value");
        if (v.IsDefined() && !v.IsNull()) {
          a.str("value", e.value);
          if (v.IsScalar() && v.Tag() == "?") e.value_type = resolve_plain_scalar(e.value);
        }
      }
      a.str("from_attribute", e.from_attribute);
      a.str("pattern", e.pattern);
      a.choice("converted_type", e.converted_type,
               {{"string", T::kString}, {"int", T::kInt}, {"double", T::kDouble}});
      static const std::vector<std::pair<std::string, A>> kActions{{"insert", A::kInsert},
                                                                   {"update", A::kUpdate},
                                                                   {"upsert", A::kUpsert},
                                                                   {"delete", A::kDelete},
                                                                   {"convert", A::kConvert}};
      std::string action;
      a.one_of("action", action, {"insert", "update", "upsert", "delete", "convert"});
      const YAML::Mark at_action = actions[i].Mark();
      if (!a.has("action")) ctx.error(at_action, fmt::format("{}: action is required", a.path()));
      if (action.empty()) {  // missing or unknown: said above; its other rules cannot be checked
        c.actions.push_back(std::move(e));
        continue;
      }
      e.action = std::find_if(kActions.begin(), kActions.end(), [&](const auto& x) {
                   return x.first == action;
                 })->second;
      if (!e.pattern.empty()) {
        const re2::RE2 re(e.pattern, re2::RE2::Quiet);
        if (!re.ok()) ctx.error(a.mark("pattern"), fmt::format("{}: {}", a.sub_path("pattern"), re.error()));
        if (e.action != A::kDelete)
          ctx.error(a.mark("pattern"), fmt::format("{}: pattern goes with delete", a.sub_path("pattern")));
      }
      if (e.key.empty() && (e.action != A::kDelete || e.pattern.empty()))
        ctx.error(at_action, fmt::format("{}: key is required{}", a.path(),
                                         e.action == A::kDelete ? " (or pattern)" : ""));
      const bool sets = e.action == A::kInsert || e.action == A::kUpdate || e.action == A::kUpsert;
      if (sets && has_value == has_from) {
        ctx.error(at_action,
                  has_value
                      ? fmt::format("{}: set value or from_attribute, not both", a.path())
                      : fmt::format("{}: value (or from_attribute) is required for this action", a.path()));
      } else if (!sets && (has_value || has_from)) {
        ctx.error(a.mark(has_value ? "value" : "from_attribute"),
                  fmt::format("{}: {} goes with insert, update or upsert", a.path(),
                              has_value ? "value" : "from_attribute"));
      }
      if (e.action == A::kConvert && !a.has("converted_type"))
        ctx.error(at_action, fmt::format("{}: converted_type is required (int, double or string)", a.path()));
      else if (e.action != A::kConvert && a.has("converted_type"))
        ctx.error(a.mark("converted_type"), fmt::format("{}: converted_type goes with convert", a.path()));
      c.actions.push_back(std::move(e));
    }
  }
  if (c.actions.empty())
    ctx.error(at, fmt::format("{}: {} must list at least one action", r.path(), list_key));
}

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, AttributesProcessorConfig& c) {
  decode_actions(ctx, r, at, c, /*resource=*/false);
}

}  // namespace tern::processor
