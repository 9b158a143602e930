#include "sink/store.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "sink/es_json.h"
#include "sink/strings.h"

namespace tern::sink {

uint64_t Store::write(std::vector<Item>& items) {
  uint64_t accepted = 0;
  std::lock_guard lk(mu_);
  Index* idx = nullptr;  // consecutive items mostly share their index: looked up on a change
  std::string_view idx_name;
  for (auto& it : items) {
    if (it.status) continue;
    if (!idx || it.index != idx_name) {
      Index* found = index_for(it);
      if (!found) continue;
      idx = found;
      idx_name = it.index;
    }
    if (it.op == Op::kDelete) {
      erase(*idx, it);
    } else if (put(*idx, it)) {
      ++accepted;
    }
  }
  return accepted;
}

Store::Index* Store::index_for(Item& it) {
  auto found = indices_.find(it.index);
  if (found != indices_.end()) return &found->second;
  // A delete does not create its index: Elasticsearch answers it index_not_found.
  if (it.op == Op::kDelete) {
    it.fail(404, "index_not_found_exception", fmt::format("no such index [{}]", it.index));
    return nullptr;
  }
  return &indices_.emplace(std::string(it.index), Index{}).first->second;
}

void Store::erase(Index& idx, Item& it) {
  if (it.id_given && idx.ids.erase(std::string(it.id))) {
    if (idx.count) --idx.count;
    it.status = 200;
    it.result = "deleted";
    it.version = 2;
  } else {
    it.status = 404;
    it.result = "not_found";
  }
}

bool Store::put(Index& idx, Item& it) {
  if (!it.id_given) {
    // Generated ids are unique by construction: not stored.
    ++idx.count;
    it.status = 201;
    it.result = "created";
  } else if (idx.ids.emplace(it.id).second) {
    ++idx.count;
    it.status = 201;
    it.result = "created";
  } else if (it.op == Op::kCreate) {
    it.status = 409;
    it.error_type = "version_conflict_engine_exception";
    it.error_reason =
        fmt::format("[{}]: version conflict, document already exists (current version [1])", it.id);
  } else {
    it.status = 200;
    it.result = "updated";
    it.version = 2;
  }
  return it.status < 300;
}

int64_t Store::count(std::string_view pattern) const {
  std::lock_guard lk(mu_);
  int64_t total = 0;
  std::unordered_set<std::string_view> seen;
  for (auto p : split(pattern, ',')) {
    if (p.empty()) continue;
    if (p == "_all") p = "*";
    if (p.find('*') == std::string_view::npos) {
      auto it = indices_.find(p);
      if (it == indices_.end()) return -1;
      if (seen.insert(it->first).second) total += it->second.count;
      continue;
    }
    for (auto& [name, idx] : indices_) {
      if (glob_match(p, name) && seen.insert(name).second) total += idx.count;
    }
  }
  return total;
}

std::string Store::cat_indices(std::string_view pattern, bool json) const {
  std::string out = json ? "[" : "";
  std::lock_guard lk(mu_);
  bool first = true;
  for (auto& [name, idx] : indices_) {
    bool match = false;
    for (auto p : split(pattern, ',')) match = match || glob_match(p, name);
    if (!match) continue;
    if (json) {
      if (!std::exchange(first, false)) out += ',';
      out += R"({"health":"green","status":"open","index":)" + json_string(name) +
             fmt::format(R"(,"docs.count":"{}"}})", idx.count);
    } else {
      out += fmt::format("green open {} 1 0 {} 0\n", name, idx.count);
    }
  }
  if (json) out += "]";
  return out;
}

void Store::append_index_counts(std::string& out) const {
  std::lock_guard lk(mu_);
  bool first = true;
  for (auto& [name, idx] : indices_) {
    if (!std::exchange(first, false)) out += ',';
    append_json_string(out, name);
    out += fmt::format(":{}", idx.count);
  }
}

Dump::Dump(const std::string& path) : file_(std::fopen(path.c_str(), "ab")) {
  if (!file_) throw std::runtime_error("cannot open dump file " + path);
}

Dump::~Dump() {
  flush_locked();
  if (file_) std::fclose(file_);
}

void Dump::write(std::string_view lines) {
  std::lock_guard lk(mu_);
  buf_ += lines;
  if (buf_.size() >= (1u << 20)) flush_locked();
}

void Dump::flush() {
  std::lock_guard lk(mu_);
  flush_locked();
}

void Dump::flush_locked() {
  if (file_ && !buf_.empty()) {
    std::fwrite(buf_.data(), 1, buf_.size(), file_);
    std::fflush(file_);
  }
  buf_.clear();
}

void append_dump_line(std::string& out, const Item& it) {
  out += R"({"_index":)";
  append_json_string(out, it.index);
  out += R"(,"_id":)";
  append_json_string(out, it.id);
  out += R"(,"_source":)";
  out += it.doc;
  out += "}\n";
}

}  // namespace tern::sink
