#include "sink/filter_path.h"

#include <algorithm>
#include <charconv>

#include "sink/es_json.h"
#include "sink/strings.h"

namespace tern::sink {

PathFilter::PathFilter(std::string_view spec) {
  for (auto p : split(spec, ',')) {
    if (!p.empty()) patterns_.push_back(split(p, '.'));
  }
  root_.level = patterns_.empty() ? 2 : 1;
}

PathFilter::Node& PathFilter::child(Node& parent, std::string_view key, std::vector<std::string_view>& path) {
  // Items write their fields in the same order, so the search nearly always ends at once.
  const size_t n = parent.children.size();
  for (size_t k = 0, i = parent.next; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    if (parent.children[i]->key == key) {
      parent.next = i + 1 == n ? 0 : i + 1;
      return *parent.children[i];
    }
  }
  auto& c = parent.children.emplace_back(std::make_unique<Node>());
  c->key = key;
  path.push_back(key);
  c->level = match(path);
  path.pop_back();
  return *c;
}

int PathFilter::match(const std::vector<std::string_view>& path) const {
  int best = 0;
  for (const auto& pat : patterns_) {
    size_t n = std::min(pat.size(), path.size());
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) ok = glob_match(pat[i], path[i]);
    if (!ok) continue;
    if (pat.size() <= path.size()) return 2;
    best = 1;
  }
  return best;
}

FilteredWriter::FilteredWriter(std::string& out, PathFilter& f) : out_(out), f_(f) {
  out_ += '{';
  frames_.push_back({"", true, false, 0, &f.root(), false});
}

void FilteredWriter::begin(std::string_view key, bool array) {
  Frame& parent = frames_.back();
  PathFilter::Node* node = parent.node;
  bool pushed = false;
  // Array elements have no key: they do not add a path component (arrays are transparent).
  if (node->level == 1 && !key.empty()) {
    node = &f_.child(*node, key, path_);
    path_.push_back(key);
    pushed = true;
  }
  frames_.push_back({key, false, array, 0, node, pushed});
}

void FilteredWriter::end() {
  Frame fr = frames_.back();
  frames_.pop_back();
  if (fr.pushed) path_.pop_back();
  if (fr.opened) out_ += fr.array ? ']' : '}';
}

void FilteredWriter::raw(std::string_view key, std::string_view value) {
  if (member(key)) out_ += value;
}

void FilteredWriter::str(std::string_view key, std::string_view value) {
  if (member(key)) append_json_string(out_, value);
}

void FilteredWriter::num(std::string_view key, int64_t v) {
  if (!member(key)) return;
  char buf[24];
  out_.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

// Whether `key` of the current object passes the filter; if so, opens the containers
// around it and writes `"key":` (nothing for an array element), ready for the value.
// Deciding first means a filtered-out value is never formatted. `inline` (as open_all): both
// belong inside str/num/raw, which run for every field of every item.
inline bool FilteredWriter::member(std::string_view key) {
  PathFilter::Node* node = frames_.back().node;
  if (node->level == 0) return false;
  if (node->level == 1 && f_.child(*node, key, path_).level != 2) return false;
  open_all();
  Frame& p = frames_.back();
  if (p.children++) out_ += ',';
  if (!p.array) {
    append_json_string(out_, key);
    out_ += ':';
  }
  return true;
}

inline void FilteredWriter::open_all() {
  for (size_t i = 1; i < frames_.size(); ++i) {
    Frame& fr = frames_[i];
    if (fr.opened) continue;
    Frame& parent = frames_[i - 1];
    if (parent.children++) out_ += ',';
    if (!parent.array) {
      append_json_string(out_, fr.key);
      out_ += ':';
    }
    out_ += fr.array ? '[' : '{';
    fr.opened = true;
  }
}

}  // namespace tern::sink
