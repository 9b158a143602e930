#pragma once
// A processor works on a decoded batch in place, on the receiver's thread, before the
// batch reaches the exporters' queues. It may refuse a batch (back-pressure).
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"
#include "pipeline/consumer.h"

namespace tern::processor {

class Processor {
 public:
  virtual ~Processor() = default;
  virtual pipeline::ConsumeResult process(pdata::LogsData& batch) = 0;
  virtual pipeline::ConsumeResult process(pdata::TracesData& batch) = 0;
  virtual pipeline::ConsumeResult process(pdata::MetricsData& batch) = 0;
  // True when it changes batches (a batch shared by several pipelines is then copied).
  virtual bool mutates() const = 0;
};

}  // namespace tern::processor
