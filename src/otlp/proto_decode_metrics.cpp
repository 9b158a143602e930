// OTLP/protobuf metrics: MetricsData down to the five data point kinds and exemplars.
#include <bit>
#include <cstring>
#include <string>

#include "otlp/proto_codec.h"
#include "otlp/proto_decoder.h"

namespace tern::otlp::proto_detail {
namespace {

// Packed (one length-delimited run) or unpacked (one element per tag) repeated scalars.
bool read_repeated_fixed64(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                           pdata::Vec<std::uint64_t>& out) {
  if (wt == kFixed64) {
    std::uint64_t v = 0;
    TRY_IN(name, read_fixed64(c, r, v));
    out.push_back(v);
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  if (sub.left() % 8 != 0) {
    c.fail(sub.p, "packed fixed64 length " + std::to_string(sub.left()) + " is not a multiple of 8");
    return c.in(name);
  }
  const std::size_t n = sub.left() / 8;
  if (n == 0) return true;  // memcpy into an empty vector's null data() is UB, even of 0 bytes
  const std::size_t old = out.size();
  out.resize(old + n);
  std::memcpy(out.data() + old, sub.p, n * 8);
  return true;
}

bool read_repeated_double(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                          pdata::Vec<double>& out) {
  if (wt == kFixed64) {
    std::uint64_t v = 0;
    TRY_IN(name, read_fixed64(c, r, v));
    out.push_back(std::bit_cast<double>(v));
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  if (sub.left() % 8 != 0) {
    c.fail(sub.p, "packed double length " + std::to_string(sub.left()) + " is not a multiple of 8");
    return c.in(name);
  }
  const std::size_t n = sub.left() / 8;
  if (n == 0) return true;  // memcpy into an empty vector's null data() is UB, even of 0 bytes
  const std::size_t old = out.size();
  out.resize(old + n);
  std::memcpy(out.data() + old, sub.p, n * 8);
  return true;
}

bool read_repeated_varint(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                          pdata::Vec<std::uint64_t>& out) {
  if (wt == kVarint) {
    std::uint64_t v = 0;
    TRY_IN(name, read_varint(c, r, v));
    out.push_back(v);
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  std::size_t n = 0;  // every varint ends in exactly one byte < 0x80
  for (const char* q = sub.p; q < sub.end; ++q) n += static_cast<unsigned char>(*q) < 0x80;
  out.reserve(out.size() + n);
  while (sub.more()) {
    std::uint64_t v = 0;
    TRY_IN(name, read_varint(c, sub, v));
    out.push_back(v);
  }
  return true;
}

bool decode_exemplar(Ctx& c, Cur r, pdata::Exemplar& e) {
  e.filtered_attributes.reserve(count_field(r, 7));
  FIELD_LOOP {
    case 2:
      FIXED64("time_unix_nano", e.time_unix_nano)
    case 3:
      e.value_type = pdata::NumberType::Double;
      DOUBLE("as_double", e.as_double)
    case 4: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, e.span_id, "span_id"));
      break;
    }
    case 5: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, e.trace_id, "trace_id"));
      break;
    }
    case 6:
      e.value_type = pdata::NumberType::Int;
      SFIXED64("as_int", e.as_int)
    case 7:
      ATTR("filtered_attributes", e.filtered_attributes)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_number_point(Ctx& c, Cur r, pdata::NumberDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 7);
  FIELD_LOOP {
    case 2:
      FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3:
      FIXED64("time_unix_nano", p.time_unix_nano)
    case 4:
      p.value_type = pdata::NumberType::Double;
      p.as_int = 0;
      DOUBLE("as_double", p.as_double)
    case 5:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 6:
      p.value_type = pdata::NumberType::Int;
      p.as_double = 0;
      SFIXED64("as_int", p.as_int)
    case 7:
      ATTR("attributes", p.attributes)
    case 8:
      VARINT("flags", p.flags, std::uint32_t)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_histogram_point(Ctx& c, Cur r, pdata::HistogramDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 9);
  FIELD_LOOP {
    case 2:
      FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3:
      FIXED64("time_unix_nano", p.time_unix_nano)
    case 4:
      FIXED64("count", p.count)
    case 5:
      p.has_sum = true;
      DOUBLE("sum", p.sum)
    case 6:
      TRY(read_repeated_fixed64(c, r, wt, tag_at, "bucket_counts", p.bucket_counts));
      break;
    case 7:
      TRY(read_repeated_double(c, r, wt, tag_at, "explicit_bounds", p.explicit_bounds));
      break;
    case 8:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 9:
      ATTR("attributes", p.attributes)
    case 10:
      VARINT("flags", p.flags, std::uint32_t)
    case 11:
      p.has_min = true;
      DOUBLE("min", p.min)
    case 12:
      p.has_max = true;
      DOUBLE("max", p.max)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_buckets(Ctx& c, Cur r, pdata::ExponentialBuckets& b) {
  FIELD_LOOP {
    case 1:
      SINT32("offset", b.offset)
    case 2:
      TRY(read_repeated_varint(c, r, wt, tag_at, "bucket_counts", b.bucket_counts));
      break;
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_exp_point(Ctx& c, Cur r, pdata::ExponentialHistogramDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 1);
  FIELD_LOOP {
    case 1:
      ATTR("attributes", p.attributes)
    case 2:
      FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3:
      FIXED64("time_unix_nano", p.time_unix_nano)
    case 4:
      FIXED64("count", p.count)
    case 5:
      p.has_sum = true;
      DOUBLE("sum", p.sum)
    case 6:
      SINT32("scale", p.scale)
    case 7:
      FIXED64("zero_count", p.zero_count)
    case 8:
      MSG("positive", decode_buckets(c, sub, p.positive))
    case 9:
      MSG("negative", decode_buckets(c, sub, p.negative))
    case 10:
      VARINT("flags", p.flags, std::uint32_t)
    case 11:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 12:
      p.has_min = true;
      DOUBLE("min", p.min)
    case 13:
      p.has_max = true;
      DOUBLE("max", p.max)
    case 14:
      DOUBLE("zero_threshold", p.zero_threshold)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_quantile(Ctx& c, Cur r, pdata::ValueAtQuantile& q) {
  FIELD_LOOP {
    case 1:
      DOUBLE("quantile", q.quantile)
    case 2:
      DOUBLE("value", q.value)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_summary_point(Ctx& c, Cur r, pdata::SummaryDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 7);
  FIELD_LOOP {
    case 2:
      FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3:
      FIXED64("time_unix_nano", p.time_unix_nano)
    case 4:
      FIXED64("count", p.count)
    case 5:
      DOUBLE("sum", p.sum)
    case 6: {
      EXPECT("quantile_values", kLen);
      RESERVE_AT_FIRST(p.quantile_values);
      Cur sub;
      TRY_IN("quantile_values", read_len(c, r, sub));
      TRY_IN("quantile_values", decode_quantile(c, sub, p.quantile_values.emplace_back()));
      break;
    }
    case 7:
      ATTR("attributes", p.attributes)
    case 8:
      VARINT("flags", p.flags, std::uint32_t)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

// Gauge/Sum/Histogram/ExponentialHistogram/Summary bodies: data_points = 1, then
// aggregation_temporality = 2 and (Sum) is_monotonic = 3.
template <class Point, class DecodeFn>
bool decode_metric_data(Ctx& c, Cur r, pdata::Metric& m, pdata::Vec<Point>& points, DecodeFn decode_fn,
                        bool has_temporality, bool has_monotonic) {
  points.reserve(points.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1:
      REPEATED("data_points", points, decode_fn)
    case 2:
      if (!has_temporality) {
        TRY(skip(c, r, f, wt, 0));
        break;
      }
      INT32("aggregation_temporality", m.temporality, pdata::AggregationTemporality)
    case 3: {
      if (!has_monotonic) {
        TRY(skip(c, r, f, wt, 0));
        break;
      }
      EXPECT("is_monotonic", kVarint);
      std::uint64_t b = 0;
      TRY_IN("is_monotonic", read_varint(c, r, b));
      m.is_monotonic = b != 0;
      break;
    }
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// A different oneof member replaces the data; the same member again merges (protobuf rules).
void switch_type(pdata::Metric& m, pdata::MetricType t) {
  if (m.type == t) return;
  m.type = t;
  m.temporality = pdata::AggregationTemporality::Unspecified;
  m.is_monotonic = false;
  m.number_points.clear();
  m.histogram_points.clear();
  m.exponential_histogram_points.clear();
  m.summary_points.clear();
}

bool decode_metric(Ctx& c, Cur r, pdata::Metric& m) {
  using pdata::MetricType;
  m.metadata.reserve(count_field(r, 12));
  FIELD_LOOP {
    case 1:
      STR("name", m.name)
    case 2:
      STR("description", m.description)
    case 3:
      STR("unit", m.unit)
    case 5:
      switch_type(m, MetricType::Gauge);
      MSG("gauge", decode_metric_data(c, sub, m, m.number_points, decode_number_point, false, false))
    case 7:
      switch_type(m, MetricType::Sum);
      MSG("sum", decode_metric_data(c, sub, m, m.number_points, decode_number_point, true, true))
    case 9:
      switch_type(m, MetricType::Histogram);
      MSG("histogram", decode_metric_data(c, sub, m, m.histogram_points, decode_histogram_point, true, false))
    case 10:
      switch_type(m, MetricType::ExponentialHistogram);
      MSG("exponential_histogram",
          decode_metric_data(c, sub, m, m.exponential_histogram_points, decode_exp_point, true, false))
    case 11:
      switch_type(m, MetricType::Summary);
      MSG("summary", decode_metric_data(c, sub, m, m.summary_points, decode_summary_point, false, false))
    case 12:
      ATTR("metadata", m.metadata)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_scope_metrics(Ctx& c, Cur r, pdata::ScopeMetrics& sm) {
  sm.metrics.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1:
      MSG("scope", decode_scope(c, sub, sm.scope))
    case 2:
      REPEATED("metrics", sm.metrics, decode_metric)
    case 3:
      STR("schema_url", sm.schema_url)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_resource_metrics(Ctx& c, Cur r, pdata::ResourceMetrics& rm) {
  rm.scope_metrics.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1:
      MSG("resource", decode_resource(c, sub, rm.resource))
    case 2:
      REPEATED("scope_metrics", rm.scope_metrics, decode_scope_metrics)
    case 3:
      STR("schema_url", rm.schema_url)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_metrics(Ctx& c, Cur r, pdata::MetricsData& d) {
  d.resource_metrics.reserve(d.resource_metrics.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1:
      REPEATED("resource_metrics", d.resource_metrics, decode_resource_metrics)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

}  // namespace
}  // namespace tern::otlp::proto_detail

namespace tern::otlp {

std::optional<DecodeError> decode_metrics_proto(std::string_view in, pdata::MetricsData& out,
                                                const DecodeOptions& options) {
  return proto_detail::run(in, out, options, proto_detail::decode_metrics);
}

}  // namespace tern::otlp
