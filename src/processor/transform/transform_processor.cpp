#include "processor/transform/transform_processor.h"

#include <algorithm>
#include <stdexcept>

namespace tern::processor {
namespace {

ottl::Context context_named(const std::string& name) {
  static constexpr std::pair<std::string_view, ottl::Context> kNames[] = {
      {"log", ottl::Context::kLog},
      {"span", ottl::Context::kSpan},
      {"spanevent", ottl::Context::kSpanEvent},
      {"metric", ottl::Context::kMetric},
      {"datapoint", ottl::Context::kDataPoint},
      {"resource", ottl::Context::kResource},
      {"scope", ottl::Context::kScope}};
  for (const auto& [n, c] : kNames)
    if (n == name) return c;
  throw std::invalid_argument("transform: unknown context \"" + name + "\"");
}

}  // namespace

void TransformProcessor::Group::run(const ottl::MutableItem& item, const pdata::Arena& arena) const {
  if (!conditions.empty()) {
    const ottl::Item view = item.view();
    if (std::none_of(conditions.begin(), conditions.end(), [&](const auto& c) { return c.matches(view); }))
      return;
  }
  for (const auto& s : statements) s.execute(item, arena);
}

TransformProcessor::TransformProcessor(const processor::TransformProcessorConfig& c) {
  for (auto [from, to] : {std::pair{&c.log_statements, &logs_}, std::pair{&c.trace_statements, &traces_},
                          std::pair{&c.metric_statements, &metrics_}}) {
    for (const auto& g : *from) {
      Group out;
      out.context = context_named(g.context);
      std::string error;
      for (const auto& text : g.conditions) {
        auto cond = ottl::Condition::parse(text, out.context, error);
        if (!cond) throw std::invalid_argument("transform condition \"" + text + "\": " + error);
        out.conditions.push_back(std::move(*cond));
      }
      for (const auto& text : g.statements) {
        auto st = ottl::Statement::parse(text, out.context, error);
        if (!st) throw std::invalid_argument("transform statement \"" + text + "\": " + error);
        out.statements.push_back(std::move(*st));
      }
      to->push_back(std::move(out));
    }
  }
}

component::ConsumeResult TransformProcessor::process(pdata::LogsData& batch) {
  const auto& a = batch.arena;
  for (const auto& g : logs_) {
    for (auto& rl : batch.resource_logs) {
      ottl::MutableItem it;
      it.resource = &rl.resource;
      if (g.context == ottl::Context::kResource) {
        g.run(it, a);
        continue;
      }
      for (auto& sl : rl.scope_logs) {
        it.scope = &sl.scope;
        if (g.context == ottl::Context::kScope) {
          g.run(it, a);
          continue;
        }
        for (auto& r : sl.log_records) {
          it.log = &r;
          g.run(it, a);
        }
      }
    }
  }
  return component::ConsumeResult::ok();
}

component::ConsumeResult TransformProcessor::process(pdata::TracesData& batch) {
  const auto& a = batch.arena;
  for (const auto& g : traces_) {
    for (auto& rs : batch.resource_spans) {
      ottl::MutableItem it;
      it.resource = &rs.resource;
      if (g.context == ottl::Context::kResource) {
        g.run(it, a);
        continue;
      }
      for (auto& ss : rs.scope_spans) {
        it.scope = &ss.scope;
        if (g.context == ottl::Context::kScope) {
          g.run(it, a);
          continue;
        }
        for (auto& s : ss.spans) {
          it.span = &s;
          it.event = nullptr;
          if (g.context == ottl::Context::kSpan) {
            g.run(it, a);
            continue;
          }
          for (auto& e : s.events) {
            it.event = &e;
            g.run(it, a);
          }
        }
      }
    }
  }
  return component::ConsumeResult::ok();
}

component::ConsumeResult TransformProcessor::process(pdata::MetricsData& batch) {
  const auto& a = batch.arena;
  for (const auto& g : metrics_) {
    for (auto& rm : batch.resource_metrics) {
      ottl::MutableItem it;
      it.resource = &rm.resource;
      if (g.context == ottl::Context::kResource) {
        g.run(it, a);
        continue;
      }
      for (auto& sm : rm.scope_metrics) {
        it.scope = &sm.scope;
        if (g.context == ottl::Context::kScope) {
          g.run(it, a);
          continue;
        }
        for (auto& m : sm.metrics) {
          it.metric = &m;
          if (g.context == ottl::Context::kMetric) {
            g.run(it, a);
            continue;
          }
          const auto points = [&](auto& v) {
            for (auto& p : v) {
              it.point_attributes = &p.attributes;
              it.point_start_time = p.start_time_unix_nano;
              it.point_time = p.time_unix_nano;
              g.run(it, a);
            }
          };
          points(m.number_points);
          points(m.histogram_points);
          points(m.exponential_histogram_points);
          points(m.summary_points);
        }
      }
    }
  }
  return component::ConsumeResult::ok();
}

}  // namespace tern::processor
