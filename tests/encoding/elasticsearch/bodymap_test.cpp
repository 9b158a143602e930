// The bodymap mapping mode: a log record's map body is the document, as the OpenTelemetry
// Collector's `mapping.mode: bodymap` writes it; everything else is rejected and counted.
#include "test_util.h"

namespace tern::encoding::es::test {
namespace {

EncoderConfig bodymap(std::string logs_index = {}) {
  EncoderConfig c = config(std::move(logs_index));
  c.mode = MappingMode::BodyMap;
  return c;
}

TEST(EsBodyMap, ParsesItsName) {
  EXPECT_EQ(parse_mapping_mode("otel"), MappingMode::Otel);
  EXPECT_EQ(parse_mapping_mode("bodymap"), MappingMode::BodyMap);
  EXPECT_EQ(parse_mapping_mode("BodyMap"), MappingMode::BodyMap);  // in any case, as the Collector
  EXPECT_FALSE(parse_mapping_mode("logsdb"));
  EXPECT_FALSE(parse_mapping_mode("body map"));
}

TEST(EsBodyMap, TheMapBodyIsTheDocumentExactly) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));  // not in the document
  auto& r = f.add();
  r.time_unix_nano = 1721314113467654123ull;
  r.severity_text = "INFO";
  r.attributes.push_back(kv(a, "attr", s(a, "not in the document")));
  r.body =
      kvlist(a, {kv(a, "@timestamp", s(a, "2024-03-12T20:00:41.123456789Z")),
                 kv(a, "id", AnyValue::integer(1)), kv(a, "key.a", s(a, "dotted keys stay as they are")),
                 kv(a, "pi", AnyValue::dbl(3.14)), kv(a, "ok", AnyValue::boolean(true)),
                 kv(a, "nested", kvlist(a, {kv(a, "list", array(a, {AnyValue::integer(1), s(a, "two")}))})),
                 kv(a, "q\"uote\n", s(a, "line\nbreak"))});
  auto b = f.encode(bodymap());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-generic-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"2024-03-12T20:00:41.123456789Z","id":1,"key.a":"dotted keys stay as they are","pi":3.14,"ok":true,"nested":{"list":[1,"two"]},"q\"uote\n":"line\nbreak"})");
  EXPECT_EQ(b.items[0].events, 1u);
  EXPECT_EQ(b.stats.total_rejected(), 0u);
}

TEST(EsBodyMap, RecordsWithoutAMapBodyAreRejectedAndCounted) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().body = s(a, "a text body");
  f.add().body = kvlist(a, {});  // an empty map is a map: the document is {}
  f.add();                       // no body
  f.add().body = array(a, {kvlist(a, {kv(a, "k", AnyValue::integer(1))})});
  f.add().body = AnyValue::integer(7);
  f.add().body = kvlist(a, {kv(a, "k", AnyValue::integer(2))});
  auto b = f.encode(bodymap());
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(doc_text(b, 0), "{}");
  EXPECT_EQ(doc_text(b, 1), R"({"k":2})");
  EXPECT_EQ(rejected(b, EncodeReject::BodyNotMap), 4u);
  EXPECT_EQ(b.stats.total_rejected(), 4u);
}

TEST(EsBodyMap, RoutesWithoutTheOtelSuffixAndHonoursDataStreamType) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.sl->scope.attributes.push_back(kv(a, "data_stream.dataset", s(a, "Nginx.Access")));
  const auto body = kvlist(a, {kv(a, "m", AnyValue::integer(1))});
  f.add().body = body;  // the scope's route
  auto& metrics = f.add();
  metrics.body = body;
  metrics.attributes.push_back(kv(a, "data_stream.type", s(a, "metrics")));
  metrics.attributes.push_back(kv(a, "data_stream.namespace", s(a, "prod")));
  auto& logs = f.add();
  logs.body = body;
  logs.attributes.push_back(kv(a, "data_stream.type", s(a, "logs")));
  auto& traces = f.add();  // neither logs nor metrics
  traces.body = body;
  traces.attributes.push_back(kv(a, "data_stream.type", s(a, "traces")));
  auto& index = f.add();  // an explicit index takes no type
  index.body = body;
  index.attributes.push_back(kv(a, "data_stream.type", s(a, "traces")));
  index.attributes.push_back(kv(a, "elasticsearch.index", s(a, "my-index")));
  auto b = f.encode(bodymap());
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-nginx.access-default\"}}\n");
  EXPECT_EQ(b.action(1), "{\"create\":{\"_index\":\"metrics-nginx.access-prod\"}}\n");
  EXPECT_EQ(b.action(2), "{\"create\":{\"_index\":\"logs-nginx.access-default\"}}\n");
  EXPECT_EQ(b.action(3), "{\"create\":{\"_index\":\"my-index\"}}\n");
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(doc_text(b, i), R"({"m":1})");
  EXPECT_EQ(rejected(b, EncodeReject::BadDataStreamType), 1u);

  // A bad type at the scope rejects the scope's records, unless a record names its own.
  f.sl->scope.attributes.push_back(kv(a, "data_stream.type", s(a, "profiles")));
  b = f.encode(bodymap());
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"metrics-nginx.access-prod\"}}\n");
  EXPECT_EQ(rejected(b, EncodeReject::BadDataStreamType), 2u);
}

TEST(EsBodyMap, StaticIndexDynamicIdAndSharedActionLines) {
  LogsFixture f;
  auto& a = f.d.arena;
  for (int i = 0; i < 3; ++i) {
    auto& r = f.add();
    r.body = kvlist(a, {kv(a, "i", AnyValue::integer(i))});
    r.attributes.push_back(kv(a, "data_stream.type", s(a, "ignored with a static index")));
    if (i == 1) r.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "doc-1")));
  }
  auto cfg = bodymap("my-logs");
  cfg.logs_dynamic_id = true;
  auto plain = f.encode(cfg);
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_EQ(plain.action(0), "{\"create\":{\"_index\":\"my-logs\"}}\n");
  EXPECT_EQ(plain.action(1), "{\"create\":{\"_id\":\"doc-1\",\"_index\":\"my-logs\"}}\n");
  EXPECT_EQ(doc_text(plain, 2), R"({"i":2})");
  cfg.share_action_lines = true;
  auto shared = f.encode(cfg);
  expect_shared_equivalent(shared, plain);
  EXPECT_TRUE(shared.items[2].shares_action());
}

TEST(EsBodyMap, SpansAndDataPointsAreUnsupportedAndCounted) {
  Encoder enc(bodymap());
  TracesData t;
  auto& ss = t.resource_spans.emplace_back(t.arena).scope_spans.emplace_back(t.arena);
  ss.spans.emplace_back(t.arena).events.emplace_back(t.arena);
  ss.spans.emplace_back(t.arena);
  EncodedBatch b;
  enc.encode_traces(t, b);
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.data.empty());
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);

  MetricsData m;
  auto& metric =
      m.resource_metrics.emplace_back(m.arena).scope_metrics.emplace_back(m.arena).metrics.emplace_back(
          m.arena);
  metric.name = "g";
  metric.type = MetricType::Gauge;
  metric.number_points.emplace_back(m.arena);
  metric.number_points.emplace_back(m.arena);
  metric.number_points.emplace_back(m.arena);
  b.clear();
  enc.encode_metrics(m, b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 3u);
  EXPECT_STREQ(to_string(EncodeReject::UnsupportedMode), "unsupported_mode");
  EXPECT_STREQ(to_string(EncodeReject::BodyNotMap), "body_not_map");
  EXPECT_STREQ(to_string(EncodeReject::BadDataStreamType), "bad_data_stream_type");
}

// The scope attribute `elastic.mapping.mode` picks the mode per scope, over the configured
// one, as in the OpenTelemetry Collector (which now prefers it to its mapping::mode).
TEST(EsBodyMap, TheScopeAttributeChoosesTheModePerScope) {
  LogsData d;
  auto& a = d.arena;
  auto& rl = d.resource_logs.emplace_back(a);
  const auto add_scope = [&](const char* mode) -> ScopeLogs& {  // nullptr: no attribute
    auto& sl = rl.scope_logs.emplace_back(a);
    if (mode) sl.scope.attributes.push_back(kv(a, "elastic.mapping.mode", s(a, mode)));
    sl.log_records.emplace_back(a).body = kvlist(a, {kv(a, "k", AnyValue::integer(1))});
    sl.log_records.emplace_back(a).body = s(a, "text");
    return sl;
  };
  add_scope("bodymap");
  add_scope(nullptr);             // no attribute: the configured mode
  add_scope("");                  // empty: none, as the Collector reads it
  add_scope("logsdb");            // a mode Tern does not have: rejected, not guessed
  add_scope("otel");
  // Another kind is its text (the Collector's AsString): 5 is "5", no mode.
  rl.scope_logs.emplace_back(a).scope.attributes.push_back(
      kv(a, "elastic.mapping.mode", AnyValue::integer(5)));
  rl.scope_logs.back().log_records.emplace_back(a).body = s(a, "text");

  EncodedBatch b;
  Encoder(config()).encode_logs(d, b);  // configured: otel
  expect_valid(b);
  ASSERT_EQ(b.size(), 1u + 2 + 2 + 2);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-generic-default\"}}\n");
  EXPECT_EQ(doc_text(b, 0), R"({"k":1})");
  for (std::size_t i : {1, 2, 5, 6}) {
    EXPECT_EQ(b.action(i), "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n");
    EXPECT_TRUE(doc(b, i).contains("body")) << doc_text(b, i);
  }
  for (std::size_t i : {3, 4}) {  // none mode: the Collector's original shape
    EXPECT_EQ(b.action(i), "{\"create\":{\"_index\":\"logs-generic-default\"}}\n");
    EXPECT_TRUE(doc(b, i).contains("Body")) << doc_text(b, i);
  }
  EXPECT_EQ(rejected(b, EncodeReject::BodyNotMap), 1u);
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 3u);

  b.clear();
  Encoder(bodymap()).encode_logs(d, b);  // configured: bodymap
  expect_valid(b);
  ASSERT_EQ(b.size(), 1u + 1 + 2 + 2);  // bodymap, none (map bodies only), empty (none), otel
  EXPECT_EQ(doc_text(b, 1), R"({"k":1})");
  EXPECT_TRUE(doc(b, 2).contains("Body"));
  EXPECT_TRUE(doc(b, 4).contains("body"));
  EXPECT_EQ(rejected(b, EncodeReject::BodyNotMap), 2u);
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 3u);
}

TEST(EsBodyMap, ScopesOfSpansAndMetricsAskingForBodyMapAreUnsupported) {
  TracesData t;
  auto& rs = t.resource_spans.emplace_back(t.arena);
  auto& bodymap_scope = rs.scope_spans.emplace_back(t.arena);
  bodymap_scope.scope.attributes.push_back(kv(t.arena, "elastic.mapping.mode", s(t.arena, "bodymap")));
  bodymap_scope.spans.emplace_back(t.arena);
  bodymap_scope.spans.emplace_back(t.arena);
  rs.scope_spans.emplace_back(t.arena).spans.emplace_back(t.arena);
  EncodedBatch b;
  Encoder(config()).encode_traces(t, b);
  expect_valid(b);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);

  // The other way round: a bodymap encoder encodes the spans of a scope that asks for otel.
  rs.scope_spans[1].scope.attributes.push_back(kv(t.arena, "elastic.mapping.mode", s(t.arena, "otel")));
  b.clear();
  Encoder(bodymap()).encode_traces(t, b);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);

  MetricsData m;
  auto& sm = m.resource_metrics.emplace_back(m.arena).scope_metrics.emplace_back(m.arena);
  sm.scope.attributes.push_back(kv(m.arena, "elastic.mapping.mode", s(m.arena, "bodymap")));
  auto& g = sm.metrics.emplace_back(m.arena);
  g.name = "g";
  g.type = MetricType::Gauge;
  g.number_points.emplace_back(m.arena);
  g.number_points.emplace_back(m.arena);
  b.clear();
  Encoder(config()).encode_metrics(m, b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);
}

}  // namespace
}  // namespace tern::encoding::es::test
