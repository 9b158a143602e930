#pragma once
// OTLP/HTTP request handling (routing, content types, gzip, CORS, status mapping) on the
// generic net::HttpServer. Free of Beast, so it is cheap to compile and easy to test.
#include <optional>
#include <string>
#include <vector>

#include "net/http_server.h"
#include "receiver/otlp/config.h"
#include "receiver/otlp/export_core.h"

namespace tern::receiver::otlp {

class OtlpHttpHandler {
 public:
  OtlpHttpHandler(const receiver::otlp::OtlpReceiverConfig::Http& config, ExportCore& core);

  // Thread-safe (called concurrently from the server's io threads).
  net::HttpResponse handle(net::HttpRequest& request);

 private:
  bool origin_allowed(std::string_view origin) const;
  bool headers_allowed(std::string_view requested) const;
  net::HttpResponse preflight(const net::HttpRequest& request) const;

  std::optional<Signal> signal_for_path(std::string_view path) const;

  std::size_t max_body_;
  std::string logs_path_, traces_path_, metrics_path_;
  std::vector<std::string> cors_origins_;
  std::vector<std::string> cors_headers_;  // lower-case
  bool cors_any_header_ = false;
  std::uint64_t cors_max_age_ = 7200;  // seconds; 0: no Access-Control-Max-Age
  ExportCore& core_;
};

}  // namespace tern::receiver::otlp
