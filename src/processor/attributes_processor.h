#pragma once
// `attributes` (record-level: log records, spans, metric data points) and `resource`
// processors: insert (only if absent), update (only if present), upsert, delete. Values
// are strings, as written in the config.
#include "config/config.h"
#include "processor/processor.h"

namespace tern::processor {

class AttributesProcessor final : public Processor {
 public:
  enum class Target { kRecords, kResource };
  AttributesProcessor(config::AttributesProcessorConfig config, Target target)
      : config_(std::move(config)), target_(target) {}

  pipeline::ConsumeResult process(pdata::LogsData& batch) override;
  pipeline::ConsumeResult process(pdata::TracesData& batch) override;
  pipeline::ConsumeResult process(pdata::MetricsData& batch) override;
  bool mutates() const override { return true; }

  // Applies every action to one attribute map (exposed for tests).
  void apply(pdata::Attributes& attrs, const pdata::Arena& arena) const;

 private:
  config::AttributesProcessorConfig config_;
  Target target_;
};

}  // namespace tern::processor
