// The objmodel baseline (bench/encoding) must produce the same documents as the
// direct encoder, semantically: both parsed and compared line by line.
#include <cmath>

#include "objmodel.h"
#include "test_util.h"
#include "workload.h"

namespace tern::encoding::es::test {
namespace {

void expect_same(const EncodedBatch& direct, const EncodedBatch& obj) {
  ASSERT_EQ(direct.size(), obj.size());
  for (std::size_t i = 0; i < direct.size(); ++i) {
    EXPECT_EQ(action(direct, i), action(obj, i)) << i;
    EXPECT_EQ(doc(direct, i), doc(obj, i)) << i;
    EXPECT_EQ(direct.items[i].events, obj.items[i].events);
  }
}

TEST(EsObjModel, WorkloadsMatch) {
  for (std::size_t n : {1u, 10u, 100u}) {
    LogsData logs;
    tern::bench::build_logs_workload(n, logs);
    TracesData traces;
    tern::bench::build_traces_workload(n, traces);
    MetricsData metrics;
    tern::bench::build_metrics_workload(n, metrics);
    Encoder direct(EncoderConfig{});
    tern::bench::ObjModelEncoder obj(EncoderConfig{});
    EncodedBatch a, b;
    direct.encode_logs(logs, a);
    obj.encode_logs(logs, b);
    expect_valid(a);
    expect_same(a, b);
    a.clear(), b.clear();
    direct.encode_traces(traces, a);
    obj.encode_traces(traces, b);
    expect_same(a, b);
    a.clear(), b.clear();
    direct.encode_metrics(metrics, a);
    obj.encode_metrics(metrics, b);
    EXPECT_EQ(a.size(), 7 * n);
    expect_same(a, b);
  }
}

// EncodeTraced/logs: records with their own timestamps and ids.
TEST(EsObjModel, TracedLogsWorkloadMatches) {
  for (std::size_t n : {1u, 10u, 1000u}) {
    LogsData logs;
    tern::bench::build_traced_logs_workload(n, logs);
    EncodedBatch a, b;
    Encoder(EncoderConfig{}).encode_logs(logs, a);
    tern::bench::ObjModelEncoder(EncoderConfig{}).encode_logs(logs, b);
    expect_valid(a);
    ASSERT_EQ(a.size(), n);
    expect_same(a, b);
    EXPECT_EQ(doc(a, n - 1)["span_id"].get<std::string>().size(), 16u);
    if (n > 1) {
      EXPECT_NE(doc(a, 0)["@timestamp"], doc(a, 1)["@timestamp"]);
    }
  }
}

TEST(EsObjModel, BodyMapWorkloadMatches) {
  EncoderConfig config;
  config.mode = MappingMode::BodyMap;
  for (std::size_t n : {1u, 10u, 100u}) {
    LogsData logs;
    tern::bench::build_bodymap_workload(n, logs);
    EncodedBatch a, b;
    Encoder(config).encode_logs(logs, a);
    tern::bench::ObjModelEncoder(config).encode_logs(logs, b);
    expect_valid(a);
    ASSERT_EQ(a.size(), n);
    expect_same(a, b);
    EXPECT_EQ(doc(a, 0)["message"], "Load Generator Counter #0");
  }
}

TEST(EsObjModel, RichBatchMatches) {
  LogsData d;
  auto& a = d.arena;
  auto& rl = d.resource_logs.emplace_back(a);
  rl.resource.attributes.push_back(kv(a, "service.name", s(a, "svc \"q\" \xC3\xA9")));
  auto& sl = rl.scope_logs.emplace_back(a);
  sl.scope.name = "x/receiver/filelogreceiver";
  sl.scope.attributes.push_back(kv(a, "data_stream.namespace", s(a, "NS")));
  auto& r = sl.log_records.emplace_back(a);
  r.time_unix_nano = 1721314113467654123ull;
  r.severity_text = "WARN";
  r.attributes.push_back(kv(
      a, "m", kvlist(a, {kv(a, "a.b", array(a, {AnyValue{}, AnyValue::dbl(2), AnyValue::bytes("\x01")}))})));
  r.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "doc-1")));
  r.body = array(a, {s(a, "line\n\ttab"), AnyValue::integer(-1)});
  auto& r2 = sl.log_records.emplace_back(a);
  r2.body = kvlist(a, {kv(a, "k", AnyValue::boolean(false))});
  r2.attributes.push_back(kv(a, "elasticsearch.index", s(a, "custom")));
  EncoderConfig cfg = config({}, {}, {}, true);
  EncodedBatch x, y;
  Encoder(cfg).encode_logs(d, x);
  tern::bench::ObjModelEncoder(cfg).encode_logs(d, y);
  expect_same(x, y);
}

TEST(EsObjModel, RichBodyMapBatchMatches) {
  LogsData d;
  auto& a = d.arena;
  auto& rl = d.resource_logs.emplace_back(a);
  rl.resource.attributes.push_back(kv(a, "data_stream.dataset", s(a, "Web Access")));
  auto& sl = rl.scope_logs.emplace_back(a);
  const std::string long_key(300, 'k'), long_value = std::string(150, '"') + std::string(150, '\x01');
  auto& r = sl.log_records.emplace_back(a);
  r.body =
      kvlist(a, {kv(a, long_key, s(a, long_value)), kv(a, "caf\xC3\xA9 \xF0\x9F\x98\x80", s(a, "tab\tnl\n")),
                 kv(a, "nested",
                    kvlist(a, {kv(a, "list",
                                  array(a, {kvlist(a, {kv(a, "x", AnyValue::integer(-7))}),
                                            AnyValue::bytes("\x00\xff"), AnyValue{}}))})),
                 kv(a, "nan", AnyValue::dbl(std::nan(""))), kv(a, "empty", AnyValue{}),
                 kv(a, "big", AnyValue::dbl(1e300)), kv(a, "dup", AnyValue::integer(1)),
                 kv(a, "dup", AnyValue::integer(2)), kv(a, "m", kvlist(a, {}))});
  auto& metrics = sl.log_records.emplace_back(a);
  metrics.body = kvlist(a, {kv(a, "v", AnyValue::dbl(0.5))});
  metrics.attributes.push_back(kv(a, "data_stream.type", s(a, "metrics")));
  metrics.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "id-2")));
  sl.log_records.emplace_back(a).body = s(a, "text: rejected");
  auto& bad = sl.log_records.emplace_back(a);
  bad.body = kvlist(a, {});
  bad.attributes.push_back(kv(a, "data_stream.type", s(a, "traces")));
  EncoderConfig cfg = config({}, {}, {}, true);
  cfg.mode = MappingMode::BodyMap;
  EncodedBatch x, y;
  Encoder(cfg).encode_logs(d, x);
  tern::bench::ObjModelEncoder(cfg).encode_logs(d, y);
  expect_valid(x);
  ASSERT_EQ(x.size(), 2u);
  expect_same(x, y);
  EXPECT_EQ(x.stats.rejected, y.stats.rejected);
  EXPECT_EQ(action(x, 1), Json::parse(R"({"create":{"_id":"id-2","_index":"metrics-web_access-default"}})"));
}

// The none, raw and ecs modes against the Collector's way of building them (sort,
// de-duplicate, nest a tree), on the benchmark workloads and on keys that need every rule.
TEST(EsObjModel, NoneRawAndEcsModesMatch) {
  LogsData rich;
  auto& a = rich.arena;
  auto& rl = rich.resource_logs.emplace_back(a);
  rl.resource.attributes.push_back(kv(a, "service.name", s(a, "svc \"q\" \xC3\xA9")));
  rl.resource.attributes.push_back(kv(a, "service", kvlist(a, {kv(a, "version", s(a, "1"))})));
  auto& sl = rl.scope_logs.emplace_back(a);
  sl.scope.name = "x/receiver/filelogreceiver";
  sl.scope.attributes.push_back(kv(a, "name", s(a, "replaces the scope name")));
  auto& r = sl.log_records.emplace_back(a);
  r.time_unix_nano = 1721314113467654123ull;
  r.trace_id[3] = 7;
  r.attributes.push_back(kv(a, "a", AnyValue::integer(1)));
  r.attributes.push_back(kv(a, "a-b", AnyValue::integer(2)));
  r.attributes.push_back(kv(a, "a.c", AnyValue::dbl(0.25)));
  r.attributes.push_back(kv(a, "x", AnyValue::integer(1)));
  r.attributes.push_back(kv(a, "x.value.z", AnyValue::integer(3)));
  r.attributes.push_back(kv(a, "x.y", AnyValue::integer(2)));
  r.attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  r.attributes.push_back(kv(a, "k", AnyValue::integer(2)));
  r.attributes.push_back(kv(
      a, "m",
      kvlist(a, {kv(a, "list",
                    array(a, {kvlist(a, {kv(a, "b.c", AnyValue::boolean(true)), kv(a, "b", s(a, "scalar"))}),
                              AnyValue::bytes("\x01"), AnyValue{}, array(a, {})}))})));
  r.body = kvlist(a, {kv(a, "msg", s(a, "line\n\ttab")), kv(a, "n", AnyValue::integer(-1))});
  sl.log_records.emplace_back(a).attributes.push_back(kv(a, "data_stream.dataset", s(a, "App")));
  // ecs: conversions, the fields ECS derives, and record fields beside attributes of their name
  rl.resource.attributes.push_back(kv(a, "host.name", s(a, "h")));
  rl.resource.attributes.push_back(kv(a, "telemetry.sdk.language", s(a, "go")));
  rl.resource.attributes.push_back(kv(a, "os.type", s(a, "aix")));
  r.attributes.push_back(kv(a, "exception.type", s(a, "E")));
  r.attributes.push_back(kv(a, "log.level", s(a, "attr")));
  r.severity_text = "WARN";
  r.severity_number = 13;
  for (const MappingMode mode : {MappingMode::None, MappingMode::Raw, MappingMode::Ecs}) {
    EncoderConfig cfg;
    cfg.mode = mode;
    for (std::size_t n : {1u, 10u, 100u}) {
      LogsData logs;
      tern::bench::build_logs_workload(n, logs);
      TracesData traces;
      tern::bench::build_traces_workload(n, traces);
      EncodedBatch x, y;
      Encoder(cfg).encode_logs(logs, x);
      tern::bench::ObjModelEncoder(cfg).encode_logs(logs, y);
      ASSERT_EQ(x.size(), n);
      expect_same(x, y);
      x.clear(), y.clear();
      Encoder(cfg).encode_traces(traces, x);
      tern::bench::ObjModelEncoder(cfg).encode_traces(traces, y);
      ASSERT_EQ(x.size(), n);
      expect_same(x, y);
    }
    EncodedBatch x, y;
    Encoder(cfg).encode_logs(rich, x);
    tern::bench::ObjModelEncoder(cfg).encode_logs(rich, y);
    expect_valid(x);
    expect_no_duplicate_keys(x);
    ASSERT_EQ(x.size(), 2u);
    expect_same(x, y);
  }
  // ecs spans: their conversions, links (one with no ids: null), kind and outcome
  TracesData spans;
  auto& ta = spans.arena;
  auto& rs = spans.resource_spans.emplace_back(ta);
  rs.resource.attributes.push_back(kv(ta, "k8s.pod.name", s(ta, "p")));
  auto& ss = rs.scope_spans.emplace_back(ta);
  ss.scope.attributes.push_back(kv(ta, "lib", AnyValue::integer(1)));
  for (const char* event : {"transaction", "span"}) {
    auto& sp = ss.spans.emplace_back(ta);
    sp.span_id[0] = 1;
    sp.parent_span_id[7] = 2;
    sp.kind = SpanKind::Producer;
    sp.status.code = StatusCode::Ok;
    sp.attributes.push_back(kv(ta, "processor.event", s(ta, event)));
    sp.attributes.push_back(kv(ta, "messaging.destination.name", s(ta, "q")));
    sp.attributes.push_back(kv(ta, "db.system", s(ta, "redis")));
    sp.links.emplace_back(ta).trace_id[0] = 9;
    sp.links.emplace_back(ta);
  }
  EncoderConfig ecs;
  ecs.mode = MappingMode::Ecs;
  EncodedBatch x, y;
  Encoder(ecs).encode_traces(spans, x);
  tern::bench::ObjModelEncoder(ecs).encode_traces(spans, y);
  expect_valid(x);
  expect_no_duplicate_keys(x);
  ASSERT_EQ(x.size(), 2u);
  expect_same(x, y);
}

}  // namespace
}  // namespace tern::encoding::es::test
