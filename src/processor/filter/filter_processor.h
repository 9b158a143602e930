#pragma once
// `filter`: drops log records, spans, span events, metrics and data points that any of its
// OTTL conditions match (the Collector's filter processor). A span that is dropped takes its
// events with it; a metric whose data points are all dropped is dropped; resources and
// scopes left empty are removed.
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "component/processor.h"
#include "ottl/condition.h"
#include "pdata/signal.h"
#include "processor/filter/config.h"

namespace tern::processor {

class FilterProcessor final : public component::Processor {
 public:
  // Throws std::invalid_argument for a condition that does not parse (the loader reports
  // those first, with their position).
  explicit FilterProcessor(const processor::FilterProcessorConfig& c);

  component::ConsumeResult process(pdata::LogsData& batch) override;
  component::ConsumeResult process(pdata::TracesData& batch) override;
  component::ConsumeResult process(pdata::MetricsData& batch) override;
  bool mutates() const override { return true; }

  // Items dropped so far, by signal (log records; spans and span events; metrics' data points).
  std::uint64_t dropped(pdata::Signal s) const { return dropped_[static_cast<std::size_t>(s)].load(); }
  void collect_metrics(const std::string& id, std::vector<component::MetricSample>& out) const override {
    for (const auto s : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics})
      out.push_back({"tern_processor_filter_dropped_items_total",
                     "processor=\"" + component::escape_label(id) + "\",signal=\"" +
                         std::string(pdata::to_string(s)) + "\"",
                     static_cast<double>(dropped(s)), "Items the filter processor's conditions dropped",
                     true});
  }

 private:
  std::vector<ottl::Condition> log_record_, span_, spanevent_, metric_, datapoint_;
  std::array<std::atomic<std::uint64_t>, 3> dropped_{};
};

}  // namespace tern::processor
