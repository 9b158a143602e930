#pragma once
// What the sink keeps of accepted documents: per-index counts and the explicit `_id`s
// (for create conflicts and deletes), not the documents; and the `--dump` file.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "sink/bulk_item.h"

namespace tern::sink {

class Store {
 public:
  // Decides every item no check has failed (created, updated, deleted, not found, conflict,
  // or a delete's missing index) under one lock per request. Returns the documents accepted.
  uint64_t write(std::vector<Item>& items);
  // Documents in the indices matching a comma list of names / `*` patterns; -1 when a
  // concrete (pattern-free) name does not exist.
  int64_t count(std::string_view pattern) const;
  // The body of `GET /_cat/indices/{pattern}`: text lines, or JSON with `json`.
  std::string cat_indices(std::string_view pattern, bool json) const;
  // The members of the stats' "indices" object: `"name":count,...`.
  void append_index_counts(std::string& out) const;

 private:
  struct Index {
    uint64_t count = 0;
    std::unordered_set<std::string> ids;
  };
  // The index `it` goes to, created for a write; null (and `it` failed) for a delete's
  // missing index. The caller holds mu_.
  Index* index_for(Item& it);
  // A delete: 200 deleted, or 404 not_found (a result, not a failure).
  static void erase(Index& idx, Item& it);
  // A create or index: 201 created, 200 updated, or 409 for a create of an existing `_id`.
  // Returns whether the document was accepted.
  static bool put(Index& idx, Item& it);

  mutable std::mutex mu_;
  std::map<std::string, Index, std::less<>> indices_;
};

// Accepted documents appended to a file, one line each, buffered up to 1 MiB.
class Dump {
 public:
  explicit Dump(const std::string& path);  // throws std::runtime_error if it cannot be opened
  ~Dump();
  Dump(const Dump&) = delete;
  Dump& operator=(const Dump&) = delete;
  void write(std::string_view lines);
  void flush();

 private:
  void flush_locked();
  std::mutex mu_;
  std::FILE* file_ = nullptr;
  std::string buf_;
};

// Appends the dump line of an accepted document: {"_index":..,"_id":..,"_source":DOC}.
void append_dump_line(std::string& out, const Item& it);

}  // namespace tern::sink
