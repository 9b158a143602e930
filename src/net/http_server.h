#pragma once
// A small, generic HTTP/1.1 server on Boost.Beast for receivers and extensions: a
// multi-threaded io_context, keep-alive, `Expect: 100-continue`, a request body limit and
// a graceful shutdown, optionally over TLS (mutual TLS with a client CA). Requests are
// handed, fully read, to one synchronous handler that runs on an io thread (so it may do
// CPU work or short blocking calls; size `threads` for that). Beast stays inside
// http_server.cpp: it is heavy to compile.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/tls.h"

namespace tern::net {

struct HttpRequest {
  std::string_view method;  // as sent, e.g. "POST"
  std::string_view target;  // path and query, e.g. "/v1/logs"
  unsigned version = 11;    // 10 or 11
  std::string body;         // the whole body (moved into the handler's data if it wants)
  // The body was over `body_limit` and was not read. `body` is empty; the server closes the
  // connection after the response (the rest of the body is still on the wire).
  bool body_too_large = false;

  // A request header by case-insensitive name; empty when absent.
  std::string_view header(std::string_view name) const;

  const void* fields_ = nullptr;  // the Beast header the request came with (internal)
};

struct HttpResponse {
  int status = 200;
  std::string content_type;  // omitted when empty
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close = false;  // close the connection after this response
};

using HttpHandler = std::function<HttpResponse(HttpRequest&)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: an ephemeral port (see HttpServer::port())
  unsigned threads = 0;    // 0: one per core
  std::size_t body_limit = 20 * 1024 * 1024;
  std::size_t header_limit = 64 * 1024;
  std::chrono::milliseconds idle_timeout{60'000};     // keep-alive connection without a request
  std::chrono::milliseconds request_timeout{60'000};  // longest pause in a request's body
  std::chrono::milliseconds shutdown_grace{10'000};   // in-flight requests get this long to finish
  std::string server_name = "tern";
  // TLS when tls.enabled(): every connection starts with a server handshake, bounded by
  // tls_handshake_timeout (and request_timeout); one that fails is closed, nothing else.
  TlsServerOptions tls;
  std::chrono::milliseconds tls_handshake_timeout{10'000};
};

// Splits "host:port", "[v6]:port" or ":port" (empty host: all interfaces, "0.0.0.0").
// Throws std::invalid_argument for a missing or bad port.
std::pair<std::string, std::uint16_t> split_host_port(std::string_view endpoint);
// The reverse: "host:port", an IPv6 host in brackets ("[::1]:4318"), so that what is printed
// can be read back (by split_host_port, a URL, a script waiting for "listening on").
std::string join_host_port(std::string_view host, std::uint16_t port);

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();  // shutdown()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the io threads. Throws std::system_error when the address
  // cannot be bound, std::runtime_error (naming the setting and the file) when a TLS
  // certificate, key or CA file cannot be loaded. Returns the bound port.
  std::uint16_t start();
  std::uint16_t port() const;

  // Stops accepting, closes idle keep-alive connections, lets requests being read or
  // handled finish (their responses say `Connection: close`), waits up to
  // `shutdown_grace` for that, then stops the io threads. Idempotent.
  void shutdown();

  struct Impl;  // public only so that the connection class in the .cpp can name it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::net
