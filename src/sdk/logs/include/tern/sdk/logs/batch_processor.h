#pragma once
// Batches records on a bounded lock-free MPSC ring and exports them from one thread.
//
// The ring is Vyukov's bounded queue: each slot carries a sequence number, producers
// claim a position with a CAS on enqueue_pos_ and publish by storing the slot's
// sequence; the single consumer never needs a CAS. A full ring drops the record and
// counts it. Producers take no lock: the export thread sleeps on a condition
// variable, and a producer touches its mutex only to wake it (queue reached
// max_export_batch_size while the thread sleeps), which happens at most once per batch.
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tern/sdk/logs/deadline.h"
#include "tern/sdk/logs/exporter.h"
#include "tern/sdk/logs/processor.h"

namespace tern::sdk::logs {

struct BatchLogRecordProcessorOptions {
  std::size_t max_queue_size = 2048;  // rounded up to a power of two
  // Raised to kMinScheduledDelay: 0 would make the export thread spin.
  std::chrono::milliseconds scheduled_delay{1000};
  std::size_t max_export_batch_size = 512;  // clamped to max_queue_size
};

class BatchLogRecordProcessor final : public LogRecordProcessor {
 public:
  static constexpr std::chrono::milliseconds kMinScheduledDelay{1};

  explicit BatchLogRecordProcessor(std::shared_ptr<const LogRecordExporter> exporter,
                                   BatchLogRecordProcessorOptions options = {});
  ~BatchLogRecordProcessor() override;  // Shutdown if needed, then joins the thread
  BatchLogRecordProcessor(const BatchLogRecordProcessor&) = delete;
  BatchLogRecordProcessor& operator=(const BatchLogRecordProcessor&) = delete;

  // After Shutdown: drops the record and counts it.
  void OnEmit(const LogRecord& record, const InstrumentationScope& scope) noexcept override;
  // Exports everything emitted before the call, then calls the exporter's ForceFlush with
  // the time left and returns its result; false on timeout or after shutdown.
  // milliseconds::max(): no limit.
  bool ForceFlush(std::chrono::milliseconds timeout) noexcept override;
  // Stops accepting records, exports what is queued, shuts the exporter down with the
  // time left and returns its result. milliseconds::max(): no limit. On timeout, calls
  // the exporter's Shutdown(0) from the calling thread (which aborts a network export the
  // export thread may be blocked in) and returns false. A concurrent or later call waits
  // (within its own timeout) for the first one to end and returns the same result.
  bool Shutdown(std::chrono::milliseconds timeout) noexcept override;

  // Records not exported: ring full, emitted after shutdown, or left behind by a
  // shutdown that raced with their emit.
  std::uint64_t dropped_count() const noexcept;
  std::size_t capacity() const noexcept { return mask_ + 1; }
  // The delay in use (options.scheduled_delay, at least kMinScheduledDelay).
  std::chrono::milliseconds scheduled_delay() const noexcept { return options_.scheduled_delay; }

 private:
  struct alignas(64) Slot {
    std::atomic<std::size_t> sequence{0};
    const InstrumentationScope* scope = nullptr;
    LogRecordData data;
  };
  struct alignas(64) PaddedCounter {
    std::atomic<std::uint64_t> value{0};
  };
  static constexpr std::size_t kDropShards = 16;

  void Run();
  std::size_t QueueSize() const noexcept;
  // Exports records below position `end`, or, with full_batches_only, only whole batches
  // (stopping early when a flush or shutdown is waiting).
  void Drain(std::size_t end, bool full_batches_only);
  void ExportBatch(std::size_t n);
  void CountDrop() noexcept;
  void Wake();

  std::shared_ptr<const LogRecordExporter> exporter_;
  const BatchLogRecordProcessorOptions options_;
  std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;

  alignas(64) std::atomic<std::size_t> enqueue_pos_{0};
  alignas(64) std::atomic<std::size_t> dequeue_pos_{0};  // written by the export thread only
  alignas(64) std::atomic<bool> sleeping_{false};
  std::atomic<bool> shutdown_{false};
  std::array<PaddedCounter, kDropShards> dropped_;

  // Slow path only: sleeping, flush and shutdown handshakes.
  std::mutex mu_;
  std::condition_variable wake_cv_;
  std::condition_variable done_cv_;
  std::atomic<std::uint64_t> flush_requested_{0};
  std::atomic<std::uint64_t> flush_done_{0};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> finished_{false};
  // Guarded by mu_ and set with the request, so the export thread hands the exporter
  // what is left of the caller's time. Flush: the latest deadline among the requests
  // not yet taken by the export thread.
  SteadyClock::time_point flush_deadline_ = SteadyClock::time_point::min();
  SteadyClock::time_point stop_deadline_;
  // Guarded by mu_. Each waiting ForceFlush's ticket, -1 until a flush round covering it
  // has ended, then the exporter's ForceFlush result (1 or 0): a caller gets the result of
  // the round that served it, not of a later one.
  std::map<std::uint64_t, int> flush_results_;
  bool shutdown_ok_ = false;  // the exporter's Shutdown result, set before finished_
  bool aborted_ = false;      // a Shutdown timed out and shut the exporter down itself
  std::mutex join_mu_;        // one caller joins the thread

  // Export-thread scratch, reused between batches (swapped with ring slots so string
  // capacity circulates instead of being reallocated).
  std::vector<LogRecordData> batch_data_;
  std::vector<LogRecord> batch_views_;
  std::vector<LogRecordEntry> batch_entries_;

  std::thread thread_;  // last: starts after everything above is initialised
};

}  // namespace tern::sdk::logs
