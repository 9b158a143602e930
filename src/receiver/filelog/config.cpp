#include "receiver/filelog/config.h"

#include <fmt/format.h>

#include <algorithm>

#include <re2/re2.h>

#include "receiver/filelog/timestamp_layout.h"
#include "text/ascii.h"

#include "config/reader.h"

namespace tern::receiver::filelog {

using config::DecodeContext;
using config::MapReader;

namespace {

// ---- filelog operators (the Collector's stanza operators; the subset Tern runs) ----------

// `body`, `attributes.<key>` or `attributes["<key>"]`, normalized to `body` / `attributes.<key>`.
std::optional<std::string> operator_field(DecodeContext& ctx, MapReader& r, std::string_view key,
                                          bool required) {
  if (!r.has(key)) {
    if (required) ctx.error(r.mark(key), fmt::format("{}: {} is required", r.path(), key));
    return std::nullopt;
  }
  std::string f;
  r.str(key, f);
  if (f == "body") return f;
  std::string name;
  if (f.starts_with("attributes[\"") && f.ends_with("\"]") && f.size() > 14)
    name = f.substr(12, f.size() - 14);
  else if (f.starts_with("attributes.") && f.size() > 11)
    name = f.substr(11);
  if (name.empty()) {
    ctx.error(r.mark(key), fmt::format("{}: \"{}\" is not a field Tern's operators handle (body, "
                                       "attributes.<key> or attributes[\"<key>\"])",
                                       r.sub_path(key), f));
    return std::nullopt;
  }
  return "attributes." + name;
}

std::optional<std::int32_t> severity_alias(std::string_view alias) {
  if (alias == "default") return 0;
  static constexpr std::string_view kBase[] = {"trace", "debug", "info", "warn", "error", "fatal"};
  for (int b = 0; b < 6; ++b) {
    if (!alias.starts_with(kBase[b])) continue;
    const std::string_view rest = alias.substr(kBase[b].size());
    if (rest.empty()) return 1 + 4 * b;
    if (rest.size() == 1 && rest[0] >= '2' && rest[0] <= '4') return 1 + 4 * b + (rest[0] - '1');
  }
  return std::nullopt;
}

void add_severity_value(DecodeContext& ctx, const YAML::Node& n, const std::string& path, std::int32_t number,
                        std::vector<FilelogOperatorConfig::SeverityMatch>& out) {
  if (n.IsMap()) {
    MapReader range(ctx, n, path);
    std::uint64_t lo = 0, hi = 0;
    range.uint("min", lo, INT64_MAX);
    range.uint("max", hi, INT64_MAX);
    if (!range.has("min") || !range.has("max"))
      ctx.error(n.Mark(), fmt::format("{}: a range needs min and max", path));
    else if (lo > hi)
      ctx.error(n.Mark(), fmt::format("{}: min must not be greater than max", path));
    out.push_back({number, {}, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)});
    return;
  }
  auto v = ctx.scalar(n, path);
  if (!v) return;
  // "2xx".."5xx": the HTTP status ranges.
  if (v->size() == 3 && (*v)[0] >= '2' && (*v)[0] <= '5' && v->substr(1) == "xx") {
    const std::int64_t base = ((*v)[0] - '0') * 100;
    out.push_back({number, {}, base, base + 99});
    return;
  }
  out.push_back({number, tern::text::ascii_lower(*v), 0, -1});
}

// A `severity` block, or severity_parser's own fields (`r` is then the operator).
FilelogOperatorConfig::Severity decode_severity(DecodeContext& ctx, MapReader& r) {
  FilelogOperatorConfig::Severity sv;
  if (auto f = operator_field(ctx, r, "parse_from", true)) sv.parse_from = *f;
  r.boolean("overwrite_text", sv.overwrite_text);
  std::string preset = "default";
  r.one_of("preset", preset, {"default", "none"});
  YAML::Node mapping = r.get("mapping");
  if (mapping.IsDefined() && !mapping.IsNull()) {
    if (!mapping.IsMap()) {
      ctx.error(mapping.Mark(),
                fmt::format("{}: expected a mapping of severity names to values", r.sub_path("mapping")));
    } else {
      for (const auto& e : mapping) {
        const std::string alias = e.first.IsScalar() ? e.first.Scalar() : "";
        const std::string path = r.sub_path("mapping") + "." + alias;
        const auto number = severity_alias(alias);
        if (!number) {
          ctx.error(e.first.Mark(),
                    fmt::format("{}: unknown severity \"{}\" (expected default, or trace, debug, info, "
                                "warn, error or fatal, each also with 2, 3 or 4 after it)",
                                r.sub_path("mapping"), alias));
          continue;
        }
        if (e.second.IsSequence()) {
          for (const auto& item : e.second) add_severity_value(ctx, item, path, *number, sv.mapping);
        } else {
          add_severity_value(ctx, e.second, path, *number, sv.mapping);
        }
      }
    }
  }
  if (preset == "default") {  // each severity name for itself, and 404 as an error (the Collector's preset)
    for (const char* base : {"trace", "debug", "info", "warn", "error", "fatal"}) {
      for (const char* suffix : {"", "2", "3", "4"}) {
        const std::string alias = std::string(base) + suffix;
        sv.mapping.push_back({*severity_alias(alias), alias, 0, -1});
      }
    }
    sv.mapping.push_back({17, "404", 0, -1});
  }
  return sv;
}

// A `timestamp` block, or time_parser's own fields.
FilelogOperatorConfig::Timestamp decode_timestamp(DecodeContext& ctx, MapReader& r) {
  FilelogOperatorConfig::Timestamp ts;
  if (auto f = operator_field(ctx, r, "parse_from", true)) ts.parse_from = *f;
  std::string type = "strptime";
  r.one_of("layout_type", type, {"strptime", "epoch", "gotime"});
  ts.epoch = type == "epoch";
  r.str("layout", ts.layout);
  if (type == "gotime") {
    ctx.error(r.mark("layout_type"), fmt::format("{}: gotime layouts are not supported; write the layout "
                                                 "with strptime directives (layout_type: strptime)",
                                                 r.sub_path("layout_type")));
  } else if (!r.has("layout")) {
    ctx.error(r.mark("layout"), fmt::format("{}: layout is required", r.path()));
  } else if (ts.epoch && !receiver::filelog::valid_epoch_layout(ts.layout)) {
    ctx.error(r.mark("layout"), fmt::format("{}: invalid epoch layout \"{}\" (expected one of: s, ms, us, "
                                            "ns, s.ms, s.us, s.ns)",
                                            r.sub_path("layout"), ts.layout));
  } else if (!ts.epoch) {
    std::string error;
    if (!receiver::filelog::TimestampLayout::compile(ts.layout, error))
      ctx.error(r.mark("layout"), fmt::format("{}: {}", r.sub_path("layout"), error));
  }
  std::string location = "Local";
  r.str("location", location);
  if (location == "UTC" || location == "Etc/UTC") {
    ts.utc = true;
  } else if (location != "Local") {
    ctx.error(r.mark("location"),
              fmt::format("{}: only UTC or Local (the host's zone) are supported, got \"{}\"",
                          r.sub_path("location"), location));
  }
  return ts;
}

void decode_operator(DecodeContext& ctx, const YAML::Node& n, const std::string& path,
                     FilelogOperatorConfig& op) {
  using T = FilelogOperatorConfig::Type;
  using E = FilelogOperatorConfig::OnError;
  MapReader r(ctx, n, path);
  if (!r.has("type")) {
    ctx.error(n.Mark(), fmt::format("{}: type is required", path));
    r.entries();  // nothing else is checked without a type
    return;
  }
  static const std::vector<std::pair<std::string, T>> kTypes = {{"regex_parser", T::kRegexParser},
                                                                {"json_parser", T::kJsonParser},
                                                                {"key_value_parser", T::kKeyValueParser},
                                                                {"time_parser", T::kTimeParser},
                                                                {"severity_parser", T::kSeverityParser},
                                                                {"remove", T::kRemove},
                                                                {"move", T::kMove},
                                                                {"copy", T::kCopy},
                                                                {"add", T::kAdd},
                                                                {"retain", T::kRetain},
                                                                {"container", T::kContainer},
                                                                {"trace_parser", T::kTraceParser},
                                                                {"csv_parser", T::kCsvParser}};
  std::vector<std::string> names;
  for (const auto& [name, t] : kTypes) names.push_back(name);
  std::string type;
  r.one_of("type", type, names);
  if (type.empty()) {  // reported: nothing else can be checked
    r.entries();
    return;
  }
  op.type =
      std::find_if(kTypes.begin(), kTypes.end(), [&](const auto& e) { return e.first == type; })->second;
  op.id = type;
  r.str("id", op.id);
  for (const char* unsupported : {"if", "output"}) {
    if (!r.has(unsupported)) continue;
    r.get(unsupported);
    ctx.error(r.mark(unsupported), fmt::format("{}: {} is not supported (operators run in order, on every "
                                               "record)",
                                               r.sub_path(unsupported), unsupported));
  }
  const bool parser = op.type == T::kRegexParser || op.type == T::kJsonParser ||
                      op.type == T::kKeyValueParser || op.type == T::kCsvParser;
  r.choice(
      "on_error", op.on_error,
      {{"send", E::kSend}, {"send_quiet", E::kSendQuiet}, {"drop", E::kDrop}, {"drop_quiet", E::kDropQuiet}});
  if (parser) {
    if (auto f = operator_field(ctx, r, "parse_from", false)) op.parse_from = *f;
    std::string to = "attributes";
    r.str("parse_to", to);
    if (to != "attributes")
      ctx.error(r.mark("parse_to"), fmt::format("{}: only attributes is supported", r.sub_path("parse_to")));
    if (r.has("timestamp")) {
      MapReader t(ctx, r.get("timestamp"), r.sub_path("timestamp"));
      op.timestamp = decode_timestamp(ctx, t);
    }
    if (r.has("severity")) {
      MapReader sv(ctx, r.get("severity"), r.sub_path("severity"));
      op.severity = decode_severity(ctx, sv);
    }
  }
  switch (op.type) {
    case T::kRegexParser: {
      r.str("regex", op.regex);
      if (!r.has("regex")) {
        ctx.error(n.Mark(), fmt::format("{}: regex is required", path));
        break;
      }
      const re2::RE2 re(op.regex, re2::RE2::Quiet);
      if (!re.ok()) {
        ctx.error(r.mark("regex"), fmt::format("{}: {}", r.sub_path("regex"), re.error()));
      } else if (re.NamedCapturingGroups().empty()) {
        ctx.error(r.mark("regex"), fmt::format("{}: the regex has no named group ((?P<name>...)) to "
                                               "make an attribute of",
                                               r.sub_path("regex")));
      }
      break;
    }
    case T::kTimeParser:
      op.timestamp = decode_timestamp(ctx, r);
      break;
    case T::kSeverityParser:
      op.severity = decode_severity(ctx, r);
      break;
    case T::kRemove:
    case T::kAdd:
      if (auto f = operator_field(ctx, r, "field", true)) op.field = *f;
      if (op.type == T::kAdd) {
        if (!r.has("value")) ctx.error(n.Mark(), fmt::format("{}: value is required", path));
        r.str("value", op.value);
        if (op.value.starts_with("EXPR("))
          ctx.error(r.mark("value"), fmt::format("{}: expressions are not supported", r.sub_path("value")));
      }
      break;
    case T::kMove:
    case T::kCopy:
      if (auto f = operator_field(ctx, r, "from", true)) op.from = *f;
      if (auto f = operator_field(ctx, r, "to", true)) op.to = *f;
      break;
    case T::kKeyValueParser:
      r.str("delimiter", op.delimiter);
      r.str("pair_delimiter", op.pair_delimiter);
      if (op.delimiter.empty())
        ctx.error(r.mark("delimiter"),
                  fmt::format("{}: delimiter must not be empty", r.sub_path("delimiter")));
      else if (op.delimiter == op.pair_delimiter)
        ctx.error(r.mark("delimiter"), fmt::format("{}: delimiter and pair_delimiter must differ", r.path()));
      break;
    case T::kRetain: {
      std::vector<std::string> fields;
      r.strings("fields", fields);
      if (fields.empty())
        ctx.error(r.mark("fields"), fmt::format("{}: fields must list what to keep", r.path()));
      for (const auto& f : fields) {
        if (f.starts_with("attributes.") && f.size() > 11) {
          op.fields.push_back(f);
        } else {
          ctx.error(r.mark("fields"),
                    fmt::format("{}: \"{}\": retain keeps attributes.<key> fields", r.sub_path("fields"), f));
        }
      }
      break;
    }
    case T::kTraceParser:
      for (auto [key, out] :
           {std::pair{"trace_id", &op.trace_id_from}, std::pair{"span_id", &op.span_id_from},
            std::pair{"trace_flags", &op.trace_flags_from}}) {
        MapReader t(ctx, r.get(key), r.sub_path(key));
        if (auto f = operator_field(ctx, t, "parse_from", false)) *out = *f;
      }
      break;
    case T::kContainer:
      r.one_of("format", op.format, {"auto", "docker", "crio", "containerd"});
      r.boolean("add_metadata_from_filepath", op.add_metadata_from_filepath);
      r.size("max_log_size", op.max_log_size);  // bounds a line joined from CRI partial lines
      break;
    case T::kCsvParser: {
      // One-character delimiters, as the Collector's (Go's encoding/csv).
      op.delimiter = ",";
      r.str("delimiter", op.delimiter);
      std::string header_delimiter = op.delimiter, header;
      r.str("header_delimiter", header_delimiter);
      for (auto [key, value] :
           {std::pair{"delimiter", &op.delimiter}, std::pair{"header_delimiter", &header_delimiter}})
        if (value->size() != 1 && r.has(key))  // an unset header_delimiter is the delimiter, reported once
          ctx.error(r.mark(key), fmt::format("{}: must be one character", r.sub_path(key)));
      r.str("header", header);
      if (r.has("header_attribute")) {
        r.get("header_attribute");
        ctx.error(r.mark("header_attribute"),
                  fmt::format("{}: a header from an attribute is not supported; set header",
                              r.sub_path("header_attribute")));
      } else if (!r.has("header")) {
        ctx.error(n.Mark(), fmt::format("{}: header is required (the column names)", path));
      }
      if (r.has("header") && header_delimiter.size() == 1) {
        std::size_t start = 0;
        while (true) {
          const std::size_t end = header.find(header_delimiter[0], start);
          op.csv_header.push_back(header.substr(start, end == std::string::npos ? end : end - start));
          if (end == std::string::npos) break;
          start = end + 1;
        }
        if (std::any_of(op.csv_header.begin(), op.csv_header.end(),
                        [](const std::string& h) { return h.empty(); }))
          ctx.error(r.mark("header"), fmt::format("{}: a column name is empty", r.sub_path("header")));
      }
      r.boolean("lazy_quotes", op.lazy_quotes);
      r.boolean("ignore_quotes", op.ignore_quotes);
      if (op.lazy_quotes && op.ignore_quotes)
        ctx.error(r.mark("ignore_quotes"),
                  fmt::format("{}: set lazy_quotes or ignore_quotes, not both", r.path()));
      break;
    }
    case T::kJsonParser:
      break;
  }
}

}  // namespace

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, FilelogReceiverConfig& c) {
  using C = FilelogReceiverConfig;
  r.strings("include", c.include);
  r.strings("exclude", c.exclude);
  r.choice("start_at", c.start_at, {{"beginning", C::StartAt::kBeginning}, {"end", C::StartAt::kEnd}});
  r.size("max_log_size", c.max_log_size);
  // Only encodings the line splitter handles: UTF-8 (and its ASCII subset) or raw bytes.
  r.choice("encoding", c.encoding,
           {{"utf-8", std::string("utf-8")}, {"ascii", std::string("ascii")}, {"nop", std::string("nop")}});
  r.choice("parse", c.parse, {{"json", C::Parse::kJson}, {"none", C::Parse::kNone}});
  r.string_map("attributes", c.attributes);
  r.str("storage", c.storage);
  r.duration("poll_interval", c.poll_interval);
  r.size("fingerprint_size", c.fingerprint_size);
  r.boolean("include_file_name", c.include_file_name);
  r.boolean("include_file_path", c.include_file_path);
  r.boolean("include_file_name_resolved", c.include_file_name_resolved);
  r.boolean("include_file_path_resolved", c.include_file_path_resolved);
  r.string_map("resource", c.resource);
  r.uint("max_concurrent_files", c.max_concurrent_files);
  r.duration("exclude_older_than", c.exclude_older_than);
  bool preserve_leading = true, preserve_trailing = true;
  r.boolean("preserve_leading_whitespaces", preserve_leading);
  r.boolean("preserve_trailing_whitespaces", preserve_trailing);
  c.trim_leading = !preserve_leading;
  c.trim_trailing = !preserve_trailing;
  if (c.max_concurrent_files == 0) {
    ctx.error(r.mark("max_concurrent_files"),
              fmt::format("{}: max_concurrent_files must be greater than 0", r.path()));
  }
  r.uint("max_batch_lines", c.max_batch_lines);
  r.size("max_batch_size", c.max_batch_size);
  if (r.has("multiline")) {
    MapReader m(ctx, r.get("multiline"), r.sub_path("multiline"));
    m.str("line_start_pattern", c.multiline_start);
    m.str("line_end_pattern", c.multiline_end);
    const bool start = m.has("line_start_pattern"), end = m.has("line_end_pattern");
    if (start == end) {
      ctx.error(r.mark("multiline"),
                fmt::format("{}: set one of line_start_pattern and line_end_pattern", m.path()));
    } else {
      const char* key = start ? "line_start_pattern" : "line_end_pattern";
      const re2::RE2 re(start ? c.multiline_start : c.multiline_end, re2::RE2::Quiet);
      if (!re.ok()) ctx.error(m.mark(key), fmt::format("{}: {}", m.sub_path(key), re.error()));
    }
  }
  r.duration("force_flush_period", c.force_flush_period);  // 0: no forced flush
  YAML::Node ops = r.get("operators");
  if (ops.IsDefined() && !ops.IsNull() && !ops.IsSequence()) {
    ctx.error(ops.Mark(), fmt::format("{}: expected a list", r.sub_path("operators")));
  } else if (ops.IsSequence()) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      FilelogOperatorConfig op;
      decode_operator(ctx, ops[i], fmt::format("{}[{}]", r.sub_path("operators"), i), op);
      c.operators.push_back(std::move(op));
    }
    if (c.parse != FilelogReceiverConfig::Parse::kNone && !c.operators.empty()) {
      ctx.error(r.mark("parse"), fmt::format("{}: set parse or operators, not both (a json_parser operator "
                                             "parses JSON lines)",
                                             r.path()));
    }
  }
  if (c.include.empty()) {
    ctx.error(r.has("include") ? r.mark("include") : at,
              fmt::format("{}: include must list at least one file pattern", r.path()));
  }
  if (c.max_log_size == 0)
    ctx.error(r.mark("max_log_size"), fmt::format("{}: max_log_size must be greater than 0", r.path()));
  if (c.poll_interval <= Duration{0}) {
    ctx.error(r.mark("poll_interval"), fmt::format("{}: poll_interval must be greater than 0", r.path()));
  }
  if (c.fingerprint_size == 0) {
    ctx.error(r.mark("fingerprint_size"),
              fmt::format("{}: fingerprint_size must be greater than 0", r.path()));
  }
  if (c.max_batch_lines == 0)
    ctx.error(r.mark("max_batch_lines"), fmt::format("{}: max_batch_lines must be greater than 0", r.path()));
  if (c.max_batch_size == 0)
    ctx.error(r.mark("max_batch_size"), fmt::format("{}: max_batch_size must be greater than 0", r.path()));
}

}  // namespace tern::receiver::filelog
