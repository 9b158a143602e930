#include "receiver/otlp/otlp_receiver.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "net/http_server.h"
#include "receiver/otlp/export_core.h"
#include "receiver/otlp/grpc_server.h"
#include "receiver/otlp/http_handler.h"

namespace tern::receiver::otlp {

namespace {
// For the "listening" lines (before "listening on", which scripts parse up to the port).
const char* tls_note(const config::TlsServerConfig& tls) {
  if (tls.cert_file.empty()) return "";
  return tls.client_ca_file.empty() ? " (TLS)" : " (mTLS)";
}

// Runs a server's start(). A TLS file that cannot be loaded comes as a std::runtime_error
// "tls.<key> FILE: reason"; it goes on naming the whole key ("protocols.http.tls.cert_file").
template <class Start>
void start_protocol(std::string_view protocol, Start&& start) {
  try {
    start();
  } catch (const std::system_error&) {
    throw;
  } catch (const std::runtime_error& e) {
    if (!std::string_view(e.what()).starts_with("tls.")) throw;
    throw std::runtime_error("otlp receiver: protocols." + std::string(protocol) + "." + e.what());
  }
}
}  // namespace

struct OtlpReceiver::Impl {
  Impl(const receiver::otlp::OtlpReceiverConfig& c, component::Consumer& consumer, OtlpReceiverOptions o)
      : config(c), options(o), core(consumer, counters) {}

  receiver::otlp::OtlpReceiverConfig config;
  OtlpReceiverOptions options;
  OtlpReceiverCounters counters;
  ExportCore core;
  std::optional<OtlpHttpHandler> http_handler;
  std::unique_ptr<net::HttpServer> http;
  std::unique_ptr<OtlpGrpcServer> grpc;
};

OtlpReceiver::OtlpReceiver(const receiver::otlp::OtlpReceiverConfig& config, component::Consumer& consumer,
                           OtlpReceiverOptions options)
    : impl_(std::make_unique<Impl>(config, consumer, options)) {}

OtlpReceiver::~OtlpReceiver() { shutdown(); }

void OtlpReceiver::start() {
  auto& im = *impl_;
  try {
    if (im.config.http.enabled) {
      auto [host, port] = net::split_host_port(im.config.http.endpoint);
      net::HttpServerOptions o;
      o.host = host;
      o.port = port;
      o.threads = im.options.http_threads;
      o.body_limit = im.config.http.max_request_body_size;
      o.shutdown_grace = im.options.shutdown_grace;
      o.tls = im.config.http.tls;
      im.http_handler.emplace(im.config.http, im.core);
      im.http = std::make_unique<net::HttpServer>(
          o, [h = &*im.http_handler](net::HttpRequest& r) { return h->handle(r); });
      start_protocol("http", [&] { im.http->start(); });
      spdlog::info("otlp receiver: OTLP/HTTP{} listening on {}", tls_note(im.config.http.tls),
                   net::join_host_port(host, im.http->port()));
    }
    if (im.config.grpc.enabled) {
      im.grpc = std::make_unique<OtlpGrpcServer>(im.config.grpc, im.core, im.options.grpc_threads,
                                                 im.options.shutdown_grace);
      start_protocol("grpc", [&] { im.grpc->start(); });
      spdlog::info("otlp receiver: OTLP/gRPC{} listening on port {}", tls_note(im.config.grpc.tls),
                   im.grpc->port());
    }
  } catch (...) {
    shutdown();
    throw;
  }
}

std::uint16_t OtlpReceiver::http_port() const { return impl_->http ? impl_->http->port() : 0; }
std::uint16_t OtlpReceiver::grpc_port() const { return impl_->grpc ? impl_->grpc->port() : 0; }

void OtlpReceiver::shutdown() {
  auto& im = *impl_;
  // Each server waits for its own requests in flight (bounded by shutdown_grace).
  if (im.http) im.http->shutdown();
  if (im.grpc) im.grpc->shutdown();
}

OtlpReceiverStats OtlpReceiver::stats() const { return impl_->counters.snapshot(); }

}  // namespace tern::receiver::otlp
