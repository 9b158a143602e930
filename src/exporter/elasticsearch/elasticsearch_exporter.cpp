#include "exporter/elasticsearch/elasticsearch_exporter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "encoding/elasticsearch/encoder.h"
#include "exporter/elasticsearch/bulk_exporter.h"
#include "exporter/helper/disk_spool.h"
#include "queue/memory_queue.h"

namespace tern::exporter::es {
namespace {

using component::BatchSettings;
using component::ConsumeCode;
using component::ConsumeResult;
using component::escape_label;
using component::MetricSample;
using helper::DiskSpool;

queue::DiskQueueOptions disk_queue_options(const ElasticsearchExporterConfig::SendingQueue& s) {
  using Sync = ElasticsearchExporterConfig::SendingQueue::Sync;
  queue::DiskQueueOptions o;
  o.directory = s.directory;
  o.max_size = s.max_size;
  o.segment_size = s.segment_size;
  o.sync = s.sync == Sync::kBatch      ? queue::DiskQueueOptions::Sync::kBatch
           : s.sync == Sync::kInterval ? queue::DiskQueueOptions::Sync::kInterval
                                       : queue::DiskQueueOptions::Sync::kNone;
  o.sync_interval = std::chrono::duration_cast<std::chrono::milliseconds>(s.sync_interval);
  o.compress = s.compress;
  return o;
}

using encoding::EncodedBatch;
using encoding::es::Encoder;
using encoding::es::EncoderConfig;

bool uses_disk_queue(const exporter::es::ElasticsearchExporterConfig& c) {
  return c.sending_queue.enabled &&
         c.sending_queue.type == exporter::es::ElasticsearchExporterConfig::SendingQueue::Type::kDisk;
}

EncoderConfig encoder_config(const exporter::es::ElasticsearchExporterConfig& c) {
  EncoderConfig e;
  e.logs_index = c.logs_index;
  e.metrics_index = c.metrics_index;
  e.traces_index = c.traces_index;
  e.logs_dynamic_id = c.logs_dynamic_id;
  e.logs_dynamic_pipeline = c.logs_dynamic_pipeline;
  e.mode = encoding::es::parse_mapping_mode(c.mapping_mode).value_or(encoding::es::MappingMode::Otel);
  if (!c.mapping_allowed_modes.empty()) {
    e.allowed_modes = 0;
    for (const auto& name : c.mapping_allowed_modes)
      if (const auto m = encoding::es::parse_mapping_mode(name))
        e.allowed_modes |= 1u << static_cast<unsigned>(*m);
  }
  // Batches waiting in the memory queue hold each distinct action line once (the sender
  // writes it before each of its documents): ~12 % less memory per log record. With gzip
  // the sender gathers the pieces into blocks for deflate anyway (+0.03 CPU-µs per event);
  // without it they would cost a copy of every body, and behind a disk queue the memory
  // queue is only a few requests deep: not worth it there (measured in the race: more CPU
  // and no smaller peak RSS).
  e.share_action_lines = c.compression == config::Compression::kGzip && !uses_disk_queue(c);
  return e;
}

// Heap bytes an encoded batch holds (what the queue is bounded by with early encoding).
std::uint64_t held_bytes(const EncodedBatch& b) {
  return b.data.capacity() + b.items.capacity() * sizeof(encoding::EncodedItem);
}

std::atomic<std::uint64_t> g_next_stage_id{1};

class ElasticsearchStage final : public component::Exporter {
 public:
  ElasticsearchStage(std::string id, const exporter::es::ElasticsearchExporterConfig& c, BatchSettings batch)
      : id_(std::move(id)),
        stage_id_(g_next_stage_id.fetch_add(1)),
        // A disk queue's reader loop encodes what it reads: the memory queue behind it holds
        // encoded entries whatever `encoding` says (late with a disk queue crashed the
        // consumers, which encoded a batch they did not have; the loader warns).
        early_(c.encoding == exporter::es::ElasticsearchExporterConfig::Encoding::kEarly ||
               uses_disk_queue(c)),
        encoder_config_(encoder_config(c)),
        queue_(memory_limits(c)),
        batch_(batch),
        exporter_(exporter::es::from_config(c)) {
    if (batch_.max_bytes == 0) batch_.max_bytes = c.flush.bytes;
    consumers_ = c.num_workers ? static_cast<unsigned>(c.num_workers)
                               : std::max(1u, std::thread::hardware_concurrency());
    if (uses_disk_queue(c))
      disk_ = std::make_unique<DiskSpool>(id_, disk_queue_options(c.sending_queue), queue_,
                                          [this](pdata::BatchRef batch, std::string_view, queue::Entry& e) {
                                            encode(thread_encoder(), batch, e.encoded);
                                            e.bytes = held_bytes(e.encoded);
                                          });
  }
  ~ElasticsearchStage() override { shutdown(std::chrono::milliseconds(0)); }

  void start() override {
    exporter_.start();
    for (unsigned i = 0; i < consumers_; ++i) threads_.emplace_back([this] { consume_loop(); });
    if (disk_) disk_->start();
  }

  void shutdown(std::chrono::milliseconds timeout) override {
    const auto deadline = exporter::es::Clock::now() + timeout;
    if (shutting_down_.exchange(true)) return;
    // Before stopped_: a consumer that sees stopped_ submits by this deadline.
    shutdown_deadline_.store(deadline.time_since_epoch().count());
    stopped_.store(true);
    if (disk_) disk_->stop();  // what is not read yet stays on disk for the next start
    queue_.close();            // consumers drain what is queued, then leave
    for (auto& t : threads_) t.join();
    threads_.clear();
    exporter_.flush(deadline);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - exporter::es::Clock::now());
    exporter_.shutdown(std::max(left, std::chrono::milliseconds(0)));
  }

  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    const std::uint64_t n = b ? b->record_count() : 0;
    return enqueue(pdata::Signal::Logs, std::move(b), n);
  }
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> b) override {
    const std::uint64_t n = b ? b->span_count() : 0;
    return enqueue(pdata::Signal::Traces, std::move(b), n);
  }
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> b) override {
    const std::uint64_t n = b ? b->data_point_count() : 0;
    return enqueue(pdata::Signal::Metrics, std::move(b), n);
  }

  void collect_metrics(std::vector<MetricSample>& out) const override {
    const std::string l = "exporter=\"" + id_ + "\"";
    const auto q = queue_.stats();
    const auto c = exporter_.counters();
    auto add = [&](const char* name, double v, const char* help, bool counter = true) {
      out.push_back({name, l, v, help, counter});
    };
    add("tern_exporter_queue_size", static_cast<double>(q.entries), "Requests waiting in the sending queue",
        false);
    add("tern_exporter_queue_items", static_cast<double>(q.items),
        "Events (log records, spans and span events, data points) waiting in the sending queue", false);
    add("tern_exporter_inflight_items", static_cast<double>(c.queue_items),
        "Documents handed to the sender and not settled yet", false);
    add("tern_exporter_inflight_bytes", static_cast<double>(c.queue_bytes),
        "Bytes of batches handed to the sender and not completed yet", false);
    add("tern_exporter_queue_bytes", static_cast<double>(q.bytes), "Bytes held by the sending queue", false);
    add("tern_exporter_queue_peak_bytes", static_cast<double>(q.peak_bytes), "Most bytes the queue held",
        false);
    add("tern_exporter_enqueue_failed_total",
        static_cast<double>(q.refused_entries + refused_before_encoding_.load(std::memory_order_relaxed)),
        "Requests refused because the queue was full");
    add("tern_exporter_encode_rejected_total", static_cast<double>(encode_rejected_.load()),
        "Events the encoder could not map (NaN, cumulative histograms, ...)");
    add("tern_exporter_docs_received_total", static_cast<double>(c.docs_received),
        "Documents handed to the sender");
    add("tern_exporter_docs_indexed_total", static_cast<double>(c.docs_indexed), "Documents indexed");
    add("tern_exporter_docs_duplicates_total", static_cast<double>(c.docs_duplicates),
        "Documents already present (409)");
    add("tern_exporter_docs_retried_total", static_cast<double>(c.docs_retried), "Document re-sends");
    add("tern_exporter_docs_failed_total", static_cast<double>(c.docs_failed),
        "Documents permanently rejected");
    add("tern_exporter_docs_dropped_total", static_cast<double>(c.docs_dropped),
        "Documents dropped after max retries");
    add("tern_exporter_docs_dead_lettered_total", static_cast<double>(c.docs_dead_lettered),
        "Documents written to the dead-letter file");
    add("tern_exporter_requests_total", static_cast<double>(c.requests), "Bulk requests sent");
    add("tern_exporter_request_errors_total", static_cast<double>(c.request_errors),
        "Bulk requests without an HTTP answer (connection errors, timeouts)");
    add("tern_exporter_bytes_uncompressed_total", static_cast<double>(c.bytes_uncompressed),
        "Bulk body bytes before gzip");
    add("tern_exporter_bytes_sent_total", static_cast<double>(c.bytes_compressed),
        "Bulk body bytes on the wire");
    for (const auto& [reason, n] : c.failed_by_reason)
      out.push_back({"tern_exporter_docs_failed_by_reason_total",
                     l + ",reason=\"" + escape_label(reason.empty() ? "unknown" : reason) + "\"",
                     static_cast<double>(n), "Documents permanently rejected, by Elasticsearch error.type",
                     true});
    for (const auto& [status, n] : c.requests_by_status)
      out.push_back({"tern_exporter_requests_by_status_total",
                     l + ",status=\"" + std::to_string(status) + "\"", static_cast<double>(n),
                     "Bulk requests answered, by HTTP status", true});
    // The request latency histogram (answered requests), cumulative as Prometheus wants it.
    constexpr const char* kLatency = "tern_exporter_request_latency_ms";
    const char* latency_help = "Bulk request latency in milliseconds (answered requests)";
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < c.latency_buckets.size(); ++b) {
      cumulative += c.latency_buckets[b];
      const std::string le = b < exporter::es::BulkCounters::kLatencyBoundsMs.size()
                                 ? fmt::format("{}", exporter::es::BulkCounters::kLatencyBoundsMs[b])
                                 : std::string("+Inf");
      out.push_back({std::string(kLatency) + "_bucket", l + ",le=\"" + le + "\"",
                     static_cast<double>(cumulative), latency_help, true, kLatency});
    }
    out.push_back({std::string(kLatency) + "_sum", l, c.latency_sum_ms, latency_help, true, kLatency});
    out.push_back(
        {std::string(kLatency) + "_count", l, static_cast<double>(cumulative), latency_help, true, kLatency});
    if (disk_) disk_->collect_metrics(l, out);
  }

  bool healthy() const override { return !stopped_.load(); }

 private:
  static constexpr std::chrono::milliseconds kRoomPoll{200};  // how soon a waiting consumer sees shutdown

  // With a disk queue the memory queue only buffers what the reader loop has encoded for
  // the senders: a few requests' worth, the backlog waits on disk.
  static queue::MemoryQueueLimits memory_limits(const exporter::es::ElasticsearchExporterConfig& c) {
    if (uses_disk_queue(c)) return {.max_bytes = std::max<std::uint64_t>(4ull << 20, 4 * c.flush.bytes)};
    return {.max_bytes = c.sending_queue.max_bytes ? c.sending_queue.max_bytes : queue::kDefaultQueueBytes,
            .max_items = 0,
            .max_entries = c.sending_queue.queue_size};
  }

  // The calling thread's encoder for this stage: producers never share one.
  Encoder& thread_encoder() {
    thread_local std::unordered_map<std::uint64_t, std::unique_ptr<Encoder>> encoders;
    auto& e = encoders[stage_id_];
    if (!e) e = std::make_unique<Encoder>(encoder_config_);
    return *e;
  }

  void encode(Encoder& enc, pdata::BatchRef batch, EncodedBatch& out) {
    const pdata::Signal s = pdata::signal_of(batch);
    std::visit(
        [&](const auto* d) {
          using Data = std::remove_cvref_t<decltype(*d)>;
          if constexpr (std::is_same_v<Data, pdata::LogsData>)
            enc.encode_logs(*d, out);
          else if constexpr (std::is_same_v<Data, pdata::TracesData>)
            enc.encode_traces(*d, out);
          else
            enc.encode_metrics(*d, out);
        },
        batch);
    if (const auto n = out.stats.total_rejected()) {
      encode_rejected_.fetch_add(n, std::memory_order_relaxed);
      // Once per reason, so that a mistake (e.g. text bodies under mapping.mode bodymap)
      // is seen in the log, not only in a counter; afterwards the counter tells.
      for (std::size_t r = 0; r < out.stats.rejected.size(); ++r)
        if (out.stats.rejected[r] && !reject_logged_[r].exchange(true, std::memory_order_relaxed))
          spdlog::warn(
              "exporter {}: {} {} not encoded ({}); further ones are counted in "
              "tern_exporter_encode_rejected_total",
              id_, out.stats.rejected[r], pdata::item_name(s),
              encoding::to_string(static_cast<encoding::EncodeReject>(r)));
    }
  }

  template <class Data>
  ConsumeResult enqueue(pdata::Signal s, std::shared_ptr<Data> batch, std::uint64_t events) {
    if (!batch || events == 0) return ConsumeResult::ok();
    if (stopped_.load(std::memory_order_relaxed))
      return {ConsumeCode::kShutdown, "exporter is shutting down", {}, 0};
    if (disk_) return disk_->push(batch.get());  // durable once this returns kOk
    // Under back-pressure, refuse before encoding: a request the full queue would refuse
    // costs no encoding CPU and no transient output buffer (clients retry it).
    if (early_ && !queue_.may_fit(events, 1)) {
      refused_before_encoding_.fetch_add(1, std::memory_order_relaxed);  // the queue did not see it
      return refuse(batch->delivery);
    }
    queue::Entry e;
    e.signal = s;
    e.items = events;
    e.delivery = batch->delivery;  // held until the bulk requests settle the entry
    ConsumeResult result = ConsumeResult::ok();
    if (early_) {
      encode(thread_encoder(), batch.get(), e.encoded);
      e.bytes = held_bytes(e.encoded);
      batch.reset();  // the decoded request is not needed any more: only its bytes wait
      // Encoded before the client is answered: what the encoder refused (NaN values,
      // cumulative histograms, ...) goes back to it as a partial success (OTLP's
      // rejected_* count and error_message), not only to a counter. Late encoding and the
      // disk queue encode after the answer: there only the counter and the log tell.
      if (const std::uint64_t n = e.encoded.stats.total_rejected()) {
        result.rejected = n;
        result.message = rejection_message(s, e.encoded.stats);
      }
    } else {
      e.bytes = batch->arena.bytes_held();
      e.batch = std::shared_ptr<const Data>(std::move(batch));
    }
    if (!queue_.try_push(e)) return refuse(e.delivery);
    return result;
  }

  // "3 data points not encoded by exporter elasticsearch (nan_or_inf: 2, cumulative_histogram: 1)"
  std::string rejection_message(pdata::Signal s, const encoding::EncodeStats& stats) const {
    std::string reasons;
    for (std::size_t r = 0; r < stats.rejected.size(); ++r) {
      if (!stats.rejected[r]) continue;
      if (!reasons.empty()) reasons += ", ";
      reasons += fmt::format("{}: {}", encoding::to_string(static_cast<encoding::EncodeReject>(r)),
                             stats.rejected[r]);
    }
    return fmt::format("{} {} not encoded by exporter {} ({})", stats.total_rejected(), pdata::item_name(s),
                       id_, reasons);
  }

  ConsumeResult refuse(const pdata::DeliveryTokenPtr& delivery) {
    if (delivery) delivery->fail();  // refused: the producer keeps (and resends) it
    return ConsumeResult::retry_later("sending queue of exporter " + id_ + " is full",
                                      std::chrono::seconds(1));
  }

  void consume_loop() {
    Encoder encoder(encoder_config_);  // late encoding only
    std::vector<queue::Entry> entries;
    std::uint64_t unsent = 0, unsent_events = 0;  // what the shutdown deadline left in the queue
    while (true) {
      entries.clear();
      // Take entries only when the sender can take them: entries held by a consumer that
      // waits in submit() would be outside both bounds (the queue's and the sender's), and
      // the queue would admit that much more. Once stopping, drain as before (a sender that
      // stopped answers before the poll's deadline: no busy loop then either).
      while (!stopped_.load(std::memory_order_relaxed)) {
        const auto until = exporter::es::Clock::now() + kRoomPoll;
        if (exporter_.wait_for_room(batch_.max_bytes, until) || exporter::es::Clock::now() < until) break;
      }
      if (!queue_.pop_batch(entries, batch_.max_bytes, batch_.max_items, batch_.timeout)) {
        if (unsent)
          spdlog::warn(
              "exporter {}: shutdown_timeout passed with {} queued requests ({} events) not sent ({})", id_,
              unsent, unsent_events,
              disk_ ? "the disk queue keeps them for the next start" : "lost with the memory queue");
        return;
      }
      // Each entry goes to the sender as it is: the sender cuts requests across
      // submissions and sends their bytes in place, so nothing is copied here.
      for (auto& e : entries) {
        if (!early_) encode(encoder, *pdata::ref_of(e.batch), e.encoded), e.batch = {};
        if (e.encoded.empty()) continue;  // nothing encodable: the token settles as it goes
        // The token is released when every item of the entry is settled; any item still
        // undelivered (shutdown) fails it: its producer must not move past this data.
        auto token = std::move(e.delivery);
        auto settle = [token](const exporter::es::BulkResult& r) {
          if (r.undelivered && token) token->fail();
        };
        // Blocks while the sender's in-flight limit is reached: the queue then fills and
        // receivers get back-pressure. Once stopping, only until the shutdown deadline: a
        // sink that stays down must not hold the process past shutdown_timeout (nor a disk
        // queue's directory, which the next start needs).
        const auto until =
            stopped_.load(std::memory_order_acquire)
                ? exporter::es::Clock::time_point(exporter::es::Clock::duration(shutdown_deadline_.load()))
                : exporter::es::Clock::time_point::max();
        if (!exporter_.submit(std::move(e.encoded), std::move(settle), until)) {
          if (token) token->fail();  // not acknowledged: a disk queue replays it
          ++unsent;
          unsent_events += e.items;
        }
      }
    }
  }

  std::string id_;
  std::uint64_t stage_id_;
  bool early_;
  EncoderConfig encoder_config_;
  queue::MemoryQueue queue_;
  BatchSettings batch_;
  exporter::es::BulkExporter exporter_;
  unsigned consumers_ = 1;
  std::vector<std::thread> threads_;
  std::unique_ptr<DiskSpool> disk_;         // sending_queue.type: disk; destroyed after the senders
  std::atomic<bool> shutting_down_{false};  // shutdown() runs once
  std::atomic<exporter::es::Clock::rep> shutdown_deadline_{0};
  std::atomic<bool> stopped_{false};
  std::atomic<std::uint64_t> encode_rejected_{0};
  std::atomic<std::uint64_t> refused_before_encoding_{0};  // full-queue refusals of the may_fit test
  std::array<std::atomic<bool>, static_cast<std::size_t>(encoding::EncodeReject::kCount)> reject_logged_{};
};

}  // namespace

std::unique_ptr<component::Exporter> make_elasticsearch_exporter(
    std::string id, const exporter::es::ElasticsearchExporterConfig& c, BatchSettings batch) {
  return std::make_unique<ElasticsearchStage>(std::move(id), c, batch);
}

}  // namespace tern::exporter::es
