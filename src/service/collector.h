#pragma once
// The collector behind `tern run`: everything a config describes, wired together.
//
// Start order: exporters, pipelines, receivers, extensions (so nothing is accepted
// before it can be queued). Shutdown: receivers first (no new data), then exporters
// drain their queues within the shutdown timeout, then extensions.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"

namespace tern::service {

// A config that loads but cannot be run (e.g. a component this build cannot start).
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Collector {
 public:
  // Builds every component; throws BuildError for what cannot be built.
  explicit Collector(const config::Config& config);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Binds and starts; throws (std::system_error, std::runtime_error) when an endpoint
  // cannot be bound, after stopping what had started.
  void start();
  // Idempotent. Returns true when every exporter drained within the timeout.
  void shutdown(std::chrono::milliseconds timeout);

  bool healthy() const;
  // Internal metrics in the Prometheus text exposition format.
  std::string prometheus_metrics() const;

  // Bound ports, for tests and logs: receiver id -> port (0 when the protocol is off).
  std::uint16_t receiver_http_port(const std::string& id) const;
  std::uint16_t receiver_grpc_port(const std::string& id) const;
  std::uint16_t health_check_port() const;                // the first health_check extension's
  std::vector<std::uint16_t> health_check_ports() const;  // every health_check's, in service.extensions order
  std::uint16_t metrics_port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::service
