#pragma once
// `attributes` (record-level: log records, spans, metric data points) and `resource`
// processors: insert (only if absent), update (only if present), upsert — a value typed as
// YAML wrote it, or another attribute's (from_attribute) — delete (a key, or keys a pattern
// matches) and convert (to int, double or string).
#include <memory>
#include <vector>

#include "component/processor.h"
#include "processor/attributes/config.h"

namespace re2 {
class RE2;
}

namespace tern::processor {

class AttributesProcessor final : public component::Processor {
 public:
  enum class Target { kRecords, kResource };
  // Throws std::invalid_argument for a pattern that does not compile (the loader reports it first).
  AttributesProcessor(processor::AttributesProcessorConfig config, Target target);
  ~AttributesProcessor() override;

  component::ConsumeResult process(pdata::LogsData& batch) override;
  component::ConsumeResult process(pdata::TracesData& batch) override;
  component::ConsumeResult process(pdata::MetricsData& batch) override;
  bool mutates() const override { return true; }

  // Applies every action to one attribute map (exposed for tests).
  void apply(pdata::Attributes& attrs, const pdata::Arena& arena) const;

 private:
  processor::AttributesProcessorConfig config_;
  Target target_;
  std::vector<std::unique_ptr<re2::RE2>> patterns_;  // per action; null without a pattern
};

}  // namespace tern::processor
