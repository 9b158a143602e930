#pragma once
// `transform`: runs OTTL statements (ottl/statement.h) on the items of a batch, in place:
// each group on the items of its context (log records, spans, span events, metrics, data
// points, resources or scopes), only those any of its conditions match when it has some,
// statements in order (the Collector's transform processor).
#include <vector>

#include "component/processor.h"
#include "ottl/statement.h"
#include "processor/transform/config.h"

namespace tern::processor {

class TransformProcessor final : public component::Processor {
 public:
  // Throws std::invalid_argument for a statement or condition that does not parse (the
  // loader reports those first, with their position).
  explicit TransformProcessor(const processor::TransformProcessorConfig& c);

  component::ConsumeResult process(pdata::LogsData& batch) override;
  component::ConsumeResult process(pdata::TracesData& batch) override;
  component::ConsumeResult process(pdata::MetricsData& batch) override;
  bool mutates() const override { return true; }

 private:
  struct Group {
    ottl::Context context;
    std::vector<ottl::Condition> conditions;
    std::vector<ottl::Statement> statements;
    void run(const ottl::MutableItem& item, const pdata::Arena& arena) const;
  };
  std::vector<Group> logs_, traces_, metrics_;
};

}  // namespace tern::processor
