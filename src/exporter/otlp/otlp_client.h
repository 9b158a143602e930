#pragma once
// OTLP client exporters: send one already-encoded Export*ServiceRequest and report how it
// went. Two transports behind one interface, OTLP/HTTP (Boost.Beast) and OTLP/gRPC
// (grpc++ generic stub, so no generated code). Each instance owns its connection (one
// keep-alive TCP connection, or one gRPC channel with a private subchannel pool) and is
// used by one thread: no sharing, no locks. Neither Beast nor gRPC headers leak out of
// this header, they are heavy to compile.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/tls.h"
#include "pdata/signal.h"

namespace tern::exporter::otlp {

enum class Protocol { Grpc, Http };
enum class Encoding { Proto, Json };  // HTTP only; gRPC always carries protobuf

struct OtlpClientOptions {
  Protocol protocol = Protocol::Grpc;
  // "host:port" (as telemetrygen's --otlp-endpoint); for HTTP also "http://host:port[/path]".
  std::string endpoint = "localhost:4317";
  // HTTP path; empty: /v1/logs, /v1/traces or /v1/metrics by signal (or the endpoint's path).
  std::string url_path;
  Encoding encoding = Encoding::Proto;
  bool gzip = false;
  bool zstd = false;  // HTTP only: Content-Encoding: zstd (ignored with gzip)
  std::vector<std::pair<std::string, std::string>> headers;  // HTTP headers / gRPC metadata
  // OTLP/HTTP User-Agent (a `User-Agent` in `headers` wins); empty: "Tern/<version>".
  std::string user_agent;
  std::chrono::milliseconds timeout{10'000};                 // per attempt
  // Set: TLS with these settings. Unset: plaintext, except for an https:// endpoint
  // (TLS with the system's CAs). An http:// endpoint is plaintext either way.
  std::optional<net::TlsClientOptions> tls;
  // HTTP: how often a 429/502/503/504 answer is retried (after Retry-After, capped by
  // max_retry_wait, else 100 ms doubling). gRPC: UNAVAILABLE / RESOURCE_EXHAUSTED.
  int max_retries = 0;
  std::chrono::milliseconds max_retry_wait{5'000};
};

struct ExportStatus {
  bool ok = true;
  std::string message;        // why it failed, or the partial-success error message
  std::int64_t rejected = 0;  // partial success: rejected log records / spans / data points
  int code = 0;               // HTTP status, or gRPC status code (0 = OK); -1: transport error
  int attempts = 0;           // requests sent (1 + retries)
  // The server's retry hint on a failure (HTTP Retry-After, gRPC RetryInfo); 0: none given.
  std::chrono::milliseconds retry_after{0};
  // gRPC: the status carried a RetryInfo, whatever its delay (0 or none included): that is
  // what makes RESOURCE_EXHAUSTED retryable, as the OTLP spec says.
  bool retry_info = false;
};

class OtlpClient {
 public:
  virtual ~OtlpClient() = default;
  // Sends `body` (an encoded Export{Logs,Trace,Metrics}ServiceRequest, protobuf or, for
  // HTTP with Encoding::Json, OTLP/JSON) and waits for the answer. Blocking; `body` only
  // needs to live for the call. Compresses when options.gzip.
  virtual ExportStatus export_request(pdata::Signal signal, std::string_view body) = 0;
  // The one call that may come from another thread: ends the export in progress at once
  // (gRPC: the call is cancelled; HTTP: the connection is closed) and makes every later
  // export_request fail at once, with code -1 (HTTP) or CANCELLED (gRPC), both retryable.
  // A shutdown's deadline uses it: nothing else ends a request that a peer never answers
  // (with `timeout: 0` not even the attempt's own timeout).
  virtual void cancel() = 0;
};

// Throw std::invalid_argument for an endpoint they cannot parse and std::runtime_error for
// TLS files that cannot be loaded. Connecting is lazy (first export), so creating a client
// for an endpoint that is down succeeds.
std::unique_ptr<OtlpClient> make_http_client(const OtlpClientOptions& options);
std::unique_ptr<OtlpClient> make_grpc_client(const OtlpClientOptions& options);
std::unique_ptr<OtlpClient> make_otlp_client(const OtlpClientOptions& options);

// The gRPC method of a signal, e.g. "/opentelemetry.proto.collector.logs.v1.LogsService/Export".
std::string_view grpc_method(pdata::Signal signal);
// The default OTLP/HTTP path of a signal ("/v1/logs", ...).
std::string_view default_http_path(pdata::Signal signal);

// Reads an Export*ServiceResponse (protobuf): partial_success.rejected_* and error_message
// (the same field numbers for the three signals). False if the bytes are not one.
bool parse_export_response(std::string_view response, std::int64_t& rejected, std::string& error_message);

// The same for an OTLP/JSON response: partialSuccess.rejected{LogRecords,Spans,DataPoints}
// (a number or a decimal string) and errorMessage; snake_case names too. False if the body
// is not a JSON object.
bool parse_json_export_response(std::string_view response, std::int64_t& rejected,
                                std::string& error_message);

// The message of an OTLP/HTTP error body, a google.rpc.Status in the request's encoding
// (protobuf field 2, or JSON "message"); empty when the body is not one or has none.
std::string status_message(std::string_view body, bool json);

// The retry delay of a serialized google.rpc.Status (gRPC's status details) holding a
// google.rpc.RetryInfo: nullopt when there is none or the bytes are not a Status; 0 for a
// RetryInfo without a (usable) delay; at most a day.
std::optional<std::chrono::milliseconds> parse_retry_info(std::string_view status_details);

}  // namespace tern::exporter::otlp
