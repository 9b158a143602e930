#pragma once
// OTLP/gRPC: a generic (byte-buffer) grpc++ service feeding Tern's own protobuf decoder.
// Only grpc_server.cpp includes the grpc++ headers (they are heavy to compile).
#include <chrono>
#include <cstdint>
#include <memory>

#include "receiver/otlp/config.h"
#include "receiver/otlp/export_core.h"

namespace tern::receiver::otlp {

class OtlpGrpcServer {
 public:
  OtlpGrpcServer(const receiver::otlp::OtlpReceiverConfig::Grpc& config, ExportCore& core, unsigned threads,
                 std::chrono::milliseconds shutdown_grace);
  ~OtlpGrpcServer();  // shutdown()
  OtlpGrpcServer(const OtlpGrpcServer&) = delete;
  OtlpGrpcServer& operator=(const OtlpGrpcServer&) = delete;

  // Binds and starts serving (TLS when config.tls.cert_file is set, mutual TLS with
  // config.tls.client_ca_file); throws std::runtime_error when the endpoint cannot be bound
  // or a TLS file cannot be read ("tls.<key> FILE: reason").
  std::uint16_t start();
  std::uint16_t port() const;
  // Stops accepting calls, lets calls in progress finish (up to the grace period, then
  // they are cancelled), and joins the threads. Idempotent.
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::receiver::otlp
