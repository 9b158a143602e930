// Golden tests for metrics documents: grouping, templates, histograms, rejects.
#include <xxhash.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace tern::encoding::es::test {
namespace {

struct MetricsFixture {
  MetricsData d;
  ResourceMetrics* rm;
  ScopeMetrics* sm;
  MetricsFixture() {
    rm = &d.resource_metrics.emplace_back(d.arena);
    sm = &rm->scope_metrics.emplace_back(d.arena);
  }
  Metric& metric(std::string_view name, MetricType t) {
    auto& m = sm->metrics.emplace_back(d.arena);
    m.name = d.arena.copy(name);
    m.type = t;
    return m;
  }
  NumberDataPoint& int_point(Metric& m, std::int64_t v, std::uint64_t ts = 3600000000000ull) {
    auto& p = m.number_points.emplace_back(d.arena);
    p.value_type = NumberType::Int;
    p.as_int = v;
    p.time_unix_nano = ts;
    return p;
  }
  NumberDataPoint& double_point(Metric& m, double v, std::uint64_t ts = 3600000000000ull) {
    auto& p = m.number_points.emplace_back(d.arena);
    p.value_type = NumberType::Double;
    p.as_double = v;
    p.time_unix_nano = ts;
    return p;
  }
  EncodedBatch encode(EncoderConfig cfg = {}) {
    EncodedBatch b;
    Encoder(cfg).encode_metrics(d, b);
    expect_valid(b);
    return b;
  }
};

std::string names_hash(std::string concat) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(XXH64(concat.data(), concat.size(), 0)));
  return buf;
}

// Points are grouped by a hash of their dimensions, then confirmed by comparing them: for
// attribute values of every length (each of the hash's string paths), two metrics' points
// with the same value share a document and those whose values differ in one byte, at the
// start or at the end, do not.
TEST(EsMetrics, GroupingByAttributeValuesOfEveryLength) {
  MetricsFixture f;
  f.metric("a", MetricType::Gauge);
  f.metric("b", MetricType::Gauge);
  Metric& a = f.sm->metrics[0];  // taken once both exist: the second may move the first
  Metric& b = f.sm->metrics[1];
  std::size_t want_docs = 0;
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'v');
    std::vector<std::string> values = {base};
    if (n) values.push_back(base), values.back().front() = 'w';
    if (n > 1) values.push_back(base), values.back().back() = 'w';
    for (const auto& v : values) {
      for (Metric* m : {&a, &b})
        f.int_point(*m, 1).attributes.push_back(kv(f.d.arena, "dim", s(f.d.arena, v)));
      ++want_docs;
    }
  }
  const EncodedBatch out = f.encode();
  ASSERT_EQ(out.size(), want_docs);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out.items[i].events, 2u) << i;
    EXPECT_EQ(doc(out, i)["metrics"], Json::parse(R"({"a":1,"b":1})")) << i;
  }
}

TEST(EsMetrics, WorkedExample4Grouping) {
  MetricsFixture f;
  for (auto n : {"foo.bar", "foo", "foo.bar.baz"}) f.int_point(f.metric(n, MetricType::Sum), 0);
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.items[0].events, 3u);
  EXPECT_EQ(
      b.action(0),
      "{\"create\":{\"_index\":\"metrics-generic.otel-default\",\"dynamic_templates\":{\"metrics.foo.bar\":"
      "\"gauge_long\",\"metrics.foo\":\"gauge_long\",\"metrics.foo.bar.baz\":\"gauge_long\"}}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":3600000,"data_stream":{"type":"metrics","dataset":"generic.otel","namespace":"default"},"resource":{},"scope":{},"metrics":{"foo.bar":0,"foo":0,"foo.bar.baz":0},"_metric_names_hash":")" +
          names_hash("foofoo.barfoo.bar.baz") + "\"}");
}

TEST(EsMetrics, GroupsSplitByAttributesTimestampUnit) {
  MetricsFixture f;
  auto& a = f.d.arena;
  auto& m1 = f.metric("a", MetricType::Gauge);
  f.int_point(m1, 1).attributes.push_back(kv(a, "k", s(a, "x")));
  f.int_point(m1, 2).attributes.push_back(kv(a, "k", s(a, "y")));
  f.int_point(m1, 3, 7000000);
  auto& m2 = f.metric("b", MetricType::Gauge);
  f.int_point(m2, 4).attributes.push_back(kv(a, "k", s(a, "x")));
  auto& m3 = f.metric("c", MetricType::Gauge);
  m3.unit = "By";
  f.int_point(m3, 5).attributes.push_back(kv(a, "k", s(a, "x")));
  auto b = f.encode();
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(doc(b, 0)["metrics"], Json::parse(R"({"a":1,"b":4})"));
  EXPECT_EQ(doc(b, 0)["attributes"], Json::parse(R"({"k":"x"})"));
  EXPECT_EQ(doc(b, 1)["metrics"], Json::parse(R"({"a":2})"));
  EXPECT_EQ(doc(b, 2)["@timestamp"], 7);
  EXPECT_EQ(doc(b, 3)["unit"], "By");
  EXPECT_EQ(b.event_count(), 5u);
}

TEST(EsMetrics, TemplatesDoublesStartTimestamp) {
  MetricsFixture f;
  auto& c = f.metric("c", MetricType::Sum);
  c.is_monotonic = true;
  c.temporality = AggregationTemporality::Cumulative;
  auto& p = c.number_points.emplace_back(f.d.arena);
  p.value_type = NumberType::Double;
  p.as_double = 42;
  p.start_time_unix_nano = 1999999;
  auto& c2 = f.metric("c2", MetricType::Sum);
  c2.is_monotonic = true;
  c2.temporality = AggregationTemporality::Cumulative;
  f.int_point(c2, 1, 0);
  f.d.resource_metrics[0].scope_metrics[0].metrics[1].number_points[0].start_time_unix_nano = 1999999;
  auto& g = f.metric("g", MetricType::Sum);  // delta sum -> gauge
  g.temporality = AggregationTemporality::Delta;
  g.is_monotonic = true;
  auto& gp = g.number_points.emplace_back(f.d.arena);
  gp.value_type = NumberType::Double;
  gp.as_double = 0.5;
  gp.start_time_unix_nano = 1999999;
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(doc_text(b, 0).find(R"("metrics":{"c":42.0,"c2":1,"g":0.5})"), std::string::npos);
  EXPECT_EQ(doc(b, 0)["start_timestamp"], 1);
  EXPECT_EQ(action(b, 0)["create"]["dynamic_templates"],
            Json::parse(
                R"({"metrics.c":"counter_double","metrics.c2":"counter_long","metrics.g":"gauge_double"})"));
}

TEST(EsMetrics, RejectsNanDuplicateEmpty) {
  MetricsFixture f;
  auto& n = f.metric("nan", MetricType::Gauge);
  auto& p = n.number_points.emplace_back(f.d.arena);
  p.time_unix_nano = 3600000000000ull;
  p.value_type = NumberType::Double;
  p.as_double = std::numeric_limits<double>::infinity();
  f.int_point(f.metric("x", MetricType::Gauge), 1);
  f.int_point(f.metric("x", MetricType::Gauge), 2);
  f.metric("empty", MetricType::Empty);
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(doc(b, 0)["metrics"], Json::parse(R"({"x":1})"));
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::NanOrInf)], 1u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::DuplicateMetricName)], 1u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::EmptyMetric)], 1u);
  EXPECT_EQ(b.items[0].events, 1u);
}

// The `elasticsearch.mapping.hints` attribute.
KeyValue hint(const Arena& a, std::string_view h) {
  return kv(a, "elasticsearch.mapping.hints", array(a, {s(a, h)}));
}

HistogramDataPoint& hist(MetricsFixture& f, Metric& m, std::initializer_list<std::uint64_t> counts,
                         std::initializer_list<double> bounds) {
  auto& p = m.histogram_points.emplace_back(f.d.arena);
  for (auto c : counts) p.bucket_counts.push_back(c);
  for (auto x : bounds) p.explicit_bounds.push_back(x);
  return p;
}

// A rejected point leaves nothing in its document's metrics object nor in its action line's
// dynamic templates, before, between and after accepted ones (names with escapes).
TEST(EsMetrics, RejectedPointsLeaveNoTemplate) {
  MetricsFixture f;
  auto nan_point = [&](std::string_view name) {
    auto& p = f.metric(name, MetricType::Gauge).number_points.emplace_back(f.d.arena);
    p.time_unix_nano = 3600000000000ull;
    p.value_type = NumberType::Double;
    p.as_double = std::nan("");
  };
  nan_point("first");
  f.int_point(f.metric("x\"q", MetricType::Gauge), 1);
  nan_point("between");
  f.int_point(f.metric("y", MetricType::Sum), 2);
  nan_point("last");
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.action(0),
            "{\"create\":{\"_index\":\"metrics-generic.otel-default\",\"dynamic_templates\":{"
            "\"metrics.x\\\"q\":\"gauge_long\",\"metrics.y\":\"gauge_long\"}}}\n");
  EXPECT_EQ(doc(b, 0)["metrics"], Json::parse(R"({"x\"q":1,"y":2})"));
  EXPECT_EQ(doc(b, 0)["_metric_names_hash"], names_hash("x\"qy"));
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::NanOrInf)], 3u);
  EXPECT_EQ(b.items[0].events, 2u);
}

TEST(EsMetrics, HistogramWorkedExample5AndCentroid) {
  MetricsFixture f;
  auto& a = f.d.arena;
  auto& h = f.metric("h", MetricType::Histogram);
  h.temporality = AggregationTemporality::Delta;
  hist(f, h, {1, 2, 3, 4}, {1, 2, 3});
  auto& z = f.metric("z", MetricType::Histogram);
  z.temporality = AggregationTemporality::Delta;
  hist(f, z, {0, 5, 0}, {-1, 1}).attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  auto& c = f.metric("c", MetricType::Histogram);
  c.temporality = AggregationTemporality::Delta;
  auto& cp = hist(f, c, {}, {});
  cp.count = 4;
  cp.sum = 10;
  cp.attributes.push_back(kv(a, "k", AnyValue::integer(2)));
  auto& e = f.metric("e", MetricType::Histogram);
  e.temporality = AggregationTemporality::Delta;
  hist(f, e, {}, {}).attributes.push_back(kv(a, "k", AnyValue::integer(3)));
  auto b = f.encode();
  ASSERT_EQ(b.size(), 4u);
  EXPECT_NE(doc_text(b, 0).find(R"("h":{"counts":[1,2,3,4],"values":[0.5,1.5,2.5,3.0]})"), std::string::npos);
  EXPECT_EQ(action(b, 0)["create"]["dynamic_templates"]["metrics.h"], "histogram");
  EXPECT_NE(doc_text(b, 1).find(R"("z":{"counts":[5],"values":[0.0]})"), std::string::npos) << doc_text(b, 1);
  EXPECT_NE(doc_text(b, 2).find(R"("c":{"counts":[4],"values":[2.5]})"), std::string::npos);
  EXPECT_NE(doc_text(b, 3).find(R"("e":{"counts":[],"values":[]})"), std::string::npos);
}

TEST(EsMetrics, HistogramRejectsAndHints) {
  MetricsFixture f;
  auto& a = f.d.arena;
  auto& cum = f.metric("cum", MetricType::Histogram);
  cum.temporality = AggregationTemporality::Cumulative;
  hist(f, cum, {1}, {});
  auto& bad = f.metric("bad", MetricType::Histogram);
  bad.temporality = AggregationTemporality::Delta;
  hist(f, bad, {1, 2}, {1, 2});
  auto& agg = f.metric("agg", MetricType::Histogram);
  agg.temporality = AggregationTemporality::Cumulative;
  auto& ap = hist(f, agg, {1, 2}, {1});
  ap.count = 3;
  ap.has_sum = true;
  ap.sum = 7;
  ap.attributes.push_back(
      kv(a, "elasticsearch.mapping.hints", array(a, {s(a, "aggregate_metric_double"), s(a, "_doc_count")})));
  auto b = f.encode();
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::CumulativeHistogram)], 1u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::BadHistogram)], 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(doc_text(b, 0).find(R"("attributes":{},)"), std::string::npos);
  EXPECT_NE(doc_text(b, 0).find(R"("metrics":{"agg":{"sum":7.0,"value_count":3}},"_doc_count":3,)"),
            std::string::npos)
      << doc_text(b, 0);
  EXPECT_EQ(action(b, 0)["create"]["dynamic_templates"]["metrics.agg"], "summary");
}

// `_doc_count` is a long in Elasticsearch: bucket sums saturate instead of wrapping, and
// counts above the largest long are written as it (one-point and grouped documents alike).
TEST(EsMetrics, DocCountsStayInALong) {
  MetricsFixture f;
  auto& a = f.d.arena;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  auto& h = f.metric("h", MetricType::Histogram);
  h.temporality = AggregationTemporality::Delta;
  hist(f, h, {kMax, 2}, {1}).attributes.push_back(hint(a, "_doc_count"));
  auto& e = f.metric("e", MetricType::ExponentialHistogram);
  e.temporality = AggregationTemporality::Delta;
  auto& ep = e.exponential_histogram_points.emplace_back(a);
  ep.zero_count = kMax;
  ep.positive.bucket_counts.push_back(3);
  ep.attributes.push_back(hint(a, "_doc_count"));
  ep.attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  auto& sm = f.metric("s", MetricType::Summary);
  auto& sp = sm.summary_points.emplace_back(a);
  sp.count = (std::uint64_t{1} << 63) + 5;
  sp.attributes.push_back(hint(a, "_doc_count"));
  sp.attributes.push_back(kv(a, "k", AnyValue::integer(1)));  // joins e's group
  auto b = f.encode();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NE(doc_text(b, 0).find(R"("_doc_count":9223372036854775807,)"), std::string::npos) << doc_text(b, 0);
  EXPECT_NE(doc_text(b, 1).find(R"("_doc_count":9223372036854775807,)"), std::string::npos) << doc_text(b, 1);
  EXPECT_EQ(b.items[1].events, 2u);
}

// One data point of every kind, each in its own document (its attributes differ from the
// others'), written by the one-pass path; with `duplicates`, each followed by a point of the
// same name and dimensions, which joins its group (and is rejected as a duplicate), so the
// same documents come from the general path. Each `fill` adds the metric's point and returns
// its attributes.
void add_one_point_of_every_kind(MetricsFixture& f, bool duplicates) {
  auto& a = f.d.arena;
  int k = 0;
  const auto next = [&](std::string_view name, MetricType t, auto&& fill) {
    const std::string unique = std::string(name) + std::to_string(k);
    for (int copy = 0; copy < (duplicates ? 2 : 1); ++copy)
      fill(f.metric(unique, t)).push_back(kv(a, "k", AnyValue::integer(k)));
    ++k;
  };
  next("gauge \"long\" ", MetricType::Gauge,
       [&](Metric& m) -> Attributes& { return f.int_point(m, -7).attributes; });
  next("gauge.double.\xc3\xa9t\xc3\xa9.", MetricType::Gauge,
       [&](Metric& m) -> Attributes& { return f.double_point(m, 0.25).attributes; });
  next("counter.long\x01", MetricType::Sum, [&](Metric& m) -> Attributes& {
    m.is_monotonic = true;
    m.temporality = AggregationTemporality::Cumulative;
    auto& p = f.int_point(m, 12);
    p.start_time_unix_nano = 1999999;
    return p.attributes;
  });
  next("counter.double", MetricType::Sum, [&](Metric& m) -> Attributes& {
    m.is_monotonic = true;
    m.temporality = AggregationTemporality::Cumulative;
    m.unit = "By";
    return f.double_point(m, 1e21).attributes;
  });
  next("summary", MetricType::Summary, [&](Metric& m) -> Attributes& {
    auto& p = m.summary_points.emplace_back(a);
    p.count = 4;
    p.sum = 10;
    p.time_unix_nano = 3600000000000ull;
    p.attributes.push_back(hint(a, "_doc_count"));
    return p.attributes;
  });
  next("histogram", MetricType::Histogram, [&](Metric& m) -> Attributes& {
    m.temporality = AggregationTemporality::Delta;
    auto& p = hist(f, m, {1, 0, 3}, {1, 2});
    p.time_unix_nano = 3600000000000ull;
    return p.attributes;
  });
  next("histogram.as.summary", MetricType::Histogram, [&](Metric& m) -> Attributes& {
    m.temporality = AggregationTemporality::Cumulative;
    auto& p = hist(f, m, {1, 2}, {1});
    p.count = 3;
    p.has_sum = true;
    p.sum = 7;
    p.time_unix_nano = 3600000000000ull;
    p.attributes.push_back(hint(a, "aggregate_metric_double"));
    return p.attributes;
  });
  next("exponential", MetricType::ExponentialHistogram, [&](Metric& m) -> Attributes& {
    m.temporality = AggregationTemporality::Delta;
    auto& p = m.exponential_histogram_points.emplace_back(a);
    p.zero_count = 2;
    p.positive.bucket_counts.push_back(3);
    p.time_unix_nano = 3600000000000ull;
    return p.attributes;
  });
}

// The one-pass writer of one-point documents and the general writer give the same bytes,
// for every template, a `_doc_count` hint, a unit, a start timestamp and names to escape.
TEST(EsMetrics, OnePointDocumentsMatchTheGeneralPath) {
  MetricsFixture alone, paired;
  add_one_point_of_every_kind(alone, false);
  add_one_point_of_every_kind(paired, true);
  const EncodedBatch one_pass = alone.encode(), general = paired.encode();
  ASSERT_EQ(one_pass.size(), 8u);
  ASSERT_EQ(general.size(), 8u);
  EXPECT_EQ(general.stats.rejected[size_t(EncodeReject::DuplicateMetricName)], 8u);
  EXPECT_EQ(one_pass.data, general.data);
  for (std::size_t i = 0; i < one_pass.size(); ++i) {
    EXPECT_EQ(one_pass.items[i].events, 1u);
    EXPECT_EQ(one_pass.action(i), general.action(i)) << i;
    EXPECT_EQ(doc_text(one_pass, i), doc_text(general, i)) << i;
  }
  const std::vector<std::string> templates = {"gauge_long", "gauge_double", "counter_long", "counter_double",
                                              "summary",    "histogram",    "summary",      "histogram"};
  for (std::size_t i = 0; i < templates.size(); ++i) {
    const Json dt = action(one_pass, i)["create"]["dynamic_templates"];
    ASSERT_EQ(dt.size(), 1u) << i;
    EXPECT_EQ(dt.begin().value(), templates[i]) << i;
    const std::string name = dt.begin().key().substr(std::string("metrics.").size());
    EXPECT_TRUE(doc(one_pass, i)["metrics"].contains(name)) << i;
    EXPECT_EQ(doc(one_pass, i)["_metric_names_hash"], names_hash(name)) << i;
  }
  EXPECT_EQ(doc(one_pass, 0)["metrics"]["gauge \"long\" 0"], -7);
  EXPECT_EQ(doc(one_pass, 2)["start_timestamp"], 1);
  EXPECT_EQ(doc(one_pass, 3)["unit"], "By");
  EXPECT_EQ(doc(one_pass, 4)["_doc_count"], 4);
}

// A one-point document whose value is rejected takes back everything written for it: the
// output is byte for byte the output without that point, whatever writing it had reached.
TEST(EsMetrics, RejectedOnePointDocumentsLeaveNothing) {
  MetricsFixture with, without;
  for (MetricsFixture* f : {&with, &without}) add_one_point_of_every_kind(*f, false);
  auto& a = with.d.arena;
  with.double_point(with.metric("nan", MetricType::Gauge), std::nan(""));
  auto& cum = with.metric("cumulative", MetricType::Histogram);
  cum.temporality = AggregationTemporality::Cumulative;
  hist(with, cum, {1}, {}).attributes.push_back(kv(a, "k", AnyValue::integer(100)));
  auto& bad = with.metric("bad.shape", MetricType::Histogram);
  bad.temporality = AggregationTemporality::Delta;
  hist(with, bad, {1, 2}, {1, 2}).attributes.push_back(kv(a, "k", AnyValue::integer(101)));
  auto& inf = with.metric("infinite.bound", MetricType::Histogram);  // rejected after its counts
  inf.temporality = AggregationTemporality::Delta;
  hist(with, inf, {1, 2}, {std::numeric_limits<double>::infinity()})
      .attributes.push_back(kv(a, "k", AnyValue::integer(102)));
  auto& empty = with.metric("no.value", MetricType::Gauge);
  empty.number_points.emplace_back(a).attributes.push_back(kv(a, "k", AnyValue::integer(103)));
  // One more accepted point after the rejected ones, in both.
  for (MetricsFixture* f : {&with, &without})
    f->int_point(f->metric("after", MetricType::Gauge), 5)
        .attributes.push_back(kv(f->d.arena, "k", AnyValue::integer(104)));
  const EncodedBatch b = with.encode(), want = without.encode();
  EXPECT_EQ(b.data, want.data);
  ASSERT_EQ(b.size(), want.size());
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(doc_text(b, i), doc_text(want, i)) << i;
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::NanOrInf)], 2u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::CumulativeHistogram)], 1u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::BadHistogram)], 1u);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::EmptyMetric)], 1u);
}

// A metric's name is hashed once for all its one-point documents; the next metric, and
// an empty name in the next scope (its view null, like the remembered name's reset), get
// their own hash.
TEST(EsMetrics, NameHashesOfOnePointDocuments) {
  MetricsFixture f;
  auto& a = f.d.arena;
  Metric& x = f.metric("x", MetricType::Gauge);
  for (int i = 0; i < 3; ++i) f.int_point(x, i).attributes.push_back(kv(a, "k", AnyValue::integer(i)));
  f.int_point(f.metric("y", MetricType::Gauge), 1);
  auto& sm2 = f.rm->scope_metrics.emplace_back(a);
  auto& unnamed = sm2.metrics.emplace_back(a);
  unnamed.type = MetricType::Gauge;
  unnamed.name = {};
  f.int_point(unnamed, 2);
  const EncodedBatch b = f.encode();
  ASSERT_EQ(b.size(), 5u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(doc(b, i)["_metric_names_hash"], names_hash("x")) << i;
  EXPECT_EQ(doc(b, 3)["_metric_names_hash"], names_hash("y"));
  EXPECT_EQ(doc(b, 4)["_metric_names_hash"], names_hash(""));
  EXPECT_EQ(doc(b, 4)["metrics"], Json::parse(R"({"":2})"));
}

TEST(EsMetrics, ExponentialHistogramExample) {
  MetricsFixture f;
  auto& m = f.metric("eh", MetricType::ExponentialHistogram);
  m.temporality = AggregationTemporality::Delta;
  auto& p = m.exponential_histogram_points.emplace_back(f.d.arena);
  p.scale = 0;
  p.zero_count = 2;
  p.positive.offset = 1;
  for (auto c : {0, 1, 1, 0}) p.positive.bucket_counts.push_back(c);
  p.negative.offset = 1;
  for (auto c : {1, 0, 0, 1}) p.negative.bucket_counts.push_back(c);
  auto& c = f.metric("ehc", MetricType::ExponentialHistogram);
  c.temporality = AggregationTemporality::Cumulative;
  c.exponential_histogram_points.emplace_back(f.d.arena);
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(doc_text(b, 0).find(R"("eh":{"counts":[1,1,2,1,1],"values":[-24.0,-3.0,0.0,6.0,12.0]})"),
            std::string::npos)
      << doc_text(b, 0);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::CumulativeHistogram)], 1u);
}

// Buckets whose bounds lie further apart than the largest double still have a finite middle:
// it is written, not rejected as Inf. A middle beyond the largest double is rejected.
TEST(EsMetrics, MidpointsOfTheWidestBuckets) {
  MetricsFixture f;
  auto& a = f.d.arena;
  auto& h = f.metric("h", MetricType::Histogram);
  h.temporality = AggregationTemporality::Delta;
  hist(f, h, {0, 2, 0}, {-1e308, 1e308});
  auto& e = f.metric("e", MetricType::ExponentialHistogram);
  e.temporality = AggregationTemporality::Delta;
  auto& ep = e.exponential_histogram_points.emplace_back(a);
  ep.attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  ep.scale = 0;
  ep.positive.offset = 1023;  // (2^1023, 2^1024]: the upper bound overflows, the middle does not
  ep.positive.bucket_counts.push_back(1);
  ep.negative.offset = 1023;
  ep.negative.bucket_counts.push_back(3);
  auto& o = f.metric("o", MetricType::ExponentialHistogram);
  o.temporality = AggregationTemporality::Delta;
  auto& op = o.exponential_histogram_points.emplace_back(a);
  op.attributes.push_back(kv(a, "k", AnyValue::integer(2)));
  op.positive.offset = 1024;  // (2^1024, 2^1025]: beyond every double
  op.positive.bucket_counts.push_back(1);
  auto b = f.encode();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NE(doc_text(b, 0).find(R"("h":{"counts":[2],"values":[0.0]})"), std::string::npos) << doc_text(b, 0);
  EXPECT_NE(doc_text(b, 1).find(
                R"("e":{"counts":[3,1],"values":[-1.348269851146737e+308,1.348269851146737e+308]})"),
            std::string::npos)
      << doc_text(b, 1);
  EXPECT_EQ(b.stats.rejected[size_t(EncodeReject::NanOrInf)], 1u);
}

TEST(EsMetrics, SummaryAndKvlistStringified) {
  MetricsFixture f;
  auto& a = f.d.arena;
  f.rm->resource.attributes.push_back(kv(a, "r", kvlist(a, {kv(a, "x.y", AnyValue::integer(1))})));
  auto& m = f.metric("s", MetricType::Summary);
  auto& p = m.summary_points.emplace_back(f.d.arena);
  p.count = 10;
  p.sum = 2.5;
  p.attributes.push_back(kv(a, "m", kvlist(a, {kv(a, "k", s(a, "v"))})));
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  auto j = doc(b, 0);
  EXPECT_EQ(j["metrics"]["s"], Json::parse(R"({"sum":2.5,"value_count":10})"));
  EXPECT_EQ(j["attributes"]["m"], R"({"k":"v"})");
  EXPECT_EQ(j["resource"]["attributes"]["r"], R"({"x.y":1})");
  EXPECT_EQ(action(b, 0)["create"]["dynamic_templates"]["metrics.s"], "summary");
}

TEST(EsMetrics, StaticIndexRouting) {
  MetricsFixture f;
  f.int_point(f.metric("a", MetricType::Gauge), 1);
  auto b = f.encode(config({}, "mi"));
  EXPECT_EQ(action(b, 0)["create"]["_index"], "mi");
  EXPECT_FALSE(doc(b, 0).contains("data_stream"));
}

// Data points with routing attributes of their own: those that resolve to the same route
// group together (and into their own documents: the routing attribute is one of their
// dimensions), one that resolves to the scope's route is written on it, and points without
// any keep the scope's route in between.
TEST(EsMetrics, PointsThatRouteThemselves) {
  MetricsFixture f;
  auto& a = f.d.arena;
  f.metric("a", MetricType::Gauge);
  f.metric("b", MetricType::Gauge);
  auto& m1 = f.sm->metrics[0];
  auto& m2 = f.sm->metrics[1];
  f.int_point(m1, 1);                                                                        // doc 0: scope's
  f.int_point(m1, 2).attributes.push_back(kv(a, "data_stream.dataset", s(a, "own")));        // doc 1
  f.int_point(m1, 3).attributes.push_back(kv(a, "data_stream.namespace", s(a, "default")));  // doc 2
  f.int_point(m1, 4).attributes.push_back(kv(a, "elasticsearch.index", s(a, "idx")));        // doc 3
  f.int_point(m2, 5);                                                                        // doc 0
  f.int_point(m2, 6).attributes.push_back(kv(a, "data_stream.dataset", s(a, "own")));        // doc 1
  // A key as long as a routing key that routes nothing: the scope's route (doc 4).
  for (auto* m : {&m1, &m2}) f.int_point(*m, 7).attributes.push_back(kv(a, "service.instance.id", s(a, "i")));
  for (const EncoderConfig& cfg : {EncoderConfig{}, sharing({})}) {
    const EncodedBatch b = f.encode(cfg);
    ASSERT_EQ(b.size(), 5u);
    EXPECT_EQ(action(b, 0)["create"]["_index"], "metrics-generic.otel-default");
    EXPECT_EQ(doc(b, 0)["metrics"], Json::parse(R"({"a":1,"b":5})"));
    EXPECT_EQ(action(b, 1)["create"]["_index"], "metrics-own.otel-default");
    EXPECT_EQ(doc(b, 1)["data_stream"]["dataset"], "own.otel");
    EXPECT_EQ(doc(b, 1)["metrics"], Json::parse(R"({"a":2,"b":6})"));
    EXPECT_EQ(action(b, 2)["create"]["_index"], "metrics-generic.otel-default");
    EXPECT_EQ(doc(b, 2)["data_stream"]["namespace"], "default");
    EXPECT_EQ(doc(b, 2)["metrics"], Json::parse(R"({"a":3})"));
    EXPECT_EQ(action(b, 3)["create"]["_index"], "idx");
    EXPECT_FALSE(doc(b, 3).contains("data_stream"));
    EXPECT_FALSE(doc(b, 1)["attributes"].contains("data_stream.dataset"));
    EXPECT_EQ(action(b, 4)["create"]["_index"], "metrics-generic.otel-default");
    EXPECT_EQ(doc(b, 4)["metrics"], Json::parse(R"({"a":7,"b":7})"));
    EXPECT_EQ(doc(b, 4)["attributes"], Json::parse(R"({"service.instance.id":"i"})"));
  }
}

TEST(EsMetrics, DocumentsThatCannotFitTheOutputBoundAreRejectedAsOutputTooLarge) {
  MetricsFixture f;
  f.rm->resource.attributes.push_back(kv(f.d.arena, "big", s(f.d.arena, std::string(4096, 'x'))));
  auto& m = f.metric("m", MetricType::Gauge);
  for (int i = 0; i < 20; ++i) f.int_point(m, i, 3600000000000ull + i * 1000000ull);  // 20 documents
  auto& same = f.metric("n", MetricType::Gauge);
  for (int i = 0; i < 20; ++i) f.int_point(same, i, 3600000000000ull + i * 1000000ull);  // grouped with m's
  EncoderConfig cfg;
  cfg.max_output_bytes = 64 << 10;  // 20 documents x 4 KiB do not fit
  auto b = f.encode(cfg);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.stats.rejected[std::size_t(EncodeReject::OutputTooLarge)], 40u);  // data points
  cfg.max_output_bytes = 128 << 10;  // the bound counts documents (20), not points (40)
  auto ok = f.encode(cfg);
  EXPECT_EQ(ok.size(), 20u);
  EXPECT_EQ(ok.stats.total_rejected(), 0u);
}

}  // namespace
}  // namespace tern::encoding::es::test
