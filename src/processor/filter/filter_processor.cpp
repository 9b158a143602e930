#include "processor/filter/filter_processor.h"

#include <algorithm>
#include <stdexcept>

namespace tern::processor {
namespace {

std::vector<ottl::Condition> compile(const std::vector<std::string>& texts, ottl::Context context) {
  std::vector<ottl::Condition> out;
  for (const auto& t : texts) {
    std::string error;
    auto c = ottl::Condition::parse(t, context, error);
    if (!c) throw std::invalid_argument("filter condition \"" + t + "\": " + error);
    out.push_back(std::move(*c));
  }
  return out;
}

bool any_match(const std::vector<ottl::Condition>& conditions, const ottl::Item& item) {
  return std::any_of(conditions.begin(), conditions.end(), [&](const auto& c) { return c.matches(item); });
}

// Erases the elements `drop` says yes to; returns how many went.
template <class V, class Pred>
std::size_t erase_where(V& v, Pred drop) {
  const auto end = std::remove_if(v.begin(), v.end(), drop);
  const auto n = static_cast<std::size_t>(v.end() - end);
  v.erase(end, v.end());
  return n;
}

}  // namespace

FilterProcessor::FilterProcessor(const processor::FilterProcessorConfig& c)
    : log_record_(compile(c.log_record, ottl::Context::kLog)),
      span_(compile(c.span, ottl::Context::kSpan)),
      spanevent_(compile(c.spanevent, ottl::Context::kSpanEvent)),
      metric_(compile(c.metric, ottl::Context::kMetric)),
      datapoint_(compile(c.datapoint, ottl::Context::kDataPoint)) {}

component::ConsumeResult FilterProcessor::process(pdata::LogsData& batch) {
  if (log_record_.empty()) return component::ConsumeResult::ok();
  std::size_t dropped = 0;
  for (auto& rl : batch.resource_logs) {
    for (auto& sl : rl.scope_logs) {
      ottl::Item item;
      item.resource = &rl.resource;
      item.scope = &sl.scope;
      dropped += erase_where(sl.log_records, [&](const pdata::LogRecord& r) {
        item.log = &r;
        return any_match(log_record_, item);
      });
    }
    erase_where(rl.scope_logs, [](const pdata::ScopeLogs& sl) { return sl.log_records.empty(); });
  }
  erase_where(batch.resource_logs, [](const pdata::ResourceLogs& rl) { return rl.scope_logs.empty(); });
  dropped_[static_cast<std::size_t>(pdata::Signal::Logs)] += dropped;
  return component::ConsumeResult::ok();
}

component::ConsumeResult FilterProcessor::process(pdata::TracesData& batch) {
  if (span_.empty() && spanevent_.empty()) return component::ConsumeResult::ok();
  std::size_t dropped = 0;
  for (auto& rs : batch.resource_spans) {
    for (auto& ss : rs.scope_spans) {
      ottl::Item item;
      item.resource = &rs.resource;
      item.scope = &ss.scope;
      dropped += erase_where(ss.spans, [&](const pdata::Span& s) {
        item.span = &s;
        item.event = nullptr;
        return !span_.empty() && any_match(span_, item);
      });
      if (spanevent_.empty()) continue;
      for (auto& s : ss.spans) {
        item.span = &s;
        dropped += erase_where(s.events, [&](const pdata::SpanEvent& e) {
          item.event = &e;
          return any_match(spanevent_, item);
        });
      }
    }
    erase_where(rs.scope_spans, [](const pdata::ScopeSpans& ss) { return ss.spans.empty(); });
  }
  erase_where(batch.resource_spans, [](const pdata::ResourceSpans& rs) { return rs.scope_spans.empty(); });
  dropped_[static_cast<std::size_t>(pdata::Signal::Traces)] += dropped;
  return component::ConsumeResult::ok();
}

component::ConsumeResult FilterProcessor::process(pdata::MetricsData& batch) {
  if (metric_.empty() && datapoint_.empty()) return component::ConsumeResult::ok();
  std::size_t dropped = 0;  // data points, as the pipeline counts metrics
  const auto point_count = [](const pdata::Metric& m) {
    return m.number_points.size() + m.histogram_points.size() + m.exponential_histogram_points.size() +
           m.summary_points.size();
  };
  for (auto& rm : batch.resource_metrics) {
    for (auto& sm : rm.scope_metrics) {
      ottl::Item item;
      item.resource = &rm.resource;
      item.scope = &sm.scope;
      // Compacted by hand: deciding a metric filters its points, which a remove_if
      // predicate must not do.
      auto& metrics = sm.metrics;
      std::size_t kept = 0;
      for (std::size_t i = 0; i < metrics.size(); ++i) {
        pdata::Metric& m = metrics[i];
        item.metric = &m;
        const std::size_t before = point_count(m);
        bool keep = true;
        if (!metric_.empty() && any_match(metric_, item)) {
          dropped += before;
          keep = false;
        } else if (!datapoint_.empty() && before) {
          const auto filter = [&](auto& points) {
            dropped += erase_where(points, [&](const auto& p) {
              item.point_attributes = &p.attributes;
              item.point_start_time = p.start_time_unix_nano;
              item.point_time = p.time_unix_nano;
              return any_match(datapoint_, item);
            });
          };
          filter(m.number_points);
          filter(m.histogram_points);
          filter(m.exponential_histogram_points);
          filter(m.summary_points);
          keep = point_count(m) != 0;  // a metric whose points all went goes too
        }
        if (!keep) continue;
        if (kept != i) metrics[kept] = std::move(m);
        ++kept;
      }
      metrics.erase(metrics.begin() + static_cast<std::ptrdiff_t>(kept), metrics.end());
    }
    erase_where(rm.scope_metrics, [](const pdata::ScopeMetrics& sm) { return sm.metrics.empty(); });
  }
  erase_where(batch.resource_metrics,
              [](const pdata::ResourceMetrics& rm) { return rm.scope_metrics.empty(); });
  dropped_[static_cast<std::size_t>(pdata::Signal::Metrics)] += dropped;
  return component::ConsumeResult::ok();
}

}  // namespace tern::processor
