// SinkCore's state outside the request paths: construction, fault rolls, counts, stats.
#include "sink/sink_core.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "sink/store.h"
#include "sink/strings.h"

namespace tern::sink {

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative `*` matching with single backtrack point: linear-ish, no recursion.
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (pi < p.size() && p[pi] == s[si]) {
      ++pi;
      ++si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

SinkCore::SinkCore(SinkOptions options) : opt_(std::move(options)), store_(std::make_unique<Store>()) {
  if (!opt_.dump_path.empty()) dump_ = std::make_unique<Dump>(opt_.dump_path);
}
SinkCore::~SinkCore() = default;

void SinkCore::flush_dump() {
  if (dump_) dump_->flush();
}

bool SinkCore::roll(std::atomic<uint64_t>& counter, uint64_t stream, double rate) {
  if (rate <= 0) return false;
  uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  uint64_t r = splitmix(splitmix(opt_.seed ^ (stream * 0x100000001b3ULL)) + n);
  return static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0) < rate;
}

void SinkCore::note_bulk_status(int status) {
  if (status >= 0 && status < 600) bulk_by_status_[status].fetch_add(1, std::memory_order_relaxed);
}

int64_t SinkCore::count(std::string_view pattern) const { return store_->count(pattern); }

SinkStats SinkCore::stats() const {
  SinkStats s;
  s.docs = docs_.load();
  s.requests = requests_.load();
  s.bulk_requests = bulk_requests_.load();
  s.bytes_compressed = bytes_c_.load();
  s.bytes_uncompressed = bytes_u_.load();
  for (int i = 0; i < 600; ++i) {
    if (uint64_t v = items_by_status_[i].load()) s.items_by_status[i] = v;
    if (uint64_t v = bulk_by_status_[i].load()) s.bulk_by_status[i] = v;
  }
  return s;
}

std::string SinkCore::stats_json() const {
  SinkStats s = stats();
  std::string out = fmt::format(
      R"({{"docs":{},"requests":{},"bulk_requests":{},"bytes_compressed":{},"bytes_uncompressed":{},"items_by_status":{{)",
      s.docs, s.requests, s.bulk_requests, s.bytes_compressed, s.bytes_uncompressed);
  bool first = true;
  for (auto& [k, v] : s.items_by_status)
    out += fmt::format(R"({}"{}":{})", std::exchange(first, false) ? "" : ",", k, v);
  out += R"(},"bulk_by_status":{)";
  first = true;
  for (auto& [k, v] : s.bulk_by_status)
    out += fmt::format(R"({}"{}":{})", std::exchange(first, false) ? "" : ",", k, v);
  out += R"(},"indices":{)";
  store_->append_index_counts(out);
  out += "}}";
  return out;
}

}  // namespace tern::sink
