// OTLP/JSON metrics: MetricsData, Metric, the five data point kinds and exemplars.
#include <type_traits>

#include "otlp/json_codec.h"
#include "otlp/json_decoder.h"

namespace tern::otlp::json_detail {
namespace {

// Names of oneof members, for the error when a second one is given.
const char* member_name(MetricType t) {
  switch (t) {
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Sum:
      return "sum";
    case MetricType::Histogram:
      return "histogram";
    case MetricType::ExponentialHistogram:
      return "exponential_histogram";
    case MetricType::Summary:
      return "summary";
    case MetricType::Empty:
      break;
  }
  return "?";
}
const char* member_name(NumberType t) { return t == NumberType::Int ? "as_int" : "as_double"; }

}  // namespace

bool Decoder::u64_list(od::value& v, Vec<std::uint64_t>& out) {
  return elements(v, [&](od::value& el) { return integer(el, out.emplace_back(0)); });
}

bool Decoder::double_list(od::value& v, Vec<double>& out) {
  return elements(v, [&](od::value& el) { return dbl(el, out.emplace_back(0.0)); });
}

// asDouble/asInt of NumberDataPoint and Exemplar (the oneof `value`).
bool Decoder::number_value(std::string_view k, od::value& f, NumberType& type, double& d, std::int64_t& i,
                           bool& handled) {
  handled = true;
  NumberType member;
  const char* name;
  if (key_is(k, "asDouble", "as_double"))
    member = NumberType::Double, name = "as_double";
  else if (key_is(k, "asInt", "as_int"))
    member = NumberType::Int, name = "as_int";
  else {
    handled = false;
    return true;
  }
  return in(name, [&] {
    od::json_type t = od::json_type::null;
    if (!type_of(f, t)) return false;
    if (t == od::json_type::null) return true;  // null: the member is not set (ProtoJSON)
    if (type != NumberType::None) return oneof_twice(f, "value", member_name(type));
    type = member;
    return member == NumberType::Double ? dbl(f, t, d) : integer(f, t, i);
  });
}

bool Decoder::exemplar(od::value& v, Exemplar& e) {
  return fields(v, [&](std::string_view k, od::value& f) {
    bool handled;
    if (!number_value(k, f, e.value_type, e.as_double, e.as_int, handled)) return false;
    if (handled) return true;
    if (key_is(k, "filteredAttributes", "filtered_attributes"))
      return in("filtered_attributes", [&] { return key_values(f, e.filtered_attributes); });
    if (key_is(k, "timeUnixNano", "time_unix_nano"))
      return in("time_unix_nano", [&] { return integer(f, e.time_unix_nano); });
    if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, e.trace_id); });
    if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, e.span_id); });
    return true;
  });
}

// An `optional double` (histogram sum/min/max): null leaves it absent.
bool Decoder::optional_dbl(od::value& f, bool& has, double& out) {
  od::json_type t = od::json_type::null;
  if (!type_of(f, t)) return false;
  if (t == od::json_type::null) return true;
  has = true;
  return dbl(f, t, out);
}

// Fields every data point kind has.
template <class P>
bool Decoder::point_common(std::string_view k, od::value& f, P& p, bool& handled) {
  handled = true;
  if (k == "attributes") return in("attributes", [&] { return key_values(f, p.attributes); });
  if (key_is(k, "startTimeUnixNano", "start_time_unix_nano"))
    return in("start_time_unix_nano", [&] { return integer(f, p.start_time_unix_nano); });
  if (key_is(k, "timeUnixNano", "time_unix_nano"))
    return in("time_unix_nano", [&] { return integer(f, p.time_unix_nano); });
  if (k == "flags") return in("flags", [&] { return integer(f, p.flags); });
  if constexpr (!std::is_same_v<P, SummaryDataPoint>) {
    if (k == "exemplars")
      return in("exemplars", [&] { return message_list(f, p.exemplars, &Decoder::exemplar); });
  }
  if constexpr (!std::is_same_v<P, NumberDataPoint>) {
    if (k == "count") return in("count", [&] { return integer(f, p.count); });
    if (k == "sum") {
      if constexpr (std::is_same_v<P, SummaryDataPoint>)
        return in("sum", [&] { return dbl(f, p.sum); });
      else
        return in("sum", [&] { return optional_dbl(f, p.has_sum, p.sum); });
    }
  }
  if constexpr (std::is_same_v<P, HistogramDataPoint> || std::is_same_v<P, ExponentialHistogramDataPoint>) {
    if (k == "min") return in("min", [&] { return optional_dbl(f, p.has_min, p.min); });
    if (k == "max") return in("max", [&] { return optional_dbl(f, p.has_max, p.max); });
  }
  handled = false;
  return true;
}

bool Decoder::number_point(od::value& v, NumberDataPoint& p) {
  return fields(v, [&](std::string_view k, od::value& f) {
    bool handled;
    if (!point_common(k, f, p, handled)) return false;
    if (handled) return true;
    return number_value(k, f, p.value_type, p.as_double, p.as_int, handled);
  });
}

bool Decoder::histogram_point(od::value& v, HistogramDataPoint& p) {
  return fields(v, [&](std::string_view k, od::value& f) {
    bool handled;
    if (!point_common(k, f, p, handled)) return false;
    if (handled) return true;
    if (key_is(k, "bucketCounts", "bucket_counts"))
      return in("bucket_counts", [&] { return u64_list(f, p.bucket_counts); });
    if (key_is(k, "explicitBounds", "explicit_bounds"))
      return in("explicit_bounds", [&] { return double_list(f, p.explicit_bounds); });
    return true;
  });
}

bool Decoder::buckets(od::value& v, ExponentialBuckets& b) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (k == "offset") return in("offset", [&] { return integer(f, b.offset); });
    if (key_is(k, "bucketCounts", "bucket_counts"))
      return in("bucket_counts", [&] { return u64_list(f, b.bucket_counts); });
    return true;
  });
}

bool Decoder::exp_histogram_point(od::value& v, ExponentialHistogramDataPoint& p) {
  return fields(v, [&](std::string_view k, od::value& f) {
    bool handled;
    if (!point_common(k, f, p, handled)) return false;
    if (handled) return true;
    if (k == "scale") return in("scale", [&] { return integer(f, p.scale); });
    if (key_is(k, "zeroCount", "zero_count"))
      return in("zero_count", [&] { return integer(f, p.zero_count); });
    if (k == "positive") return in("positive", [&] { return buckets(f, p.positive); });
    if (k == "negative") return in("negative", [&] { return buckets(f, p.negative); });
    if (key_is(k, "zeroThreshold", "zero_threshold"))
      return in("zero_threshold", [&] { return dbl(f, p.zero_threshold); });
    return true;
  });
}

bool Decoder::summary_point(od::value& v, SummaryDataPoint& p) {
  return fields(v, [&](std::string_view k, od::value& f) {
    bool handled;
    if (!point_common(k, f, p, handled)) return false;
    if (handled) return true;
    if (key_is(k, "quantileValues", "quantile_values"))
      return in("quantile_values", [&] {
        return elements(f, [&](od::value& el) {
          auto& q = p.quantile_values.emplace_back();
          return fields(el, [&](std::string_view k2, od::value& f2) {
            if (k2 == "quantile") return in("quantile", [&] { return dbl(f2, q.quantile); });
            if (k2 == "value") return in("value", [&] { return dbl(f2, q.value); });
            return true;
          });
        });
      });
    return true;
  });
}

bool Decoder::temporality(od::value& f, Metric& m) {
  return in("aggregation_temporality", [&] {
    std::int32_t x = static_cast<std::int32_t>(m.temporality);
    bool ok = enumeration(f, x,
                          {"AGGREGATION_TEMPORALITY_UNSPECIFIED", "AGGREGATION_TEMPORALITY_DELTA",
                           "AGGREGATION_TEMPORALITY_CUMULATIVE"});
    m.temporality = static_cast<AggregationTemporality>(x);
    return ok;
  });
}

// One of gauge/sum/histogram/exponentialHistogram/summary (the oneof `data`): null
// leaves it unset, a second one is an error.
template <class P>
bool Decoder::metric_data(od::value& v, Metric& m, MetricType type, std::string_view name, Vec<P>& points,
                          bool (Decoder::*one)(od::value&, P&)) {
  return in(name, [&] {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;  // null: no data (ProtoJSON)
    if (m.type != MetricType::Empty) return oneof_twice(v, "data", member_name(m.type));
    m.type = type;
    return fields(v, [&](std::string_view k, od::value& f) {
      if (key_is(k, "dataPoints", "data_points"))
        return in("data_points", [&] { return message_list(f, points, one); });
      if (type != MetricType::Gauge && type != MetricType::Summary &&
          key_is(k, "aggregationTemporality", "aggregation_temporality"))
        return temporality(f, m);
      if (type == MetricType::Sum && key_is(k, "isMonotonic", "is_monotonic"))
        return in("is_monotonic", [&] { return boolean(f, m.is_monotonic); });
      return true;
    });
  });
}

bool Decoder::metric(od::value& v, Metric& m) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (k == "name") return in("name", [&] { return str(f, m.name); });
    if (k == "description") return in("description", [&] { return str(f, m.description); });
    if (k == "unit") return in("unit", [&] { return str(f, m.unit); });
    if (k == "metadata") return in("metadata", [&] { return key_values(f, m.metadata); });
    if (k == "gauge")
      return metric_data(f, m, MetricType::Gauge, "gauge", m.number_points, &Decoder::number_point);
    if (k == "sum") return metric_data(f, m, MetricType::Sum, "sum", m.number_points, &Decoder::number_point);
    if (k == "histogram")
      return metric_data(f, m, MetricType::Histogram, "histogram", m.histogram_points,
                         &Decoder::histogram_point);
    if (key_is(k, "exponentialHistogram", "exponential_histogram"))
      return metric_data(f, m, MetricType::ExponentialHistogram, "exponential_histogram",
                         m.exponential_histogram_points, &Decoder::exp_histogram_point);
    if (k == "summary")
      return metric_data(f, m, MetricType::Summary, "summary", m.summary_points, &Decoder::summary_point);
    return true;
  });
}

bool Decoder::metrics(std::string_view k, od::value& f, MetricsData& out) {
  if (!key_is(k, "resourceMetrics", "resource_metrics")) return true;
  return in("resource_metrics", [&] {
    return elements(f, [&](od::value& rv) {
      auto& rm = out.resource_metrics.emplace_back(arena_);
      return resource_wrapper(rv, rm, "scopeMetrics", "scope_metrics", [&](od::value& sv) {
        return elements(sv, [&](od::value& se) {
          auto& sm = rm.scope_metrics.emplace_back(arena_);
          return scope_wrapper(se, sm, "metrics", "metrics",
                               [&](od::value& lv) { return message_list(lv, sm.metrics, &Decoder::metric); });
        });
      });
    });
  });
}

}  // namespace tern::otlp::json_detail

namespace tern::otlp {

std::optional<DecodeError> decode_metrics_json(std::string_view in, pdata::MetricsData& out,
                                               const DecodeOptions& options) {
  return json_detail::decode(in, out, options, &json_detail::Decoder::metrics);
}

}  // namespace tern::otlp
