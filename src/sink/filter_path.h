#pragma once
// filter_path: comma-separated dotted paths, `*` globs per component. Arrays are
// transparent (as in Elasticsearch), so `items.*.status` matches the action name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tern::sink {

class PathFilter {
 public:
  // A path seen while writing, with its verdict: 2 = the path and its whole subtree are
  // included, 1 = some descendant may be, 0 = excluded. A bulk response walks the same
  // dozen paths for every item, so each is matched against the patterns once per request
  // and then found again among its parent's children (matching per item, and later a hash
  // of the joined path, was a fifth of the sink's CPU).
  struct Node {
    std::string key;
    int level = 2;
    std::vector<std::unique_ptr<Node>> children;
    size_t next = 0;  // where the next lookup starts: the child after the last one found
  };

  explicit PathFilter(std::string_view spec);
  Node& root() { return root_; }
  // The child `key` of `parent`, whose path (root to parent) is `path`.
  Node& child(Node& parent, std::string_view key, std::vector<std::string_view>& path);

 private:
  int match(const std::vector<std::string_view>& path) const;

  std::vector<std::vector<std::string_view>> patterns_;
  Node root_;
};

// JSON writer that applies a PathFilter: containers are opened lazily, so filtered
// out or empty ones never appear (like Elasticsearch's filter_path output).
class FilteredWriter {
 public:
  FilteredWriter(std::string& out, PathFilter& f);
  void begin(std::string_view key, bool array);
  void end();
  void raw(std::string_view key, std::string_view value);
  void str(std::string_view key, std::string_view value);
  void num(std::string_view key, int64_t v);
  void finish() { out_ += '}'; }

 private:
  struct Frame {
    std::string_view key;
    bool opened;
    bool array;
    int children;
    PathFilter::Node* node;  // the frame's path; its level says what of it is written
    bool pushed;
  };
  bool member(std::string_view key);
  void open_all();

  std::string& out_;
  PathFilter& f_;
  std::vector<Frame> frames_;
  std::vector<std::string_view> path_;
};

}  // namespace tern::sink
