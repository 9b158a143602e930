#pragma once
// `memory_limiter`: refuses batches (back-pressure, so clients retry) while the process's
// resident memory is above the soft limit (limit - spike), instead of growing until the
// kernel kills the process. RSS is read from /proc/self/statm at most every
// check_interval (default 1 s), so the check costs an atomic load per batch.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

#include "config/config.h"
#include "processor/processor.h"

namespace tern::processor {

// The memory this process may use: its cgroup's limit when there is one (v2 memory.max,
// else v1 memory.limit_in_bytes), at most the physical RAM. The paths are parameters for
// tests.
std::uint64_t total_memory_bytes(const char* cgroup_v2 = "/sys/fs/cgroup/memory.max",
                                 const char* cgroup_v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes");

class MemoryLimiter final : public Processor {
 public:
  using RssReader = std::function<std::uint64_t()>;  // bytes; injectable for tests
  explicit MemoryLimiter(const config::MemoryLimiterProcessorConfig& config, RssReader rss = read_rss);

  pipeline::ConsumeResult process(pdata::LogsData&) override { return check(); }
  pipeline::ConsumeResult process(pdata::TracesData&) override { return check(); }
  pipeline::ConsumeResult process(pdata::MetricsData&) override { return check(); }
  bool mutates() const override { return false; }

  std::uint64_t soft_limit_bytes() const { return soft_limit_; }
  std::uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  static std::uint64_t read_rss();

 private:
  pipeline::ConsumeResult check();

  RssReader rss_;
  std::uint64_t soft_limit_ = 0;  // 0: no limit
  std::chrono::nanoseconds interval_;
  std::atomic<std::int64_t> next_check_ns_{0};
  std::atomic<bool> over_{false};
  std::atomic<std::uint64_t> refused_{0};
  std::mutex check_mu_;  // one thread refreshes the reading; the others use the last one
};

}  // namespace tern::processor
