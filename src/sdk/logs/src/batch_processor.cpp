#include "tern/sdk/logs/batch_processor.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace tern::sdk::logs {

namespace {
std::size_t RoundUpPow2(std::size_t n) { return std::bit_ceil(std::max<std::size_t>(n, 2)); }
}  // namespace

BatchLogRecordProcessor::BatchLogRecordProcessor(std::shared_ptr<const LogRecordExporter> exporter,
                                                 BatchLogRecordProcessorOptions options)
    : exporter_(std::move(exporter)),
      options_([&] {
        options.max_queue_size = RoundUpPow2(options.max_queue_size);
        options.max_export_batch_size =
            std::clamp<std::size_t>(options.max_export_batch_size, 1, options.max_queue_size);
        // A zero (or negative) delay times out at once, every time: the export thread
        // would spin on an empty queue instead of sleeping.
        options.scheduled_delay = std::max(options.scheduled_delay, kMinScheduledDelay);
        return options;
      }()),
      mask_(options_.max_queue_size - 1),
      slots_(std::make_unique<Slot[]>(options_.max_queue_size)) {
  for (std::size_t i = 0; i <= mask_; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
  batch_data_.resize(options_.max_export_batch_size);
  batch_views_.reserve(options_.max_export_batch_size);
  batch_entries_.reserve(options_.max_export_batch_size);
  thread_ = std::thread([this] { Run(); });
}

BatchLogRecordProcessor::~BatchLogRecordProcessor() {
  // A Shutdown that times out has shut the exporter down from here, which ends a network
  // export the thread may be blocked in; the join then waits only for the rest of the
  // queue to be refused by the shut-down exporter.
  Shutdown(std::chrono::seconds(5));
  std::lock_guard join(join_mu_);
  if (thread_.joinable()) thread_.join();
}

void BatchLogRecordProcessor::CountDrop() noexcept {
  // Sharded so that producers dropping on a full ring do not all hammer one line.
  static std::atomic<unsigned> next_shard{0};
  thread_local const unsigned shard = next_shard.fetch_add(1, std::memory_order_relaxed) % kDropShards;
  dropped_[shard].value.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t BatchLogRecordProcessor::dropped_count() const noexcept {
  std::uint64_t n = 0;
  for (const auto& c : dropped_) n += c.value.load(std::memory_order_relaxed);
  if (finished_.load(std::memory_order_acquire)) {
    // The export thread is gone: whatever is still in the ring will never be exported.
    n += enqueue_pos_.load(std::memory_order_acquire) - dequeue_pos_.load(std::memory_order_acquire);
  }
  return n;
}

std::size_t BatchLogRecordProcessor::QueueSize() const noexcept {
  // Claimed positions minus consumed ones; may include slots still being written.
  return enqueue_pos_.load(std::memory_order_acquire) - dequeue_pos_.load(std::memory_order_relaxed);
}

void BatchLogRecordProcessor::OnEmit(const LogRecord& record, const InstrumentationScope& scope) noexcept {
  if (shutdown_.load(std::memory_order_relaxed)) {
    CountDrop();
    return;
  }
  std::size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
  Slot* slot;
  for (;;) {
    slot = &slots_[pos & mask_];
    const std::size_t seq = slot->sequence.load(std::memory_order_acquire);
    const auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
    if (diff == 0) {
      if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
    } else if (diff < 0) {
      CountDrop();  // the slot still holds a record from one lap ago: ring full
      return;
    } else {
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    }
  }
  slot->scope = &scope;
  slot->data.Assign(record);
  slot->sequence.store(pos + 1, std::memory_order_release);

  // Only a queue holding a full batch is worth a wake-up; below that the timer does it.
  // Signed: the export thread may already have consumed past our record.
  const auto size = static_cast<std::intptr_t>(pos + 1 - dequeue_pos_.load(std::memory_order_relaxed));
  if (size >= static_cast<std::intptr_t>(options_.max_export_batch_size)) {
    // Pairs with the fence in Run(): either we see sleeping_ or the export thread sees
    // our record before it sleeps (no lost wake-up).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_relaxed) && sleeping_.exchange(false)) Wake();
  }
}

void BatchLogRecordProcessor::Wake() {
  // Taking the mutex orders the notify after the export thread has started waiting.
  { std::lock_guard lock(mu_); }
  wake_cv_.notify_one();
}

void BatchLogRecordProcessor::ExportBatch(std::size_t n) {
  std::size_t pos = dequeue_pos_.load(std::memory_order_relaxed);
  batch_views_.clear();
  batch_entries_.clear();
  for (std::size_t i = 0; i < n; ++i, ++pos) {
    Slot& slot = slots_[pos & mask_];
    // The position is claimed; its producer is between the CAS and the publish.
    while (slot.sequence.load(std::memory_order_acquire) != pos + 1) std::this_thread::yield();
    std::swap(batch_data_[i], slot.data);
    const InstrumentationScope* scope = slot.scope;
    slot.sequence.store(pos + mask_ + 1, std::memory_order_release);
    dequeue_pos_.store(pos + 1, std::memory_order_release);
    batch_views_.push_back(batch_data_[i].view());
    batch_entries_.push_back({scope, nullptr});
  }
  // Views are complete only now (push_back may have moved them before).
  for (std::size_t i = 0; i < n; ++i) batch_entries_[i].record = &batch_views_[i];
  exporter_->Export(LogRecordBatchView(resource(), batch_entries_));
}

void BatchLogRecordProcessor::Drain(std::size_t end, bool full_batches_only) {
  const std::size_t max_batch = options_.max_export_batch_size;
  for (;;) {
    const std::size_t head = dequeue_pos_.load(std::memory_order_relaxed);
    std::size_t available;
    if (full_batches_only) {
      available = QueueSize();
      if (available < max_batch) return;
      // Producers may keep the ring full forever: serve flush/shutdown between batches.
      if (stop_requested_.load() || flush_requested_.load() != flush_done_.load()) return;
    } else {
      if (head >= end) return;
      available = end - head;
    }
    ExportBatch(std::min(available, max_batch));
  }
}

void BatchLogRecordProcessor::Run() {
  auto deadline = DeadlineAfter(options_.scheduled_delay);
  for (;;) {
    bool timed_out = false;
    bool stop = false;
    std::uint64_t flush = 0;
    SteadyClock::time_point flush_deadline;
    SteadyClock::time_point stop_deadline;
    {
      std::unique_lock lock(mu_);
      sleeping_.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      const auto ready = [&] {
        return stop_requested_.load() || flush_requested_.load() != flush_done_.load() ||
               QueueSize() >= options_.max_export_batch_size;
      };
      timed_out = !WaitUntil(wake_cv_, lock, deadline, ready);
      sleeping_.store(false, std::memory_order_relaxed);
      // Under the lock, so each request comes with its deadline. The flush deadline is
      // reset: later requests bring their own.
      stop = stop_requested_.load();
      flush = flush_requested_.load();
      flush_deadline = std::exchange(flush_deadline_, SteadyClock::time_point::min());
      stop_deadline = stop_deadline_;
    }
    if (stop || flush != flush_done_.load() || timed_out) {
      // Read the requests before the end position: everything emitted before a
      // ForceFlush/Shutdown call is then included.
      Drain(enqueue_pos_.load(std::memory_order_acquire), false);
      const bool flushing = flush != flush_done_.load();
      const bool flush_ok = flushing && exporter_->ForceFlush(TimeLeft(flush_deadline));
      const bool stop_ok = stop && exporter_->Shutdown(TimeLeft(stop_deadline));
      {
        std::lock_guard lock(mu_);
        if (flushing) {
          // Every waiting ticket up to `flush` was served by this round (tickets are
          // handed out in order, and a round exports all that was emitted before it).
          for (auto it = flush_results_.begin(); it != flush_results_.end() && it->first <= flush; ++it)
            if (it->second < 0) it->second = flush_ok ? 1 : 0;
        }
        flush_done_.store(flush);
        if (stop) {
          shutdown_ok_ = stop_ok;
          finished_.store(true, std::memory_order_release);
        }
      }
      done_cv_.notify_all();
      if (stop) return;
      if (timed_out) deadline = DeadlineAfter(options_.scheduled_delay);
    } else {
      Drain(0, true);
    }
  }
}

bool BatchLogRecordProcessor::ForceFlush(std::chrono::milliseconds timeout) noexcept {
  if (shutdown_.load()) return false;
  const auto deadline = DeadlineAfter(timeout);
  std::unique_lock lock(mu_);
  // Tickets are only handed out here, under mu_.
  const std::uint64_t ticket = flush_requested_.load() + 1;
  try {
    flush_results_.emplace(ticket, -1);
  } catch (...) {  // allocation failure: no flush requested
    return false;
  }
  flush_requested_.store(ticket);
  flush_deadline_ = std::max(flush_deadline_, deadline);
  wake_cv_.notify_one();
  WaitUntil(done_cv_, lock, deadline, [&] { return flush_results_[ticket] >= 0 || finished_.load(); });
  const auto it = flush_results_.find(ticket);
  const bool ok = it->second == 1;  // -1: timed out, or the processor shut down first
  flush_results_.erase(it);
  return ok;
}

bool BatchLogRecordProcessor::Shutdown(std::chrono::milliseconds timeout) noexcept {
  const auto deadline = DeadlineAfter(timeout);
  std::unique_lock lock(mu_);
  if (!shutdown_.exchange(true)) {
    stop_deadline_ = deadline;
    stop_requested_.store(true);
    wake_cv_.notify_one();
  }
  // A second caller waits for the first shutdown to end, within its own timeout, and
  // gets the same result: returning true before anything was exported would let an
  // application exit with its records still queued.
  if (!WaitUntil(done_cv_, lock, deadline, [&] { return finished_.load(); })) {
    // The export thread may be blocked in an Export that only ends when the exporter shuts
    // down (a network exporter holding a batch it cannot deliver): shut the exporter down
    // from here with no time left, which aborts it, so that the thread can finish and the
    // destructor's join returns. Once: the exporter is not shut down twice from here.
    const bool abort = !std::exchange(aborted_, true);
    lock.unlock();
    if (abort) exporter_->Shutdown(std::chrono::milliseconds::zero());
    return false;
  }
  const bool ok = shutdown_ok_ && !aborted_;
  lock.unlock();
  std::lock_guard join(join_mu_);
  if (thread_.joinable()) thread_.join();
  return ok;
}

}  // namespace tern::sdk::logs
