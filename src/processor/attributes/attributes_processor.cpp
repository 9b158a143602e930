#include "processor/attributes/attributes_processor.h"
#include "pdata/value_text.h"
#include "text/numbers.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace tern::processor {

using Action = processor::AttributesProcessorConfig::Action;

namespace {

using Type = processor::AttributesProcessorConfig::Type;

pdata::AnyValue typed(const processor::AttributesProcessorConfig::Entry& a, const pdata::Arena& arena) {
  switch (a.value_type) {
    case Type::kInt: {
      // kInt and kDouble: the loader found the value to be that number.
      return pdata::AnyValue::integer(tern::text::parse_whole<std::int64_t>(a.value).value_or(0));
    }
    case Type::kDouble: {
      return pdata::AnyValue::dbl(tern::text::parse_whole<double>(a.value).value_or(0));
    }
    case Type::kBool:
      return pdata::AnyValue::boolean(a.value[0] == 't' || a.value[0] == 'T');
    case Type::kString:
      break;
  }
  return pdata::AnyValue::string(arena.copy(a.value));
}

// Go's strconv.ParseInt / ParseFloat take one leading sign, '+' too; from_chars takes only
// '-'. (ParseFloat's hex floats and "Inf" spellings beyond from_chars's are not taken here.)
template <class T>
std::optional<T> parse_go(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  return tern::text::parse_whole<T>(s);
}

// The Collector's convert (attraction/type_converter.go): a value that cannot become the type
// stays as it is; anything but a string becomes a string as pcommon's AsString writes it.
void convert(pdata::AnyValue& v, Type to, const pdata::Arena& arena) {
  using K = pdata::ValueKind;
  switch (to) {
    case Type::kInt:
      if (v.kind == K::Double && std::isfinite(v.double_value) && std::fabs(v.double_value) < 9.2e18) {
        v = pdata::AnyValue::integer(static_cast<std::int64_t>(v.double_value));
      } else if (v.kind == K::Bool) {
        v = pdata::AnyValue::integer(v.bool_value ? 1 : 0);
      } else if (v.kind == K::String) {
        if (const auto i = parse_go<std::int64_t>(v.string_value)) v = pdata::AnyValue::integer(*i);
      }
      break;
    case Type::kDouble:
      if (v.kind == K::Int) {
        v = pdata::AnyValue::dbl(static_cast<double>(v.int_value));
      } else if (v.kind == K::Bool) {
        v = pdata::AnyValue::dbl(v.bool_value ? 1.0 : 0.0);
      } else if (v.kind == K::String) {
        if (const auto d = parse_go<double>(v.string_value)) v = pdata::AnyValue::dbl(*d);
      }
      break;
    case Type::kString:
      if (v.kind != K::String) v = pdata::AnyValue::string(arena.copy(pdata::pcommon_as_string(v)));
      break;
    case Type::kBool:
      break;  // not a convert target
  }
}

}  // namespace

AttributesProcessor::AttributesProcessor(processor::AttributesProcessorConfig config, Target target)
    : config_(std::move(config)), target_(target) {
  for (const auto& a : config_.actions) {
    if (a.pattern.empty()) {
      patterns_.push_back(nullptr);
      continue;
    }
    auto re = std::make_unique<re2::RE2>(a.pattern, re2::RE2::Quiet);
    if (!re->ok()) throw std::invalid_argument("attributes pattern \"" + a.pattern + "\": " + re->error());
    patterns_.push_back(std::move(re));
  }
}

AttributesProcessor::~AttributesProcessor() = default;

void AttributesProcessor::apply(pdata::Attributes& attrs, const pdata::Arena& arena) const {
  for (std::size_t n = 0; n < config_.actions.size(); ++n) {
    const auto& a = config_.actions[n];
    if (a.action == Action::kDelete) {  // its own scan: no lookup of the key first
      const re2::RE2* re = patterns_[n].get();
      attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                                 [&](const pdata::KeyValue& kv) {
                                   return (!a.key.empty() && kv.key == a.key) ||
                                          (re && re2::RE2::PartialMatch(
                                                     re2::StringPiece(kv.key.data(), kv.key.size()), *re));
                                 }),
                  attrs.end());
      continue;
    }
    auto it =
        std::find_if(attrs.begin(), attrs.end(), [&](const pdata::KeyValue& kv) { return kv.key == a.key; });
    const bool present = it != attrs.end();
    if (a.action == Action::kConvert) {
      if (present) convert(it->value, a.converted_type, arena);
      continue;
    }
    if ((a.action == Action::kInsert && present) || (a.action == Action::kUpdate && !present)) continue;
    pdata::AnyValue value;
    if (!a.from_attribute.empty()) {
      const pdata::AnyValue* from = pdata::find_attribute(attrs, a.from_attribute);
      if (!from) continue;  // nothing to copy: no action, as in the Collector
      value = *from;
    } else {
      value = typed(a, arena);
    }
    if (present)
      it->value = value;
    else
      attrs.push_back({arena.copy(a.key), value});
  }
}

component::ConsumeResult AttributesProcessor::process(pdata::LogsData& batch) {
  for (auto& rl : batch.resource_logs) {
    if (target_ == Target::kResource) {
      apply(rl.resource.attributes, batch.arena);
      continue;
    }
    for (auto& sl : rl.scope_logs)
      for (auto& lr : sl.log_records) apply(lr.attributes, batch.arena);
  }
  return component::ConsumeResult::ok();
}

component::ConsumeResult AttributesProcessor::process(pdata::TracesData& batch) {
  for (auto& rs : batch.resource_spans) {
    if (target_ == Target::kResource) {
      apply(rs.resource.attributes, batch.arena);
      continue;
    }
    for (auto& ss : rs.scope_spans)
      for (auto& span : ss.spans) apply(span.attributes, batch.arena);
  }
  return component::ConsumeResult::ok();
}

component::ConsumeResult AttributesProcessor::process(pdata::MetricsData& batch) {
  for (auto& rm : batch.resource_metrics) {
    if (target_ == Target::kResource) {
      apply(rm.resource.attributes, batch.arena);
      continue;
    }
    for (auto& sm : rm.scope_metrics)
      for (auto& m : sm.metrics) {
        for (auto& p : m.number_points) apply(p.attributes, batch.arena);
        for (auto& p : m.histogram_points) apply(p.attributes, batch.arena);
        for (auto& p : m.exponential_histogram_points) apply(p.attributes, batch.arena);
        for (auto& p : m.summary_points) apply(p.attributes, batch.arena);
      }
  }
  return component::ConsumeResult::ok();
}

}  // namespace tern::processor
