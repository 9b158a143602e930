#pragma once
// Elasticsearch `_bulk` exporter (contract: shared/spec/bulk-delivery.md; user doc:
// docs/exporter-elasticsearch.md).
//
// Takes pre-encoded batches (EncodedBatch: action + document bytes per item), cuts them
// into bulk requests of about `flush_bytes` (uncompressed), and sends them with
// `num_workers` parallel senders over keep-alive HTTP/1.1 connections. Per-item results
// decide: indexed, duplicate (409), retried (429 / retry_on_status; only those items are
// re-sent, from their original bytes), or permanently failed (dead-letter file). A
// submitted batch is completed (its callback fires) only when every one of its items is
// settled: at least once.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "encoding/encoded_batch.h"
#include "net/tls.h"

namespace tern::exporter::es {

struct ElasticsearchExporterConfig;

using Clock = std::chrono::steady_clock;

struct BulkExporterOptions {
  std::vector<std::string> endpoints;   // http[s]://host[:port][/prefix]
  unsigned num_workers = 0;             // 0 = hardware threads
  std::uint64_t flush_bytes = 5000000;  // uncompressed body size that triggers a request
  std::chrono::milliseconds flush_interval{1000};
  // Bytes of submitted, not yet completed batches above which submit() blocks
  // (back-pressure). 0 = (num_workers + 1) * flush_bytes: a request per worker on the
  // wire and one being filled. Not in the config file (yet).
  std::uint64_t max_inflight_bytes = 0;

  bool retry_enabled = true;
  std::uint64_t max_retries = 0;  // 0 = no limit while the process runs
  std::chrono::milliseconds retry_initial{100};
  std::chrono::milliseconds retry_max{30000};
  std::vector<int> retry_on_status{429, 500, 502, 503, 504};
  // A whole-request 4xx other than 429/413 (bad URL, credentials, privileges): true keeps
  // the request and retries it at the capped backoff until shutdown (the collector: a
  // configuration error must not lose data); false fails its items at once (the logs SDK:
  // an application cannot hold its records forever). Not in the config file.
  bool hold_on_request_error = true;

  bool gzip = true;
  int compression_level = 1;

  std::map<std::string, std::string> headers;
  std::string user, password;  // Basic auth when user is set
  std::string api_key;         // `Authorization: ApiKey <api_key>` (already base64 id:key)

  net::TlsClientOptions tls;  // for https:// endpoints

  bool require_data_stream = true;  // otel mapping mode writes data streams
  std::string pipeline;
  std::optional<bool> include_source_on_error;      // unset: not sent (Elasticsearch's default, true)
  std::string query;                                // more query parameters, as written (no '?')
  std::chrono::milliseconds timeout{90000};         // one request: write + response
  std::chrono::milliseconds connect_timeout{5000};  // not in the config file (yet)
  std::string dead_letter_path;                     // empty = no dead-letter file
};

// Maps the collector config; fields the config has no key for keep the defaults above.
BulkExporterOptions from_config(const exporter::es::ElasticsearchExporterConfig& config);

// Outcome of one submitted batch, passed to its completion callback.
struct BulkResult {
  std::uint64_t items = 0;
  std::uint64_t indexed = 0;      // 200/201
  std::uint64_t duplicates = 0;   // 409 on create: already there (a retry that had landed)
  std::uint64_t failed = 0;       // permanent item failures (400 mapping errors, 413 single item...)
  std::uint64_t dropped = 0;      // transient failures over retry.max_retries
  std::uint64_t undelivered = 0;  // still unsettled at shutdown: NOT acknowledged
  // True when the batch may be acknowledged upstream (every item delivered or rejected).
  bool acked() const { return undelivered == 0; }
};

struct BulkCounters {
  std::uint64_t docs_received = 0;  // items submitted
  std::uint64_t events_received = 0;
  std::uint64_t docs_sent = 0;  // item sends, retries included
  std::uint64_t docs_indexed = 0;
  std::uint64_t docs_duplicates = 0;
  std::uint64_t docs_retried = 0;  // item re-sends (item-level and request-level retries)
  std::uint64_t docs_failed = 0;   // permanent failures
  std::uint64_t docs_dropped = 0;  // max_retries reached
  std::uint64_t docs_dead_lettered = 0;
  std::uint64_t docs_undelivered = 0;                     // left unsettled by shutdown()
  std::map<std::string, std::uint64_t> failed_by_reason;  // error.type -> permanent failures
  std::uint64_t requests = 0;                             // bulk requests attempted
  std::uint64_t request_errors = 0;                       // connection errors and timeouts (no HTTP status)
  std::map<int, std::uint64_t> requests_by_status;
  std::uint64_t request_retries = 0;     // whole-request retries
  std::uint64_t splits_413 = 0;          // requests split in halves after 413
  std::uint64_t bytes_uncompressed = 0;  // bodies sent, before gzip
  std::uint64_t bytes_compressed = 0;    // bodies sent, on the wire
  std::uint64_t queue_items = 0;         // items accepted and not yet settled
  std::uint64_t queue_bytes = 0;         // bytes of batches accepted and not yet completed
  // Request latency histogram (successful HTTP exchanges): counts per upper bound in ms,
  // the last bucket is +Inf.
  static constexpr std::array<double, 12> kLatencyBoundsMs{1,   2.5, 5,   10,   25,   50,
                                                           100, 250, 500, 1000, 5000, 30000};
  std::array<std::uint64_t, 13> latency_buckets{};
  double latency_sum_ms = 0;
};

class BulkExporter {
 public:
  using Done = std::function<void(const BulkResult&)>;

  // Throws std::invalid_argument for bad endpoints and std::runtime_error for TLS files
  // or a dead-letter file that cannot be opened.
  explicit BulkExporter(BulkExporterOptions options);
  ~BulkExporter();  // shutdown(0) when still running
  BulkExporter(const BulkExporter&) = delete;
  BulkExporter& operator=(const BulkExporter&) = delete;

  void start();
  // Hands a batch over. Blocks while the in-flight byte limit is reached, until
  // `deadline`; returns false (batch untouched) when it passed or after shutdown.
  // `done` runs on an exporter thread once every item is settled (or at shutdown with
  // undelivered items); it must not call back into the exporter's blocking calls.
  bool submit(encoding::EncodedBatch&& batch, Done done,
              Clock::time_point deadline = Clock::time_point::max());
  bool try_submit(encoding::EncodedBatch&& batch, Done done) {
    return submit(std::move(batch), std::move(done), {});
  }
  // Waits until submit() would take a batch of `bytes` without blocking, until
  // `deadline`; false on timeout or after shutdown. A queue's consumer calls it before
  // taking entries out of its queue, so that waiting entries stay in the queue (bounded,
  // counted) instead of in the hands of a consumer blocked in submit().
  bool wait_for_room(std::uint64_t bytes, Clock::time_point deadline);
  // Sends what is buffered now and waits until no batch is in flight (every submitted
  // batch completed), or `deadline`. Returns true when nothing is left in flight.
  bool flush(Clock::time_point deadline = Clock::time_point::max());
  // Sends what is buffered now and waits until every batch submitted before the call has
  // completed, or `deadline`; batches submitted meanwhile are not waited for, so it ends
  // under a steady stream of submissions. False on timeout or after shutdown.
  bool flush_submitted(Clock::time_point deadline = Clock::time_point::max());
  // Queues the request being filled now instead of at flush_interval (a caller that
  // waits for its batch has nothing to gain from the timer).
  void send_pending();
  // Drains within `timeout`, then aborts what is left: those batches complete with
  // `undelivered` items (not acknowledged). Idempotent.
  void shutdown(std::chrono::milliseconds timeout);
  BulkCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::exporter::es
