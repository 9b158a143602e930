// Property test: random batches (all value kinds, unicode, control chars,
// invalid UTF-8, huge/empty/deep values; fixed seeds) always give valid NDJSON
// with the expected number of items.
#include <random>

#include "test_util.h"

namespace tern::encoding::es::test {
namespace {

struct Gen {
  std::mt19937_64 rng;
  const Arena& a;
  Gen(std::uint64_t seed, const Arena& arena) : rng(seed), a(arena) {}
  std::uint64_t u(std::uint64_t n) { return n ? rng() % n : 0; }
  std::string_view str() {
    static const char* pieces[] = {"a",
                                   "\"",
                                   "\\",
                                   "\n",
                                   "\x01",
                                   "\x1f",
                                   "\x7f",
                                   "\xC3\xA9",
                                   "\xE2\x82\xAC",
                                   "\xF0\x9F\x98\x80",
                                   "\x80",
                                   "\xC0",
                                   "\xED\xA0\x80",
                                   "\xF4\x90\x80\x80",
                                   "\xE2\x82",
                                   "data_stream.dataset",
                                   "geo.location.lat",
                                   ".",
                                   " ",
                                   "receiver/"};
    std::string s;
    const auto n = u(8) == 0 ? u(3000) : u(12);
    for (std::uint64_t i = 0; i < n; ++i) s += pieces[u(std::size(pieces))];
    return a.copy(s);
  }
  AnyValue value(int depth) {
    switch (u(depth > 3 ? 6 : 8)) {
      case 0:
        return AnyValue{};
      case 1:
        return AnyValue::string(str());
      case 2:
        return AnyValue::boolean(u(2));
      case 3:
        return AnyValue::integer(static_cast<std::int64_t>(rng()));
      case 4: {
        double d;
        std::uint64_t bits = rng();
        std::memcpy(&d, &bits, 8);  // includes NaN, Inf, denormals
        return AnyValue::dbl(u(3) ? static_cast<double>(static_cast<std::int64_t>(rng() % 1000)) / 7 : d);
      }
      case 5:
        return AnyValue::bytes(str());
      case 6: {
        auto* v = a.make<Vec<AnyValue>>(a.vec<AnyValue>());
        for (auto n = u(5); n; --n) v->push_back(value(depth + 1));
        return AnyValue::make_array(v);
      }
      default: {
        auto* v = a.make<Vec<KeyValue>>(a.vec<KeyValue>());
        for (auto n = u(5); n; --n) v->push_back({str(), value(depth + 1)});
        return AnyValue::make_kvlist(v);
      }
    }
  }
  void attrs(Attributes& at) {
    static const char* keys[] = {"data_stream.dataset", "data_stream.namespace",
                                 "elasticsearch.index", "elasticsearch.mapping.hints",
                                 "geo.location.lat",    "geo.location.lon",
                                 "x.geo.location.lat",  "x.geo.location.lon",
                                 "event.name",          "k"};
    for (auto n = u(6); n; --n) {
      if (u(2))
        at.push_back({keys[u(std::size(keys))], u(2) ? value(0) : AnyValue::dbl(1.5)});
      else
        at.push_back({str(), value(0)});
    }
  }
  template <std::size_t N>
  void id(std::array<std::uint8_t, N>& x) {
    if (u(2))
      for (auto& b : x) b = static_cast<std::uint8_t>(rng());
  }
};

AnyValue deep(const Arena& a, int depth) {
  if (depth == 0) return AnyValue::integer(1);
  auto* v = a.make<Vec<AnyValue>>(a.vec<AnyValue>());
  v->push_back(deep(a, depth - 1));
  return AnyValue::make_array(v);
}

class EsFuzz : public ::testing::TestWithParam<int> {};

// A random logs batch; returns its record count.
std::size_t random_logs(LogsData& d, std::uint64_t seed) {
  Gen g(seed, d.arena);
  std::size_t expected = 0;
  for (auto r = g.u(3) + 1; r; --r) {
    auto& rl = d.resource_logs.emplace_back(d.arena);
    g.attrs(rl.resource.attributes);
    rl.schema_url = g.str();
    for (auto sc = g.u(3); sc; --sc) {
      auto& sl = rl.scope_logs.emplace_back(d.arena);
      sl.scope.name = g.str();
      g.attrs(sl.scope.attributes);
      for (auto n = g.u(20); n; --n, ++expected) {
        auto& lr = sl.log_records.emplace_back(d.arena);
        lr.time_unix_nano = g.rng();
        lr.observed_time_unix_nano = g.rng();
        lr.severity_number = static_cast<std::int32_t>(g.rng());
        lr.severity_text = g.str();
        lr.body = g.u(10) == 0 ? deep(d.arena, 500) : g.value(0);
        lr.event_name = g.str();
        g.id(lr.trace_id);
        g.id(lr.span_id);
        g.attrs(lr.attributes);
      }
    }
  }
  return expected;
}

TEST_P(EsFuzz, LogsAreValidNdjson) {
  LogsData d;
  const std::size_t expected = random_logs(d, static_cast<std::uint64_t>(GetParam()));
  EncodedBatch b;
  Encoder enc(config({}, {}, {}, true));
  enc.encode_logs(d, b);
  expect_valid(b);
  EXPECT_EQ(b.size(), expected);
  std::string first = b.data;
  b.clear();
  enc.encode_logs(d, b);  // reuse: deterministic output
  EXPECT_EQ(b.data, first);
  EncodedBatch shared;
  Encoder(sharing(config({}, {}, {}, true))).encode_logs(d, shared);
  expect_shared_equivalent(shared, b);
}

// A random traces batch; returns its span count and its span event count.
std::pair<std::size_t, std::size_t> random_traces(TracesData& d, std::uint64_t seed) {
  Gen g(seed, d.arena);
  std::size_t spans = 0, events = 0;
  auto& rs = d.resource_spans.emplace_back(d.arena);
  g.attrs(rs.resource.attributes);
  auto& ss = rs.scope_spans.emplace_back(d.arena);
  for (auto n = g.u(20); n; --n) {
    auto& sp = ss.spans.emplace_back(d.arena);
    ++spans;
    sp.name = g.str();
    sp.trace_state = g.str();
    sp.kind = static_cast<SpanKind>(g.u(8));
    sp.start_time_unix_nano = g.rng();
    sp.end_time_unix_nano = g.rng();
    sp.status.code = static_cast<StatusCode>(g.u(4));
    sp.status.message = g.str();
    g.id(sp.trace_id);
    g.id(sp.span_id);
    g.id(sp.parent_span_id);
    g.attrs(sp.attributes);
    for (auto k = g.u(3); k; --k) {
      auto& l = sp.links.emplace_back(d.arena);
      g.id(l.trace_id);
      g.attrs(l.attributes);
    }
    for (auto k = g.u(3); k; --k, ++events) {
      auto& e = sp.events.emplace_back(d.arena);
      e.name = g.str();
      e.time_unix_nano = g.rng();
      g.attrs(e.attributes);
    }
  }
  return {spans, events};
}

TEST_P(EsFuzz, TracesAreValidNdjson) {
  TracesData d;
  const auto [spans, events] = random_traces(d, static_cast<std::uint64_t>(GetParam()) + 1000);
  const std::size_t expected = spans + events;
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_traces(d, b);
  expect_valid(b);
  EXPECT_EQ(b.size(), expected);
  EncodedBatch shared;
  Encoder(sharing({})).encode_traces(d, shared);
  expect_shared_equivalent(shared, b);
}

// The none, raw and ecs modes sort and de-dot: besides valid JSON, no object may repeat a
// key (Elasticsearch refuses such documents), whatever keys the attributes bring.
TEST_P(EsFuzz, NoneRawAndEcsModesGiveValidDocumentsWithoutDuplicateKeys) {
  LogsData logs;
  const std::size_t records = random_logs(logs, static_cast<std::uint64_t>(GetParam()) + 2000);
  TracesData traces;
  const std::size_t spans = random_traces(traces, static_cast<std::uint64_t>(GetParam()) + 3000).first;
  for (const MappingMode mode : {MappingMode::None, MappingMode::Raw, MappingMode::Ecs}) {
    EncoderConfig c = config({}, {}, {}, true);
    c.mode = mode;
    Encoder enc(c);
    EncodedBatch b;
    enc.encode_logs(logs, b);
    expect_valid(b);
    expect_no_duplicate_keys(b);
    EXPECT_EQ(b.size(), records);
    const std::string first = b.data;
    b.clear();
    enc.encode_logs(logs, b);  // reuse: deterministic output
    EXPECT_EQ(b.data, first);
    EncodedBatch t;
    enc.encode_traces(traces, t);
    expect_valid(t);
    expect_no_duplicate_keys(t);
    EXPECT_EQ(t.size(), spans);  // events are fields of their span (none, raw) or not written (ecs)
  }
}

TEST_P(EsFuzz, MetricsAreValidNdjson) {
  MetricsData d;
  Gen g(static_cast<std::uint64_t>(GetParam()) + 2000, d.arena);
  auto& rm = d.resource_metrics.emplace_back(d.arena);
  g.attrs(rm.resource.attributes);
  auto& sm = rm.scope_metrics.emplace_back(d.arena);
  std::uint64_t points = 0;
  for (auto n = g.u(30); n; --n) {
    auto& m = sm.metrics.emplace_back(d.arena);
    if (g.u(3)) {
      std::string nm = "m";
      nm += static_cast<char>('0' + g.u(5));
      m.name = d.arena.copy(nm);
    } else {
      m.name = g.str();
    }
    m.unit = g.u(2) ? g.str() : std::string_view{};
    m.type = static_cast<MetricType>(g.u(6));
    m.temporality = static_cast<AggregationTemporality>(g.u(3));
    m.is_monotonic = g.u(2);
    for (auto k = g.u(4); k; --k) {
      const std::uint64_t ts = g.u(3) * 1000000;
      auto rnd_double = [&] { return g.u(5) == 0 ? std::nan("") : static_cast<double>(g.u(100)) - 50; };
      switch (m.type) {
        case MetricType::Gauge:
        case MetricType::Sum: {
          auto& p = m.number_points.emplace_back(d.arena);
          p.time_unix_nano = ts;
          p.value_type = static_cast<NumberType>(g.u(3));
          p.as_int = static_cast<std::int64_t>(g.rng());
          p.as_double = rnd_double();
          if (g.u(2)) g.attrs(p.attributes);
          break;
        }
        case MetricType::Histogram: {
          auto& p = m.histogram_points.emplace_back(d.arena);
          p.time_unix_nano = ts;
          p.count = g.u(10);
          p.sum = rnd_double();
          for (auto c = g.u(5); c; --c) p.bucket_counts.push_back(g.u(3));
          for (auto c = g.u(5); c; --c) p.explicit_bounds.push_back(rnd_double());
          break;
        }
        case MetricType::ExponentialHistogram: {
          auto& p = m.exponential_histogram_points.emplace_back(d.arena);
          p.time_unix_nano = ts;
          p.scale = static_cast<std::int32_t>(g.u(50)) - 25;
          p.zero_count = g.u(3);
          p.positive.offset = static_cast<std::int32_t>(g.rng());
          p.negative.offset = static_cast<std::int32_t>(g.u(100)) - 50;
          for (auto c = g.u(5); c; --c) p.positive.bucket_counts.push_back(g.u(3));
          for (auto c = g.u(5); c; --c) p.negative.bucket_counts.push_back(g.u(3));
          break;
        }
        case MetricType::Summary: {
          auto& p = m.summary_points.emplace_back(d.arena);
          p.time_unix_nano = ts;
          p.count = g.u(10);
          p.sum = rnd_double();
          break;
        }
        case MetricType::Empty:
          break;
      }
    }
    points += m.point_count();
  }
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_metrics(d, b);
  expect_valid(b);
  EncodedBatch shared;
  Encoder(sharing({})).encode_metrics(d, shared);
  expect_shared_equivalent(shared, b);
  // Every data point is either in a document or counted as rejected (EmptyMetric
  // also counts each metric without a data kind).
  std::uint64_t empty_metrics = 0;
  for (const auto& m : sm.metrics) empty_metrics += m.type == MetricType::Empty;
  EXPECT_EQ(b.event_count() + b.stats.total_rejected(), points + empty_metrics);
}

INSTANTIATE_TEST_SUITE_P(Seeds, EsFuzz, ::testing::Range(1, 41));

}  // namespace
}  // namespace tern::encoding::es::test
