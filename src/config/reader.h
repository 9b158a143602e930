#pragma once
// The YAML reader every component's config decoder uses: a DecodeContext (diagnostics with
// file:line:column, ${env:...} substitution) and MapReader, which reads one mapping key by
// key and reports the keys nobody asked for, with a "did you mean".
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/diagnostics.h"
#include "config/units.h"
#include "text/ascii.h"
#include "text/numbers.h"

namespace tern::config {

std::size_t edit_distance(std::string_view a, std::string_view b);
// Where `path` (keys from `root`) is in the file, or its deepest written ancestor: a value
// that came through a merge key (`<<: *anchor`) is not a child of the node the config names,
// and yaml-cpp throws for the Mark() of a node that does not exist.
YAML::Mark mark_of(const YAML::Node& root, std::initializer_list<std::string_view> path);
// " (did you mean "x"?)" for the closest candidate within a small edit distance.
std::string suggest(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& v);

class DecodeContext {
 public:
  DecodeContext(std::string file, const EnvLookup& env, Diagnostics& d)
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
  // A position kept as 1-based line and column (0: unknown) as a mark again.
  static YAML::Mark mark_at(int line, int column) {
    YAML::Mark m = YAML::Mark::null_mark();
    if (line > 0 && column > 0) m.line = line - 1, m.column = column - 1;
    return m;
  }

  // Checks of the machine a config will run on (a TLS file that must be readable, a
  // directory that must be usable): recorded while decoding, run by the loader when asked
  // (`tern validate` and `tern run` do; unit tests of decoders need not have the files).
  using EnvironmentCheck = std::function<std::optional<std::string>()>;  // the problem, if any
  void check_environment(const YAML::Mark& m, EnvironmentCheck check) {
    environment_checks_.push_back({m, std::move(check)});
  }
  void run_environment_checks() {
    for (auto& [mark, check] : environment_checks_)
      if (auto problem = check()) error(mark, std::move(*problem));
    environment_checks_.clear();
  }

 private:
  std::vector<std::pair<YAML::Mark, EnvironmentCheck>> environment_checks_;
};

// Reads one mapping: each accessor marks its key as known; finish() reports the rest.
class MapReader {
 public:
  MapReader(DecodeContext& ctx, const YAML::Node& node, std::string path)
      : ctx_(ctx), path_(std::move(path)) {
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
            entries_.push_back({key, it->first, it->second, false, true});
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
  // Where the file writes `key` for this mapping: its value, or this mapping when the key
  // came through a merge key (the value's own place is then another component's).
  YAML::Mark own_mark(std::string_view key) const {
    for (const auto& e : entries_)
      if (e.key == key && !e.merged) return e.value.IsNull() ? e.key_node.Mark() : e.value.Mark();
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
    bool merged = false;  // came through a merge key (<<)
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

  DecodeContext& ctx_;
  std::string path_;
  YAML::Mark mark_ = YAML::Mark::null_mark();
  std::vector<Entry> entries_;
  std::vector<std::string> known_;
  bool finished_ = false;
};
// Listening addresses are "host:port" (host may be empty, a name, an IPv4 address or a
// bracketed IPv6 address); catching a missing port here beats a bind error at startup.
void check_host_port(DecodeContext& ctx, const MapReader& r, std::string_view key, const std::string& value);
// Back-off intervals are kept in milliseconds: a smaller initial interval (0 included) would
// retry in a tight loop.
void check_backoff(DecodeContext& ctx, MapReader& rt, Duration initial, Duration max);

// Environment checks (see DecodeContext::check_environment): "" when fine.
std::optional<std::string> file_unreadable(const std::string& key_path, const std::string& file);
std::optional<std::string> directory_unusable(const std::string& key_path, const std::string& dir);

}  // namespace tern::config
