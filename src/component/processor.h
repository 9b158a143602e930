#pragma once
// A processor works on a decoded batch in place, on the receiver's thread, before the
// batch reaches the exporters' queues. It may refuse a batch (back-pressure).
#include <optional>
#include <string>
#include <vector>
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

#include "component/consumer.h"
#include "component/exporter.h"
#include "component/metrics.h"

namespace tern::component {

class Processor {
 public:
  virtual ~Processor() = default;
  virtual ConsumeResult process(pdata::LogsData& batch) = 0;
  virtual ConsumeResult process(pdata::TracesData& batch) = 0;
  virtual ConsumeResult process(pdata::MetricsData& batch) = 0;
  // True when it changes batches (a batch shared by several pipelines is then copied).
  virtual bool mutates() const = 0;
  // The batching it asks of the pipeline's exporters (the `batch` processor: Tern batches in
  // the exporters' queues). A processor that returns one is not run on batches.
  virtual std::optional<BatchSettings> batching() const { return std::nullopt; }
  // Its self-metrics, labelled with `id` (the service sums samples of one series: a
  // processor in several pipelines may be one instance per pipeline).
  virtual void collect_metrics(const std::string& id, std::vector<MetricSample>& out) const {}
};

}  // namespace tern::component
