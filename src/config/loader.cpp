#include "config/loader.h"

#include <fmt/format.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "encoding/base64.h"
#include "ottl/condition.h"
#include "ottl/statement.h"
#include "receiver/filelog/timestamp_layout.h"
#include "text/ascii.h"
#include "text/endpoint.h"
#include "text/numbers.h"

namespace tern::config {
namespace {

// The largest protocols.http.max_request_body_size of an OTLP receiver (see its check).
constexpr std::uint64_t kMaxHttpRequestBody = std::uint64_t{2} << 30;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

// " (did you mean "x"?)" for the closest candidate within a small edit distance.
// Where `path` (keys from `root`) is in the file, or its deepest written ancestor: a value
// that came through a merge key (`<<: *anchor`) is not a child of the node the config names,
// and yaml-cpp throws for the Mark() of a node that does not exist.
YAML::Mark mark_of(const YAML::Node& root, std::initializer_list<std::string_view> path) {
  YAML::Node node;
  node.reset(root);  // reset() rebinds; operator= would assign into the config's own tree
  for (const auto key : path) {
    if (!node.IsMap()) break;
    const YAML::Node child = std::as_const(node)[std::string(key)];  // const: creates nothing
    if (!child.IsDefined()) break;
    node.reset(child);
  }
  return node.Mark();
}

std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_d && d < c.size()) best_d = d, best = c;
  }
  return best.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", best);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class Ctx {
 public:
  Ctx(std::string file, const EnvLookup& env, Diagnostics& d)
      : file_(std::move(file)), env_(env), diags_(d) {}

  void error(const YAML::Mark& m, std::string msg) { report(Severity::kError, m, std::move(msg)); }
  void warning(const YAML::Mark& m, std::string msg) { report(Severity::kWarning, m, std::move(msg)); }

  // The scalar's text after env substitution; nullopt (reported) otherwise.
  std::optional<std::string> scalar(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) {
      error(n.Mark(), fmt::format("{}: expected a scalar value", path));
      return std::nullopt;
    }
    auto r = substitute_env(n.Scalar(), env_);
    if (!r) {
      error(n.Mark(), fmt::format("{}: {}", path, r.error));
      return std::nullopt;
    }
    return std::move(*r.value);
  }

 private:
  void report(Severity s, const YAML::Mark& m, std::string msg) {
    bool known = m.line >= 0 && m.column >= 0;
    diags_.add(s, file_, known ? m.line + 1 : 0, known ? m.column + 1 : 0, std::move(msg));
  }
  std::string file_;
  const EnvLookup& env_;
  Diagnostics& diags_;

 public:
  const EnvLookup& env() const { return env_; }
};

// Reads one mapping: each accessor marks its key as known; finish() reports the rest.
class MapReader {
 public:
  MapReader(Ctx& ctx, const YAML::Node& node, std::string path) : ctx_(ctx), path_(std::move(path)) {
    if (!node.IsDefined()) return;  // absent means all defaults
    mark_ = node.Mark();
    if (node.IsNull()) return;  // `key:` means all defaults too
    if (!node.IsMap()) {
      ctx_.error(node.Mark(), fmt::format("{}: expected a mapping", where()));
      return;
    }
    std::vector<YAML::Node> merges;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) {
        ctx_.error(it->first.Mark(), fmt::format("{}: keys must be scalars", where()));
        continue;
      }
      std::string key = it->first.Scalar();
      if (std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; })) {
        ctx_.error(it->first.Mark(), fmt::format("duplicate key \"{}\" in {}", key, where()));
        continue;
      }
      if (key == "<<" && it->first.Tag() != "!") {  // a YAML merge key; a quoted "<<" is a key
        merges.push_back(it->second);
        continue;
      }
      entries_.push_back({key, it->first, it->second, false});
    }
    merge(merges);
  }
  MapReader(const MapReader&) = delete;
  ~MapReader() { finish(); }

  // YAML merge keys (`<<: *defaults`, or a list of aliases), as the Collector's YAML parser
  // takes them and yaml-cpp does not: the merged mappings' keys that the mapping does not
  // set itself, the earlier of several merged mappings first. Shallow, as the YAML spec says.
  void merge(const std::vector<YAML::Node>& merges) {
    for (const auto& m : merges) {
      std::vector<YAML::Node> sources;
      if (m.IsMap()) {
        sources.push_back(m);
      } else if (m.IsSequence()) {
        for (const auto& item : m) sources.push_back(item);
      }
      if (sources.empty() ||
          !std::all_of(sources.begin(), sources.end(), [](const YAML::Node& n) { return n.IsMap(); })) {
        ctx_.error(m.Mark(),
                   fmt::format("{}: a merge key (<<) takes a mapping or a list of mappings", where()));
        continue;
      }
      for (const auto& source : sources)
        for (auto it = source.begin(); it != source.end(); ++it) {
          if (!it->first.IsScalar()) continue;
          const std::string key = it->first.Scalar();
          if (std::none_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; }))
            entries_.push_back({key, it->first, it->second, false});
        }
    }
  }

  const std::string& path() const { return path_; }
  // The path for messages: the top level has an empty path.
  std::string where() const { return path_.empty() ? "the config" : path_; }
  // Where to point at a problem with `key`: its value when present, else this mapping.
  YAML::Mark mark(std::string_view key) const {
    for (const auto& e : entries_) {
      // A null value (`key:`) has the position of whatever follows it; the key is clearer.
      if (e.key == key) return e.value.IsNull() ? e.key_node.Mark() : e.value.Mark();
    }
    return mark_;
  }
  std::string sub_path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  // The value node for `key` (invalid if absent); records it as a known key.
  YAML::Node get(std::string_view key) {
    known_.emplace_back(key);
    for (auto& e : entries_) {
      if (e.key == key) {
        e.used = true;
        return e.value;
      }
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }
  bool has(std::string_view key) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  }
  // Entries in file order, for maps whose keys are names (components, pipelines).
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
    bool used;
  };
  std::vector<Entry>& entries() {
    for (auto& e : entries_) e.used = true;
    return entries_;
  }

  void str(std::string_view key, std::string& out) {
    auto n = present(key);
    if (!n) return;
    if (auto v = ctx_.scalar(*n, sub_path(key))) out = *v;
  }
  void boolean(std::string_view key, bool& out) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    if (*v == "true" || *v == "True" || *v == "TRUE") {
      out = true;
    } else if (*v == "false" || *v == "False" || *v == "FALSE") {
      out = false;
    } else {
      ctx_.error(n->Mark(), fmt::format("{}: expected true or false, got \"{}\"", sub_path(key), *v));
    }
  }
  // False when the key is there and its value was refused (reported): checks that combine
  // keys skip what would only repeat that error.
  bool uint(std::string_view key, std::uint64_t& out, std::uint64_t max = UINT64_MAX) {
    auto n = present(key);
    if (!n) return true;
    auto v = parse_uint(*n, sub_path(key), max);
    if (v) out = *v;
    return v.has_value();
  }
  // A finite number in [min, max].
  void number(std::string_view key, double& out, double min, double max) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    const std::optional<double> d = tern::text::parse_whole<double>(*v);
    if (!d || !(*d >= min && *d <= max)) {
      ctx_.error(n->Mark(),
                 fmt::format("{}: expected a number from {} to {}, got \"{}\"", sub_path(key), min, max, *v));
      return;
    }
    out = *d;
  }
  void duration(std::string_view key, Duration& out) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    auto d = parse_duration(*v);
    if (!d) return ctx_.error(n->Mark(), fmt::format("{}: {}", sub_path(key), d.error));
    out = *d.value;
  }
  void size(std::string_view key, std::uint64_t& out) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    auto d = parse_size(*v);
    if (!d) return ctx_.error(n->Mark(), fmt::format("{}: {}", sub_path(key), d.error));
    out = *d.value;
  }
  void strings(std::string_view key, std::vector<std::string>& out) {
    auto n = present(key);
    if (!n) return;
    if (!n->IsSequence()) return ctx_.error(n->Mark(), fmt::format("{}: expected a list", sub_path(key)));
    out.clear();
    for (const auto& item : *n) {
      if (auto v = ctx_.scalar(item, sub_path(key))) out.push_back(*v);
    }
  }
  void uints(std::string_view key, std::vector<std::uint64_t>& out, std::uint64_t max) {
    auto n = present(key);
    if (!n) return;
    if (!n->IsSequence()) return ctx_.error(n->Mark(), fmt::format("{}: expected a list", sub_path(key)));
    out.clear();
    for (const auto& item : *n) {
      if (auto v = parse_uint(item, sub_path(key), max)) out.push_back(*v);
    }
  }
  void string_map(std::string_view key, std::map<std::string, std::string>& out) {
    auto n = present(key);
    if (!n) return;
    if (!n->IsMap()) return ctx_.error(n->Mark(), fmt::format("{}: expected a mapping", sub_path(key)));
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (!it->first.IsScalar()) {
        ctx_.error(it->first.Mark(), fmt::format("{}: keys must be scalars", sub_path(key)));
        continue;
      }
      if (auto v = ctx_.scalar(it->second, sub_path(key) + "." + it->first.Scalar()))
        out[it->first.Scalar()] = *v;
    }
  }
  template <class E>
  // `any_case`: the value is matched in any case (`INFO`, as the Collector's log levels).
  void choice(std::string_view key, E& out, std::initializer_list<std::pair<const char*, E>> options,
              bool any_case = false) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    const std::string match = any_case ? tern::text::ascii_lower(*v) : *v;
    std::vector<std::string> names;
    for (const auto& [name, value] : options) {
      if (match == name) {
        out = value;
        return;
      }
      names.emplace_back(name);
    }
    invalid_value(n->Mark(), key, *v, names);
  }
  // A string setting that must be one of `names`, kept as written.
  // `canonical`: the value's canonical form, which must be one of `names` and is kept.
  void one_of(std::string_view key, std::string& out, const std::vector<std::string>& names,
              std::string (*canonical)(const std::string&) = nullptr) {
    auto n = present(key);
    if (!n) return;
    auto v = ctx_.scalar(*n, sub_path(key));
    if (!v) return;
    std::string value = canonical ? canonical(*v) : *v;
    if (std::find(names.begin(), names.end(), value) != names.end())
      out = std::move(value);
    else
      invalid_value(n->Mark(), key, *v, names);
  }
  void invalid_value(const YAML::Mark& at, std::string_view key, const std::string& value,
                     const std::vector<std::string>& names) {
    ctx_.error(at, fmt::format("{}: invalid value \"{}\" (expected one of: {}){}", sub_path(key), value,
                               join(names), suggest(value, names)));
  }

  void finish() {
    if (finished_) return;
    finished_ = true;
    for (const auto& e : entries_) {
      if (e.used) continue;
      ctx_.error(e.key_node.Mark(),
                 fmt::format("unknown key \"{}\" in {}{}", e.key, where(), suggest(e.key, known_)));
    }
  }

 private:
  // Absent and null values keep the default.
  std::optional<YAML::Node> present(std::string_view key) {
    YAML::Node n = get(key);
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    return n;
  }
  std::optional<std::uint64_t> parse_uint(const YAML::Node& n, const std::string& path, std::uint64_t max) {
    const auto v = ctx_.scalar(n, path);
    if (!v) return std::nullopt;
    const std::string plain = without_digit_groups(*v);
    const std::string_view text = plain;
    const std::optional<std::uint64_t> out = tern::text::parse_whole<std::uint64_t>(text);
    if (!out || *out > max) {
      ctx_.error(n.Mark(),
                 max == UINT64_MAX
                     ? fmt::format("{}: expected a non-negative integer, got \"{}\"", path, text)
                     : fmt::format("{}: expected an integer from 0 to {}, got \"{}\"", path, max, text));
      return std::nullopt;
    }
    return out;
  }

  Ctx& ctx_;
  std::string path_;
  YAML::Mark mark_ = YAML::Mark::null_mark();
  std::vector<Entry> entries_;
  std::vector<std::string> known_;
  bool finished_ = false;
};

// ---- component decoders; each reads a mapping at `r` and validates it ----

// Listening addresses are "host:port" (host may be empty, a name, an IPv4 address or a
// bracketed IPv6 address); catching a missing port here beats a bind error at startup.
void check_host_port(Ctx& ctx, const MapReader& r, std::string_view key, const std::string& value) {
  auto colon = value.rfind(':');
  std::string_view host =
      colon == std::string::npos ? std::string_view() : std::string_view(value).substr(0, colon);
  std::string_view port =
      colon == std::string::npos ? std::string_view() : std::string_view(value).substr(colon + 1);
  const std::optional<unsigned> p = tern::text::parse_whole<unsigned>(port);
  bool ok = colon != std::string::npos && p && *p <= 65535 && value.find("://") == std::string::npos;
  if (ok && host.find(':') != std::string_view::npos) ok = host.starts_with('[') && host.ends_with(']');
  if (!ok) {
    ctx.error(r.mark(key), fmt::format("{}: expected host:port (e.g. \"127.0.0.1:4318\"), got \"{}\"",
                                       r.sub_path(key), value));
  }
}

// A retry block's back-off bounds (the Elasticsearch exporter's `retry`, the OTLP
// exporters' `retry_on_failure`).
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

// Back-off intervals are kept in milliseconds: a smaller initial interval (0 included) would
// retry in a tight loop.
void check_backoff(Ctx& ctx, MapReader& rt, Duration initial, Duration max) {
  if (initial < std::chrono::milliseconds(1))
    ctx.error(rt.mark("initial_interval"),
              fmt::format("{}: initial_interval must be at least 1ms", rt.path()));
  else if (max < initial)
    ctx.error(rt.mark("max_interval"),
              fmt::format("{}: max_interval must not be smaller than initial_interval", rt.path()));
}

// `min_version` and `max_version` of a `tls` block (the Collector's configtls keys). `grpc`:
// the block configures gRPC, whose grpc++ (1.51) always offers TLS 1.2 and 1.3 and has no
// way to narrow that: a bound that would narrow it is an error there, not a silent no-op.
void decode_tls_versions(Ctx& ctx, MapReader& r, net::TlsVersion& min, net::TlsVersion& max, bool grpc) {
  const auto one = [&](std::string_view key, net::TlsVersion& out) {
    const bool present = r.has(key);
    std::string text;
    r.str(key, text);
    if (!present) return;
    if (const auto v = net::parse_tls_version(text)) {
      out = *v;
    } else if (text == "1.0" || text == "1.1") {
      ctx.error(r.mark(key), fmt::format("{}: TLS {} is not supported: Tern speaks TLS 1.2 and 1.3",
                                         r.sub_path(key), text));
    } else {
      ctx.error(r.mark(key),
                fmt::format("{}: invalid value \"{}\" (expected one of: 1.2, 1.3)", r.sub_path(key), text));
    }
  };
  one("min_version", min);
  one("max_version", max);
  if (min == net::TlsVersion::k1_3 && max == net::TlsVersion::k1_2) {
    ctx.error(r.mark("max_version"),
              fmt::format("{}: \"1.2\" is below min_version \"1.3\"", r.sub_path("max_version")));
  } else if (grpc && (min == net::TlsVersion::k1_3 || max == net::TlsVersion::k1_2)) {
    const char* key = min == net::TlsVersion::k1_3 ? "min_version" : "max_version";
    ctx.error(r.mark(key), fmt::format("{}: gRPC always offers TLS 1.2 and 1.3 (its library cannot narrow "
                                       "that); a single TLS version can be required over OTLP/HTTP only",
                                       r.sub_path(key)));
  }
}

// A receiver protocol's `tls`: on when cert_file and key_file are set.
void decode_server_tls(Ctx& ctx, MapReader& parent, TlsServerConfig& t, bool grpc) {
  if (!parent.has("tls")) return;
  YAML::Node n = parent.get("tls");
  MapReader r(ctx, n, parent.sub_path("tls"));
  r.str("cert_file", t.cert_file);
  r.str("key_file", t.key_file);
  r.str("client_ca_file", t.client_ca_file);
  decode_tls_versions(ctx, r, t.min_version, t.max_version, grpc);
  if (t.cert_file.empty() || t.key_file.empty()) {
    ctx.error(n.Mark(), fmt::format("{}: cert_file and key_file are required for TLS", r.path()));
  }
}

// protocols.http.{logs,traces,metrics}_url_path, as the Collector reads them: empty is the
// default, a relative path gets its leading '/'. What the Collector would route oddly or not
// at all is an error here: a query (it drops it), a fragment, percent-escapes (it matches
// the decoded path), a trailing '/' or braces (a prefix or a wildcard there), bytes a request
// line cannot carry, and two signals on one path (its ServeMux refuses the second at start).
// profiles_url_path is read and unused: Tern has no profiles signal.
void decode_url_paths(Ctx& ctx, MapReader& h, OtlpReceiverConfig::Http& c) {
  h.get("profiles_url_path");
  const std::pair<const char*, std::string*> keys[] = {{"logs_url_path", &c.logs_url_path},
                                                       {"traces_url_path", &c.traces_url_path},
                                                       {"metrics_url_path", &c.metrics_url_path}};
  for (const auto& [key, path] : keys) {
    if (!h.has(key)) continue;
    std::string v;
    h.str(key, v);
    if (v.empty()) continue;  // omitempty: the default
    if (v.front() != '/') v.insert(v.begin(), '/');
    const auto bad = std::find_if(v.begin(), v.end(), [](char ch) {
      const auto u = static_cast<unsigned char>(ch);
      return u <= 0x20 || u >= 0x7f || ch == '?' || ch == '#' || ch == '%' || ch == '{' || ch == '}';
    });
    if (bad != v.end()) {
      ctx.error(h.mark(key), fmt::format("{}: \"{}\": a URL path without query, fragment, percent-escapes, "
                                         "braces, spaces or control characters is required",
                                         h.sub_path(key), v));
      continue;
    }
    // The Collector's ServeMux reads a pattern ending in '/' as a prefix and {x} as a
    // wildcard; Tern matches exact paths, so neither is taken rather than read differently.
    if (v.back() == '/') {
      ctx.error(h.mark(key),
                fmt::format("{}: \"{}\": a path ending in '/' (a prefix in the Collector) is not "
                            "supported; give the exact path",
                            h.sub_path(key), v));
      continue;
    }
    *path = std::move(v);
  }
  for (std::size_t i = 0; i < std::size(keys); ++i)
    for (std::size_t j = i + 1; j < std::size(keys); ++j)
      if (*keys[i].second == *keys[j].second) {
        // Said at the key that was set (the other may be a default).
        const bool j_set = h.has(keys[j].first);
        const char* set = j_set ? keys[j].first : keys[i].first;
        const char* other = j_set ? keys[i].first : keys[j].first;
        ctx.error(h.mark(set), fmt::format("{}: \"{}\" is also {}: each signal needs a path of its own",
                                           h.sub_path(set), *keys[j].second, h.sub_path(other)));
      }
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, OtlpReceiverConfig& c) {
  MapReader protocols(ctx, r.get("protocols"), r.sub_path("protocols"));
  r.get("include_metadata");  // accepted for compatibility, ignored
  // Read both up front so that a misspelt protocol gets a "did you mean" suggestion.
  YAML::Node grpc = protocols.get("grpc");
  YAML::Node http = protocols.get("http");
  if (protocols.has("grpc")) {
    c.grpc.enabled = true;
    MapReader g(ctx, grpc, protocols.sub_path("grpc"));
    g.str("endpoint", c.grpc.endpoint);
    check_host_port(ctx, g, "endpoint", c.grpc.endpoint);
    // gRPC counts a message's size in an int: 2047 MiB at most. 0: the default (the Collector's
    // 0 leaves gRPC's own 4 MiB).
    g.uint("max_recv_msg_size_mib", c.grpc.max_recv_msg_size_mib, 2047);
    if (c.grpc.max_recv_msg_size_mib == 0)
      c.grpc.max_recv_msg_size_mib = OtlpReceiverConfig{}.grpc.max_recv_msg_size_mib;
    g.get("include_metadata");
    decode_server_tls(ctx, g, c.grpc.tls, /*grpc=*/true);
  }
  if (protocols.has("http")) {
    c.http.enabled = true;
    MapReader h(ctx, http, protocols.sub_path("http"));
    h.str("endpoint", c.http.endpoint);
    check_host_port(ctx, h, "endpoint", c.http.endpoint);
    h.size("max_request_body_size", c.http.max_request_body_size);
    // A body is held whole in memory (twice while gunzipped), and gRPC, the other protocol,
    // takes at most 2047 MiB: anything over 2 GiB is a typo or "no limit", which a server
    // that buffers requests cannot offer.
    if (c.http.max_request_body_size > kMaxHttpRequestBody) {
      ctx.error(h.mark("max_request_body_size"),
                fmt::format("{}: {} bytes is over the largest allowed, 2GiB",
                            h.sub_path("max_request_body_size"), c.http.max_request_body_size));
      c.http.max_request_body_size = kMaxHttpRequestBody;
    }
    // 0: the default, as in the Collector's confighttp (not "refuse every body").
    if (c.http.max_request_body_size == 0)
      c.http.max_request_body_size = OtlpReceiverConfig{}.http.max_request_body_size;
    h.get("include_metadata");
    decode_server_tls(ctx, h, c.http.tls, /*grpc=*/false);
    MapReader cors(ctx, h.get("cors"), h.sub_path("cors"));
    cors.strings("allowed_origins", c.http.cors_allowed_origins);
    cors.strings("allowed_headers", c.http.cors_allowed_headers);
    // The Collector's key (its README's example sets 7200, Tern's default).
    cors.uint("max_age", c.http.cors_max_age, INT32_MAX);
    decode_url_paths(ctx, h, c.http);
  }
  if (!c.grpc.enabled && !c.http.enabled) {
    ctx.error(at, fmt::format("{}: at least one protocol (grpc or http) must be configured under protocols",
                              r.path()));
  }
}

// ---- filelog operators (the Collector's stanza operators; the subset Tern runs) ----------

// `body`, `attributes.<key>` or `attributes["<key>"]`, normalized to `body` / `attributes.<key>`.
std::optional<std::string> operator_field(Ctx& ctx, MapReader& r, std::string_view key, bool required) {
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

void add_severity_value(Ctx& ctx, const YAML::Node& n, const std::string& path, std::int32_t number,
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
FilelogOperatorConfig::Severity decode_severity(Ctx& ctx, MapReader& r) {
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
FilelogOperatorConfig::Timestamp decode_timestamp(Ctx& ctx, MapReader& r) {
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

void decode_operator(Ctx& ctx, const YAML::Node& n, const std::string& path, FilelogOperatorConfig& op) {
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

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, FilelogReceiverConfig& c) {
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

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, BatchProcessorConfig& c) {
  r.uint("send_batch_size", c.send_batch_size);
  r.uint("send_batch_max_size", c.send_batch_max_size);
  r.duration("timeout", c.timeout);
  r.size("send_batch_max_bytes", c.send_batch_max_bytes);
  if (c.send_batch_max_size != 0 && c.send_batch_max_size < c.send_batch_size) {
    ctx.error(r.mark("send_batch_max_size"),
              fmt::format("{}: send_batch_max_size must be 0 or at least send_batch_size", r.path()));
  }
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, MemoryLimiterProcessorConfig& c) {
  r.duration("check_interval", c.check_interval);
  // MiB are shifted into bytes: larger values would wrap into small limits.
  const bool mib_read = r.uint("limit_mib", c.limit_mib, UINT64_MAX >> 20);
  r.uint("spike_limit_mib", c.spike_limit_mib, UINT64_MAX >> 20);
  const bool percentage_read = r.uint("limit_percentage", c.limit_percentage, 100);
  r.uint("spike_limit_percentage", c.spike_limit_percentage, 100);
  if (c.check_interval <= Duration{0}) {
    ctx.error(r.mark("check_interval"), fmt::format("{}: check_interval must be greater than 0", r.path()));
  }
  // A limit that was set but refused (`limit_percentage: 101`) is reported already; "set one"
  // on top of it was false.
  if (mib_read && percentage_read && c.limit_mib == 0 && c.limit_percentage == 0) {
    ctx.error(at, fmt::format("{}: one of limit_mib or limit_percentage must be set", r.path()));
  }
  if (c.limit_mib != 0 && c.spike_limit_mib >= c.limit_mib) {
    ctx.error(r.mark("spike_limit_mib"),
              fmt::format("{}: spike_limit_mib must be smaller than limit_mib", r.path()));
  }
  if (c.limit_percentage != 0 && c.spike_limit_percentage >= c.limit_percentage) {
    ctx.error(r.mark("spike_limit_percentage"),
              fmt::format("{}: spike_limit_percentage must be smaller than limit_percentage", r.path()));
  }
}

// `resourcedetection`: Tern has the Collector's `env` and `system` detectors; the others ask
// cloud or container APIs and are refused by name.
void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, ResourceDetectionProcessorConfig& c) {
  static const std::vector<std::string> kDetectors{"env", "system"};
  static const std::vector<std::string> kSystemAttributes{"host.name", "host.id", "host.arch", "os.type",
                                                          "os.description"};
  // The Collector's other detectors, named as such rather than "did you mean env".
  static const std::set<std::string> kCollectorOnly{
      "aks",       "akamai",      "alibaba_ecs", "azure",   "consul",  "digitalocean",
      "docker",    "dynatrace",   "ec2",         "ecs",     "eks",     "elasticbeanstalk",
      "gcp",       "heroku",      "hetzner",     "k8snode", "kubeadm", "lambda",
      "openshift", "oraclecloud", "scaleway",    "upcloud", "vultr"};
  r.strings("detectors", c.detectors);
  for (const auto& d : c.detectors) {
    if (std::find(kDetectors.begin(), kDetectors.end(), d) != kDetectors.end()) continue;
    if (kCollectorOnly.count(d))
      ctx.error(r.mark("detectors"),
                fmt::format("{}: detector \"{}\" is not in Tern, which has env and system only (set such "
                            "attributes with a resource processor)",
                            r.sub_path("detectors"), d));
    else
      ctx.error(r.mark("detectors"), fmt::format("{}: unknown detector \"{}\" (Tern has: env, system){}",
                                                 r.sub_path("detectors"), d, suggest(d, kDetectors)));
  }
  if (c.detectors.empty())
    ctx.error(r.has("detectors") ? r.mark("detectors") : at,
              fmt::format("{}: detectors must list at least one detector (env, system)", r.path()));
  r.boolean("override", c.override_existing);
  Duration timeout{};
  r.duration("timeout", timeout);  // detection here is local and does not wait on anything
  MapReader sys(ctx, r.get("system"), r.sub_path("system"));
  sys.strings("hostname_sources", c.hostname_sources);
  for (const auto& src : c.hostname_sources) {
    if (src != "dns" && src != "os")
      ctx.error(sys.mark("hostname_sources"),
                fmt::format("{}: hostname source \"{}\" is not one Tern has (it has: dns, os)",
                            sys.sub_path("hostname_sources"), src));
  }
  if (sys.has("hostname_sources") && c.hostname_sources.empty())
    ctx.error(sys.mark("hostname_sources"),
              fmt::format("{}: hostname_sources must not be empty", sys.sub_path("hostname_sources")));
  MapReader attrs(ctx, sys.get("resource_attributes"), sys.sub_path("resource_attributes"));
  for (auto& e : attrs.entries()) {
    MapReader one(ctx, e.value, attrs.sub_path(e.key));
    if (std::find(kSystemAttributes.begin(), kSystemAttributes.end(), e.key) == kSystemAttributes.end()) {
      one.entries();  // the attribute is what is wrong, not its keys
      ctx.error(e.key_node.Mark(),
                fmt::format("{}: the system detector in Tern has no attribute \"{}\" (it has: {}){}",
                            attrs.path(), e.key, join(kSystemAttributes),
                            // host.ip, os.version, ...: the Collector's, not a misspelling
                            e.key.starts_with("host.") || e.key.starts_with("os.")
                                ? std::string()
                                : suggest(e.key, kSystemAttributes)));
      continue;
    }
    auto& on = c.system_attributes;
    bool enabled = std::find(on.begin(), on.end(), e.key) != on.end();
    one.boolean("enabled", enabled);
    on.erase(std::remove(on.begin(), on.end(), e.key), on.end());
    if (enabled) on.push_back(e.key);
  }
}

// `filter`: OTTL conditions per context, each parsed here so that a mistake is a config
// error at its line, not a surprise at run time.
void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, FilterProcessorConfig& c) {
  using E = FilterProcessorConfig::ErrorMode;
  r.choice("error_mode", c.error_mode,
           {{"propagate", E::kPropagate}, {"ignore", E::kIgnore}, {"silent", E::kSilent}});
  bool any = false;
  const auto conditions = [&](MapReader& m, std::string_view key, ottl::Context context,
                              std::vector<std::string>& out) {
    const YAML::Node n = m.get(key);
    if (!n.IsDefined() || n.IsNull()) return;
    if (!n.IsSequence())
      return ctx.error(n.Mark(), fmt::format("{}: expected a list of conditions", m.sub_path(key)));
    for (const auto& item : n) {
      const auto text = ctx.scalar(item, m.sub_path(key));
      if (!text) continue;
      std::string error;
      if (!ottl::Condition::parse(*text, context, error))
        ctx.error(item.Mark(), fmt::format("{}: \"{}\": {}", m.sub_path(key), *text, error));
      out.push_back(*text);
      any = true;
    }
  };
  // The Collector's older form (include/exclude with match_type) is refused by name.
  bool legacy = false;
  const auto sections = [&](const char* signal, auto&& read) {
    MapReader m(ctx, r.get(signal), r.sub_path(signal));
    for (const char* key : {"include", "exclude"}) {
      if (!m.has(key)) continue;
      legacy = true;
      m.get(key);
      ctx.error(m.mark(key),
                fmt::format("{}.{}: the filter processor's include/exclude form is not in Tern; write "
                            "OTTL conditions (logs.log_record, traces.span, metrics.metric, ...)",
                            m.path(), key));
    }
    if (legacy) {
      m.entries();  // the rest of the old form is not reported key by key
      return;
    }
    read(m);
  };
  sections("logs", [&](MapReader& m) { conditions(m, "log_record", ottl::Context::kLog, c.log_record); });
  sections("traces", [&](MapReader& m) {
    conditions(m, "span", ottl::Context::kSpan, c.span);
    conditions(m, "spanevent", ottl::Context::kSpanEvent, c.spanevent);
  });
  sections("spans", [&](MapReader& m) { m.entries(); });  // only the old form has `spans`
  sections("metrics", [&](MapReader& m) {
    conditions(m, "metric", ottl::Context::kMetric, c.metric);
    conditions(m, "datapoint", ottl::Context::kDataPoint, c.datapoint);
  });
  if (!any && !legacy)
    ctx.error(
        at, fmt::format("{}: no conditions (logs.log_record, traces.span, traces.spanevent, metrics.metric, "
                        "metrics.datapoint)",
                        r.path()));
}

// `transform`: groups of OTTL statements per signal. A group is a mapping (context,
// conditions, statements) or, the Collector's flat form, one statement as a string, run in
// the signal's item context (log, span, datapoint).
void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, TransformProcessorConfig& c) {
  using E = TransformProcessorConfig::ErrorMode;
  r.choice("error_mode", c.error_mode,
           {{"propagate", E::kPropagate}, {"ignore", E::kIgnore}, {"silent", E::kSilent}});
  struct Signal {
    const char* key;
    std::vector<TransformProcessorConfig::Group>* groups;
    std::vector<std::pair<std::string, ottl::Context>> contexts;  // the first is the flat form's
  };
  const Signal signals[] = {
      {"log_statements",
       &c.log_statements,
       {{"log", ottl::Context::kLog},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
      {"trace_statements",
       &c.trace_statements,
       {{"span", ottl::Context::kSpan},
        {"spanevent", ottl::Context::kSpanEvent},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
      {"metric_statements",
       &c.metric_statements,
       {{"datapoint", ottl::Context::kDataPoint},
        {"metric", ottl::Context::kMetric},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
  };
  bool any = false;
  for (const auto& sig : signals) {
    const YAML::Node list = r.get(sig.key);
    if (!list.IsDefined() || list.IsNull()) continue;
    if (!list.IsSequence()) {
      ctx.error(list.Mark(), fmt::format("{}: expected a list", r.sub_path(sig.key)));
      continue;
    }
    std::size_t i = 0;
    for (const auto& item : list) {
      const std::string path = fmt::format("{}[{}]", r.sub_path(sig.key), i++);
      TransformProcessorConfig::Group g;
      ottl::Context context = sig.contexts.front().second;
      std::vector<std::pair<YAML::Mark, std::string>> statements, conditions;
      if (item.IsScalar()) {
        g.context = sig.contexts.front().first;
        statements.emplace_back(item.Mark(), item.Scalar());
      } else {
        MapReader m(ctx, item, path);
        std::vector<std::string> names;
        for (const auto& [name, cx] : sig.contexts) names.push_back(name);
        g.context = sig.contexts.front().first;
        m.one_of("context", g.context, names);
        for (const auto& [name, cx] : sig.contexts)
          if (name == g.context) context = cx;
        for (auto [key, out] : {std::pair{"statements", &statements}, std::pair{"conditions", &conditions}}) {
          const YAML::Node n = m.get(key);
          if (!n.IsDefined() || n.IsNull()) continue;
          if (!n.IsSequence()) {
            ctx.error(n.Mark(), fmt::format("{}: expected a list", m.sub_path(key)));
            continue;
          }
          for (const auto& s : n)
            if (auto text = ctx.scalar(s, m.sub_path(key))) out->emplace_back(s.Mark(), *text);
        }
        if (statements.empty())
          ctx.error(item.Mark(), fmt::format("{}: statements must list what to do", path));
      }
      std::string error;
      for (const auto& [mark, text] : statements) {
        if (!ottl::Statement::parse(text, context, error))
          ctx.error(mark, fmt::format("{}: \"{}\": {}", path, text, error));
        g.statements.push_back(text);
      }
      for (const auto& [mark, text] : conditions) {
        if (!ottl::Condition::parse(text, context, error))
          ctx.error(mark, fmt::format("{}: \"{}\": {}", path, text, error));
        g.conditions.push_back(text);
      }
      any = any || !g.statements.empty();
      sig.groups->push_back(std::move(g));
    }
  }
  if (!any)
    ctx.error(
        at, fmt::format("{}: no statements (log_statements, trace_statements, metric_statements)", r.path()));
}

// The `attributes` and `resource` processors (resource_processor_type). The Collector's
// resource processor lists its actions under `attributes`; Tern also takes `actions` there
// (its first spelling), not both.
void decode_actions(Ctx& ctx, MapReader& r, const YAML::Mark& at, AttributesProcessorConfig& c,
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

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, AttributesProcessorConfig& c) {
  decode_actions(ctx, r, at, c, /*resource=*/false);
}

// An exporter's `tls`. `insecure` (plaintext) for the OTLP exporters, as in the Collector.
void decode_tls(Ctx& ctx, MapReader& parent, TlsClientConfig& t, bool with_insecure = false,
                bool grpc = false) {
  YAML::Node n = parent.get("tls");
  MapReader r(ctx, n, parent.sub_path("tls"));
  if (with_insecure) r.boolean("insecure", t.insecure);
  r.str("ca_file", t.ca_file);
  r.str("cert_file", t.cert_file);
  r.str("key_file", t.key_file);
  r.boolean("insecure_skip_verify", t.insecure_skip_verify);
  r.str("server_name_override", t.server_name_override);
  decode_tls_versions(ctx, r, t.min_version, t.max_version, grpc);
  if (t.cert_file.empty() != t.key_file.empty()) {
    ctx.error(n.Mark(), fmt::format("{}: cert_file and key_file must be set together", r.path()));
  }
}

// The Elasticsearch URL of an Elastic Cloud ID, "<name>:<base64 of host[:port]$es-id[$kibana-id]>",
// as go-elasticsearch reads it: https://<es-id>.<host>[:port]. Empty, with `why`, when it is
// not one.
std::string cloud_id_url(std::string_view id, std::string& why) {
  const auto colon = id.find(':');
  if (colon == std::string_view::npos) {
    why = "expected <name>:<base64 text>";
    return {};
  }
  const std::optional<std::string> decoded = tern::encoding::base64_decode(id.substr(colon + 1));
  if (!decoded) {
    why = "the part after the first ':' is not base64";
    return {};
  }
  const std::string_view text = *decoded;
  const auto dollar = text.find('$');
  const std::string_view host = text.substr(0, dollar);
  const std::string_view es = dollar == std::string_view::npos ? std::string_view() : text.substr(dollar + 1);
  const std::string_view es_id = es.substr(0, es.find('$'));
  if (host.empty() || es_id.empty()) {
    why = "its decoded text is not <host>$<elasticsearch id>[$<kibana id>]";
    return {};
  }
  return "https://" + std::string(es_id) + "." + std::string(host);
}

// Why an Elasticsearch URL's query cannot go with the bulk requests; "" when it can. Its
// bytes are sent as written, so they must be a URL query's (RFC 3986: a '%' starts two hex
// digits; Elasticsearch answers 400 to the whole request otherwise, which is retried for
// ever). The parameters the exporter sets itself are left to their own keys, and `format`
// is JSON only: Tern must read the answer. Names are compared decoded, as Elasticsearch
// reads them (a later repeat wins there, so `filter%5Fpath` would replace Tern's).
std::string bulk_query_error(std::string_view query) {
  constexpr std::string_view kAllowed = "-._~!$&'()*+,;=:@/?%";
  const auto hex = [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; };
  for (std::size_t i = 0; i < query.size(); ++i) {
    const char ch = query[i];
    if (!std::isalnum(static_cast<unsigned char>(ch)) && kAllowed.find(ch) == std::string_view::npos)
      return ch > 0x20 && ch < 0x7f
                 ? fmt::format("'{}' cannot be in a URL query (percent-encode it)", ch)
                 : fmt::format("byte 0x{:02x} cannot be in a URL query (percent-encode it)",
                               static_cast<unsigned char>(ch));
    if (ch == '%' && (i + 2 >= query.size() || !hex(query[i + 1]) || !hex(query[i + 2])))
      return "'%' must start a percent-escape of two hex digits";
  }
  const auto decoded = [](std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += s[i] == '+' ? ' ' : s[i];
      }
    }
    return out;
  };
  const std::pair<std::string_view, std::string_view> own[] = {
      {"filter_path", "Tern reads bulk responses through its own filter"},
      {"require_data_stream", "the mapping mode decides it"},
      {"pipeline", "set the pipeline key"},
      {"include_source_on_error", "set the include_source_on_error key"}};
  for (std::string_view rest = query; !rest.empty();) {
    const std::size_t amp = rest.find('&');
    const std::string_view param = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const std::size_t eq = param.find('=');
    const std::string name = decoded(param.substr(0, eq));
    for (const auto& [key, hint] : own)
      if (name == key) return fmt::format("the query parameter {} is set by the exporter: {}", key, hint);
    if (name == "format" && (eq == std::string_view::npos || decoded(param.substr(eq + 1)) != "json"))
      return "the query parameter format must be json: the exporter reads the bulk response as JSON";
  }
  return "";
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, ElasticsearchExporterConfig& c) {
  using E = ElasticsearchExporterConfig;
  using Q = E::SendingQueue;
  std::string endpoint, cloudid;
  r.str("endpoint", endpoint);
  r.strings("endpoints", c.endpoints);
  r.str("cloudid", cloudid);
  // Each URL is checked where it is written, so the error points at the bad entry.
  auto check_url = [&](const std::string& url, const YAML::Mark& m, const std::string& path) {
    if (!url.starts_with("http://") && !url.starts_with("https://")) {
      ctx.error(m, fmt::format("{}: \"{}\" must start with http:// or https://", path, url));
      return;
    }
    const std::size_t host = url.find("://") + 3;
    if (url.size() == host) {
      ctx.error(m, fmt::format("{}: \"{}\" has no host", path, url));
      return;
    }
    // What the exporter refuses when `tern run` builds it (parse_endpoint), or could never
    // connect to (a port over 65535), is an error here too: validate said "valid" for them.
    const std::string_view authority =
        std::string_view(url).substr(host, url.find_first_of("/?#", host) - host);
    const std::size_t query = url.find('?', host);
    if (url.find('#', host) != std::string::npos) {
      // The exporter appends /_bulk?... to the URL's path: a fragment would end up inside
      // the host or the path (and every request fail, for ever).
      ctx.error(m, fmt::format("{}: \"{}\": a fragment is not supported in an Elasticsearch URL", path, url));
    } else if (const std::string why = bulk_query_error(
                   std::string_view(url).substr(query == std::string::npos ? url.size() : query + 1));
               !why.empty()) {
      ctx.error(m, fmt::format("{}: \"{}\": {}", path, url, why));
    } else if (authority.find('@') != std::string_view::npos) {
      ctx.error(m, fmt::format("{}: \"{}\": credentials in the URL are not supported (set user and password)",
                               path, url));
    } else if (const std::string why =
                   tern::text::http_endpoint_error(url.substr(0, query), /*require_scheme=*/true);
               !why.empty()) {
      ctx.error(m, fmt::format("{}: {}, got \"{}\"", path, why, url));
    }
  };
  if (!endpoint.empty()) check_url(endpoint, r.mark("endpoint"), r.sub_path("endpoint"));
  if (YAML::Node list = r.get("endpoints"); list.IsSequence() && list.size() == c.endpoints.size()) {
    for (std::size_t i = 0; i < c.endpoints.size(); ++i) {
      check_url(c.endpoints[i], list[i].Mark(), fmt::format("{}[{}]", r.sub_path("endpoints"), i));
    }
  }
  if (!endpoint.empty()) {
    if (!c.endpoints.empty())
      ctx.error(r.mark("endpoint"), fmt::format("{}: set endpoint or endpoints, not both", r.path()));
    c.endpoints.insert(c.endpoints.begin(), endpoint);
  }
  // As in the Collector: exactly one of endpoint, endpoints and cloudid; without any,
  // $ELASTICSEARCH_URL (a comma-separated list).
  if (r.has("cloudid")) {
    if (r.has("endpoint") || r.has("endpoints")) {
      ctx.error(r.mark("cloudid"), fmt::format("{}: set endpoint, endpoints or cloudid, not more", r.path()));
    } else if (std::string why, url = cloud_id_url(cloudid, why); url.empty()) {
      ctx.error(r.mark("cloudid"),
                fmt::format("{}: not an Elastic Cloud ID: {}", r.sub_path("cloudid"), why));
    } else {
      check_url(url, r.mark("cloudid"), r.sub_path("cloudid"));
      c.endpoints = {url};
    }
  } else if (!r.has("endpoint") && !r.has("endpoints")) {
    if (const std::optional<std::string> env = ctx.env()("ELASTICSEARCH_URL"); env && !env->empty()) {
      for (std::string_view rest = *env; !rest.empty();) {
        const auto comma = rest.find(',');
        std::string_view url = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!url.empty() && url.front() == ' ') url.remove_prefix(1);
        while (!url.empty() && url.back() == ' ') url.remove_suffix(1);
        check_url(std::string(url), at, r.path() + " ($ELASTICSEARCH_URL)");
        c.endpoints.emplace_back(url);
      }
    } else {
      ctx.error(at, fmt::format("{}: endpoint, endpoints or cloudid must be set (or $ELASTICSEARCH_URL)",
                                r.path()));
    }
  } else if (c.endpoints.empty()) {
    ctx.error(r.mark(r.has("endpoints") ? "endpoints" : "endpoint"),
              fmt::format("{}: endpoint or endpoints must not be empty", r.path()));
  }
  // As in the Collector: the first endpoint's query goes with every bulk request; the
  // other endpoints' queries are not read (a different one gets a warning).
  for (std::size_t i = 0; i < c.endpoints.size(); ++i) {
    const std::size_t q = c.endpoints[i].find('?');
    const std::string query = q == std::string::npos ? "" : c.endpoints[i].substr(q + 1);
    if (i == 0)
      c.bulk_query = query;
    else if (query != c.bulk_query)
      ctx.warning(r.mark(r.has("endpoints") ? "endpoints" : "endpoint"),
                  fmt::format("{}: endpoint {} has the query \"{}\", the first one \"{}\": only the first "
                              "endpoint's query is sent (as in the Collector)",
                              r.path(), i, query, c.bulk_query));
    if (q != std::string::npos) c.endpoints[i].resize(q);
  }
  if (r.has("include_source_on_error")) {
    bool include = false;
    r.boolean("include_source_on_error", include);
    if (YAML::Node n = r.get("include_source_on_error"); !n.IsNull()) c.include_source_on_error = include;
  }
  r.uint("num_workers", c.num_workers, 1024);
  {
    MapReader f(ctx, r.get("flush"), r.sub_path("flush"));
    f.size("bytes", c.flush.bytes);
    f.duration("interval", c.flush.interval);
    if (c.flush.bytes == 0)
      ctx.error(f.mark("bytes"), fmt::format("{}: bytes must be greater than 0", f.path()));
    if (c.flush.interval <= Duration{0}) {
      ctx.error(f.mark("interval"), fmt::format("{}: interval must be greater than 0", f.path()));
    }
  }
  {
    MapReader rt(ctx, r.get("retry"), r.sub_path("retry"));
    rt.boolean("enabled", c.retry.enabled);
    rt.uint("max_retries", c.retry.max_retries);
    // The Collector's deprecated count of attempts: max_retries = max_requests - 1 (there,
    // 0 retries; here 0 means no limit, so 1 request turns retries off).
    std::uint64_t max_requests = 0;
    rt.uint("max_requests", max_requests);
    if (rt.has("max_requests")) {
      ctx.warning(
          rt.mark("max_requests"),
          fmt::format("{}: deprecated (as in the Collector): use max_retries", rt.sub_path("max_requests")));
      if (rt.has("max_retries"))
        ctx.error(rt.mark("max_requests"),
                  fmt::format("{}: set max_retries or max_requests, not both", rt.path()));
      else if (max_requests == 1)
        c.retry.enabled = false;
      else if (max_requests > 1)
        c.retry.max_retries = max_requests - 1;
    }
    rt.duration("initial_interval", c.retry.initial_interval);
    rt.duration("max_interval", c.retry.max_interval);
    rt.uints("retry_on_status", c.retry.retry_on_status, 599);
    check_backoff(ctx, rt, c.retry.initial_interval, c.retry.max_interval);
  }
  r.choice("compression", c.compression, {{"gzip", Compression::kGzip}, {"none", Compression::kNone}});
  {
    MapReader cp(ctx, r.get("compression_params"), r.sub_path("compression_params"));
    cp.uint("level", c.compression_level, 9);
  }
  r.string_map("headers", c.headers);
  // A header name that is not a token, or a value with CR LF, made a malformed request (or a
  // second header line) that every retry sent again.
  for (const auto& [key, value] : c.headers)
    if (const std::string why = tern::text::header_error(key, value, /*grpc=*/false); !why.empty())
      ctx.error(r.mark("headers"), fmt::format("{}: {}", r.sub_path("headers"), why));
  r.str("user", c.user);
  r.str("password", c.password);
  r.str("api_key", c.api_key);
  // Both become an Authorization header; only one can be sent.
  if (!c.api_key.empty() && !c.user.empty()) {
    ctx.error(r.mark("api_key"), fmt::format("{}: set user/password or api_key, not both", r.path()));
  }
  if (!c.password.empty() && c.user.empty()) {
    ctx.error(r.mark("password"), fmt::format("{}: password is set but user is not", r.path()));
  }
  decode_tls(ctx, r, c.tls);
  {
    MapReader m(ctx, r.get("mapping"), r.sub_path("mapping"));
    const std::vector<std::string> modes = {"otel", "bodymap", "none", "raw", "ecs"};  // the encoder's
    // Mode names as the Collector reads them: in any case, "" and "no" meaning none. Kept
    // in their canonical form.
    const auto canonical = [](const std::string& name) {
      std::string lower = tern::text::ascii_lower(name);
      return lower.empty() || lower == "no" ? std::string("none") : lower;
    };
    m.one_of("mode", c.mapping_mode, modes, canonical);
    m.strings("allowed_modes", c.mapping_allowed_modes);
    for (auto& name : c.mapping_allowed_modes) {
      if (std::find(modes.begin(), modes.end(), canonical(name)) == modes.end())
        m.invalid_value(m.mark("allowed_modes"), "allowed_modes", name, modes);
      else
        name = canonical(name);
    }
    if (!c.mapping_allowed_modes.empty() &&
        std::find(c.mapping_allowed_modes.begin(), c.mapping_allowed_modes.end(), c.mapping_mode) ==
            c.mapping_allowed_modes.end())
      ctx.error(m.mark("allowed_modes"),
                fmt::format("{}: mode \"{}\" is not one of allowed_modes ({})", r.sub_path("mapping"),
                            c.mapping_mode, join(c.mapping_allowed_modes)));
  }
  r.str("logs_index", c.logs_index);
  bool logs_index_from_index = false;  // warnings about it then name `index`
  // The Collector's deprecated name for the logs index, which wins over logs_index there.
  if (std::string index; r.has("index")) {
    r.str("index", index);
    ctx.warning(r.mark("index"),
                fmt::format("{}: deprecated (as in the Collector): use logs_index", r.sub_path("index")));
    if (!index.empty()) {
      c.logs_index = index;
      logs_index_from_index = true;
    }
  }
  r.str("metrics_index", c.metrics_index);
  r.str("traces_index", c.traces_index);
  // otel mode sends require_data_stream=true (the spec, as the Collector): Elasticsearch then
  // refuses every document for an index that is not a data stream. Only an index template
  // makes one; Elasticsearch's built-in ones cover <type>-<dataset>-<namespace>.
  if (c.mapping_mode == "otel") {
    static const RE2 kDataStreamName(R"((logs|metrics|traces)-[^-]+-[^-]+)");
    // The logs index may have come from the deprecated `index` key: that is the one named.
    const char* logs_key = logs_index_from_index ? "index" : "logs_index";
    for (const auto& [key, index] : {std::pair<const char*, const std::string&>{logs_key, c.logs_index},
                                     {"metrics_index", c.metrics_index},
                                     {"traces_index", c.traces_index}}) {
      if (index.empty() || RE2::FullMatch(index, kDataStreamName)) continue;
      ctx.warning(r.mark(key),
                  fmt::format("{}: \"{}\" must be a data stream: the otel mapping mode sends "
                              "require_data_stream=true, and Elasticsearch refuses documents for any other "
                              "index (its built-in templates make <type>-<dataset>-<namespace> names data "
                              "streams, e.g. logs-myapp-default)",
                              r.sub_path(key), index));
    }
  }
  {
    MapReader d(ctx, r.get("logs_dynamic_id"), r.sub_path("logs_dynamic_id"));
    d.boolean("enabled", c.logs_dynamic_id);
  }
  {
    MapReader d(ctx, r.get("logs_dynamic_pipeline"), r.sub_path("logs_dynamic_pipeline"));
    d.boolean("enabled", c.logs_dynamic_pipeline);
  }
  // Deprecated in the Collector, where they no longer do anything: accepted with a warning
  // so that older configs load, and their users learn how routing works here.
  for (const char* key : {"logs_dynamic_index", "metrics_dynamic_index", "traces_dynamic_index"}) {
    if (!r.has(key)) {
      r.get(key);
      continue;
    }
    const YAML::Mark at_key = r.mark(key);
    MapReader d(ctx, r.get(key), r.sub_path(key));
    bool enabled = false;
    d.boolean("enabled", enabled);
    ctx.warning(at_key,
                fmt::format("{}: has no effect (deprecated in the OpenTelemetry Collector): documents "
                            "are routed by their data_stream.* or elasticsearch.index attributes "
                            "unless a static logs_index/metrics_index/traces_index is set",
                            r.sub_path(key)));
  }
  r.str("pipeline", c.pipeline);
  r.duration("timeout", c.timeout);
  {
    MapReader d(ctx, r.get("dead_letter"), r.sub_path("dead_letter"));
    d.str("path", c.dead_letter_path);
  }
  r.choice("encoding", c.encoding, {{"early", E::Encoding::kEarly}, {"late", E::Encoding::kLate}});
  {
    YAML::Node qn = r.get("sending_queue");
    MapReader q(ctx, qn, r.sub_path("sending_queue"));
    auto& s = c.sending_queue;
    q.boolean("enabled", s.enabled);
    q.choice("type", s.type, {{"memory", Q::Type::kMemory}, {"disk", Q::Type::kDisk}});
    q.uint("queue_size", s.queue_size);
    q.size("max_bytes", s.max_bytes);
    // The Collector's exporterhelper key for the number of concurrent senders (its
    // elasticsearch exporter deprecates num_workers for it): one setting, two spellings.
    const bool has_consumers = q.has("num_consumers");
    std::uint64_t consumers = 0;
    q.uint("num_consumers", consumers, 1024);
    if (has_consumers && r.has("num_workers")) {
      ctx.error(q.mark("num_consumers"),
                fmt::format("{}: set num_consumers or num_workers, not both (both are the number of "
                            "parallel bulk senders)",
                            q.sub_path("num_consumers")));
    } else if (has_consumers) {
      c.num_workers = consumers;
    }
    q.str("directory", s.directory);
    // `storage: file_storage[/name]`: the Collector's persistent queue, here the disk queue in
    // a directory of that extension (resolved once the extensions are read).
    const bool has_type = q.has("type");
    q.str("storage", s.storage);
    if (q.has("storage")) {
      if (s.storage.empty()) {
        ctx.error(q.mark("storage"),
                  fmt::format("{}: storage must name a file_storage extension", q.sub_path("storage")));
      } else if (has_type && s.type != Q::Type::kDisk) {
        ctx.error(q.mark("storage"),
                  fmt::format("{}: storage is a disk queue; it cannot go with type: memory",
                              q.sub_path("storage")));
      } else if (!s.directory.empty()) {
        ctx.error(q.mark("storage"),
                  fmt::format("{}: set storage (a file_storage extension) or directory, not both",
                              q.sub_path("storage")));
      } else {
        if (!q.has("enabled")) s.enabled = true;  // as in the Collector, where the queue is on by default
        s.type = Q::Type::kDisk;
      }
    }
    q.size("max_size", s.max_size);
    q.size("segment_size", s.segment_size);
    q.choice("sync", s.sync,
             {{"batch", Q::Sync::kBatch}, {"interval", Q::Sync::kInterval}, {"none", Q::Sync::kNone}});
    q.duration("sync_interval", s.sync_interval);
    q.choice("compression", s.compress, {{"none", false}, {"zstd", true}});
    // `type: disk` asks for the disk queue, as `storage` does: on unless `enabled: false` says
    // otherwise (it was silently a memory queue). With the disk queue off, its keys are
    // pointed out.
    if (has_type && s.type == Q::Type::kDisk && !q.has("enabled")) s.enabled = true;
    if (!(s.enabled && s.type == Q::Type::kDisk)) {
      for (const char* key :
           {"directory", "max_size", "segment_size", "sync", "sync_interval", "compression"}) {
        if (!q.has(key)) continue;
        ctx.warning(q.mark(key),
                    fmt::format("{}: has no effect: the disk queue is off (it needs {})", q.sub_path(key),
                                s.type == Q::Type::kDisk ? "enabled: true" : "type: disk"));
      }
    }
    if (s.enabled && s.type == Q::Type::kDisk && s.directory.empty() && !q.has("storage")) {
      ctx.error(qn.Mark(), fmt::format("{}: directory is required when type is disk", q.path()));
    }
    if (s.queue_size == 0) {  // the memory queue is always there, the disk queue or not
      ctx.error(q.mark("queue_size"), fmt::format("{}: queue_size must be greater than 0", q.path()));
    }
    if (s.enabled && s.type == Q::Type::kDisk && c.encoding == E::Encoding::kLate) {
      ctx.warning(r.mark("encoding"),
                  fmt::format("{}: late has no effect with a disk queue: its reader loop encodes what it "
                              "reads from disk (early)",
                              r.sub_path("encoding")));
    }
    if (s.enabled && s.type == Q::Type::kDisk) {
      if (s.segment_size == 0) {
        ctx.error(q.mark("segment_size"), fmt::format("{}: segment_size must be greater than 0", q.path()));
      } else if (s.segment_size > s.max_size) {
        ctx.error(q.mark("segment_size"),
                  fmt::format("{}: segment_size must not be larger than max_size", q.path()));
      }
      if (s.sync == Q::Sync::kInterval && s.sync_interval <= Duration{0}) {
        ctx.error(q.mark("sync_interval"), fmt::format("{}: sync_interval must be greater than 0", q.path()));
      }
    }
  }
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark& at, OtlpExporterConfig& c) {
  r.str("endpoint", c.endpoint);
  decode_tls(ctx, r, c.tls, /*with_insecure=*/true,  // otlphttp: the URL scheme decides
             /*grpc=*/c.protocol == OtlpExporterConfig::Protocol::kGrpc);
  // gRPC: what grpc++ compresses messages with here (its zstd is not in Debian 12's).
  if (c.protocol == OtlpExporterConfig::Protocol::kHttp)
    r.choice("compression", c.compression,
             {{"gzip", Compression::kGzip}, {"zstd", Compression::kZstd}, {"none", Compression::kNone}});
  else
    r.choice("compression", c.compression, {{"gzip", Compression::kGzip}, {"none", Compression::kNone}});
  r.string_map("headers", c.headers);
  r.duration("timeout", c.timeout);
  {
    MapReader rt(ctx, r.get("retry_on_failure"), r.sub_path("retry_on_failure"));
    auto& p = c.retry_on_failure;
    rt.boolean("enabled", p.enabled);
    rt.duration("initial_interval", p.initial_interval);
    rt.duration("max_interval", p.max_interval);
    rt.number("multiplier", p.multiplier, 1.0, 100.0);
    rt.duration("max_elapsed_time", p.max_elapsed_time);
    rt.number("randomization_factor", p.randomization_factor, 0.0, 1.0);
    check_backoff(ctx, rt, p.initial_interval, p.max_interval);
  }
  {
    MapReader q(ctx, r.get("sending_queue"), r.sub_path("sending_queue"));
    auto& sq = c.sending_queue;
    bool enabled = true;
    q.boolean("enabled", enabled);
    q.uint("num_consumers", sq.num_consumers, 1024);
    q.uint("queue_size", sq.queue_size);
    // `storage: file_storage[/name]`: the Collector's persistent queue (resolved to a
    // directory once the extensions are read).
    q.str("storage", sq.storage);
    if (q.has("storage") && sq.storage.empty())
      ctx.error(q.mark("storage"),
                fmt::format("{}: storage must name a file_storage extension", q.sub_path("storage")));
    q.size("max_size", sq.max_size);
    if (q.has("max_size") && !q.has("storage"))
      ctx.error(
          q.mark("max_size"),
          fmt::format("{}: max_size bounds the persistent queue; it needs storage (a file_storage extension)",
                      q.sub_path("max_size")));
    else if (sq.max_size == 0)
      ctx.error(q.mark("max_size"),
                fmt::format("{}: max_size must be greater than 0", q.sub_path("max_size")));
    if (!enabled) {
      ctx.warning(q.mark("enabled"), fmt::format("{}: the queue stays on (requests are encoded into it as "
                                                 "they arrive); queue_size bounds it",
                                                 q.path()));
    }
    if (sq.num_consumers == 0)
      ctx.error(q.mark("num_consumers"), fmt::format("{}: num_consumers must be greater than 0", q.path()));
    if (sq.queue_size == 0)
      ctx.error(q.mark("queue_size"), fmt::format("{}: queue_size must be greater than 0", q.path()));
  }
  const bool http = c.protocol == OtlpExporterConfig::Protocol::kHttp;
  // What `tern run` refuses when it builds the exporter's clients is an error here too, at
  // its place in the file: `tern validate` said "valid" for a config that could not start.
  auto check_url = [&](std::string_view key, const std::string& url) {
    const std::string why = tern::text::http_endpoint_error(url, /*require_scheme=*/true);
    if (!why.empty()) ctx.error(r.mark(key), fmt::format("{}: {}, got \"{}\"", r.sub_path(key), why, url));
  };
  if (http) {
    r.str("logs_endpoint", c.logs_endpoint);
    r.str("traces_endpoint", c.traces_endpoint);
    r.str("metrics_endpoint", c.metrics_endpoint);
    r.choice(
        "encoding", c.encoding,
        {{"proto", OtlpExporterConfig::Encoding::kProto}, {"json", OtlpExporterConfig::Encoding::kJson}});
    for (const auto& [key, url] :
         {std::pair{"logs_endpoint", &c.logs_endpoint}, std::pair{"traces_endpoint", &c.traces_endpoint},
          std::pair{"metrics_endpoint", &c.metrics_endpoint}})
      if (r.has(key)) check_url(key, *url);
  }
  const bool every_signal =
      http && !c.logs_endpoint.empty() && !c.traces_endpoint.empty() && !c.metrics_endpoint.empty();
  if (c.endpoint.empty()) {
    if (!every_signal)
      ctx.error(r.has("endpoint") ? r.mark("endpoint") : at,
                fmt::format("{}: endpoint must be set{}", r.path(),
                            http ? " (or logs_endpoint, traces_endpoint and metrics_endpoint)" : ""));
  } else if (http) {
    check_url("endpoint", c.endpoint);
  } else if (const std::string why = tern::text::grpc_endpoint_error(c.endpoint); !why.empty()) {
    ctx.error(r.mark("endpoint"),
              fmt::format("{}: {} (expected host:port, e.g. \"127.0.0.1:4317\"), got \"{}\"",
                          r.sub_path("endpoint"), why, c.endpoint));
  }
  for (const auto& [key, value] : c.headers)
    if (const std::string why = tern::text::header_error(key, value, !http); !why.empty())
      ctx.error(r.mark("headers"), fmt::format("{}: {}", r.sub_path("headers"), why));
  // The TLS files are read when the exporter starts, and only when TLS is on: gRPC unless
  // tls.insecure or an http:// endpoint, OTLP/HTTP for an https:// URL.
  const bool tls_on = http ? c.endpoint.starts_with("https://") || c.logs_endpoint.starts_with("https://") ||
                                 c.traces_endpoint.starts_with("https://") ||
                                 c.metrics_endpoint.starts_with("https://")
                           : !c.tls.insecure && !c.endpoint.starts_with("http://");
  if (tls_on) {
    const YAML::Node t = r.get("tls");  // read by decode_tls: only the positions are needed here
    for (const auto& [key, file] :
         {std::pair{"ca_file", &c.tls.ca_file}, std::pair{"cert_file", &c.tls.cert_file},
          std::pair{"key_file", &c.tls.key_file}}) {
      if (file->empty()) continue;
      // A directory opens as an ifstream on Linux; reading it is what fails at start.
      std::error_code dir_ec;
      const bool is_dir = std::filesystem::is_directory(*file, dir_ec);
      std::ifstream in;
      if (!is_dir) in.open(*file);
      if (!is_dir && in) continue;
      const int err = is_dir ? EISDIR : errno;
      const YAML::Mark m = t.IsMap() && t[key] ? t[key].Mark() : r.mark("tls");
      ctx.error(m, fmt::format("{}.{}: cannot read \"{}\": {}", r.sub_path("tls"), key, *file,
                               std::error_code(err, std::generic_category()).message()));
    }
  }
}

void decode(Ctx&, MapReader& r, const YAML::Mark&, DebugExporterConfig& c) {
  using V = DebugExporterConfig::Verbosity;
  r.choice("verbosity", c.verbosity,
           {{"basic", V::kBasic}, {"normal", V::kNormal}, {"detailed", V::kDetailed}});
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark&, FileStorageExtensionConfig& c) {
  r.str("directory", c.directory);
  if (c.directory.empty())
    ctx.error(r.mark("directory"), fmt::format("{}: directory must not be empty", r.path()));
  // The Collector's other keys tune its bbolt database, which Tern does not have.
  for (const char* key : {"timeout", "compaction", "fsync", "create_directory"}) r.get(key);
}

void decode(Ctx& ctx, MapReader& r, const YAML::Mark&, HealthCheckExtensionConfig& c) {
  r.str("endpoint", c.endpoint);
  check_host_port(ctx, r, "endpoint", c.endpoint);
  r.str("path", c.path);
  if (!c.path.starts_with('/'))
    ctx.error(r.mark("path"), fmt::format("{}: path must start with /", r.sub_path("path")));
}

const std::vector<Signal> kAllSignals{Signal::kLogs, Signal::kTraces, Signal::kMetrics};

// One known component type: its name, which signals it handles and how to decode it.
template <class C>
struct TypeInfo {
  std::string name;
  std::vector<Signal> signals;
  std::function<void(Ctx&, MapReader&, const YAML::Mark&, decltype(C::settings)&)> decode;
};

template <class C, class T>
TypeInfo<C> type(std::string name, std::vector<Signal> signals) {
  return {std::move(name), std::move(signals), [](Ctx& ctx, MapReader& r, const YAML::Mark& at, auto& v) {
            v = T{};
            decode(ctx, r, at, std::get<T>(v));
          }};
}

// `resource`: the attributes processor's settings, on resource attributes, listed under
// `attributes` as in the Collector.
TypeInfo<Processor> resource_processor_type(std::vector<Signal> signals) {
  return {"resource", std::move(signals), [](Ctx& ctx, MapReader& r, const YAML::Mark& at, auto& v) {
            AttributesProcessorConfig c;
            decode_actions(ctx, r, at, c, /*resource=*/true);
            v = std::move(c);
          }};
}

// `otlphttp`: the same settings as `otlp`, sent over OTLP/HTTP.
TypeInfo<Exporter> otlphttp_exporter_type(std::vector<Signal> signals) {
  return {"otlphttp", std::move(signals), [](Ctx& ctx, MapReader& r, const YAML::Mark& at, auto& v) {
            OtlpExporterConfig c;
            c.protocol = OtlpExporterConfig::Protocol::kHttp;
            decode(ctx, r, at, c);
            v = std::move(c);
          }};
}

const char* signal_name(Signal s) {
  switch (s) {
    case Signal::kLogs:
      return "logs";
    case Signal::kTraces:
      return "traces";
    case Signal::kMetrics:
      return "metrics";
  }
  return "?";
}

struct Defined {
  YAML::Mark mark;
  std::vector<Signal> signals;
  bool used = false;
  std::string signals_note;  // why a component handles fewer signals than its type
};

// A component whose settings narrow the signals its type handles.
template <class C>
void narrow_signals(const C&, Defined&) {}
void narrow_signals(const Exporter& e, Defined& d) {
  const auto* es = std::get_if<ElasticsearchExporterConfig>(&e.settings);
  if (es && es->mapping_mode == "bodymap") {
    d.signals = {Signal::kLogs};
    d.signals_note = ": mapping.mode bodymap encodes logs only";
  } else if (es && (es->mapping_mode == "none" || es->mapping_mode == "raw" || es->mapping_mode == "ecs")) {
    d.signals = {Signal::kLogs, Signal::kTraces};
    d.signals_note = ": mapping.mode " + es->mapping_mode + " encodes logs and traces only";
  }
}

// Decodes one of receivers/processors/exporters/extensions into `out`.
template <class C>
std::map<std::string, Defined> decode_section(Ctx& ctx, MapReader& top, const char* section, const char* kind,
                                              const std::vector<TypeInfo<C>>& types, std::vector<C>& out) {
  std::map<std::string, Defined> defined;
  MapReader sec(ctx, top.get(section), section);
  std::vector<std::string> type_names;
  for (const auto& t : types) type_names.push_back(t.name);
  for (auto& e : sec.entries()) {
    const YAML::Mark at = e.key_node.Mark();
    C comp;
    auto slash = e.key.find('/');
    comp.id.type = e.key.substr(0, slash);
    if (slash != std::string::npos) comp.id.name = e.key.substr(slash + 1);
    if (comp.id.type.empty() || (slash != std::string::npos && comp.id.name.empty())) {
      ctx.error(at, fmt::format("invalid {} id \"{}\" (expected type or type/name)", kind, e.key));
      continue;
    }
    auto t =
        std::find_if(types.begin(), types.end(), [&](const auto& ti) { return ti.name == comp.id.type; });
    if (t == types.end()) {
      ctx.error(at, fmt::format("unknown {} type \"{}\" in {} (known types: {}){}", kind, comp.id.type,
                                section, join(type_names), suggest(comp.id.type, type_names)));
      continue;
    }
    MapReader r(ctx, e.value, std::string(section) + "." + e.key);
    t->decode(ctx, r, at, comp.settings);
    Defined d{at, t->signals, false, {}};
    narrow_signals(comp, d);
    defined[e.key] = std::move(d);
    out.push_back(std::move(comp));
  }
  return defined;
}

// Reads a pipeline's receivers/processors/exporters list and checks every reference.
void decode_refs(Ctx& ctx, MapReader& p, const char* key, const char* kind, const char* section,
                 Signal signal, const std::string& pipeline, std::map<std::string, Defined>& defined,
                 std::vector<std::string>& out) {
  YAML::Node list = p.get(key);
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) return ctx.error(list.Mark(), fmt::format("{}: expected a list", p.sub_path(key)));
  std::vector<std::string> names;
  for (const auto& [name, d] : defined) names.push_back(name);
  for (const auto& item : list) {
    auto id = ctx.scalar(item, p.sub_path(key));
    if (!id) continue;
    if (std::find(out.begin(), out.end(), *id) != out.end()) {
      ctx.error(item.Mark(),
                fmt::format("{} \"{}\" is listed twice in pipeline \"{}\"", kind, *id, pipeline));
      continue;
    }
    out.push_back(*id);
    auto d = defined.find(*id);
    if (d == defined.end()) {
      ctx.error(item.Mark(), fmt::format("pipeline \"{}\" references {} \"{}\" which is not defined in {}{}",
                                         pipeline, kind, *id, section, suggest(*id, names)));
      continue;
    }
    d->second.used = true;
    if (std::find(d->second.signals.begin(), d->second.signals.end(), signal) == d->second.signals.end()) {
      ctx.error(item.Mark(), fmt::format("{} \"{}\" does not support {} (pipeline \"{}\"){}", kind, *id,
                                         signal_name(signal), pipeline, d->second.signals_note));
    }
  }
}

// Tern batches in an exporter's queue (the `batch` processor sizes its consumers' batches)
// and keeps one queue per exporter, so an exporter shared by pipelines batches as the first
// of them says. Pipelines that batch differently are told, not silently merged.
void warn_shared_batching(Ctx& ctx, MapReader& pipes, const Config& cfg) {
  const auto batching = [&](const Pipeline& p) -> std::optional<BatchProcessorConfig> {
    std::optional<BatchProcessorConfig> b;
    for (const auto& id : p.processors)
      for (const auto& pc : cfg.processors)
        if (pc.id.str() == id)
          if (const auto* bc = std::get_if<BatchProcessorConfig>(&pc.settings)) b = *bc;
    return b;
  };
  const auto same = [](const std::optional<BatchProcessorConfig>& a,
                       const std::optional<BatchProcessorConfig>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a ||
           std::tie(a->send_batch_size, a->send_batch_max_size, a->timeout, a->send_batch_max_bytes) ==
               std::tie(b->send_batch_size, b->send_batch_max_size, b->timeout, b->send_batch_max_bytes);
  };
  const auto pipeline_id = [](const Pipeline& p) {
    return std::string(signal_name(p.signal)) + (p.name.empty() ? "" : "/" + p.name);
  };
  const auto batches = [&](const std::string& exporter) {  // debug writes as it receives
    for (const auto& ec : cfg.exporters)
      if (ec.id.str() == exporter) return !std::holds_alternative<DebugExporterConfig>(ec.settings);
    return false;
  };
  std::map<std::string, const Pipeline*> first_user;  // exporter id -> first pipeline using it
  for (const auto& p : cfg.pipelines) {
    for (const auto& ex : p.exporters) {
      if (!batches(ex)) continue;
      auto [it, inserted] = first_user.emplace(ex, &p);
      if (inserted || same(batching(*it->second), batching(p))) continue;
      const std::string id = pipeline_id(p);
      ctx.warning(pipes.has(id) ? pipes.mark(id) : YAML::Mark::null_mark(),
                  fmt::format("pipeline \"{}\" batches differently from pipeline \"{}\", and both export to "
                              "\"{}\": Tern batches in the exporter's queue, one per exporter, so \"{}\" "
                              "batches as \"{}\" says; give \"{}\" an exporter of its own (e.g. {}/{}) to "
                              "batch it differently",
                              id, pipeline_id(*it->second), ex, ex, pipeline_id(*it->second), id,
                              ex.substr(0, ex.find('/')), p.name.empty() ? signal_name(p.signal) : p.name));
    }
  }
}

void decode_config(Ctx& ctx, const YAML::Node& root, Config& cfg) {
  if (!root.IsDefined() || root.IsNull()) {
    ctx.error(YAML::Mark::null_mark(), "the config is empty");
    return;
  }
  MapReader top(ctx, root, "");
  if (!root.IsMap()) return;

  const std::vector<Signal> logs_only{Signal::kLogs};
  auto receivers = decode_section<Receiver>(ctx, top, "receivers", "receiver",
                                            {type<Receiver, OtlpReceiverConfig>("otlp", kAllSignals),
                                             type<Receiver, FilelogReceiverConfig>("filelog", logs_only)},
                                            cfg.receivers);
  auto processors = decode_section<Processor>(
      ctx, top, "processors", "processor",
      {type<Processor, BatchProcessorConfig>("batch", kAllSignals),
       type<Processor, MemoryLimiterProcessorConfig>("memory_limiter", kAllSignals),
       type<Processor, AttributesProcessorConfig>("attributes", kAllSignals),
       resource_processor_type(kAllSignals),
       type<Processor, ResourceDetectionProcessorConfig>("resourcedetection", kAllSignals),
       type<Processor, FilterProcessorConfig>("filter", kAllSignals),
       type<Processor, TransformProcessorConfig>("transform", kAllSignals)},
      cfg.processors);
  auto exporters = decode_section<Exporter>(
      ctx, top, "exporters", "exporter",
      {type<Exporter, ElasticsearchExporterConfig>("elasticsearch", kAllSignals),
       type<Exporter, OtlpExporterConfig>("otlp", kAllSignals), otlphttp_exporter_type(kAllSignals),
       type<Exporter, DebugExporterConfig>("debug", kAllSignals)},
      cfg.exporters);
  auto extensions =
      decode_section<Extension>(ctx, top, "extensions", "extension",
                                {type<Extension, HealthCheckExtensionConfig>("health_check", kAllSignals),
                                 type<Extension, FileStorageExtensionConfig>("file_storage", kAllSignals)},
                                cfg.extensions);
  // Keys that name a file_storage extension: checked against service.extensions below.
  struct StorageUse {
    std::string id, key;
    YAML::Mark mark;
  };
  std::vector<StorageUse> storage_uses;
  // The file_storage extension `id` names, marked used; null when there is none. `key` (the
  // path of the setting that names it, at `mark`) is for the service.extensions check.
  const auto file_storage = [&](const std::string& id, std::string key,
                                const YAML::Mark& mark) -> const FileStorageExtensionConfig* {
    for (const auto& ext : cfg.extensions) {
      const auto* fs = std::get_if<FileStorageExtensionConfig>(&ext.settings);
      if (!fs || ext.id.str() != id) continue;
      auto d = extensions.find(id);
      if (d != extensions.end())
        d->second.used = true;  // used by a component, not only by service.extensions
      storage_uses.push_back({id, std::move(key), mark});
      return fs;
    }
    return nullptr;
  };
  // A filelog `storage` that names a file_storage extension (the Collector's form) means that
  // extension's directory; any other value is the directory itself (Tern's form).
  for (auto& rc : cfg.receivers) {
    auto* f = std::get_if<FilelogReceiverConfig>(&rc.settings);
    if (!f || f->storage.empty()) continue;
    if (const auto* fs = file_storage(f->storage, "receivers." + rc.id.str() + ".storage",
                                      mark_of(root, {"receivers", rc.id.str(), "storage"}))) {
      f->storage = fs->directory;
    } else if (f->storage == "file_storage" || f->storage.starts_with("file_storage/")) {
      // An extension's id that is not defined: not a relative directory of that name.
      std::vector<std::string> names;
      for (const auto& ext : cfg.extensions)
        if (std::holds_alternative<FileStorageExtensionConfig>(ext.settings)) names.push_back(ext.id.str());
      ctx.error(mark_of(root, {"receivers", rc.id.str(), "storage"}),
                fmt::format("receivers.{}.storage: \"{}\" is not a file_storage extension defined in "
                            "extensions{}",
                            rc.id.str(), f->storage, suggest(f->storage, names)));
    }
  }
  // Each filelog receiver keeps its offsets in <storage>/filelog-<id, '/' as '_'>.json: two
  // ids that map to one name (filelog/a/b, filelog/a_b) would overwrite each other's
  // checkpoint and read their files again after a restart.
  {
    std::map<std::string, std::string> owner;  // checkpoint path -> receiver id
    for (const auto& rc : cfg.receivers) {
      const auto* f = std::get_if<FilelogReceiverConfig>(&rc.settings);
      if (!f || f->storage.empty()) continue;
      std::string file = rc.id.str();
      std::replace(file.begin(), file.end(), '/', '_');
      const std::string path =
          (std::filesystem::path(f->storage) / ("filelog-" + file + ".json")).lexically_normal().string();
      auto [it, inserted] = owner.emplace(path, rc.id.str());
      if (!inserted)
        ctx.error(mark_of(root, {"receivers", rc.id.str()}),
                  fmt::format("receivers.{}: its checkpoint file {} is also that of receivers.{} (ids that "
                              "differ only by '/' and '_'); rename one of them",
                              rc.id.str(), path, it->second));
    }
  }
  // An exporter's sending_queue.storage must name a file_storage extension: its disk queue
  // goes into a directory of its own there, exporter_<type>[_<name>] (the Collector
  // keeps one queue per exporter in the extension too).
  for (auto& ec : cfg.exporters) {
    std::string* storage = nullptr;
    std::string* directory = nullptr;
    if (auto* es = std::get_if<ElasticsearchExporterConfig>(&ec.settings)) {
      storage = &es->sending_queue.storage;
      directory = &es->sending_queue.directory;
    } else if (auto* otlp = std::get_if<OtlpExporterConfig>(&ec.settings)) {
      storage = &otlp->sending_queue.storage;
      directory = &otlp->sending_queue.directory;
    }
    if (!storage || storage->empty()) continue;
    if (const auto* fs =
            file_storage(*storage, "exporters." + ec.id.str() + ".sending_queue.storage",
                         mark_of(root, {"exporters", ec.id.str(), "sending_queue", "storage"}))) {
      std::string leaf = "exporter_" + ec.id.type + (ec.id.name.empty() ? "" : "_" + ec.id.name);
      for (char& ch : leaf)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') ch = '_';
      *directory = (std::filesystem::path(fs->directory) / leaf).string();
      continue;
    }
    std::vector<std::string> names;
    for (const auto& ext : cfg.extensions)
      if (std::holds_alternative<FileStorageExtensionConfig>(ext.settings)) names.push_back(ext.id.str());
    ctx.error(
        mark_of(root, {"exporters", ec.id.str(), "sending_queue", "storage"}),
        fmt::format("exporters.{}.sending_queue.storage: \"{}\" is not a file_storage extension defined "
                    "in extensions{}",
                    ec.id.str(), *storage, suggest(*storage, names)));
  }

  YAML::Node service_node = top.get("service");
  if (!service_node.IsDefined() || service_node.IsNull()) {
    ctx.error(root.Mark(), "the config has no service section (it defines the pipelines)");
  } else {
    MapReader service(ctx, service_node, "service");
    YAML::Node ext = service.get("extensions");
    if (ext.IsSequence()) {
      std::vector<std::string> names;
      for (const auto& [name, d] : extensions) names.push_back(name);
      for (const auto& item : ext) {
        auto id = ctx.scalar(item, "service.extensions");
        if (!id) continue;
        if (std::find(cfg.service_extensions.begin(), cfg.service_extensions.end(), *id) !=
            cfg.service_extensions.end()) {
          ctx.error(item.Mark(), fmt::format("extension \"{}\" is listed twice in service.extensions", *id));
          continue;
        }
        auto d = extensions.find(*id);
        if (d == extensions.end()) {
          ctx.error(item.Mark(),
                    fmt::format("service.extensions references extension \"{}\" which is not defined in "
                                "extensions{}",
                                *id, suggest(*id, names)));
        } else {
          d->second.used = true;
        }
        cfg.service_extensions.push_back(*id);
      }
    } else if (ext.IsDefined() && !ext.IsNull()) {
      ctx.error(ext.Mark(), "service.extensions: expected a list");
    }
    // Tern uses the directory of a file_storage extension that a component names whether or
    // not service.extensions lists it; the Collector starts only listed extensions and
    // refuses such a config. Said once per key, where the key names the extension.
    for (const auto& use : storage_uses) {
      if (std::find(cfg.service_extensions.begin(), cfg.service_extensions.end(), use.id) ==
          cfg.service_extensions.end())
        ctx.warning(use.mark, fmt::format("{} names extension \"{}\", which service.extensions does not "
                                          "list (Tern uses it anyway; the OpenTelemetry Collector refuses "
                                          "this config): add it to service.extensions",
                                          use.key, use.id));
    }

    YAML::Node pipes_node = service.get("pipelines");
    MapReader pipes(ctx, pipes_node, "service.pipelines");
    for (auto& e : pipes.entries()) {
      const YAML::Mark at = e.key_node.Mark();
      Pipeline p;
      auto slash = e.key.find('/');
      std::string sig = e.key.substr(0, slash);
      if (slash != std::string::npos) p.name = e.key.substr(slash + 1);
      if (slash != std::string::npos && p.name.empty()) {
        ctx.error(at, fmt::format("invalid pipeline id \"{}\" (expected signal or signal/name)", e.key));
        continue;
      }
      if (sig == "logs") {
        p.signal = Signal::kLogs;
      } else if (sig == "traces") {
        p.signal = Signal::kTraces;
      } else if (sig == "metrics") {
        p.signal = Signal::kMetrics;
      } else {
        ctx.error(
            at, fmt::format("unknown pipeline signal type \"{}\" in service.pipelines (expected logs, traces "
                            "or metrics){}",
                            sig, suggest(sig, {"logs", "traces", "metrics"})));
        continue;
      }
      MapReader pr(ctx, e.value, "service.pipelines." + e.key);
      decode_refs(ctx, pr, "receivers", "receiver", "receivers", p.signal, e.key, receivers, p.receivers);
      decode_refs(ctx, pr, "processors", "processor", "processors", p.signal, e.key, processors,
                  p.processors);
      decode_refs(ctx, pr, "exporters", "exporter", "exporters", p.signal, e.key, exporters, p.exporters);
      if (p.receivers.empty()) ctx.error(at, fmt::format("pipeline \"{}\" has no receivers", e.key));
      if (p.exporters.empty()) ctx.error(at, fmt::format("pipeline \"{}\" has no exporters", e.key));
      cfg.pipelines.push_back(std::move(p));
    }
    if (pipes.entries().empty()) {
      ctx.error(service.has("pipelines") ? service.mark("pipelines") : service_node.Mark(),
                "service.pipelines must define at least one pipeline");
    }
    warn_shared_batching(ctx, pipes, cfg);

    MapReader tel(ctx, service.get("telemetry"), "service.telemetry");
    {
      using T = Telemetry;
      MapReader logs(ctx, tel.get("logs"), "service.telemetry.logs");
      logs.choice("level", cfg.telemetry.log_level,
                  {{"debug", T::Level::kDebug},
                   {"info", T::Level::kInfo},
                   {"warn", T::Level::kWarn},
                   {"error", T::Level::kError}},
                  /*any_case=*/true);
      logs.choice("encoding", cfg.telemetry.log_encoding,
                  {{"console", T::Encoding::kConsole}, {"json", T::Encoding::kJson}});
      MapReader metrics(ctx, tel.get("metrics"), "service.telemetry.metrics");
      metrics.str("address", cfg.telemetry.metrics_address);
      check_host_port(ctx, metrics, "address", cfg.telemetry.metrics_address);
      // The Collector's verbosity of its own metrics: `none` turns the endpoint off; Tern has
      // one set of metrics, so the other levels all serve it.
      bool serve = true;
      metrics.choice("level", serve,
                     {{"none", false}, {"basic", true}, {"normal", true}, {"detailed", true}});
      if (!serve) cfg.telemetry.metrics_address.clear();
    }
    service.duration("shutdown_timeout", cfg.shutdown_timeout);
  }

  auto warn_unused = [&](const std::map<std::string, Defined>& defined, const char* kind, const char* where) {
    for (const auto& [name, d] : defined) {
      if (!d.used)
        ctx.warning(d.mark, fmt::format("{} \"{}\" is defined but not used in {}", kind, name, where));
    }
  };
  warn_unused(receivers, "receiver", "any pipeline");
  warn_unused(processors, "processor", "any pipeline");
  warn_unused(exporters, "exporter", "any pipeline");
  warn_unused(extensions, "extension", "service.extensions");
}

}  // namespace

LoadResult load_config_string(std::string_view yaml, const std::string& file, const EnvLookup& env) {
  LoadResult result;
  Ctx ctx(file, env, result.diagnostics);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    ctx.error(e.mark, fmt::format("YAML syntax error: {}", e.msg));
    return result;
  }
  try {
    decode_config(ctx, root, result.config);
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws on some odd node shapes (e.g. aliases to the wrong kind); report, don't crash.
    ctx.error(e.mark, fmt::format("invalid config: {}", e.msg));
  }
  // Decoders report as they go (unknown keys only when a mapping is done), so put the
  // errors in file order, then the warnings, which is how people read and fix them.
  std::stable_sort(result.diagnostics.items.begin(), result.diagnostics.items.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return std::tie(a.severity, a.line, a.column) < std::tie(b.severity, b.line, b.column);
                   });
  return result;
}

LoadResult load_config_file(const std::string& path, const EnvLookup& env) {
  const auto failed = [&](const std::string& why) {
    LoadResult result;
    result.diagnostics.add(Severity::kError, path, 0, 0, "cannot read the config file: " + why);
    return result;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return failed("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult result;
    result.diagnostics.add(Severity::kError, path, 0, 0,
                           fmt::format("cannot open the config file: {}", std::strerror(errno)));
    return result;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return failed(std::strerror(errno));
  return load_config_string(ss.str(), path, env);
}

}  // namespace tern::config
