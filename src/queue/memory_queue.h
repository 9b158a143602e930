#pragma once
// The memory queue between a pipeline and one exporter (shared/spec/queues.md).
//
// Hand-written: it is the product's edge. Bounded by bytes (the memory an entry really
// holds: encoded bytes with early encoding, the batch's arena and request buffer with
// late encoding) and by items (events); a push that does not fit is refused at once, so
// receivers can answer 429 / RESOURCE_EXHAUSTED instead of blocking their threads.
// Consumers pop whole entries in order, or a run of entries up to a byte/item budget,
// waiting up to a timeout to fill it (the `batch` processor's settings).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "encoding/encoded_batch.h"
#include "pdata/batch.h"
#include "pdata/delivery.h"
#include "pdata/signal.h"

namespace tern::queue {

// One enqueued request: already encoded (early), or the decoded batch still to be
// encoded by the consumer (late: `batch`).
struct Entry {
  pdata::Signal signal = pdata::Signal::Logs;
  encoding::EncodedBatch encoded;
  pdata::SharedBatch batch;
  std::uint64_t bytes = 0;  // accounted size
  std::uint64_t items = 0;  // events
  // Held until the entry is settled downstream (pdata/delivery.h); empty when nobody asked.
  pdata::DeliveryTokenPtr delivery;
};

// The exporters' default byte bound (sending_queue.max_bytes: 0). 64 MiB of encoded
// documents is 13 bulk requests of the default 5 MB flush, enough to keep the senders busy
// through a burst; beyond it receivers get back-pressure. 256 MiB gave the same throughput
// in `tern demo` at 2.3x the peak RSS (docs/benchmarks.md, Demo).
inline constexpr std::uint64_t kDefaultQueueBytes = 64ull << 20;

struct MemoryQueueLimits {
  std::uint64_t max_bytes = kDefaultQueueBytes;
  std::uint64_t max_items = 0;    // events; 0 = no bound
  std::uint64_t max_entries = 0;  // requests (sending_queue.queue_size); 0 = no bound
};

struct MemoryQueueStats {
  std::uint64_t entries = 0, bytes = 0, items = 0;  // now
  std::uint64_t peak_bytes = 0;
  std::uint64_t pushed_entries = 0, refused_entries = 0;
};

class MemoryQueue {
 public:
  explicit MemoryQueue(MemoryQueueLimits limits) : limits_(limits) {}

  // Takes the entry when it fits (an entry larger than the whole queue is taken into an
  // empty queue, so it cannot be refused forever). Returns false, entry untouched, when
  // full or closed.
  bool try_push(Entry& entry);
  // As try_push, but waits for room until `deadline` (a producer that can wait, such as
  // the disk queue's reader loop). False, entry untouched, when closed or timed out.
  bool push_wait(Entry& entry, std::chrono::steady_clock::time_point deadline);

  // Pops entries in order into `out` (appended) until `max_bytes` or `max_items` is
  // reached — at least one entry — waiting up to `linger` for more once the first is
  // there. Blocks for the first entry until one arrives or the queue is closed; returns
  // false when closed and empty.
  bool pop_batch(std::vector<Entry>& out, std::uint64_t max_bytes, std::uint64_t max_items,
                 std::chrono::milliseconds linger);

  // Advisory: false when an entry of `items` events and at least `min_bytes` would be
  // refused now. Producers ask before costly work (encoding a request that the full queue
  // would refuse); try_push stays the authority.
  bool may_fit(std::uint64_t items, std::uint64_t min_bytes) const;

  // No more pushes; consumers drain what is left, then pop_batch returns false.
  void close();
  bool closed() const;
  MemoryQueueStats stats() const;

 private:
  bool fits(const Entry& e) const;
  void push_locked(Entry& entry);

  const MemoryQueueLimits limits_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable room_cv_;  // push_wait: signalled when entries leave
  std::deque<Entry> entries_;
  MemoryQueueStats stats_;
  bool closed_ = false;
};

}  // namespace tern::queue
