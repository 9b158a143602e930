#include "exporter/otlp/otlp_exporter.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <span>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "exporter/helper/backoff.h"
#include "exporter/helper/disk_spool.h"
#include "exporter/otlp/otlp_client.h"
#include "logging/log_limit.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "queue/memory_queue.h"

namespace tern::exporter::otlp {
namespace {

using component::BatchSettings;
using component::ConsumeCode;
using component::ConsumeResult;
using component::MetricSample;
using helper::DiskSpool;
using namespace helper;  // back-off

using Clock = std::chrono::steady_clock;
namespace ox = exporter::otlp;

// Merged requests stay below the 4 MiB a gRPC server accepts by default (the Collector's
// max_recv_msg_size_mib); a single larger request is still sent, alone.
constexpr std::uint64_t kDefaultRequestBytes = 3ull << 20;

// The longest a server's Retry-After / RetryInfo is obeyed (as parse_retry_info caps it):
// a larger one is absurd, and Clock::now() + it overflowed into an immediate retry loop.
constexpr std::chrono::milliseconds kMaxServerWait = std::chrono::hours(24);

using pdata::item_name;

// gRPC codes the OTLP spec calls retryable. RESOURCE_EXHAUSTED only with RetryInfo, as
// the spec says: with it, it is a server's back-pressure (Tern's receiver always sends
// it); without it, it is e.g. "message larger than max", which no retry can fix.
bool retryable_grpc(int code, bool has_retry_info) {
  switch (code) {
    case 1:   // CANCELLED
    case 4:   // DEADLINE_EXCEEDED
    case 10:  // ABORTED
    case 11:  // OUT_OF_RANGE
    case 14:  // UNAVAILABLE (also: connection refused)
    case 15:  // DATA_LOSS
      return true;
    case 8:  // RESOURCE_EXHAUSTED
      return has_retry_info;
    default:
      return false;
  }
}

// OTLP/HTTP: 429/502/503/504 as the spec says, and no answer at all (-1: connection
// refused or reset, timeout), which says nothing about the data.
bool retryable_http(int code) {
  return code == -1 || code == 429 || code == 502 || code == 503 || code == 504;
}

// "http://host:port/path" -> ("http://host:port", "/path"); the path is "" without one.
std::pair<std::string, std::string> split_origin(const std::string& url) {
  const auto scheme = url.find("://");
  const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return {url, ""};
  return {url.substr(0, slash), url.substr(slash)};
}

// "http://host:port/base/" -> ("http://host:port", "/base"): a base the signal paths follow.
std::pair<std::string, std::string> split_url(const std::string& url) {
  auto [origin, base] = split_origin(url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  return {std::move(origin), std::move(base)};
}

class OtlpStage final : public component::Exporter {
 public:
  OtlpStage(std::string id, const exporter::otlp::OtlpExporterConfig& c, BatchSettings batch)
      : id_(std::move(id)),
        http_(c.protocol == exporter::otlp::OtlpExporterConfig::Protocol::kHttp),
        queue_(memory_limits(c)),
        batch_(batch),
        retry_(c.retry_on_failure),
        consumers_(static_cast<unsigned>(c.sending_queue.num_consumers)) {
    if (batch_.max_bytes == 0) batch_.max_bytes = kDefaultRequestBytes;
    options_.protocol = http_ ? ox::Protocol::Http : ox::Protocol::Grpc;
    options_.gzip = c.compression == config::Compression::kGzip;
    options_.zstd = c.compression == config::Compression::kZstd;
    options_.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(c.timeout);
    options_.max_retries = 0;  // the stage retries: it can wait for shutdown and count
    for (const auto& [k, v] : c.headers) options_.headers.emplace_back(k, v);
    // gRPC: TLS unless tls.insecure or an http:// endpoint (the OTLP exporter spec: the
    // scheme, when given, decides). HTTP: the URL's scheme decides, these apply to https://.
    const bool plain_grpc = c.tls.insecure || std::string_view(c.endpoint).starts_with("http://");
    if (http_ || !plain_grpc)
      options_.tls = static_cast<const net::TlsClientOptions&>(c.tls);  // without `insecure`
    if (http_) {
      auto [origin, base] = split_url(c.endpoint);
      options_.endpoint = origin;
      base_path_ = base;
      signal_url_[static_cast<std::size_t>(pdata::Signal::Logs)] = c.logs_endpoint;
      signal_url_[static_cast<std::size_t>(pdata::Signal::Traces)] = c.traces_endpoint;
      signal_url_[static_cast<std::size_t>(pdata::Signal::Metrics)] = c.metrics_endpoint;
      json_ = c.encoding == exporter::otlp::OtlpExporterConfig::Encoding::kJson;
      options_.encoding = json_ ? ox::Encoding::Json : ox::Encoding::Proto;
    } else {
      options_.endpoint = c.endpoint;
    }
    // Bad endpoints and TLS files surface here, at build time, not in a consumer thread.
    // OTLP/HTTP: each signal's URL (its own, or the endpoint's).
    // A signal without any URL is refused when it comes (enqueue), not here: the pipelines
    // may never send it.
    for (const auto s : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics})
      if (http_ ? !options_.endpoint.empty() || !signal_url_[static_cast<std::size_t>(s)].empty()
                : s == pdata::Signal::Logs)
        (void)make_client(s);
    if (!c.sending_queue.directory.empty()) {
      queue::DiskQueueOptions o;
      o.directory = c.sending_queue.directory;
      o.max_size = c.sending_queue.max_size;
      o.segment_size = std::min(o.segment_size, o.max_size);
      // The frame holds the batch as an Export*ServiceRequest already: that is the request.
      disk_ = std::make_unique<DiskSpool>(id_, o, queue_,
                                          [](pdata::BatchRef, std::string_view request, queue::Entry& e) {
                                            e.encoded.data.assign(request);
                                            e.bytes = e.encoded.data.capacity();
                                          });
    }
  }
  ~OtlpStage() override { shutdown(std::chrono::milliseconds(0)); }

  void start() override {
    {
      std::lock_guard l(stop_mu_);
      running_ = consumers_;
    }
    for (unsigned i = 0; i < consumers_; ++i) threads_.emplace_back([this] { consume_loop(); });
    if (disk_) disk_->start();
  }

  void shutdown(std::chrono::milliseconds timeout) override {
    if (stopped_.exchange(true)) return;
    {
      std::lock_guard l(stop_mu_);
      stopping_ = true;
      deadline_ = Clock::now() + timeout;
    }
    stop_cv_.notify_all();
    if (disk_) disk_->stop();  // what is not read yet stays on disk for the next start
    queue_.close();            // consumers drain what is queued until the deadline, then give up
    {
      // A request in flight ends only when its peer answers or its own timeout runs out
      // (never, with `timeout: 0`): at the deadline it is cancelled, so shutdown keeps to
      // service.shutdown_timeout. The senders then give up what they hold (give_up).
      std::unique_lock l(stop_mu_);
      stop_cv_.wait_until(l, deadline_, [&] { return running_ == 0; });
    }
    cancel_clients();
    for (auto& t : threads_) t.join();
    threads_.clear();
    // Never started (or no consumer left): what is still queued is undelivered.
    std::vector<queue::Entry> left;
    while (queue_.pop_batch(left, 0, 0, std::chrono::milliseconds(0))) {
    }
    for (auto& e : left)
      give_up(e.signal, e.items, e.delivery ? std::vector{e.delivery} : Tokens{},
              "at shutdown (timeout reached)");
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
    auto add = [&](const char* name, double v, const char* help, bool counter = true) {
      out.push_back({name, l, v, help, counter});
    };
    auto count = [](const std::atomic<std::uint64_t>& a) { return static_cast<double>(a.load()); };
    add("tern_exporter_queue_size", static_cast<double>(q.entries), "Requests waiting in the sending queue",
        false);
    add("tern_exporter_queue_bytes", static_cast<double>(q.bytes), "Bytes held by the sending queue", false);
    add("tern_exporter_queue_peak_bytes", static_cast<double>(q.peak_bytes), "Most bytes the queue held",
        false);
    add("tern_exporter_enqueue_failed_total", static_cast<double>(q.refused_entries),
        "Requests refused because the queue was full");
    add("tern_exporter_items_sent_total", count(sent_), "Items (records, spans, data points) accepted");
    add("tern_exporter_items_rejected_total", count(rejected_),
        "Items the receiving side refused in a partial success");
    add("tern_exporter_items_dropped_total", count(dropped_),
        "Items dropped because the receiving side answered with a permanent error");
    add("tern_exporter_items_undelivered_total", count(undelivered_),
        "Items still unsent when the shutdown timeout ran out");
    add("tern_exporter_items_requeued_total", count(requeued_),
        "Items a sender gave up on that stay in the persistent queue to be sent again");
    add("tern_exporter_merged_request_splits_total", count(splits_),
        "Merged requests refused for good as a whole and sent again in parts");
    add("tern_exporter_requests_total", count(requests_), "OTLP requests sent (retries included)");
    add("tern_exporter_request_errors_total", count(request_errors_),
        "OTLP requests that failed (error status or no answer)");
    add("tern_exporter_retries_total", count(retries_), "OTLP requests re-sent after a retryable failure");
    add("tern_exporter_bytes_uncompressed_total", count(bytes_), "Request bytes before compression");
    if (disk_) disk_->collect_metrics(l, out);
  }

  bool healthy() const override { return !stopped_.load(); }

 private:
  using Tokens = std::vector<pdata::DeliveryTokenPtr>;

  // One client per signal and consumer thread: clients are single-threaded, and OTLP/HTTP
  // posts each signal to its own path (gRPC could share one, it is cheap enough not to).
  struct Clients {
    std::unique_ptr<ox::OtlpClient> by_signal[3];
  };

  std::unique_ptr<ox::OtlpClient> make_client(pdata::Signal s) const {
    ox::OtlpClientOptions o = options_;
    if (http_) {
      if (const std::string& url = signal_url_[static_cast<std::size_t>(s)]; !url.empty()) {
        // The signal's own URL, as it is (the Collector appends nothing to it).
        auto [origin, path] = split_origin(url);
        o.endpoint = std::move(origin);
        o.url_path = path.empty() ? "/" : std::move(path);
      } else if (options_.endpoint.empty()) {
        throw std::invalid_argument(
            fmt::format("exporter {}: no endpoint for {} (set endpoint or {}_endpoint)", id_, item_name(s),
                        pdata::to_string(s)));
      } else {
        o.url_path = base_path_ + std::string(ox::default_http_path(s));
      }
    }
    return ox::make_otlp_client(o);
  }

  // The senders' clients, known to shutdown so that it can cancel their requests.
  ox::OtlpClient& register_client(std::unique_ptr<ox::OtlpClient>& slot, pdata::Signal s) {
    slot = make_client(s);
    std::lock_guard l(clients_mu_);
    live_clients_.push_back(slot.get());
    if (cancelled_) slot->cancel();  // made after the deadline: fails at once
    return *slot;
  }
  void unregister_clients(const Clients& c) {
    std::lock_guard l(clients_mu_);
    for (const auto& p : c.by_signal)
      if (p) std::erase(live_clients_, p.get());
  }
  void cancel_clients() {
    std::lock_guard l(clients_mu_);
    cancelled_ = true;
    for (auto* c : live_clients_) c->cancel();
  }

  // With a persistent queue the memory queue only holds what the disk reader has read for
  // the senders: a few requests' worth, the backlog waits on disk.
  static queue::MemoryQueueLimits memory_limits(const exporter::otlp::OtlpExporterConfig& c) {
    if (!c.sending_queue.directory.empty())
      return {.max_bytes = 4 * kDefaultRequestBytes, .max_items = 0, .max_entries = 0};
    return {
        .max_bytes = queue::kDefaultQueueBytes, .max_items = 0, .max_entries = c.sending_queue.queue_size};
  }

  template <class Data>
  ConsumeResult enqueue(pdata::Signal s, std::shared_ptr<Data> batch, std::uint64_t events) {
    if (!batch || events == 0) return ConsumeResult::ok();
    if (stopped_.load(std::memory_order_relaxed))
      return {ConsumeCode::kShutdown, "exporter is shutting down", {}, 0};
    if (http_ && options_.endpoint.empty() && signal_url_[static_cast<std::size_t>(s)].empty())
      return {ConsumeCode::kInvalid,
              fmt::format("exporter {} has no endpoint for {} (endpoint or {}_endpoint)", id_,
                          pdata::to_string(s), pdata::to_string(s)),
              {},
              0};
    if (disk_) return disk_->push(batch.get());  // durable once this returns kOk
    queue::Entry e;
    e.signal = s;
    e.items = events;
    e.delivery = batch->delivery;  // held until the request is settled
    std::string& body = e.encoded.data;
    if constexpr (std::is_same_v<Data, pdata::LogsData>) tern::otlp::encode_logs_proto(*batch, body);
    if constexpr (std::is_same_v<Data, pdata::TracesData>) tern::otlp::encode_traces_proto(*batch, body);
    if constexpr (std::is_same_v<Data, pdata::MetricsData>) tern::otlp::encode_metrics_proto(*batch, body);
    e.bytes = body.capacity();
    batch.reset();  // only the encoded bytes wait in the queue
    if (!queue_.try_push(e))
      return ConsumeResult::retry_later("sending queue of exporter " + id_ + " is full",
                                        std::chrono::seconds(1));
    return ConsumeResult::ok();
  }

  void consume_loop() {
    Clients clients;
    std::vector<queue::Entry> entries;
    std::string merged;
    while (true) {
      entries.clear();
      if (!queue_.pop_batch(entries, batch_.max_bytes, batch_.max_items, batch_.timeout)) break;
      // Consecutive entries of one signal become one request: concatenated protobuf
      // messages parse as one whose repeated fields (resource_logs, ...) are joined, so
      // merging costs a memcpy and saves round trips when producers send small batches.
      for (std::size_t i = 0; i < entries.size();) {
        const pdata::Signal s = entries[i].signal;
        std::size_t j = i;
        while (j < entries.size() && entries[j].signal == s) ++j;
        auto& slot = clients.by_signal[static_cast<std::size_t>(s)];
        const auto part = std::span(entries).subspan(i, j - i);
        i = j;
        if (!slot) {
          try {
            register_client(slot, s);
          } catch (const std::exception& e) {
            // Checked when the stage was built; a TLS file removed since then, say. Not a
            // crash of the sender thread: what it holds is given up (stays on disk, if any).
            std::uint64_t items = 0;
            Tokens tokens;
            for (const auto& en : part) {
              items += en.items;
              if (en.delivery) tokens.push_back(en.delivery);
            }
            give_up(s, items, tokens, fmt::format("(cannot make a client: {})", e.what()));
            settle(part);
            continue;
          }
        }
        deliver(*slot, s, part, merged);
      }
    }
    unregister_clients(clients);
    {
      std::lock_guard l(stop_mu_);
      --running_;
    }
    stop_cv_.notify_all();  // shutdown waits for the last one
  }

  // Sends `part` (queued requests of one signal) as one request. Refused for good as a
  // whole, a merge of several is split in halves, each sent on its own (recursively): the
  // receiver's verdict may be about the merge (too large: HTTP 413, gRPC RESOURCE_EXHAUSTED)
  // or about one request in it (400 / INVALID_ARGUMENT), and each request was accepted from
  // its client on its own. Only a single queued request refused for good is dropped.
  void deliver(ox::OtlpClient& client, pdata::Signal s, std::span<queue::Entry> part, std::string& merged) {
    std::uint64_t items = 0, size = 0;
    Tokens tokens;
    for (const auto& e : part) {
      items += e.items;
      size += e.encoded.data.size();
      if (e.delivery) tokens.push_back(e.delivery);
    }
    std::string_view body = part.front().encoded.data;
    if (part.size() > 1) {
      merged.clear();
      merged.reserve(size);
      for (const auto& e : part) merged += e.encoded.data;
      body = merged;
    }
    thread_local std::string json;
    if (json_) {
      // The queue holds protobuf (it merges by concatenation, JSON does not): `encoding:
      // json` is a transcoding of the request about to be sent.
      if (!to_json(s, body, json)) {
        dropped_.fetch_add(items, std::memory_order_relaxed);  // our own encoding: cannot happen
        spdlog::error("exporter {}: dropping {} {}: the queued request does not decode", id_, items,
                      item_name(s));
        return settle(part);
      }
      body = json;
    }
    if (send(client, s, body, items, tokens, /*may_split=*/part.size() > 1) == Outcome::kRefusedMerged) {
      spdlog::info(
          "exporter {}: the receiver refused a request merged from {} ({} {}); sending them in parts", id_,
          part.size(), items, item_name(s));
      splits_.fetch_add(1, std::memory_order_relaxed);
      const std::size_t half = part.size() / 2;
      deliver(client, s, part.first(half), merged);
      deliver(client, s, part.subspan(half), merged);
      return;
    }
    tokens.clear();
    settle(part);
  }

  // Settled: the producers may hear of it now, not at the next pop.
  static void settle(std::span<queue::Entry> part) {
    for (auto& e : part) {
      e.delivery.reset();
      e.encoded = {};  // free early
    }
  }

  static bool to_json(pdata::Signal s, std::string_view proto, std::string& out) {
    out.clear();
    switch (s) {
      case pdata::Signal::Logs: {
        pdata::LogsData d;
        if (tern::otlp::decode_logs_proto(proto, d)) return false;
        tern::otlp::encode_logs_json(d, out);
        return true;
      }
      case pdata::Signal::Traces: {
        pdata::TracesData d;
        if (tern::otlp::decode_traces_proto(proto, d)) return false;
        tern::otlp::encode_traces_json(d, out);
        return true;
      }
      case pdata::Signal::Metrics: {
        pdata::MetricsData d;
        if (tern::otlp::decode_metrics_proto(proto, d)) return false;
        tern::otlp::encode_metrics_json(d, out);
        return true;
      }
    }
    return false;
  }

  enum class Outcome { kSettled, kRefusedMerged };

  // Sends one request until it is settled: accepted, permanently refused, or given up (at
  // the shutdown deadline, or as retry_on_failure says: disabled, or max_elapsed_time past).
  // With may_split, a permanent refusal is not settled here: kRefusedMerged, the caller splits.
  Outcome send(ox::OtlpClient& client, pdata::Signal s, std::string_view body, std::uint64_t items,
               const Tokens& tokens, bool may_split) {
    BackoffInterval backoff = retry_.initial_interval;
    const BackoffInterval max_backoff = retry_.max_interval;
    const auto started = Clock::now();
    thread_local std::minstd_rand rng{std::random_device{}()};  // one per sender thread
    const std::string at_shutdown = "at shutdown (timeout reached)";
    for (bool first = true;; first = false) {
      if (past_deadline()) return give_up(s, items, tokens, at_shutdown), Outcome::kSettled;
      if (!first) retries_.fetch_add(1, std::memory_order_relaxed);
      requests_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_add(body.size(), std::memory_order_relaxed);
      const ox::ExportStatus st = client.export_request(s, body);
      if (st.ok) {
        const auto rejected = static_cast<std::uint64_t>(
            std::clamp<std::int64_t>(st.rejected, 0, static_cast<std::int64_t>(items)));
        sent_.fetch_add(items - rejected, std::memory_order_relaxed);
        if (rejected) {
          rejected_.fetch_add(rejected, std::memory_order_relaxed);
          spdlog::warn("exporter {}: the receiver rejected {} of {} {}: {}", id_, rejected, items,
                       item_name(s), st.message);
        } else if (!st.message.empty()) {
          // A partial success that rejects nothing but says something: a warning from the
          // receiver (the OTLP spec's use of it), rate-limited as it may come with each request.
          std::uint64_t suppressed = 0;
          if (partial_warning_log_.allow(suppressed))
            spdlog::warn("exporter {}: the receiver accepted {} {} with a warning: {}{}", id_, items,
                         item_name(s), st.message,
                         suppressed ? fmt::format(" ({} more since the last report)", suppressed) : "");
        }
        return Outcome::kSettled;
      }
      request_errors_.fetch_add(1, std::memory_order_relaxed);
      if (!(http_ ? retryable_http(st.code) : retryable_grpc(st.code, st.retry_info))) {
        if (may_split) return Outcome::kRefusedMerged;
        // A permanent error is the receiving side's verdict on the data: retrying cannot
        // help, and the request counts as settled (like an Elasticsearch 400).
        dropped_.fetch_add(items, std::memory_order_relaxed);
        spdlog::error("exporter {}: dropping {} {} (permanent error): {}", id_, items, item_name(s),
                      st.message);
        return Outcome::kSettled;
      }
      if (!retry_.enabled)
        return give_up(s, items, tokens, fmt::format("(retry_on_failure disabled): {}", st.message)),
               Outcome::kSettled;
      // The server's Retry-After / RetryInfo as given (at most a day); our own back-off
      // randomized.
      const auto wait = st.retry_after.count() > 0
                            ? std::min<std::chrono::milliseconds>(st.retry_after, kMaxServerWait)
                            : randomize_interval(wait_for(backoff), retry_.randomization_factor, rng);
      backoff = grow_interval(backoff, retry_.multiplier, max_backoff);
      const auto now = Clock::now();
      if (retry_.max_elapsed_time > config::Duration{0} && wait > retry_.max_elapsed_time - (now - started)) {
        return give_up(s, items, tokens,
                       fmt::format("(retry_on_failure.max_elapsed_time reached): {}", st.message)),
               Outcome::kSettled;
      }
      // Shutting down and the retry would come after the deadline (or the request was
      // cancelled at it): no retry will happen, so none is announced.
      if (!retry_before_deadline(now + wait))
        return give_up(s, items, tokens, fmt::format("{}: {}", at_shutdown, st.message)), Outcome::kSettled;
      if (first) {
        spdlog::warn("exporter {}: {} {} not sent, retrying in {} ms: {}", id_, items, item_name(s),
                     wait.count(), st.message);
      } else {
        spdlog::debug("exporter {}: retrying in {} ms: {}", id_, wait.count(), st.message);
      }
      pause_until(now + wait);
    }
  }

  // Not delivered and no verdict on the data: the producer hears so (a file receiver does
  // not move its checkpoint past it).
  // With a persistent queue the frames stay on disk (the spool sends them again while the
  // process runs, or the next start does): nothing is lost, so it is a warning.
  void give_up(pdata::Signal s, std::uint64_t items, const Tokens& tokens, const std::string& why) {
    for (const auto& t : tokens) t->fail();  // the producer must not consider this data safe
    if (disk_) {
      requeued_.fetch_add(items, std::memory_order_relaxed);
      spdlog::warn("exporter {}: {} {} not delivered {}; they stay in the disk queue and are sent again", id_,
                   items, item_name(s), why);
      return;
    }
    undelivered_.fetch_add(items, std::memory_order_relaxed);
    spdlog::error("exporter {}: {} {} undelivered {}", id_, items, item_name(s), why);
  }

  bool past_deadline() {
    std::lock_guard l(stop_mu_);
    return stopping_ && Clock::now() >= deadline_;
  }

  bool retry_before_deadline(Clock::time_point at) {
    std::lock_guard l(stop_mu_);
    return !stopping_ || at < deadline_;
  }

  // Sleeps until `until`, or until shutdown's deadline if that comes first.
  void pause_until(Clock::time_point until) {
    std::unique_lock l(stop_mu_);
    for (;;) {
      const auto wake = stopping_ ? std::min(until, deadline_) : until;
      if (Clock::now() >= wake) return;
      stop_cv_.wait_until(l, wake);  // also woken when shutdown starts: the deadline changed
    }
  }

  std::string id_;
  bool http_;
  ox::OtlpClientOptions options_;
  std::string base_path_;      // otlphttp: the endpoint URL's path, before /v1/<signal>
  std::string signal_url_[3];  // otlphttp: logs_endpoint, traces_endpoint, metrics_endpoint
  bool json_ = false;          // otlphttp `encoding: json`
  queue::MemoryQueue queue_;
  BatchSettings batch_;
  exporter::otlp::OtlpExporterConfig::RetryOnFailure retry_;
  unsigned consumers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopped_{false};

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  Clock::time_point deadline_{};

  unsigned running_ = 0;  // consumer threads not finished (under stop_mu_)

  std::mutex clients_mu_;
  std::vector<ox::OtlpClient*> live_clients_;  // the senders' clients (under clients_mu_)
  bool cancelled_ = false;                     // shutdown's deadline passed (under clients_mu_)

  logging::LogLimit partial_warning_log_;
  std::atomic<std::uint64_t> sent_{0}, rejected_{0}, dropped_{0}, undelivered_{0}, requeued_{0}, splits_{0};
  std::atomic<std::uint64_t> requests_{0}, request_errors_{0}, retries_{0}, bytes_{0};
  std::unique_ptr<DiskSpool> disk_;  // sending_queue.storage: destroyed after the senders stop
};

}  // namespace

std::unique_ptr<component::Exporter> make_otlp_exporter(std::string id,
                                                        const exporter::otlp::OtlpExporterConfig& c,
                                                        BatchSettings batch) {
  return std::make_unique<OtlpStage>(std::move(id), c, batch);
}

}  // namespace tern::exporter::otlp
