#pragma once
// The OTLP receiver: OTLP/HTTP (protobuf and JSON) and OTLP/gRPC for logs, traces and
// metrics, feeding one component::Consumer. See docs/receivers.md.
//
// A client is answered after Consumer::consume_* returns: success only for data that is
// queued, back-pressure as 429 / RESOURCE_EXHAUSTED with a retry delay.
#include <chrono>
#include <cstdint>
#include <memory>

#include "component/consumer.h"
#include "receiver/otlp/config.h"
#include "receiver/otlp/stats.h"

namespace tern::receiver::otlp {

struct OtlpReceiverOptions {
  unsigned http_threads = 0;  // 0: one per core (the decoder and consumer run on these threads)
  unsigned grpc_threads = 0;  // 0: one per core
  std::chrono::milliseconds shutdown_grace{10'000};  // per protocol, for requests in flight
};

class OtlpReceiver {
 public:
  // Serves the protocols whose `enabled` is set (the config loader sets it when
  // `protocols.http` / `protocols.grpc` is present).
  OtlpReceiver(const receiver::otlp::OtlpReceiverConfig& config, component::Consumer& consumer,
               OtlpReceiverOptions options = {});
  ~OtlpReceiver();  // shutdown()
  OtlpReceiver(const OtlpReceiver&) = delete;
  OtlpReceiver& operator=(const OtlpReceiver&) = delete;

  // Binds and starts serving. Throws (std::system_error, std::runtime_error or
  // std::invalid_argument for a bad endpoint) when an endpoint cannot be bound, and
  // std::runtime_error "otlp receiver: protocols.<http|grpc>.tls.<key> FILE: reason" when
  // a TLS file cannot be loaded; nothing is left running then.
  void start();
  // The bound ports (an endpoint with port 0 binds an ephemeral one); 0 when disabled.
  std::uint16_t http_port() const;
  std::uint16_t grpc_port() const;
  // Stops accepting, finishes in-flight requests (up to shutdown_grace), stops the
  // threads. Idempotent; the consumer is not called any more once this returns.
  void shutdown();

  OtlpReceiverStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::receiver::otlp
