#pragma once
// An extension: a service beside the pipelines (health check, storage). Built by its
// factory (component/factory.h) with the Host it may ask about the collector.
#include <cstdint>

namespace tern::component {

// What an extension may ask of the collector that runs it.
class Host {
 public:
  virtual ~Host() = default;
  // Started, not stopping, and every exporter able to deliver.
  virtual bool healthy() const = 0;
};

class Extension {
 public:
  virtual ~Extension() = default;
  // Started before the receivers, stopped after the exporters drained. start() throws with a
  // reason when it cannot start.
  virtual void start() {}
  virtual void shutdown() {}
  // The port it serves on, 0 when none (for logs and tests).
  virtual std::uint16_t port() const { return 0; }
};

}  // namespace tern::component
