#include "processor/memorylimiter/memory_limiter.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

namespace tern::processor {

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
// A number from a cgroup file ("max" or anything else: none).
std::uint64_t cgroup_limit(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  unsigned long long v = 0;
  const int n = std::fscanf(f, "%llu", &v);
  std::fclose(f);
  return n == 1 ? v : 0;
}
}  // namespace

std::uint64_t total_memory_bytes(const char* cgroup_v2, const char* cgroup_v1) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t physical =
      pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : 0;
  // A container's memory is its cgroup's limit, as the Collector's limiter reads it (v2,
  // then v1); the host's RAM let a 512 MiB container reach its OOM killer first. v1 says
  // "no limit" with a huge number, which the min() below absorbs.
  std::uint64_t limit = cgroup_limit(cgroup_v2);
  if (limit == 0) limit = cgroup_limit(cgroup_v1);
  if (limit == 0) return physical;
  return physical == 0 ? limit : std::min(limit, physical);
}

namespace {}  // namespace

MemoryLimiter::MemoryLimiter(const processor::MemoryLimiterProcessorConfig& c, RssReader rss)
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
  if (limit)
    spdlog::info("memory_limiter: limit {} MiB, spike {} MiB: refusing data above {} MiB", limit >> 20,
                 spike >> 20, soft_limit_ >> 20);
}

std::uint64_t MemoryLimiter::read_rss() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

component::ConsumeResult MemoryLimiter::check() {
  if (soft_limit_ == 0) return component::ConsumeResult::ok();
  const auto now = now_ns();
  if (now >= next_check_ns_.load(std::memory_order_relaxed)) {
    std::unique_lock lock(check_mu_, std::try_to_lock);
    if (lock.owns_lock() && now >= next_check_ns_.load(std::memory_order_relaxed)) {
      over_.store(rss_() > soft_limit_, std::memory_order_relaxed);
      next_check_ns_.store(now + interval_.count(), std::memory_order_relaxed);
    }
  }
  if (!over_.load(std::memory_order_relaxed)) return component::ConsumeResult::ok();
  refused_.fetch_add(1, std::memory_order_relaxed);
  return component::ConsumeResult::retry_later(
      "memory limit reached: the collector is above its memory_limiter soft limit", std::chrono::seconds(1));
}

}  // namespace tern::processor
