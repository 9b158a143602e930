#include "queue/memory_queue.h"

namespace tern::queue {

bool MemoryQueue::fits(const Entry& e) const {
  if (entries_.empty()) return true;
  if (stats_.bytes + e.bytes > limits_.max_bytes) return false;
  if (limits_.max_entries && stats_.entries + 1 > limits_.max_entries) return false;
  return limits_.max_items == 0 || stats_.items + e.items <= limits_.max_items;
}

bool MemoryQueue::may_fit(std::uint64_t items, std::uint64_t min_bytes) const {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  Entry probe;
  probe.items = items;
  probe.bytes = min_bytes;
  return fits(probe);
}

void MemoryQueue::push_locked(Entry& entry) {
  stats_.bytes += entry.bytes;
  stats_.items += entry.items;
  ++stats_.entries;
  ++stats_.pushed_entries;
  if (stats_.bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.bytes;
  entries_.push_back(std::move(entry));
}

bool MemoryQueue::try_push(Entry& entry) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || !fits(entry)) {
      ++stats_.refused_entries;
      return false;
    }
    push_locked(entry);
  }
  cv_.notify_one();
  return true;
}

bool MemoryQueue::push_wait(Entry& entry, std::chrono::steady_clock::time_point deadline) {
  {
    std::unique_lock lock(mu_);
    if (!room_cv_.wait_until(lock, deadline, [&] { return closed_ || fits(entry); }) || closed_) return false;
    push_locked(entry);
  }
  cv_.notify_one();
  return true;
}

bool MemoryQueue::pop_batch(std::vector<Entry>& out, std::uint64_t max_bytes, std::uint64_t max_items,
                            std::chrono::milliseconds linger) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !entries_.empty() || closed_; });
  if (entries_.empty()) return false;
  std::uint64_t bytes = 0, items = 0;
  const auto deadline = std::chrono::steady_clock::now() + linger;
  while (true) {
    while (!entries_.empty()) {
      Entry& e = entries_.front();
      if (bytes > 0 &&
          ((max_bytes && bytes + e.bytes > max_bytes) || (max_items && items + e.items > max_items))) {
        room_cv_.notify_all();
        return true;
      }
      bytes += e.bytes;
      items += e.items;
      stats_.bytes -= e.bytes;
      stats_.items -= e.items;
      --stats_.entries;
      out.push_back(std::move(e));
      entries_.pop_front();
    }
    const bool full = (max_bytes && bytes >= max_bytes) || (max_items && items >= max_items);
    room_cv_.notify_all();
    if (full || closed_ || linger.count() <= 0) return true;
    if (!cv_.wait_until(lock, deadline, [&] { return !entries_.empty() || closed_; })) return true;
  }
}

void MemoryQueue::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
  room_cv_.notify_all();
}

bool MemoryQueue::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

MemoryQueueStats MemoryQueue::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace tern::queue
