#pragma once
// Elasticsearch log exporter: writes records straight to Elasticsearch `_bulk` in the
// OTel mapping mode (the documents `tern run` writes: body.text, severity_text,
// attributes, resource.attributes, data stream logs-<dataset>-<namespace>), reusing
// Tern's otel-mode encoder and bulk exporter (retries, per-item results, gzip).
//
// Export is const and thread-safe: the batch is encoded on the calling thread with an
// encoder leased from a lock-free pool, then handed to the bulk exporter, which is
// thread-safe, batches requests and sends them on its own workers. The callback runs
// on a bulk worker once every record is settled. The bulk exporter buffers for up to
// `flush_interval`, so a synchronous Export takes about that long: pair it with the
// batch processor.
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
  std::chrono::milliseconds flush_interval{200};
  bool gzip = true;
  // Retries of 429/5xx items and requests; 0: until shutdown (as `tern run` does).
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
  // Throws std::invalid_argument for a bad endpoint.
  explicit ElasticsearchLogExporter(ElasticsearchLogExporterOptions options = {});
  ~ElasticsearchLogExporter() override;  // Shutdown(10 s) when still running
  ElasticsearchLogExporter(const ElasticsearchLogExporter&) = delete;
  ElasticsearchLogExporter& operator=(const ElasticsearchLogExporter&) = delete;

  // `done` gets kSuccess only when every record of the batch was indexed (or was a
  // duplicate of an indexed one).
  void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const override;
  // Sends what is buffered and waits until nothing is in flight.
  bool ForceFlush(std::chrono::milliseconds timeout) const noexcept override;
  // Flushes, then stops the bulk workers; what is still unsent after `timeout` fails.
  bool Shutdown(std::chrono::milliseconds timeout) const noexcept override;

  ElasticsearchLogExporterStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::sdk::logs
