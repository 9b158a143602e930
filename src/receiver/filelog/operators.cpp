#include "receiver/filelog/operators.h"

#include <re2/re2.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "logging/log_limit.h"
#include "receiver/filelog/json_value.h"
#include "receiver/filelog/timestamp_layout.h"
#include "text/ascii.h"

namespace tern::receiver::filelog {
namespace {

using Config = receiver::filelog::FilelogOperatorConfig;
using Type = Config::Type;

// "attributes.<key>" -> "<key>"; "body" -> "".
std::string_view attribute_key(std::string_view field) {
  return field.starts_with("attributes.") ? field.substr(11) : std::string_view();
}

pdata::AnyValue* find(pdata::LogRecord& rec, std::string_view field) {
  if (field == "body") return &rec.body;
  const std::string_view key = attribute_key(field);
  for (auto& kv : rec.attributes)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

// Sets an attribute, replacing one with the same key (a new key is copied into the arena).
void set_attribute(pdata::LogRecord& rec, std::string_view key, pdata::AnyValue v, const pdata::Arena& a) {
  for (auto& kv : rec.attributes) {
    if (kv.key == key) {
      kv.value = v;
      return;
    }
  }
  rec.attributes.push_back({a.copy(key), v});
}
// The same for a field: the body or an attribute.
void set(pdata::LogRecord& rec, std::string_view field, pdata::AnyValue v, const pdata::Arena& a) {
  if (field == "body")
    rec.body = v;
  else
    set_attribute(rec, attribute_key(field), v, a);
}

void erase(pdata::LogRecord& rec, std::string_view field) {
  if (field == "body") {
    rec.body = {};
    return;
  }
  const std::string_view key = attribute_key(field);
  auto& at = rec.attributes;
  at.erase(std::remove_if(at.begin(), at.end(), [&](const pdata::KeyValue& kv) { return kv.key == key; }),
           at.end());
}

bool is_text(const pdata::AnyValue* v) {
  return v && (v->kind == pdata::ValueKind::String || v->kind == pdata::ValueKind::Bytes);
}

const char* const kSeverityNames[] = {"",       "TRACE",  "TRACE2", "TRACE3", "TRACE4", "DEBUG",  "DEBUG2",
                                      "DEBUG3", "DEBUG4", "INFO",   "INFO2",  "INFO3",  "INFO4",  "WARN",
                                      "WARN2",  "WARN3",  "WARN4",  "ERROR",  "ERROR2", "ERROR3", "ERROR4",
                                      "FATAL",  "FATAL2", "FATAL3", "FATAL4"};

}  // namespace

struct Operators::Impl {
  struct Op {
    Config config;
    std::unique_ptr<re2::RE2> regex;
    std::vector<std::pair<std::string, int>> groups;  // named groups, in group order
    std::optional<TimestampLayout> layout;
    // Logging of failures: the first, then at most one line every 10 s per operator.
    std::unique_ptr<logging::LogLimit> log = std::make_unique<logging::LogLimit>();
  };
  std::vector<Op> ops;
  simdjson::dom::parser parser;
  std::vector<re2::StringPiece> submatch;
  std::vector<std::string_view> fields;  // csv_parser's, reused
  std::string quoted;                    // csv_parser: a quoted field, unescaped
  std::atomic<std::uint64_t> errors{0}, dropped{0};
  // RFC 3339 with any fraction and a zone (docker and CRI times).
  TimestampLayout rfc3339_ = [] {
    std::string error;
    return *TimestampLayout::compile("%Y-%m-%dT%H:%M:%S.%s%j", error);
  }();

  // The operator's error on this record; what on_error says decides the rest.
  void fail(Op& op, std::string_view why) {
    const auto mode = op.config.on_error;
    if (mode == Config::OnError::kSendQuiet || mode == Config::OnError::kDropQuiet) return;
    std::uint64_t unlogged = 0;
    if (!op.log->allow(unlogged)) return;
    spdlog::warn("filelog operator {}: {}{}", op.config.id, why,
                 unlogged ? fmt::format(" ({} more since the last message)", unlogged) : "");
  }

  // The text a parser reads (its parse_from), or nullopt with `why`.
  static std::optional<std::string_view> source_text(const Op& op, pdata::LogRecord& rec, std::string& why) {
    const pdata::AnyValue* from = find(rec, op.config.parse_from);
    if (is_text(from)) return from->string_value;
    why = op.config.parse_from + " is not a string";
    return std::nullopt;
  }

  bool regex_parse(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, std::string& why) {
    const auto from = source_text(op, rec, why);
    if (!from) return false;
    const std::string_view text = *from;
    submatch.resize(static_cast<std::size_t>(op.regex->NumberOfCapturingGroups()) + 1);
    if (!op.regex->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), re2::RE2::UNANCHORED,
                         submatch.data(), static_cast<int>(submatch.size()))) {
      why = "the regex does not match " + op.config.parse_from;
      return false;
    }
    // The captures are views of the text, which lives in the record's arena already.
    for (const auto& [name, index] : op.groups) {
      const re2::StringPiece& m = submatch[static_cast<std::size_t>(index)];
      if (m.data() == nullptr) continue;  // the group took no part in the match
      set_attribute(rec, name, pdata::AnyValue::string(std::string_view(m.data(), m.size())), a);
    }
    return true;
  }

  bool json_parse(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, std::string& why) {
    const auto from = source_text(op, rec, why);
    if (!from) return false;
    simdjson::dom::element doc;
    simdjson::dom::object obj;
    const std::string_view text = *from;
    if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS ||
        doc.get_object().get(obj) != simdjson::SUCCESS) {
      why = op.config.parse_from + " is not a JSON object";
      return false;
    }
    for (auto field : obj) set_attribute(rec, field.key, json_value(field.value, a), a);
    return true;
  }

  // key_value_parser: `key=value` pairs split by pair_delimiter (whitespace when empty),
  // never inside quotes; a key or value in matching quotes loses them.
  bool key_value_parse(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, std::string& why) {
    const auto from = source_text(op, rec, why);
    if (!from) return false;
    const std::string_view text = *from;  // in the record's arena: pieces stay valid
    const std::string_view pd = op.config.pair_delimiter, kvd = op.config.delimiter;
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    const auto trim = [&](std::string_view x) {
      const std::size_t b = x.find_first_not_of(kSpace);
      if (b == std::string_view::npos) return std::string_view();
      return x.substr(b, x.find_last_not_of(kSpace) - b + 1);
    };
    const auto unquote = [](std::string_view x) {
      if (x.size() >= 2 && (x.front() == '"' || x.front() == '\'') && x.back() == x.front())
        return x.substr(1, x.size() - 2);
      return x;
    };
    std::size_t start = 0;
    char quote = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      bool split = i == text.size();
      if (!split) {
        const char c = text[i];
        if (quote) {
          if (c == quote) quote = 0;
          continue;
        }
        if (c == '"' || c == '\'') {
          quote = c;
          continue;
        }
        split = pd.empty() ? kSpace.find(c) != std::string_view::npos : text.substr(i, pd.size()) == pd;
      }
      if (!split) continue;
      const std::string_view pair = trim(text.substr(start, i - start));
      start = i + (pd.empty() || i == text.size() ? 1 : pd.size());
      if (!pd.empty() && i < text.size()) i += pd.size() - 1;
      if (pair.empty()) continue;
      const std::size_t at = pair.find(kvd);
      if (at == std::string_view::npos) {
        why = "\"" + std::string(pair.substr(0, 64)) + "\" has no \"" + op.config.delimiter + "\"";
        return false;
      }
      const std::string_view key = unquote(trim(pair.substr(0, at)));
      if (key.empty()) continue;
      set_attribute(rec, key, pdata::AnyValue::string(unquote(trim(pair.substr(at + kvd.size())))), a);
    }
    return true;
  }

  // csv_parser: the text's fields, split as Go's encoding/csv does (RFC 4180 quotes, ""
  // inside them; lazy_quotes lets stray quotes through, ignore_quotes does not look for
  // them), become attributes named by the header, which must have as many columns.
  bool csv_parse(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, std::string& why) {
    const auto from = source_text(op, rec, why);
    if (!from) return false;
    const std::string_view text = *from;  // in the record's arena: unquoted fields stay views
    const char delim = op.config.delimiter[0];
    fields.clear();
    std::size_t i = 0;
    while (true) {
      if (op.config.ignore_quotes || i >= text.size() || text[i] != '"') {
        const std::size_t end = std::min(text.find(delim, i), text.size());
        const std::string_view f = text.substr(i, end - i);
        if (!op.config.ignore_quotes && !op.config.lazy_quotes && f.find('"') != std::string_view::npos) {
          why = "bare \" in a field without quotes (lazy_quotes allows it)";
          return false;
        }
        fields.push_back(f);
        if (end == text.size()) break;
        i = end + 1;
        continue;
      }
      // A quoted field: up to the quote that is not doubled; "" is one quote.
      std::string& value = quoted;
      value.clear();
      std::size_t j = i + 1;
      bool closed = false;
      while (j < text.size()) {
        if (text[j] != '"') {
          value += text[j++];
        } else if (j + 1 < text.size() && text[j + 1] == '"') {
          value += '"';
          j += 2;
        } else if (j + 1 == text.size() || text[j + 1] == delim || !op.config.lazy_quotes) {
          closed = true;
          ++j;
          break;
        } else {
          value += text[j++];  // lazy: a quote inside is kept
        }
      }
      if (!closed && !op.config.lazy_quotes) {
        why = "a quoted field is not closed";
        return false;
      }
      if (j < text.size() && text[j] != delim) {
        why = "extraneous \" in a field (lazy_quotes allows it)";
        return false;
      }
      fields.push_back(a.copy(value));
      if (j >= text.size()) break;
      i = j + 1;
    }
    const auto& header = op.config.csv_header;
    if (fields.size() != header.size()) {
      why = "wrong number of fields: expected " + std::to_string(header.size()) + ", found " +
            std::to_string(fields.size());
      return false;
    }
    for (std::size_t k = 0; k < header.size(); ++k)
      set_attribute(rec, header[k], pdata::AnyValue::string(fields[k]), a);
    return true;
  }

  // container: a Kubernetes container log line (docker's JSON, or CRI-O / containerd's
  // "<time> <stream> <tag> <log>") becomes its log as body, log.iostream and its time; the
  // pod's identity comes from the file path
  // (/var/log/pods/<namespace>_<pod>_<uid>/<container>/<restart>.log).
  bool container(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, pdata::Attributes* resource,
                 std::string& why) {
    if (!is_text(&rec.body)) {
      why = "body is not a string";
      return false;
    }
    const std::string_view line = rec.body.string_value;
    const std::string& format = op.config.format;
    std::string_view log, stream, time, tag;
    const bool docker = format == "docker" || (format == "auto" && !line.empty() && line.front() == '{');
    if (docker) {
      simdjson::dom::element doc;
      if (parser.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS ||
          doc["log"].get_string().get(log) != simdjson::SUCCESS) {
        why = "not a docker JSON log line";
        return false;
      }
      if (doc["stream"].get_string().get(stream) != simdjson::SUCCESS) stream = {};
      if (doc["time"].get_string().get(time) != simdjson::SUCCESS) time = {};
      if (!log.empty() && log.back() == '\n') log.remove_suffix(1);
      log = a.copy(log);  // the parser's buffer is reused
      stream = a.copy(stream);
    } else {
      // Views of the line, which is in the arena.
      const auto cri = split_cri_line(line);
      if (!cri || (format == "containerd" && !cri->time.ends_with('Z'))) {
        why = "not a CRI log line (<time> <stream> <tag> <log>)";
        return false;
      }
      time = cri->time;
      stream = cri->stream;
      tag = cri->tag;
      log = cri->log;
    }
    if (!time.empty()) {
      const auto ns = rfc3339_.parse(time, /*utc=*/true);
      if (!ns) {
        why = "time \"" + std::string(time.substr(0, 64)) + "\" is not RFC 3339";
        return false;
      }
      rec.time_unix_nano = static_cast<std::uint64_t>(*ns);
    }
    rec.body = pdata::AnyValue::string(log);
    if (!stream.empty()) set_attribute(rec, "log.iostream", pdata::AnyValue::string(stream), a);
    if (!tag.empty())
      set_attribute(rec, "logtag", pdata::AnyValue::string(tag), a);  // CRI's P / F, as the Collector
    if (op.config.add_metadata_from_filepath && resource) {
      const pdata::AnyValue* path = find(rec, "attributes.log.file.path");
      std::string_view ns, pod, uid, name, restart;
      if (!is_text(path) || !pod_path(path->string_value, ns, pod, uid, name, restart)) {
        why =
            "log.file.path is not /var/log/pods/<namespace>_<pod>_<uid>/<container>/<n>.log "
            "(include_file_path: true is needed)";
        return false;
      }
      const auto put = [&](std::string_view key, std::string_view v) {
        for (auto& kv : *resource) {
          if (kv.key == key) {
            kv.value = pdata::AnyValue::string(v);
            return;
          }
        }
        resource->push_back({key, pdata::AnyValue::string(v)});  // keys are literals
      };
      put("k8s.namespace.name", ns);
      put("k8s.pod.name", pod);
      put("k8s.pod.uid", uid);
      put("k8s.container.name", name);
      put("k8s.container.restart_count", restart);
    }
    return true;
  }

  // ".../<namespace>_<pod>_<uid>/<container>/<restart>.log", pieces of `path`.
  static bool pod_path(std::string_view path, std::string_view& ns, std::string_view& pod,
                       std::string_view& uid, std::string_view& name, std::string_view& restart) {
    if (!path.ends_with(".log")) return false;
    path.remove_suffix(4);
    std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return false;
    restart = path.substr(slash + 1);
    if (restart.empty() || restart.find_first_not_of("0123456789") != std::string_view::npos) return false;
    path = path.substr(0, slash);
    slash = path.rfind('/');
    if (slash == std::string_view::npos) return false;
    name = path.substr(slash + 1);
    path = path.substr(0, slash);
    slash = path.rfind('/');
    const std::string_view dir = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::size_t u1 = dir.find('_'), u2 = u1 == std::string_view::npos ? u1 : dir.find('_', u1 + 1);
    if (u2 == std::string_view::npos || name.empty()) return false;
    ns = dir.substr(0, u1);
    pod = dir.substr(u1 + 1, u2 - u1 - 1);
    uid = dir.substr(u2 + 1);
    return !ns.empty() && !pod.empty() && !uid.empty();
  }

  // trace_parser: hex trace id (32 digits), span id (16) and trace flags (2) from their
  // fields; a field that is absent is left alone, one that is not such hex is an error.
  static bool trace(const Op& op, pdata::LogRecord& rec, std::string& why) {
    const auto hex = [&](std::string_view field, std::uint8_t* out, std::size_t bytes) {
      const pdata::AnyValue* v = find(rec, field);
      if (!v) return true;
      const std::string_view t = is_text(v) ? v->string_value : std::string_view();
      const auto digit = tern::text::hex_digit;
      bool ok = t.size() == 2 * bytes;
      for (std::size_t i = 0; ok && i < bytes; ++i) {
        const int hi = digit(t[2 * i]), lo = digit(t[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        if (ok) out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
      }
      if (!ok) why = std::string(field) + " is not " + std::to_string(2 * bytes) + " hex digits";
      return ok;
    };
    pdata::TraceId trace_id = rec.trace_id;
    pdata::SpanId span_id = rec.span_id;
    std::uint8_t flags = static_cast<std::uint8_t>(rec.flags);
    if (!hex(op.config.trace_id_from, trace_id.data(), trace_id.size()) ||
        !hex(op.config.span_id_from, span_id.data(), span_id.size()) ||
        !hex(op.config.trace_flags_from, &flags, 1))
      return false;
    rec.trace_id = trace_id;
    rec.span_id = span_id;
    rec.flags = (rec.flags & ~0xffu) | flags;
    return true;
  }

  bool timestamp(Op& op, pdata::LogRecord& rec, std::string& why) {
    const Config::Timestamp& ts = *op.config.timestamp;
    const pdata::AnyValue* v = find(rec, ts.parse_from);
    std::optional<std::int64_t> ns;
    if (is_text(v)) {
      ns = ts.epoch ? parse_epoch(v->string_value, ts.layout) : op.layout->parse(v->string_value, ts.utc);
    } else if (v && ts.epoch && v->kind == pdata::ValueKind::Int) {
      ns = epoch_from_integer(v->int_value, ts.layout);
    } else if (v && ts.epoch && v->kind == pdata::ValueKind::Double) {
      ns = epoch_from_number(v->double_value, ts.layout);
    } else {
      why = "timestamp: " + ts.parse_from + (v ? " is not a string" : " is missing");
      return false;
    }
    if (!ns) {
      why = "timestamp: " + ts.parse_from + " does not match the layout \"" + ts.layout + "\"";
      return false;
    }
    rec.time_unix_nano = static_cast<std::uint64_t>(*ns);
    return true;
  }

  bool severity(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, std::string& why) {
    const Config::Severity& sv = *op.config.severity;
    const pdata::AnyValue* v = find(rec, sv.parse_from);
    std::string text;
    std::optional<std::int64_t> number;
    if (is_text(v)) {
      text = v->string_value;
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec == std::errc() && end == text.data() + text.size()) number = n;
    } else if (v && v->kind == pdata::ValueKind::Int) {
      number = v->int_value;
      text = std::to_string(*number);
    } else {
      why = "severity: " + sv.parse_from + (v ? " is neither a string nor an integer" : " is missing");
      return false;
    }
    const std::string lower = tern::text::ascii_lower(text);
    std::int32_t found = 0;  // unmapped: the default severity, as in the Collector
    for (const auto& m : sv.mapping) {
      if (m.text.empty() ? (number && *number >= m.min && *number <= m.max) : m.text == lower) {
        found = m.number;
        break;
      }
    }
    rec.severity_number = found;
    rec.severity_text = sv.overwrite_text && found ? std::string_view(kSeverityNames[found]) : a.copy(text);
    return true;
  }

  // One operator on one record; false with `why` on an error.
  bool run(Op& op, pdata::LogRecord& rec, const pdata::Arena& a, pdata::Attributes* resource,
           std::string& why) {
    const Config& c = op.config;
    switch (c.type) {
      case Type::kContainer:
        return container(op, rec, a, resource, why);
      case Type::kTraceParser:
        return trace(op, rec, why);
      case Type::kRegexParser:
        if (!regex_parse(op, rec, a, why)) return false;
        break;
      case Type::kJsonParser:
        if (!json_parse(op, rec, a, why)) return false;
        break;
      case Type::kKeyValueParser:
        if (!key_value_parse(op, rec, a, why)) return false;
        break;
      case Type::kCsvParser:
        if (!csv_parse(op, rec, a, why)) return false;
        break;
      case Type::kTimeParser:
      case Type::kSeverityParser:
        break;  // their blocks below
      case Type::kRemove:
        erase(rec, c.field);
        return true;
      case Type::kAdd:
        set(rec, c.field, pdata::AnyValue::string(a.copy(c.value)), a);
        return true;
      case Type::kMove:
      case Type::kCopy: {
        const pdata::AnyValue* from = find(rec, c.from);
        if (!from || (c.from == "body" && from->kind == pdata::ValueKind::Empty)) {
          why = c.from + " is missing";
          return false;
        }
        const pdata::AnyValue v = *from;
        if (c.type == Type::kMove) erase(rec, c.from);
        set(rec, c.to, v, a);
        return true;
      }
      case Type::kRetain: {
        auto& at = rec.attributes;
        at.erase(std::remove_if(at.begin(), at.end(),
                                [&](const pdata::KeyValue& kv) {
                                  return std::none_of(
                                      c.fields.begin(), c.fields.end(),
                                      [&](const std::string& f) { return attribute_key(f) == kv.key; });
                                }),
                 at.end());
        return true;
      }
    }
    if (c.timestamp && !timestamp(op, rec, why)) return false;
    if (c.severity && !severity(op, rec, a, why)) return false;
    return true;
  }
};

std::optional<CriLine> split_cri_line(std::string_view line) {
  const std::size_t t = line.find(' ');
  const std::size_t s = t == std::string_view::npos ? t : line.find(' ', t + 1);
  if (s == std::string_view::npos) return std::nullopt;
  const std::size_t g = line.find(' ', s + 1);
  CriLine c;
  c.time = line.substr(0, t);
  c.stream = line.substr(t + 1, s - t - 1);
  if (c.stream != "stdout" && c.stream != "stderr") return std::nullopt;
  c.tag = line.substr(s + 1, g == std::string_view::npos ? std::string_view::npos : g - s - 1);
  if (g != std::string_view::npos) {
    c.log_at = g + 1;
    c.log = line.substr(c.log_at);
  }
  return c;
}

Operators::Operators(const std::vector<receiver::filelog::FilelogOperatorConfig>& ops)
    : impl_(std::make_unique<Impl>()) {
  for (const auto& c : ops) {
    Impl::Op op;
    op.config = c;
    if (c.type == Type::kRegexParser) {
      op.regex = std::make_unique<re2::RE2>(c.regex, re2::RE2::Quiet);
      if (!op.regex->ok()) throw std::invalid_argument("filelog operator " + c.id + ": " + op.regex->error());
      for (const auto& [name, index] : op.regex->NamedCapturingGroups()) op.groups.emplace_back(name, index);
      std::sort(op.groups.begin(), op.groups.end(),
                [](const auto& x, const auto& y) { return x.second < y.second; });
    }
    if (c.timestamp && !c.timestamp->epoch) {
      std::string error;
      op.layout = TimestampLayout::compile(c.timestamp->layout, error);
      if (!op.layout)
        throw std::invalid_argument("filelog operator " + c.id + ": timestamp layout: " + error);
    }
    impl_->ops.push_back(std::move(op));
  }
}

Operators::~Operators() {
  if (!impl_) return;
  for (auto& op : impl_->ops) {  // what the rate limit held back since its last line
    if (const auto n = op.log->take_suppressed())
      spdlog::warn("filelog operator {}: {} more failures since the last message", op.config.id, n);
  }
}

bool Operators::empty() const { return impl_->ops.empty(); }

bool Operators::apply(pdata::LogRecord& rec, const pdata::Arena& a, pdata::Attributes* resource) {
  std::string why;
  bool failed = false;
  for (auto& op : impl_->ops) {
    why.clear();
    if (impl_->run(op, rec, a, resource, why)) continue;
    failed = true;
    impl_->fail(op, why);
    const auto mode = op.config.on_error;
    if (mode == Config::OnError::kDrop || mode == Config::OnError::kDropQuiet) {
      impl_->errors.fetch_add(1, std::memory_order_relaxed);
      impl_->dropped.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    // send: the record goes on, through the next operators, as the Collector does.
  }
  if (failed) impl_->errors.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::uint64_t Operators::errors() const { return impl_->errors.load(std::memory_order_relaxed); }
std::uint64_t Operators::dropped() const { return impl_->dropped.load(std::memory_order_relaxed); }

}  // namespace tern::receiver::filelog
