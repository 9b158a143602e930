#pragma once
// OTLP log exporters: OTLP/HTTP (protobuf) and OTLP/gRPC, built on Tern's OTLP encoder
// and clients (the ones `tern gen` uses). Header-light on purpose: no pdata, Beast or
// gRPC types leak out of this file.
//
// Export is const and thread-safe without a lock: the batch is encoded on the calling
// thread, then sent on a connection leased from a small lock-free pool (a Tern OTLP
// client owns one connection and is single-threaded, so each sender gets its own).
// ExportAsync encodes on the caller, sends on a short-lived sender thread and calls
// `done` there; past max_concurrent_exports in flight it sends on the caller instead
// (back-pressure rather than an unbounded number of threads) and calls `done` there,
// before returning, as it does for an empty batch or after Shutdown.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs {

struct OtlpLogExporterOptions {
  // "host:port", "http://host[:port][/path]" or "https://host[:port][/path]" (gRPC ignores
  // a path). The port must be 1-65535. HTTP without one: a URL uses its scheme's (80, 443),
  // as URLs do (and the OpenTelemetry C++ SDK, whose default is
  // http://localhost:4318/v1/logs); a bare "host" uses 4318. gRPC requires one (or a gRPC
  // target such as unix:/path). Defaults: the OTLP ports on localhost.
  std::string endpoint;
  std::string url_path;  // HTTP only; empty: the endpoint's path, else /v1/logs
  bool gzip = false;
  std::vector<std::pair<std::string, std::string>> headers;  // HTTP headers / gRPC metadata
  std::chrono::milliseconds timeout{10'000};                 // per attempt
  int max_retries = 2;              // on 429/502/503/504 (HTTP) or UNAVAILABLE/RESOURCE_EXHAUSTED (gRPC)
  // Pooled connections (at most 16). A sender finding them all busy opens a one-off
  // connection and closes it after its export: with more exporting threads than this
  // (SimpleLogRecordProcessor), raise it to avoid connection churn.
  std::size_t max_connections = 4;
  std::size_t max_concurrent_exports = 4;  // ExportAsync sender threads in flight
  // TLS, named as in the OpenTelemetry C++ SDK's OTLP exporter options. The endpoint's
  // scheme decides: https:// is TLS (with the files below), http:// is plaintext; a bare
  // host:port is TLS only when use_ssl_credentials is set.
  bool use_ssl_credentials = false;
  std::string ssl_credentials_cacert_path;  // PEM CA(s) for the server; empty: the system's
  std::string ssl_client_cert_path;         // client certificate (PEM) for mutual TLS, optional
  std::string ssl_client_key_path;          // its key (PEM)
  bool ssl_insecure_skip_verify = false;    // encrypt but accept any server certificate (tests)
};

// Counters, all monotonic.
struct OtlpLogExporterStats {
  std::uint64_t exported_records = 0;  // acknowledged by the server
  std::uint64_t failed_records = 0;    // in requests that failed, or refused after Shutdown
  std::uint64_t rejected_records = 0;  // partial success: rejected by the server
  std::uint64_t requests = 0;
};

class OtlpLogExporter : public AsyncLogRecordExporter {
 public:
  ~OtlpLogExporter()
      override;  // waits for exports still in flight (their callbacks may use the caller's objects)
  OtlpLogExporter(const OtlpLogExporter&) = delete;
  OtlpLogExporter& operator=(const OtlpLogExporter&) = delete;

  // Encodes and sends on the calling thread. kFailure when the request failed or the
  // server rejected some records (partial success), or after Shutdown.
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override;
  void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const override;
  // Waits until every export (synchronous or asynchronous) begun before the call has
  // finished, its callback included; exports begun meanwhile on other threads are not
  // waited for. False on timeout.
  bool ForceFlush(std::chrono::milliseconds timeout) const noexcept override;
  // Later exports fail; waits for the ones in flight. On timeout (at once for 0) cancels
  // the ones still sending, which then fail, and returns false: a peer that never answers
  // cannot keep the process (or the destructor, which waits for them) from ending.
  bool Shutdown(std::chrono::milliseconds timeout) const noexcept override;

  OtlpLogExporterStats stats() const;
  // Why the latest failed request failed, as the client says it (naming the URL or gRPC
  // target, port included), or the partial-success message; empty if none has failed.
  std::string last_error() const;

  struct State;  // shared with sender threads, so it outlives a destroyed exporter

 protected:
  // Throws std::invalid_argument for an endpoint that cannot be parsed and
  // std::runtime_error for TLS files that cannot be loaded.
  OtlpLogExporter(OtlpLogExporterOptions options, bool grpc);

 private:
  std::shared_ptr<State> state_;
};

// OTLP/HTTP with protobuf bodies (POST <endpoint>/v1/logs). Default endpoint localhost:4318.
class OtlpHttpLogExporter final : public OtlpLogExporter {
 public:
  explicit OtlpHttpLogExporter(OtlpLogExporterOptions options = {});
};

// OTLP/gRPC (LogsService/Export; TLS as set by the options above). Default endpoint
// localhost:4317.
class OtlpGrpcLogExporter final : public OtlpLogExporter {
 public:
  explicit OtlpGrpcLogExporter(OtlpLogExporterOptions options = {});
};

}  // namespace tern::sdk::logs
