#pragma once
// Minimal HTTP/1.1 POST client for the bulk exporter, on Boost.Beast: one object per
// worker thread, owning its own io_context and one keep-alive connection per endpoint
// (so the per-endpoint pool has one connection per worker). Calls are blocking for the
// calling worker: each step runs the worker's private io_context to completion, which
// gives Beast's timeouts without sharing an event loop between workers.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/tls.h"

namespace tern::exporter::es {

struct Endpoint {
  std::string url;          // as configured (for logs and counters)
  bool tls = false;         // https
  std::string host;         // without brackets for IPv6
  std::string port;         // "9200"; scheme default (80/443) when absent
  std::string path_prefix;  // "" or "/prefix" (no trailing slash)
};

// Parses `http[s]://host[:port][/prefix]`; a bare `host:port` means http. nullopt + error on failure.
std::optional<Endpoint> parse_endpoint(std::string_view url, std::string* error);

using TlsClientOptions = net::TlsClientOptions;

// The TLS context shared by every worker (OpenSSL contexts are thread-safe once set up).
class TlsContext;
// Throws std::runtime_error when a file cannot be loaded.
std::shared_ptr<TlsContext> make_tls_context(const TlsClientOptions& options);

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{5000};   // TCP connect + TLS handshake
  std::chrono::milliseconds request_timeout{90000};  // write request + read response
  std::size_t max_response_bytes = 256u << 20;
  std::vector<std::pair<std::string, std::string>> headers;  // sent with every request
};

struct HttpResponse {
  int status = 0;
  std::string body;
  // Times post() sent the request again on a new connection because a reused one was closed
  // before any response byte (0 or 1): the caller counts those exchanges too. The server may
  // have read the first copy before it closed; at least once allows the duplicate.
  int resends = 0;
};

class HttpClient {
 public:
  HttpClient(std::vector<Endpoint> endpoints, HttpClientOptions options, std::shared_ptr<TlsContext> tls);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs the concatenation of `body` to endpoint `index` at `target` (path + query,
  // prefix added here), written straight from those buffers (gathered writes). Returns
  // false with `error` set on connection errors and timeouts (no HTTP status was read).
  bool post(std::size_t index, std::string_view target, std::span<const std::string_view> body,
            std::string_view content_encoding, HttpResponse& response, std::string& error);
  // Thread-safe: aborts the exchange in progress and every later one (shutdown).
  void abort();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::exporter::es
