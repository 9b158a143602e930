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

#include "component/processor.h"
#include "processor/memorylimiter/config.h"

namespace tern::processor {

// The memory this process may use: its cgroup's limit when there is one (v2 memory.max,
// else v1 memory.limit_in_bytes), at most the physical RAM. The paths are parameters for
// tests.
std::uint64_t total_memory_bytes(const char* cgroup_v2 = "/sys/fs/cgroup/memory.max",
                                 const char* cgroup_v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes");

class MemoryLimiter final : public component::Processor {
 public:
  using RssReader = std::function<std::uint64_t()>;  // bytes; injectable for tests
  explicit MemoryLimiter(const processor::MemoryLimiterProcessorConfig& config, RssReader rss = read_rss);

  component::ConsumeResult process(pdata::LogsData&) override { return check(); }
  component::ConsumeResult process(pdata::TracesData&) override { return check(); }
  component::ConsumeResult process(pdata::MetricsData&) override { return check(); }
  bool mutates() const override { return false; }

  std::uint64_t soft_limit_bytes() const { return soft_limit_; }
  std::uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  // Summed by the service over the instances of one id (one per pipeline).
  void collect_metrics(const std::string& id, std::vector<component::MetricSample>& out) const override {
    out.push_back({"tern_memory_limiter_refused_total", "processor=\"" + component::escape_label(id) + "\"",
                   static_cast<double>(refused()), "Batches refused by memory_limiter", true});
  }
  static std::uint64_t read_rss();

 private:
  component::ConsumeResult check();

  RssReader rss_;
  std::uint64_t soft_limit_ = 0;  // 0: no limit
  std::chrono::nanoseconds interval_;
  std::atomic<std::int64_t> next_check_ns_{0};
  std::atomic<bool> over_{false};
  std::atomic<std::uint64_t> refused_{0};
  std::mutex check_mu_;  // one thread refreshes the reading; the others use the last one
};

}  // namespace tern::processor
