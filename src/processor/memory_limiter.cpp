#include "processor/memory_limiter.h"

#include <unistd.h>

#include <cstdio>

namespace tern::processor {

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
std::uint64_t total_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : 0;
}
}  // namespace

MemoryLimiter::MemoryLimiter(const config::MemoryLimiterProcessorConfig& c, RssReader rss)
    : rss_(std::move(rss)),
      interval_(c.check_interval.count() > 0 ? std::chrono::nanoseconds(c.check_interval)
                                             : std::chrono::seconds(1)) {
  std::uint64_t limit = c.limit_mib << 20, spike = c.spike_limit_mib << 20;
  if (limit == 0 && c.limit_percentage > 0) {
    const auto total = total_memory_bytes();
    limit = total / 100 * c.limit_percentage;
    spike = total / 100 * c.spike_limit_percentage;
  }
  if (spike == 0) spike = limit / 5;  // the OpenTelemetry Collector's default: 20% of the limit
  soft_limit_ = limit > spike ? limit - spike : limit;
}

std::uint64_t MemoryLimiter::read_rss() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

pipeline::ConsumeResult MemoryLimiter::check() {
  if (soft_limit_ == 0) return pipeline::ConsumeResult::ok();
  const auto now = now_ns();
  if (now >= next_check_ns_.load(std::memory_order_relaxed)) {
    std::unique_lock lock(check_mu_, std::try_to_lock);
    if (lock.owns_lock() && now >= next_check_ns_.load(std::memory_order_relaxed)) {
      over_.store(rss_() > soft_limit_, std::memory_order_relaxed);
      next_check_ns_.store(now + interval_.count(), std::memory_order_relaxed);
    }
  }
  if (!over_.load(std::memory_order_relaxed)) return pipeline::ConsumeResult::ok();
  refused_.fetch_add(1, std::memory_order_relaxed);
  return pipeline::ConsumeResult::retry_later(
      "memory limit reached: the collector is above its memory_limiter soft limit", std::chrono::seconds(1));
}

}  // namespace tern::processor
