#pragma once
// An exporter as a pipeline sees it: a Consumer that takes batches (into its queue) plus
// a lifecycle and its metrics. Built by its factory (component/factory.h).
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "component/consumer.h"
#include "component/metrics.h"

namespace tern::component {

class Exporter : public Consumer {
 public:
  virtual void start() = 0;
  // Stops taking batches, drains what is queued within `timeout`. Idempotent.
  virtual void shutdown(std::chrono::milliseconds timeout) = 0;
  // False while the stage cannot deliver (e.g. every endpoint failing).
  virtual bool healthy() const { return true; }
  virtual void collect_metrics(std::vector<MetricSample>& out) const = 0;
};

// How queue consumers group entries before handing them to the sender (the `batch`
// processor's settings when the pipeline has one).
struct BatchSettings {
  std::uint64_t max_items = 0;  // 0: no item bound
  std::uint64_t max_bytes = 0;  // 0: the exporter's flush.bytes
  std::chrono::milliseconds timeout{0};
};

}  // namespace tern::component
