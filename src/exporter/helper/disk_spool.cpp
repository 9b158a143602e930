#include "exporter/helper/disk_spool.h"

#include <type_traits>
#include <variant>

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

#include "otlp/proto_codec.h"
#include "otlp/proto_split.h"
#include "queue/disk_queue.h"

namespace tern::exporter::helper {

namespace {

// How long the parts of a split batch wait for space, in all (the receiver's thread waits).
constexpr std::chrono::seconds kSplitWait{5};

// Frame payload: one signal byte, then the export request in OTLP protobuf.
void encode_frame(pdata::BatchRef batch, std::string& out) {
  out.clear();
  out.push_back(static_cast<char>(pdata::signal_of(batch)));
  std::visit(
      [&](const auto* d) {
        using Data = std::remove_cvref_t<decltype(*d)>;
        if constexpr (std::is_same_v<Data, pdata::LogsData>)
          otlp::encode_logs_proto(*d, out);
        else if constexpr (std::is_same_v<Data, pdata::TracesData>)
          otlp::encode_traces_proto(*d, out);
        else
          otlp::encode_metrics_proto(*d, out);
      },
      batch);
}

// `request` is set to the frame's request bytes, alive as long as the batch.
template <class Data, class Decode>
std::shared_ptr<Data> decode_frame(const std::shared_ptr<const std::string>& payload, Decode decode,
                                   std::optional<otlp::DecodeError>& error, std::string_view& request) {
  auto data = std::make_shared<Data>();
  // The batch's strings are views into the frame: the arena keeps the bytes alive.
  data->arena.hold(payload, payload->capacity());
  request = std::string_view(*payload).substr(1);
  error = decode(request, *data, otlp::DecodeOptions{});
  return data;
}

}  // namespace

DiskSpool::DiskSpool(std::string exporter_id, const queue::DiskQueueOptions& options, queue::MemoryQueue& out,
                     Encode encode)
    : id_(std::move(exporter_id)),
      out_(out),
      encode_(std::move(encode)),
      disk_(std::make_unique<queue::DiskQueue>(options)) {
  const auto s = disk_->stats();
  spdlog::info("exporter {}: disk queue {} opened: {} frames waiting, {} bytes", id_, options.directory,
               s.pending_frames, s.size_bytes);
}

DiskSpool::~DiskSpool() { stop(); }

ConsumeResult DiskSpool::push(pdata::BatchRef batch) {
  thread_local std::string frame;  // each producer thread reuses its own frame buffer
  encode_frame(batch, frame);
  const pdata::Signal signal = pdata::signal_of(batch);
  std::string error;
  const queue::PushResult r = disk_->push(frame, /*wait=*/false, &error);
  if (r == queue::PushResult::kTooLarge) return push_split(signal, frame, std::move(error));
  return answer(r, error);
}

// Pushes the items of `frame` in frames that fit: halves of the batch, recursively, re-cut
// from its protobuf bytes (no decoding). An item alone that still does not fit is dropped
// and counted. A push that fails otherwise (full, I/O error) ends it with that answer: the
// client retries the whole batch, and the parts already queued are delivered twice (at
// least once).
ConsumeResult DiskSpool::push_split(pdata::Signal signal, std::string_view frame, std::string error) {
  const std::string_view request = frame.substr(1);
  const std::uint64_t total = otlp::count_items(signal, request).value_or(0);
  std::uint64_t dropped = 0;
  std::optional<ConsumeResult> failed;
  std::string part;
  // The parts together may exceed max_size: after the first, a part waits (a bounded time)
  // for the parts before it to be delivered and free their space.
  bool first = true;
  const auto deadline = std::chrono::steady_clock::now() + kSplitWait;
  auto split = [&](auto& self, std::uint64_t lo, std::uint64_t hi) -> bool {
    if (hi - lo <= 1) {
      dropped += hi - lo;
      return true;
    }
    const std::uint64_t mid = lo + (hi - lo) / 2;
    for (const auto& [a, b] : {std::pair{lo, mid}, std::pair{mid, hi}}) {
      part.assign(1, frame[0]);
      if (!otlp::slice_items(signal, request, a, b, part)) {  // our own encoding: cannot happen
        dropped += b - a;
        continue;
      }
      std::string err;
      const queue::PushResult r =
          disk_->push(part, first ? std::chrono::steady_clock::time_point{} : deadline, &err);
      if (r == queue::PushResult::kOk) {
        first = false;
        continue;
      }
      if (r == queue::PushResult::kTooLarge) {
        error = std::move(err);
        if (!self(self, a, b)) return false;
        continue;
      }
      failed = answer(r, err);
      return false;
    }
    return true;
  };
  if (total <= 1) {
    dropped = std::max<std::uint64_t>(total, 1);
  } else {
    split_batches_.fetch_add(1, std::memory_order_relaxed);
    if (!split(split, 0, total)) return *failed;
  }
  if (dropped == 0) return ConsumeResult::ok();
  too_large_items_.fetch_add(dropped, std::memory_order_relaxed);
  std::string msg = fmt::format("{} of {} {} can never fit in the disk queue of exporter {}: {}", dropped,
                                std::max<std::uint64_t>(total, 1), pdata::item_name(signal), id_, error);
  std::uint64_t suppressed = 0;
  if (too_large_log_.allow(suppressed)) {
    spdlog::warn("exporter {}: {}{}", id_, msg,
                 suppressed ? fmt::format(" ({} more since the last report)", suppressed) : std::string());
  }
  if (dropped >= total) return {ConsumeCode::kTooLarge, std::move(msg), {}, 0};
  return {ConsumeCode::kOk, std::move(msg), {}, dropped};
}

ConsumeResult DiskSpool::answer(queue::PushResult r, const std::string& error) {
  switch (r) {
    case queue::PushResult::kOk:
      return ConsumeResult::ok();
    case queue::PushResult::kFull:
      refused_full_.fetch_add(1, std::memory_order_relaxed);
      return {ConsumeCode::kUnavailable, "disk queue of exporter " + id_ + " is full",
              std::chrono::seconds(1), 0};
    case queue::PushResult::kClosed:
      return {ConsumeCode::kShutdown, "exporter " + id_ + " is shutting down", {}, 0};
    case queue::PushResult::kError:
    case queue::PushResult::kTooLarge:  // split by push_split; here only from a failed split
      break;
  }
  write_errors_.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t suppressed = 0;
  if (write_error_log_.allow(suppressed)) {  // one line per failed request would flood the log
    spdlog::error("exporter {}: disk queue write failed: {}{}", id_, error,
                  suppressed ? fmt::format(" ({} more failed writes since the last report)", suppressed)
                             : std::string());
  }
  return {ConsumeCode::kUnavailable, "disk queue of exporter " + id_ + " cannot write: " + error,
          std::chrono::seconds(5), 0};
}

void DiskSpool::start() {
  reader_ = std::thread([this] { reader_loop(); });
}

void DiskSpool::stop() {
  stop_.store(true);
  if (reader_.joinable()) reader_.join();
  disk_->close();  // stopped: nothing more comes in (the queue's files are final at its destruction)
  {
    // Frames waiting for a redelivery stay on disk for the next start, as the unsettled do.
    std::lock_guard l(redeliver_mu_);
    unsettled_.fetch_add(redeliver_.size(), std::memory_order_relaxed);
    redeliver_.clear();
  }
  if (const auto n = unsettled_.load())
    spdlog::info("exporter {}: {} batches not delivered stay in the disk queue for the next start", id_, n);
  // What the rate limits held back since their last line (counted in the metrics already).
  if (const auto n = write_error_log_.take_suppressed())
    spdlog::error("exporter {}: {} more disk queue write failures since the last report", id_, n);
  if (const auto n = too_large_log_.take_suppressed())
    spdlog::warn("exporter {}: {} more batches too large for the disk queue since the last report", id_, n);
}

void DiskSpool::reader_loop() {
  queue::DiskQueue::Frame frame;
  while (!stop_.load(std::memory_order_relaxed)) {
    std::optional<Redelivery> again;
    bool waiting = false;
    {
      std::lock_guard l(redeliver_mu_);
      if (!redeliver_.empty()) {
        waiting = true;
        // The earliest due first; they are few (what the senders held when they gave up).
        auto it = std::min_element(redeliver_.begin(), redeliver_.end(),
                                   [](const auto& a, const auto& b) { return a.due < b.due; });
        if (it->due <= std::chrono::steady_clock::now()) {
          again = std::move(*it);
          redeliver_.erase(it);
        }
      }
    }
    if (again) {
      redelivered_.fetch_add(1, std::memory_order_relaxed);
      hand_over(again->seq, std::move(again->payload), again->attempt);
      continue;
    }
    if (waiting) {
      // The downstream is failing: no new frames while some wait to be sent again, or
      // reading on would bring the whole queue into memory, frame by failed frame.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (!disk_->read(frame, std::chrono::milliseconds(100))) continue;
    hand_over(frame.seq, std::make_shared<const std::string>(std::move(frame.payload)), 0);
  }
}

void DiskSpool::hand_over(std::uint64_t seq, std::shared_ptr<const std::string> payload, unsigned attempt) {
  queue::Entry e;
  // The token keeps the frame's bytes for a redelivery (shared with the decoded batch, which
  // holds views into them: no copy; what the senders' entry holds is the exporter's
  // encoding of it).
  e.delivery = pdata::DeliveryToken::make([this, seq, payload, attempt](bool delivered) {
    if (delivered) {
      disk_->ack(seq);
      return;
    }
    if (stop_.load()) {
      unsettled_.fetch_add(1, std::memory_order_relaxed);  // stays on disk: resent after a restart
      return;
    }
    const auto delay = std::chrono::seconds(std::min(30u, 1u << std::min(attempt, 5u)));
    std::lock_guard l(redeliver_mu_);
    redeliver_.push_back({seq, payload, attempt + 1, std::chrono::steady_clock::now() + delay});
  });
  const auto signal = payload->empty() ? pdata::Signal::Logs : static_cast<pdata::Signal>((*payload)[0]);
  std::optional<otlp::DecodeError> error;
  pdata::SharedBatch batch;
  std::string_view request;
  std::uint64_t events = 0;
  if (payload->empty() || static_cast<unsigned char>((*payload)[0]) > 2) {
    error = otlp::DecodeError{};
    error->message = "unknown signal tag";
  } else if (signal == pdata::Signal::Logs) {
    auto d = decode_frame<pdata::LogsData>(payload, otlp::decode_logs_proto, error, request);
    events = d->record_count();
    batch = std::shared_ptr<const pdata::LogsData>(std::move(d));
  } else if (signal == pdata::Signal::Traces) {
    auto d = decode_frame<pdata::TracesData>(payload, otlp::decode_traces_proto, error, request);
    events = d->span_count();
    batch = std::shared_ptr<const pdata::TracesData>(std::move(d));
  } else {
    auto d = decode_frame<pdata::MetricsData>(payload, otlp::decode_metrics_proto, error, request);
    events = d->data_point_count();
    batch = std::shared_ptr<const pdata::MetricsData>(std::move(d));
  }
  if (error) {
    // The CRC matched, so the bytes are what a producer wrote: not decodable means a bug or
    // a foreign file. Counted and acknowledged (dropping the token does that), never a stall.
    bad_frames_.fetch_add(1, std::memory_order_relaxed);
    spdlog::error("exporter {}: disk queue frame {} cannot be decoded ({}); skipped", id_, seq,
                  error->message);
    return;
  }
  e.signal = signal;
  e.items = events;
  encode_(*pdata::ref_of(batch), request, e);
  batch = {};
  // The senders' queue is small: wait for room rather than reading the disk into memory.
  while (!stop_.load(std::memory_order_relaxed) &&
         !out_.push_wait(e, std::chrono::steady_clock::now() + std::chrono::milliseconds(100))) {
    if (out_.closed()) break;
  }
  if (e.delivery) {
    // Not handed over (stopping): stays on disk for the next start.
    stop_.store(true);
    e.delivery->fail();
  }
}

void DiskSpool::collect_metrics(const std::string& l, std::vector<MetricSample>& out) const {
  const auto s = disk_->stats();
  auto add = [&](const char* name, double v, const char* help, bool counter = true) {
    out.push_back({name, l, v, help, counter});
  };
  add("tern_exporter_disk_queue_bytes", static_cast<double>(s.size_bytes),
      "Bytes of the disk queue's segment files", false);
  add("tern_exporter_disk_queue_frames", static_cast<double>(s.pending_frames),
      "Frames written and not yet acknowledged", false);
  add("tern_exporter_disk_queue_segments", static_cast<double>(s.segments), "Segment files", false);
  add("tern_exporter_disk_queue_written_frames_total", static_cast<double>(s.frames_written),
      "Frames written");
  add("tern_exporter_disk_queue_written_bytes_total", static_cast<double>(s.bytes_written), "Bytes written");
  add("tern_exporter_disk_queue_acked_frames_total", static_cast<double>(s.frames_acked),
      "Frames acknowledged");
  add("tern_exporter_disk_queue_fsyncs_total", static_cast<double>(s.fsyncs), "fsync calls");
  add("tern_exporter_disk_queue_skipped_frames_total", static_cast<double>(s.skipped_frames),
      "Corrupt frames skipped at recovery");
  add("tern_exporter_disk_queue_skipped_bytes_total", static_cast<double>(s.skipped_bytes),
      "Bytes skipped while resynchronizing");
  add("tern_exporter_disk_queue_missing_segments_total", static_cast<double>(s.missing_segments),
      "Segment files found missing at recovery (deleted behind the queue's back)");
  add("tern_exporter_disk_queue_bad_frames_total", static_cast<double>(bad_frames_.load()),
      "Frames that passed the CRC but could not be decoded");
  add("tern_exporter_disk_queue_full_total", static_cast<double>(refused_full_.load()),
      "Batches refused because the disk queue was full");
  add("tern_exporter_disk_queue_write_errors_total", static_cast<double>(write_errors_.load()),
      "Batches refused because the write failed");
  add("tern_exporter_disk_queue_split_batches_total", static_cast<double>(split_batches_.load()),
      "Batches too large for max_size, split into smaller frames");
  add("tern_exporter_disk_queue_redelivered_frames_total", static_cast<double>(redelivered_.load()),
      "Frames handed to the senders again after a sender gave up on them");
  add("tern_exporter_disk_queue_too_large_items_total", static_cast<double>(too_large_items_.load()),
      "Items refused because alone they can never fit in max_size");
}

}  // namespace tern::exporter::helper
