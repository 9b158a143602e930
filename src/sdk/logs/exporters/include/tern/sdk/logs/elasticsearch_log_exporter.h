#pragma once
// Elasticsearch log exporter: writes records straight to Elasticsearch `_bulk` in the
// OTel mapping mode (the documents `tern run` writes: body.text, severity_text,
// attributes, resource.attributes, data stream logs-<dataset>-<namespace>), reusing
// Tern's otel-mode encoder and bulk exporter (retries, per-item results, gzip).
//
// Export is const and thread-safe: the batch is encoded on the calling thread with an
// encoder leased from a lock-free pool, then handed to the bulk exporter, which is
// thread-safe, batches requests and sends them on its own workers. The callback runs
// on a bulk worker once every record is settled. ExportAsync leaves the batch to the bulk
// exporter's buffering (sent at `flush_bytes` or after `flush_interval`); the synchronous
// Export sends it at once, since its caller waits for it.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs {

struct ElasticsearchLogExporterOptions {
  std::vector<std::string> endpoints{"http://localhost:9200"};  // http[s]://host[:port][/prefix]
  std::string logs_index;                                       // empty: route to data streams
  std::string user, password;                                   // Basic auth when user is set
  std::string api_key;                                          // `Authorization: ApiKey <api_key>`
  std::map<std::string, std::string> headers;
  unsigned num_workers = 1;  // parallel bulk senders
  std::uint64_t flush_bytes = 5'000'000;
  // How long ExportAsync's batches may wait to be joined by others before being sent.
  std::chrono::milliseconds flush_interval{200};
  bool gzip = true;
  // Retries of 429/5xx items and requests; 0: until shutdown (as `tern run` does). A
  // whole-request 4xx other than 429 (bad URL or path, credentials, privileges) is not
  // retried: its records fail.
  std::uint64_t max_retries = 5;
  std::chrono::milliseconds timeout{30'000};        // one bulk request
  std::chrono::milliseconds submit_timeout{5'000};  // how long Export may wait for in-flight room
  std::size_t max_encoders = 4;                     // pooled encoders (at most 16)
};

struct ElasticsearchLogExporterStats {
  std::uint64_t indexed = 0;  // documents created (or already there: 409 on a retry)
  std::uint64_t failed = 0;   // rejected, dropped after max_retries, or undelivered at shutdown
  std::uint64_t bulk_requests = 0;
};

class ElasticsearchLogExporter final : public AsyncLogRecordExporter {
 public:
  // Throws std::invalid_argument for a bad endpoint (scheme other than http/https, no
  // host, a port that is not a number in 1-65535); without a port: 80, or 443 for https.
  explicit ElasticsearchLogExporter(ElasticsearchLogExporterOptions options = {});
  ~ElasticsearchLogExporter() override;  // Shutdown(10 s) when still running
  ElasticsearchLogExporter(const ElasticsearchLogExporter&) = delete;
  ElasticsearchLogExporter& operator=(const ElasticsearchLogExporter&) = delete;

  // `done` gets kSuccess only when every record of the batch was indexed (or was a
  // duplicate of an indexed one); a record the encoder could not encode is a failure.
  // `done` runs on a bulk worker, or inline (before ExportAsync returns) for an empty
  // batch, after Shutdown, or when the batch cannot be handed over within submit_timeout.
  void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const override;
  // Encodes, sends at once (not after flush_interval) and waits for the result.
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override;
  // Sends what is buffered and waits until every export begun before the call is settled
  // (not for exports begun meanwhile on other threads).
  bool ForceFlush(std::chrono::milliseconds timeout) const noexcept override;
  // Flushes, then stops the bulk workers; what is still unsent after `timeout` fails
  // (its exports complete with kFailure). A later or concurrent call waits for the first
  // one, within its own timeout, and returns the same result.
  bool Shutdown(std::chrono::milliseconds timeout) const noexcept override;

  ElasticsearchLogExporterStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::sdk::logs
