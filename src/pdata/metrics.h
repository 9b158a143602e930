#pragma once
// Metrics data model: opentelemetry/proto/metrics/v1 (ExportMetricsServiceRequest).
#include <cstdint>

#include "pdata/common.h"
#include "pdata/delivery.h"

namespace tern::pdata {

enum class MetricType : std::uint8_t { Empty, Gauge, Sum, Histogram, ExponentialHistogram, Summary };
enum class AggregationTemporality : std::int32_t { Unspecified = 0, Delta = 1, Cumulative = 2 };
enum class NumberType : std::uint8_t { None, Double, Int };

struct Exemplar {
  explicit Exemplar(const Arena& a) : filtered_attributes(a.vec<KeyValue>()) {}
  Attributes filtered_attributes;
  std::uint64_t time_unix_nano = 0;
  NumberType value_type = NumberType::None;
  double as_double = 0;
  std::int64_t as_int = 0;
  SpanId span_id{};
  TraceId trace_id{};
};

struct NumberDataPoint {
  explicit NumberDataPoint(const Arena& a) : attributes(a.vec<KeyValue>()), exemplars(a.vec<Exemplar>()) {}
  Attributes attributes;
  std::uint64_t start_time_unix_nano = 0;
  std::uint64_t time_unix_nano = 0;
  NumberType value_type = NumberType::None;
  double as_double = 0;
  std::int64_t as_int = 0;
  Vec<Exemplar> exemplars;
  std::uint32_t flags = 0;
};

struct HistogramDataPoint {
  explicit HistogramDataPoint(const Arena& a)
      : attributes(a.vec<KeyValue>()),
        bucket_counts(a.vec<std::uint64_t>()),
        explicit_bounds(a.vec<double>()),
        exemplars(a.vec<Exemplar>()) {}
  Attributes attributes;
  std::uint64_t start_time_unix_nano = 0;
  std::uint64_t time_unix_nano = 0;
  std::uint64_t count = 0;
  bool has_sum = false;
  double sum = 0;
  Vec<std::uint64_t> bucket_counts;
  Vec<double> explicit_bounds;
  Vec<Exemplar> exemplars;
  std::uint32_t flags = 0;
  bool has_min = false;
  double min = 0;
  bool has_max = false;
  double max = 0;
};

struct ExponentialBuckets {
  explicit ExponentialBuckets(const Arena& a) : bucket_counts(a.vec<std::uint64_t>()) {}
  std::int32_t offset = 0;
  Vec<std::uint64_t> bucket_counts;
};

struct ExponentialHistogramDataPoint {
  explicit ExponentialHistogramDataPoint(const Arena& a)
      : attributes(a.vec<KeyValue>()), positive(a), negative(a), exemplars(a.vec<Exemplar>()) {}
  Attributes attributes;
  std::uint64_t start_time_unix_nano = 0;
  std::uint64_t time_unix_nano = 0;
  std::uint64_t count = 0;
  bool has_sum = false;
  double sum = 0;
  std::int32_t scale = 0;
  std::uint64_t zero_count = 0;
  ExponentialBuckets positive;
  ExponentialBuckets negative;
  std::uint32_t flags = 0;
  Vec<Exemplar> exemplars;
  bool has_min = false;
  double min = 0;
  bool has_max = false;
  double max = 0;
  double zero_threshold = 0;
};

struct ValueAtQuantile {
  double quantile = 0;
  double value = 0;
};

struct SummaryDataPoint {
  explicit SummaryDataPoint(const Arena& a) : attributes(a.vec<KeyValue>()), quantile_values(a.vec<ValueAtQuantile>()) {}
  Attributes attributes;
  std::uint64_t start_time_unix_nano = 0;
  std::uint64_t time_unix_nano = 0;
  std::uint64_t count = 0;
  double sum = 0;
  Vec<ValueAtQuantile> quantile_values;
  std::uint32_t flags = 0;
};

// A Metric holds the points of its one data kind (`type`); the other vectors stay empty.
struct Metric {
  explicit Metric(const Arena& a)
      : number_points(a.vec<NumberDataPoint>()),
        histogram_points(a.vec<HistogramDataPoint>()),
        exponential_histogram_points(a.vec<ExponentialHistogramDataPoint>()),
        summary_points(a.vec<SummaryDataPoint>()),
        metadata(a.vec<KeyValue>()) {}
  Str name;
  Str description;
  Str unit;
  MetricType type = MetricType::Empty;
  AggregationTemporality temporality = AggregationTemporality::Unspecified;  // Sum, Histogram, ExpHistogram
  bool is_monotonic = false;                                                 // Sum
  Vec<NumberDataPoint> number_points;                                        // Gauge, Sum
  Vec<HistogramDataPoint> histogram_points;
  Vec<ExponentialHistogramDataPoint> exponential_histogram_points;
  Vec<SummaryDataPoint> summary_points;
  Attributes metadata;

  std::size_t point_count() const {
    return number_points.size() + histogram_points.size() + exponential_histogram_points.size() +
           summary_points.size();
  }
};

struct ScopeMetrics {
  explicit ScopeMetrics(const Arena& a) : scope(a), metrics(a.vec<Metric>()) {}
  InstrumentationScope scope;
  Vec<Metric> metrics;
  Str schema_url;
};

struct ResourceMetrics {
  explicit ResourceMetrics(const Arena& a) : resource(a), scope_metrics(a.vec<ScopeMetrics>()) {}
  Resource resource;
  Vec<ScopeMetrics> scope_metrics;
  Str schema_url;
};

// One ExportMetricsServiceRequest. Owns its arena (declared first: destroyed last).
struct MetricsData {
  MetricsData() : resource_metrics(arena.vec<ResourceMetrics>()) {}
  explicit MetricsData(std::size_t arena_bytes)
      : arena(arena_bytes), resource_metrics(arena.vec<ResourceMetrics>()) {}
  Arena arena;
  Vec<ResourceMetrics> resource_metrics;
  // Set by producers that need to know when the batch is settled (pdata/delivery.h).
  DeliveryTokenPtr delivery;

  std::size_t data_point_count() const {
    std::size_t n = 0;
    for (const auto& rm : resource_metrics)
      for (const auto& sm : rm.scope_metrics)
        for (const auto& m : sm.metrics) n += m.point_count();
    return n;
  }
};

}  // namespace tern::pdata
