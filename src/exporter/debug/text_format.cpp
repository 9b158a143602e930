#include "exporter/debug/text_format.h"

#include <fmt/format.h>

#include <ctime>

#include "pdata/value_text.h"

namespace tern::exporter::debug {
namespace {

using pdata::AnyValue;
using pdata::Attributes;
using pdata::ValueKind;

// A value as pcommon's Type().String() + "(" + AsString() + ")".
std::string typed(const AnyValue& v) {
  static constexpr const char* kNames[] = {"Empty", "Str", "Bool", "Int", "Double", "Bytes", "Slice", "Map"};
  return fmt::format("{}({})", kNames[static_cast<int>(v.kind)], pdata::pcommon_as_string(v));
}

template <std::size_t N>
std::string hex(const std::array<std::uint8_t, N>& id) {
  if (pdata::is_zero(id)) return "";
  std::string out;
  for (auto b : id) out += fmt::format("{:02x}", b);
  return out;
}

// Go's time.Time.String() in UTC: "2006-01-02 15:04:05.999999999 +0000 UTC".
std::string timestamp(std::uint64_t unix_nano) {
  const std::time_t secs = static_cast<std::time_t>(unix_nano / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (const std::uint64_t ns = unix_nano % 1'000'000'000) {
    std::string frac = fmt::format("{:09}", ns);
    frac.erase(frac.find_last_not_of('0') + 1);
    out += "." + frac;
  }
  return out + " +0000 UTC";
}

void attributes(std::string& out, const char* title, const Attributes& attrs, const char* indent = "") {
  if (attrs.empty()) return;
  out += fmt::format("{}{}:\n", indent, title);
  for (const auto& kv : attrs) out += fmt::format("{}     -> {}: {}\n", indent, kv.key, typed(kv.value));
}

void resource(std::string& out, const char* what, std::size_t i, pdata::Str schema_url,
              const pdata::Resource& r) {
  out += fmt::format("{} #{}\nResource SchemaURL: {}\n", what, i, schema_url);
  attributes(out, "Resource attributes", r.attributes);
}

void scope(std::string& out, const char* what, std::size_t i, pdata::Str schema_url,
           const pdata::InstrumentationScope& s) {
  out += fmt::format("{} #{}\n{} SchemaURL: {}\nInstrumentationScope {} {}\n", what, i, what, schema_url,
                     s.name, s.version);
  attributes(out, "InstrumentationScope attributes", s.attributes);
}

// " k=v k=v": the normal layout's attributes.
std::string flat(const Attributes& attrs, const char* sep = " ") {
  std::string out;
  for (const auto& kv : attrs)
    out += fmt::format("{}{}={}", out.empty() ? "" : sep, kv.key, pdata::pcommon_as_string(kv.value));
  return out;
}

std::string severity_name(std::int32_t n) {
  static constexpr const char* kBase[] = {"Trace", "Debug", "Info", "Warn", "Error", "Fatal"};
  if (n <= 0 || n > 24) return fmt::format("Unspecified({})", n);
  const int level = (n - 1) / 4, step = (n - 1) % 4;
  return step == 0 ? fmt::format("{}({})", kBase[level], n)
                   : fmt::format("{}{}({})", kBase[level], step + 1, n);
}

const char* kind_name(pdata::SpanKind k) {
  switch (k) {
    case pdata::SpanKind::Internal:
      return "Internal";
    case pdata::SpanKind::Server:
      return "Server";
    case pdata::SpanKind::Client:
      return "Client";
    case pdata::SpanKind::Producer:
      return "Producer";
    case pdata::SpanKind::Consumer:
      return "Consumer";
    default:
      return "Unspecified";
  }
}

const char* status_name(pdata::StatusCode c) {
  return c == pdata::StatusCode::Ok ? "Ok" : c == pdata::StatusCode::Error ? "Error" : "Unset";
}

const char* temporality_name(pdata::AggregationTemporality t) {
  return t == pdata::AggregationTemporality::Delta        ? "Delta"
         : t == pdata::AggregationTemporality::Cumulative ? "Cumulative"
                                                          : "Unspecified";
}

const char* type_name(pdata::MetricType t) {
  switch (t) {
    case pdata::MetricType::Gauge:
      return "Gauge";
    case pdata::MetricType::Sum:
      return "Sum";
    case pdata::MetricType::Histogram:
      return "Histogram";
    case pdata::MetricType::ExponentialHistogram:
      return "ExponentialHistogram";
    case pdata::MetricType::Summary:
      return "Summary";
    default:
      return "Empty";
  }
}

std::string number(const pdata::NumberDataPoint& p) {
  return p.value_type == pdata::NumberType::Int ? fmt::format("{}", p.as_int)
                                                : fmt::format("{:f}", p.as_double);
}

void points(std::string& out, const pdata::Metric& m) {
  const auto times = [&](std::uint64_t start, std::uint64_t t) {
    out += fmt::format("StartTimestamp: {}\nTimestamp: {}\n", timestamp(start), timestamp(t));
  };
  for (std::size_t i = 0; i < m.number_points.size(); ++i) {
    const auto& p = m.number_points[i];
    out += fmt::format("NumberDataPoints #{}\n", i);
    attributes(out, "Data point attributes", p.attributes);
    times(p.start_time_unix_nano, p.time_unix_nano);
    out += fmt::format("Value: {}\n", number(p));
  }
  for (std::size_t i = 0; i < m.histogram_points.size(); ++i) {
    const auto& p = m.histogram_points[i];
    out += fmt::format("HistogramDataPoints #{}\n", i);
    attributes(out, "Data point attributes", p.attributes);
    times(p.start_time_unix_nano, p.time_unix_nano);
    out += fmt::format("Count: {}\n", p.count);
    if (p.has_sum) out += fmt::format("Sum: {:f}\n", p.sum);
    if (p.has_min) out += fmt::format("Min: {:f}\n", p.min);
    if (p.has_max) out += fmt::format("Max: {:f}\n", p.max);
    for (std::size_t b = 0; b < p.explicit_bounds.size(); ++b)
      out += fmt::format("ExplicitBounds #{}: {:f}\n", b, p.explicit_bounds[b]);
    for (std::size_t b = 0; b < p.bucket_counts.size(); ++b)
      out += fmt::format("Buckets #{}, Count: {}\n", b, p.bucket_counts[b]);
  }
  for (std::size_t i = 0; i < m.exponential_histogram_points.size(); ++i) {
    const auto& p = m.exponential_histogram_points[i];
    out += fmt::format("ExponentialHistogramDataPoints #{}\n", i);
    attributes(out, "Data point attributes", p.attributes);
    times(p.start_time_unix_nano, p.time_unix_nano);
    out += fmt::format("Count: {}\n", p.count);
    if (p.has_sum) out += fmt::format("Sum: {:f}\n", p.sum);
    if (p.has_min) out += fmt::format("Min: {:f}\n", p.min);
    if (p.has_max) out += fmt::format("Max: {:f}\n", p.max);
    out += fmt::format("Scale: {}\nZeroCount: {}\n", p.scale, p.zero_count);
    for (std::size_t b = 0; b < p.positive.bucket_counts.size(); ++b)
      out += fmt::format("Positive Bucket #{} (offset {}), Count: {}\n", b, p.positive.offset,
                         p.positive.bucket_counts[b]);
    for (std::size_t b = 0; b < p.negative.bucket_counts.size(); ++b)
      out += fmt::format("Negative Bucket #{} (offset {}), Count: {}\n", b, p.negative.offset,
                         p.negative.bucket_counts[b]);
  }
  for (std::size_t i = 0; i < m.summary_points.size(); ++i) {
    const auto& p = m.summary_points[i];
    out += fmt::format("SummaryDataPoints #{}\n", i);
    attributes(out, "Data point attributes", p.attributes);
    times(p.start_time_unix_nano, p.time_unix_nano);
    out += fmt::format("Count: {}\nSum: {:f}\n", p.count, p.sum);
    for (std::size_t q = 0; q < p.quantile_values.size(); ++q)
      out += fmt::format("QuantileValue #{}: Quantile {:f}, Value {:f}\n", q, p.quantile_values[q].quantile,
                         p.quantile_values[q].value);
  }
}

}  // namespace

std::string summary(const pdata::LogsData& d, const std::string& name) {
  return fmt::format(
      R"(Logs {{"kind": "exporter", "data_type": "logs", "name": "{}", "resource logs": {}, "log records": {}}})",
      name, d.resource_logs.size(), d.record_count());
}

std::string summary(const pdata::TracesData& d, const std::string& name) {
  return fmt::format(
      R"(Traces {{"kind": "exporter", "data_type": "traces", "name": "{}", "resource spans": {}, "spans": {}}})",
      name, d.resource_spans.size(), d.span_count());
}

std::string summary(const pdata::MetricsData& d, const std::string& name) {
  std::size_t metrics = 0;
  for (const auto& rm : d.resource_metrics)
    for (const auto& sm : rm.scope_metrics) metrics += sm.metrics.size();
  return fmt::format(
      R"(Metrics {{"kind": "exporter", "data_type": "metrics", "name": "{}", "resource metrics": {}, "metrics": {}, "data points": {}}})",
      name, d.resource_metrics.size(), metrics, d.data_point_count());
}

std::string normal(const pdata::LogsData& d) {
  std::string out;
  for (const auto& rl : d.resource_logs)
    for (const auto& sl : rl.scope_logs)
      for (const auto& lr : sl.log_records) {
        out += pdata::pcommon_as_string(lr.body);
        if (!lr.attributes.empty()) out.append(1, ' ').append(flat(lr.attributes));
        out += '\n';
      }
  return out;
}

std::string normal(const pdata::TracesData& d) {
  std::string out;
  for (const auto& rs : d.resource_spans)
    for (const auto& ss : rs.scope_spans)
      for (const auto& s : ss.spans) {
        out += fmt::format("{} {} {}", s.name, hex(s.trace_id), hex(s.span_id));
        if (!s.attributes.empty()) out.append(1, ' ').append(flat(s.attributes));
        out += '\n';
      }
  return out;
}

std::string normal(const pdata::MetricsData& d) {
  std::string out;
  const auto line = [&](const pdata::Metric& m, const Attributes& attrs, const std::string& value) {
    out += fmt::format("{}{{{}}} {}\n", m.name, flat(attrs, ","), value);
  };
  for (const auto& rm : d.resource_metrics)
    for (const auto& sm : rm.scope_metrics)
      for (const auto& m : sm.metrics) {
        for (const auto& p : m.number_points) line(m, p.attributes, number(p));
        for (const auto& p : m.histogram_points)
          line(m, p.attributes, fmt::format("count={} sum={:f}", p.count, p.sum));
        for (const auto& p : m.exponential_histogram_points)
          line(m, p.attributes, fmt::format("count={} sum={:f}", p.count, p.sum));
        for (const auto& p : m.summary_points)
          line(m, p.attributes, fmt::format("count={} sum={:f}", p.count, p.sum));
      }
  return out;
}

std::string detailed(const pdata::LogsData& d) {
  std::string out;
  for (std::size_t i = 0; i < d.resource_logs.size(); ++i) {
    const auto& rl = d.resource_logs[i];
    resource(out, "ResourceLog", i, rl.schema_url, rl.resource);
    for (std::size_t j = 0; j < rl.scope_logs.size(); ++j) {
      const auto& sl = rl.scope_logs[j];
      scope(out, "ScopeLogs", j, sl.schema_url, sl.scope);
      for (std::size_t k = 0; k < sl.log_records.size(); ++k) {
        const auto& lr = sl.log_records[k];
        out += fmt::format(
            "LogRecord #{}\nObservedTimestamp: {}\nTimestamp: {}\nSeverityText: {}\nSeverityNumber: {}\n", k,
            timestamp(lr.observed_time_unix_nano), timestamp(lr.time_unix_nano), lr.severity_text,
            severity_name(lr.severity_number));
        if (!lr.event_name.empty()) out += fmt::format("EventName: {}\n", lr.event_name);
        out += fmt::format("Body: {}\n", typed(lr.body));
        attributes(out, "Attributes", lr.attributes);
        out += fmt::format("Trace ID: {}\nSpan ID: {}\nFlags: {}\n", hex(lr.trace_id), hex(lr.span_id),
                           lr.flags);
      }
    }
  }
  return out;
}

std::string detailed(const pdata::TracesData& d) {
  std::string out;
  for (std::size_t i = 0; i < d.resource_spans.size(); ++i) {
    const auto& rs = d.resource_spans[i];
    resource(out, "ResourceSpans", i, rs.schema_url, rs.resource);
    for (std::size_t j = 0; j < rs.scope_spans.size(); ++j) {
      const auto& ss = rs.scope_spans[j];
      scope(out, "ScopeSpans", j, ss.schema_url, ss.scope);
      for (std::size_t k = 0; k < ss.spans.size(); ++k) {
        const auto& s = ss.spans[k];
        out += fmt::format(
            "Span #{}\n    Trace ID       : {}\n    Parent ID      : {}\n    ID             : {}\n"
            "    Name           : {}\n    Kind           : {}\n    Start time     : {}\n"
            "    End time       : {}\n    Status code    : {}\n    Status message : {}\n",
            k, hex(s.trace_id), hex(s.parent_span_id), hex(s.span_id), s.name, kind_name(s.kind),
            timestamp(s.start_time_unix_nano), timestamp(s.end_time_unix_nano), status_name(s.status.code),
            s.status.message);
        attributes(out, "Attributes", s.attributes);
        if (!s.events.empty()) out += "Events:\n";
        for (std::size_t e = 0; e < s.events.size(); ++e) {
          const auto& ev = s.events[e];
          out += fmt::format(
              "SpanEvent #{}\n     -> Name: {}\n     -> Timestamp: {}\n     -> DroppedAttributesCount: {}\n",
              e, ev.name, timestamp(ev.time_unix_nano), ev.dropped_attributes_count);
          attributes(out, "     -> Attributes:", ev.attributes, "     ");
        }
        if (!s.links.empty()) out += "Links:\n";
        for (std::size_t l = 0; l < s.links.size(); ++l) {
          const auto& ln = s.links[l];
          out += fmt::format(
              "SpanLink #{}\n     -> Trace ID: {}\n     -> ID: {}\n     -> TraceState: {}\n"
              "     -> DroppedAttributesCount: {}\n",
              l, hex(ln.trace_id), hex(ln.span_id), ln.trace_state, ln.dropped_attributes_count);
          attributes(out, "     -> Attributes:", ln.attributes, "     ");
        }
      }
    }
  }
  return out;
}

std::string detailed(const pdata::MetricsData& d) {
  std::string out;
  for (std::size_t i = 0; i < d.resource_metrics.size(); ++i) {
    const auto& rm = d.resource_metrics[i];
    resource(out, "ResourceMetrics", i, rm.schema_url, rm.resource);
    for (std::size_t j = 0; j < rm.scope_metrics.size(); ++j) {
      const auto& sm = rm.scope_metrics[j];
      scope(out, "ScopeMetrics", j, sm.schema_url, sm.scope);
      for (std::size_t k = 0; k < sm.metrics.size(); ++k) {
        const auto& m = sm.metrics[k];
        out += fmt::format(
            "Metric #{}\nDescriptor:\n     -> Name: {}\n     -> Description: {}\n     -> Unit: {}\n"
            "     -> DataType: {}\n",
            k, m.name, m.description, m.unit, type_name(m.type));
        if (m.type == pdata::MetricType::Sum) out += fmt::format("     -> IsMonotonic: {}\n", m.is_monotonic);
        if (m.type == pdata::MetricType::Sum || m.type == pdata::MetricType::Histogram ||
            m.type == pdata::MetricType::ExponentialHistogram)
          out += fmt::format("     -> AggregationTemporality: {}\n", temporality_name(m.temporality));
        points(out, m);
      }
    }
  }
  return out;
}

}  // namespace tern::exporter::debug
