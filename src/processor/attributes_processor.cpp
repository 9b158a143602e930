#include "processor/attributes_processor.h"

#include <algorithm>

namespace tern::processor {

using Action = config::AttributesProcessorConfig::Action;

void AttributesProcessor::apply(pdata::Attributes& attrs, const pdata::Arena& arena) const {
  for (const auto& a : config_.actions) {
    auto it =
        std::find_if(attrs.begin(), attrs.end(), [&](const pdata::KeyValue& kv) { return kv.key == a.key; });
    const bool present = it != attrs.end();
    switch (a.action) {
      case Action::kDelete:
        if (present) attrs.erase(it);
        break;
      case Action::kInsert:
        if (!present) attrs.push_back({arena.copy(a.key), pdata::AnyValue::string(arena.copy(a.value))});
        break;
      case Action::kUpdate:
        if (present) it->value = pdata::AnyValue::string(arena.copy(a.value));
        break;
      case Action::kUpsert:
        if (present)
          it->value = pdata::AnyValue::string(arena.copy(a.value));
        else
          attrs.push_back({arena.copy(a.key), pdata::AnyValue::string(arena.copy(a.value))});
        break;
    }
  }
}

pipeline::ConsumeResult AttributesProcessor::process(pdata::LogsData& batch) {
  for (auto& rl : batch.resource_logs) {
    if (target_ == Target::kResource) {
      apply(rl.resource.attributes, batch.arena);
      continue;
    }
    for (auto& sl : rl.scope_logs)
      for (auto& lr : sl.log_records) apply(lr.attributes, batch.arena);
  }
  return pipeline::ConsumeResult::ok();
}

pipeline::ConsumeResult AttributesProcessor::process(pdata::TracesData& batch) {
  for (auto& rs : batch.resource_spans) {
    if (target_ == Target::kResource) {
      apply(rs.resource.attributes, batch.arena);
      continue;
    }
    for (auto& ss : rs.scope_spans)
      for (auto& span : ss.spans) apply(span.attributes, batch.arena);
  }
  return pipeline::ConsumeResult::ok();
}

pipeline::ConsumeResult AttributesProcessor::process(pdata::MetricsData& batch) {
  for (auto& rm : batch.resource_metrics) {
    if (target_ == Target::kResource) {
      apply(rm.resource.attributes, batch.arena);
      continue;
    }
    for (auto& sm : rm.scope_metrics)
      for (auto& m : sm.metrics) {
        for (auto& p : m.number_points) apply(p.attributes, batch.arena);
        for (auto& p : m.histogram_points) apply(p.attributes, batch.arena);
        for (auto& p : m.exponential_histogram_points) apply(p.attributes, batch.arena);
        for (auto& p : m.summary_points) apply(p.attributes, batch.arena);
      }
  }
  return pipeline::ConsumeResult::ok();
}

}  // namespace tern::processor
