#pragma once
// The disk queue in front of an exporter's memory queue (shared/spec/queues.md): the
// Elasticsearch exporter's `sending_queue.type: disk`, and `sending_queue.storage` of any
// exporter (the Collector's persistent queue).
//
// Producers (receiver threads) write each batch as one frame: a signal tag byte and the
// batch in OTLP protobuf, the compact form. They are answered only after the frame is on
// disk (fsync, with `sync: batch`), so nothing acknowledged is lost by `kill -9`. One
// reader loop reads frames back in order, decodes them and runs the exporter's encoder
// there (early encoding in the reader loop; an OTLP exporter takes the frame's request bytes
// as they are), then hands the encoded entry to the memory queue the senders take from. Each entry carries a
// delivery token whose release acknowledges its frame on disk; the disk queue persists the acknowledged
// frontier, so a restart resends exactly what was not settled (duplicates possible, loss not).
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "component/consumer.h"
#include "component/exporter.h"
#include "logging/log_limit.h"
#include "queue/disk_queue.h"
#include "queue/memory_queue.h"

namespace tern::exporter::helper {

using component::ConsumeCode;
using component::ConsumeResult;
using component::MetricSample;

class DiskSpool {
 public:
  // Encodes a decoded batch into the entry: the exporter's own early encoder, run on the
  // reader thread. `request` is the batch as the frame holds it, an OTLP
  // Export*ServiceRequest in protobuf.
  using Encode = std::function<void(pdata::BatchRef batch, std::string_view request, queue::Entry& out)>;

  // Opens (and recovers) the queue directory; throws queue::DiskQueueError.
  DiskSpool(std::string exporter_id, const queue::DiskQueueOptions& options, queue::MemoryQueue& out,
            Encode encode);
  ~DiskSpool();

  // Writes the batch as one frame. kOk once it is durably queued; kUnavailable when the
  // queue is full (max_size) or the write failed (ENOSPC, the directory deleted, ...). A
  // batch too large for max_size is split by items into frames that fit (halves,
  // recursively); items that can never fit alone are refused: kTooLarge when that is all of
  // them, else kOk with `rejected` (partial success).
  ConsumeResult push(pdata::BatchRef batch);

  void start();  // the reader loop
  void stop();   // stops reading; what is not yet acknowledged stays on disk
  void collect_metrics(const std::string& labels, std::vector<MetricSample>& out) const;

 private:
  void reader_loop();
  // Decodes a frame's payload, encodes it and hands it to the senders' queue, with a token
  // that acknowledges it, or queues it for redelivery (`attempt` + 1), when settled.
  void hand_over(std::uint64_t seq, std::shared_ptr<const std::string> payload, unsigned attempt);

  struct Redelivery {
    std::uint64_t seq;
    std::shared_ptr<const std::string> payload;
    unsigned attempt;  // 1 for the first redelivery
    std::chrono::steady_clock::time_point due;
  };
  std::mutex redeliver_mu_;
  std::deque<Redelivery> redeliver_;  // under redeliver_mu_
  ConsumeResult answer(queue::PushResult r, const std::string& error);
  ConsumeResult push_split(pdata::Signal signal, std::string_view frame, std::string error);

  std::string id_;
  queue::MemoryQueue& out_;
  Encode encode_;
  std::unique_ptr<queue::DiskQueue> disk_;
  std::thread reader_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> bad_frames_{0}, refused_full_{0}, write_errors_{0}, unsettled_{0};
  std::atomic<std::uint64_t> split_batches_{0}, too_large_items_{0}, redelivered_{0};
  logging::LogLimit write_error_log_, too_large_log_;
};

}  // namespace tern::exporter::helper
