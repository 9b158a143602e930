#pragma once
// A receiver: takes telemetry in (from the network, from files) and hands it to the
// Consumer its factory was given. Built by its factory (component/factory.h).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "component/metrics.h"

namespace tern::component {

class Receiver {
 public:
  virtual ~Receiver() = default;
  // Binds / opens what it needs and starts; throws with a reason when it cannot, with
  // nothing left running.
  virtual void start() = 0;
  // Stops taking data; the consumer is not called any more once this returns. Idempotent.
  virtual void shutdown() = 0;
  virtual void collect_metrics(std::vector<MetricSample>& out) const {}
  // The port a protocol ("http", "grpc") is bound to, 0 when it has none (for logs and tests).
  virtual std::uint16_t port(std::string_view protocol) const { return 0; }
};

}  // namespace tern::component
