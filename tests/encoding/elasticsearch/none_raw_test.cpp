// The none and raw mapping modes: log records and spans in the OpenTelemetry Collector's
// original document shape (its objmodel): flattened, sorted, de-duplicated, de-dotted.
#include "encoding/elasticsearch/flat_document.h"
#include "test_util.h"

namespace tern::encoding::es::test {
namespace {

EncoderConfig mode_config(MappingMode mode, std::string logs_index = {}, std::string traces_index = {}) {
  EncoderConfig c = config(std::move(logs_index), {}, std::move(traces_index));
  c.mode = mode;
  return c;
}

std::string rfc3339(std::uint64_t ns) {
  char buf[kRfc3339NanoRoom];
  return {buf, rfc3339_nano(buf, ns)};
}

TEST(EsNoneRaw, ParsesTheirNames) {
  EXPECT_EQ(parse_mapping_mode("none"), MappingMode::None);
  EXPECT_EQ(parse_mapping_mode("raw"), MappingMode::Raw);
  // As the Collector reads them: in any case, "" and "no" for none.
  EXPECT_EQ(parse_mapping_mode("None"), MappingMode::None);
  EXPECT_EQ(parse_mapping_mode("RAW"), MappingMode::Raw);
  EXPECT_EQ(parse_mapping_mode("no"), MappingMode::None);
  EXPECT_EQ(parse_mapping_mode(""), MappingMode::None);
  EXPECT_EQ(parse_mapping_mode("OTel"), MappingMode::Otel);
  EXPECT_FALSE(parse_mapping_mode("nonee"));
}

TEST(EsNoneRaw, TimestampsAreRfc3339WithNineFractionDigits) {
  EXPECT_EQ(rfc3339(kT), "2024-07-18T14:48:33.467654123Z");
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(rfc3339(1709251199999999999ull), "2024-02-29T23:59:59.999999999Z");  // leap day
  EXPECT_EQ(rfc3339(UINT64_MAX), "2554-07-21T23:34:33.709551615Z");
}

// Shared by the log record tests: every kind of field the none mode writes.
void fill_record(LogsFixture& f) {
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));
  f.rl->resource.attributes.push_back(kv(a, "host.name", s(a, "h1")));
  f.sl->scope.name = "my.lib";
  f.sl->scope.version = "1.0";
  f.sl->scope.attributes.push_back(kv(a, "team", s(a, "a")));
  auto& r = f.add();
  r.time_unix_nano = kT;
  r.observed_time_unix_nano = kT + 5;
  r.trace_id = id<16>(1);
  r.span_id = id<8>(0xa0);
  r.flags = 1;
  r.severity_text = "WARN";
  r.severity_number = 13;
  r.body = s(a, "hello \"world\"");
  r.attributes.push_back(kv(a, "http.method", s(a, "GET")));
  r.attributes.push_back(kv(a, "http", kvlist(a, {kv(a, "status_code", AnyValue::integer(200))})));
  r.attributes.push_back(kv(a, "user", s(a, "bob")));
  r.attributes.push_back(kv(a, "raw", AnyValue::bytes(a.copy("\x01\x02"))));  // no bytes kind: dropped
  r.attributes.push_back(kv(a, "nothing", AnyValue{}));                       // empty: dropped
  r.attributes.push_back(kv(a, "none", array(a, {})));                        // empty array: dropped
  r.attributes.push_back(kv(a, "tags", array(a, {s(a, "x"), AnyValue::dbl(2.0)})));
}

TEST(EsNoneRaw, LogRecordInNoneModeIsTheCollectorsDocumentByteForByte) {
  LogsFixture f;
  fill_record(f);
  auto b = f.encode(mode_config(MappingMode::None));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-generic-default\"}}\n");
  EXPECT_EQ(doc_text(b, 0),
            R"({"@timestamp":"2024-07-18T14:48:33.467654123Z",)"
            R"("Attributes":{"data_stream":{"dataset":"generic","namespace":"default","type":"logs"},)"
            R"("http":{"method":"GET","status_code":200},"tags":["x",2.0],"user":"bob"},)"
            R"("Body":"hello \"world\"",)"
            R"("Resource":{"host":{"name":"h1"},"service":{"name":"svc"}},)"
            R"("Scope":{"name":"my.lib","team":"a","version":"1.0"},)"
            R"("SeverityNumber":13,"SeverityText":"WARN","SpanId":"a0a1a2a3a4a5a6a7","TraceFlags":1,)"
            R"("TraceId":"0102030405060708090a0b0c0d0e0f10"})");
  EXPECT_EQ(b.items[0].events, 1u);
  EXPECT_EQ(b.stats.total_rejected(), 0u);
}

TEST(EsNoneRaw, RawModePutsAttributesAtTheTop) {
  LogsFixture f;
  fill_record(f);
  auto b = f.encode(mode_config(MappingMode::Raw));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(doc_text(b, 0),
            R"({"@timestamp":"2024-07-18T14:48:33.467654123Z","Body":"hello \"world\"",)"
            R"("Resource":{"host":{"name":"h1"},"service":{"name":"svc"}},)"
            R"("Scope":{"name":"my.lib","team":"a","version":"1.0"},)"
            R"("SeverityNumber":13,"SeverityText":"WARN","SpanId":"a0a1a2a3a4a5a6a7","TraceFlags":1,)"
            R"("TraceId":"0102030405060708090a0b0c0d0e0f10",)"
            R"("data_stream":{"dataset":"generic","namespace":"default","type":"logs"},)"
            R"("http":{"method":"GET","status_code":200},"tags":["x",2.0],"user":"bob"})");
}

TEST(EsNoneRaw, AnAttributeNamedLikeAFieldWinsInRawMode) {
  // The Collector adds the attributes after the record's own fields, and of equal keys
  // the last one added is kept.
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  r.severity_text = "INFO";
  r.body = s(a, "the body");
  r.attributes.push_back(kv(a, "SeverityText", s(a, "from an attribute")));
  r.attributes.push_back(kv(a, "Body", AnyValue::integer(7)));
  auto b = f.encode(mode_config(MappingMode::Raw));
  const Json d = doc(b, 0);
  EXPECT_EQ(d["SeverityText"], "from an attribute");
  EXPECT_EQ(d["Body"], 7);
}

TEST(EsNoneRaw, MinimalRecordHasTimestampFlagsSeverityNumberAndScope) {
  LogsFixture f;
  auto& r = f.add();
  r.observed_time_unix_nano = kT;  // no time: the observed time is @timestamp
  auto b = f.encode(mode_config(MappingMode::None));
  EXPECT_EQ(doc_text(b, 0),
            R"({"@timestamp":"2024-07-18T14:48:33.467654123Z",)"
            R"("Attributes":{"data_stream":{"dataset":"generic","namespace":"default","type":"logs"}},)"
            R"("Scope":{"name":"","version":""},"SeverityNumber":0,"TraceFlags":0})");
}

TEST(EsNoneRaw, MapBodiesAreFlattenedUnderBodyAndArraysKeepTheirMapsAsObjects) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().body =
      kvlist(a, {kv(a, "msg", s(a, "hi")), kv(a, "nested", kvlist(a, {kv(a, "k.j", AnyValue::integer(1))}))});
  f.add().body = array(a, {AnyValue::integer(1),
                           kvlist(a, {kv(a, "b.c", AnyValue::integer(2)), kv(a, "a", AnyValue::integer(3)),
                                      kv(a, "a", AnyValue::integer(4))}),
                           AnyValue::bytes(a.copy("x")), array(a, {}), AnyValue{},
                           kvlist(a, {kv(a, "only.bytes", AnyValue::bytes(a.copy("y")))}),
                           array(a, {kvlist(a, {kv(a, "deep", AnyValue::boolean(false))})})});
  f.add().body = kvlist(a, {});                                            // an empty map: no Body
  f.add().body = AnyValue::bytes(a.copy("\xff"));                          // bytes: no Body
  f.add().body = AnyValue::dbl(std::numeric_limits<double>::quiet_NaN());  // null, as Go writes NaN
  auto b = f.encode(mode_config(MappingMode::None));
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(doc(b, 0)["Body"], Json::parse(R"({"msg":"hi","nested":{"k":{"j":1}}})"));
  EXPECT_NE(doc_text(b, 0).find(R"("Body":{"msg":"hi","nested":{"k":{"j":1}}})"), std::string::npos);
  EXPECT_NE(doc_text(b, 1).find(R"("Body":[1,{"a":4,"b":{"c":2}},null,[],null,null,[{"deep":false}]])"),
            std::string::npos)
      << doc_text(b, 1);
  EXPECT_FALSE(doc(b, 2).contains("Body"));
  EXPECT_FALSE(doc(b, 3).contains("Body"));
  EXPECT_TRUE(doc(b, 4)["Body"].is_null());
}

// Keys as attributes: what the document gets for them (raw mode: at the top, nothing else).
std::string raw_document(std::initializer_list<std::pair<std::string_view, std::int64_t>> attrs) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  for (const auto& [k, v] : attrs) r.attributes.push_back(kv(a, k, AnyValue::integer(v)));
  auto b = f.encode(mode_config(MappingMode::Raw));
  expect_no_duplicate_keys(b);
  Json d = doc(b, 0);
  for (const char* field : {"@timestamp", "Scope", "SeverityNumber", "TraceFlags", "data_stream"})
    d.erase(field);
  return d.dump();
}

TEST(EsNoneRaw, DuplicateKeysKeepTheLastValue) {
  EXPECT_EQ(raw_document({{"k", 1}, {"k", 2}}), R"({"k":2})");
}

TEST(EsNoneRaw, AScalarThatIsAlsoAnObjectMovesToValue) {
  EXPECT_EQ(raw_document({{"a", 1}, {"a.b", 2}}), R"({"a":{"b":2,"value":1}})");
  // An existing `value` wins over the moved scalar (the Collector's rule).
  EXPECT_EQ(raw_document({{"a", 1}, {"a.b", 2}, {"a.value", 3}}), R"({"a":{"b":2,"value":3}})");
}

TEST(EsNoneRaw, NoObjectEverRepeatsAKey) {
  // `a-b` sorts between `a` and `a.c`: the Collector's model would write `a` twice.
  EXPECT_EQ(raw_document({{"a", 1}, {"a-b", 2}, {"a.c", 3}}), R"({"a":{"c":3,"value":1},"a-b":2})");
  // The moved `x.value` meets an object `x.value`: it moves again.
  EXPECT_EQ(raw_document({{"x", 1}, {"x.y", 2}, {"x.value.z", 3}}),
            R"({"x":{"value":{"value":1,"z":3},"y":2}})");
  // Duplicates of a scalar that is also an object: the last one, moved.
  EXPECT_EQ(raw_document({{"a", 1}, {"a", 2}, {"a.b", 3}}), R"({"a":{"b":3,"value":2}})");
}

TEST(EsNoneRaw, KeysThatDifferOnlyInInvalidUtf8AreOneKey) {
  // Both are written as U+FFFD: the document would repeat the key otherwise.
  EXPECT_EQ(raw_document({{"\x80", 1}, {"\xC0", 2}}), "{\"\xEF\xBF\xBD\":2}");
}

TEST(EsNoneRaw, KeysWithEmptySegmentsStayValidJson) {
  EXPECT_EQ(raw_document({{"a..b", 1}, {".", 2}, {"c.", 3}}), R"({"":{"":2},"a":{"":{"b":1}},"c":{"":3}})");
}

TEST(EsNoneRaw, RoutesWithoutTheOtelSuffix) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.sl->scope.name = "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver/x";
  f.add();
  auto& r = f.add();
  r.attributes.push_back(kv(a, "data_stream.dataset", s(a, "Nginx.Access")));
  r.attributes.push_back(kv(a, "data_stream.namespace", s(a, "prod")));
  f.add().attributes.push_back(kv(a, "elasticsearch.index", s(a, "my-index")));
  auto b = f.encode(mode_config(MappingMode::None));
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(action(b, 0)["create"]["_index"], "logs-filelogreceiver-default");
  EXPECT_EQ(action(b, 1)["create"]["_index"], "logs-nginx.access-prod");
  EXPECT_EQ(action(b, 2)["create"]["_index"], "my-index");
  // The route's data stream fields follow the attributes (Attributes.data_stream.*), as the
  // Collector adds them: the sanitized dataset replaces the attribute's value.
  EXPECT_EQ(doc(b, 1)["Attributes"]["data_stream"],
            Json::parse(R"({"dataset":"nginx.access","namespace":"prod","type":"logs"})"));
  EXPECT_EQ(doc(b, 0)["Attributes"]["data_stream"]["dataset"], "filelogreceiver");
  EXPECT_FALSE(doc(b, 2)["Attributes"].contains("data_stream"));  // an index: no data stream fields
  // A static index takes everything.
  auto st = f.encode(mode_config(MappingMode::None, "static-logs"));
  for (std::size_t i = 0; i < st.size(); ++i) EXPECT_EQ(action(st, i)["create"]["_index"], "static-logs");
  EXPECT_EQ(doc(st, 1)["Attributes"]["data_stream"]["dataset"], "Nginx.Access");  // as it came
}

TEST(EsNoneRaw, DynamicIdAndSharedActionLinesWorkAsInOtelMode) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "id-1")));
  f.add();
  f.add();
  EncoderConfig c = mode_config(MappingMode::None);
  c.logs_dynamic_id = true;
  auto b = f.encode(c);
  EXPECT_EQ(action(b, 0)["create"]["_id"], "id-1");
  EXPECT_FALSE(action(b, 1)["create"].contains("_id"));
  EncodedBatch shared;
  Encoder(sharing(c)).encode_logs(f.d, shared);
  expect_shared_equivalent(shared, b);
}

TEST(EsNoneRaw, AScopeCanAskForNoneOrRawUnderAnOtelConfig) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.sl->scope.attributes.push_back(kv(a, "elastic.mapping.mode", s(a, "none")));
  f.add().attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  auto& other = f.rl->scope_logs.emplace_back(a);
  other.log_records.emplace_back(a).attributes.push_back(kv(a, "k", AnyValue::integer(2)));
  auto b = f.encode(config());
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(doc(b, 0)["Attributes"]["k"], 1);
  EXPECT_EQ(doc(b, 0)["Scope"]["elastic"]["mapping"]["mode"], "none");
  EXPECT_EQ(action(b, 0)["create"]["_index"], "logs-generic-default");
  EXPECT_EQ(doc(b, 1)["attributes"]["k"], 2);  // the other scope stays otel
  EXPECT_EQ(action(b, 1)["create"]["_index"], "logs-generic.otel-default");
}

TEST(EsNoneRaw, AScopeMayOnlyAskForAnAllowedMode) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.sl->scope.attributes.push_back(kv(a, "elastic.mapping.mode", s(a, "raw")));
  f.add();
  f.add();
  auto& allowed = f.rl->scope_logs.emplace_back(a);
  allowed.scope.attributes.push_back(kv(a, "elastic.mapping.mode", s(a, "none")));
  allowed.log_records.emplace_back(a);
  f.rl->scope_logs.emplace_back(a).log_records.emplace_back(a);  // no attribute: the configured mode
  EncoderConfig c = config();
  c.allowed_modes = 1u << unsigned(MappingMode::Otel) | 1u << unsigned(MappingMode::None);
  auto b = f.encode(c);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(doc(b, 0).contains("Scope"));                   // none
  EXPECT_TRUE(doc(b, 1).contains("scope"));                   // otel
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);  // the raw scope's records
}

TEST(EsNoneRaw, RawAttributesInsideResourceOrScopeMergeInTheCollectorsOrder) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));
  auto& r = f.add();
  r.attributes.push_back(kv(a, "Resource.service.name", s(a, "from an attribute")));
  r.attributes.push_back(kv(a, "Scope", kvlist(a, {kv(a, "extra", AnyValue::integer(1))})));
  f.add();  // nothing of its own there: the scope's rendered objects
  auto b = f.encode(mode_config(MappingMode::Raw));
  // The resource comes after the attributes in the Collector, so it wins; the scope merges.
  EXPECT_EQ(doc(b, 0)["Resource"], Json::parse(R"({"service":{"name":"svc"}})"));
  EXPECT_EQ(doc(b, 0)["Scope"], Json::parse(R"({"extra":1,"name":"","version":""})"));
  EXPECT_EQ(doc(b, 1)["Scope"], Json::parse(R"({"name":"","version":""})"));
}

struct SpanFixture {
  TracesData d;
  ScopeSpans* ss;
  SpanFixture() {
    auto& rs = d.resource_spans.emplace_back(d.arena);
    rs.resource.attributes.push_back(kv(d.arena, "service.name", s(d.arena, "svc")));
    ss = &rs.scope_spans.emplace_back(d.arena);
    ss->scope.name = "tracer";
  }
  Span& add() {
    auto& a = d.arena;
    auto& sp = ss->spans.emplace_back(a);
    sp.trace_id = id<16>(1);
    sp.span_id = id<8>(0x11);
    sp.parent_span_id = id<8>(0x21);
    sp.name = "GET /";
    sp.kind = SpanKind::Server;
    sp.start_time_unix_nano = kT;
    sp.end_time_unix_nano = kT + 1'500'999;  // 1500.999 µs: Duration 1500
    sp.status.code = StatusCode::Error;
    sp.status.message = "boom";
    sp.attributes.push_back(kv(a, "http.route", s(a, "/")));
    auto& e = sp.events.emplace_back(a);
    e.name = "exception";
    e.time_unix_nano = kT + 1000;
    e.attributes.push_back(kv(a, "exception.type", s(a, "E")));
    auto& l = sp.links.emplace_back(a);
    l.trace_id = id<16>(0x31);
    l.span_id = id<8>(0x41);
    l.attributes.push_back(kv(a, "z", AnyValue::dbl(1.0)));
    l.attributes.push_back(kv(a, "a", AnyValue::bytes(a.copy("hi"))));
    l.attributes.push_back(
        kv(a, "m", kvlist(a, {kv(a, "y", AnyValue::boolean(true)), kv(a, "x", AnyValue::dbl(1e-7))})));
    l.attributes.push_back(kv(a, "z", AnyValue::integer(2)));  // Go's map: the last one
    return sp;
  }
  EncodedBatch encode(EncoderConfig cfg) {
    EncodedBatch b;
    Encoder(cfg).encode_traces(d, b);
    expect_valid(b);
    expect_no_duplicate_keys(b);
    return b;
  }
};

TEST(EsNoneRaw, SpanInNoneModeIsTheCollectorsDocumentWithItsEventsInside) {
  SpanFixture f;
  f.add();
  auto b = f.encode(mode_config(MappingMode::None));
  ASSERT_EQ(b.size(), 1u);  // the event is part of the span's document
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"traces-generic-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"2024-07-18T14:48:33.467654123Z",)"
      R"("Attributes":{"data_stream":{"dataset":"generic","namespace":"default","type":"traces"},"http":{"route":"/"}},)"
      R"("Duration":1500,"EndTimestamp":"2024-07-18T14:48:33.469155122Z",)"
      R"("Events":{"exception":{"exception":{"type":"E"},"time":"2024-07-18T14:48:33.467655123Z"}},)"
      R"("Kind":"SPAN_KIND_SERVER",)"
      R"("Link":"[{\"attribute\":{\"a\":\"aGk=\",\"m\":{\"x\":1e-7,\"y\":true},\"z\":2},)"
      R"(\"spanID\":\"4142434445464748\",\"traceID\":\"3132333435363738393a3b3c3d3e3f40\"}]",)"
      R"("Name":"GET /","ParentSpanId":"2122232425262728","Resource":{"service":{"name":"svc"}},)"
      R"("Scope":{"name":"tracer","version":""},"SpanId":"1112131415161718",)"
      R"("TraceId":"0102030405060708090a0b0c0d0e0f10","TraceStatus":2,"TraceStatusDescription":"boom"})");
}

TEST(EsNoneRaw, SpanInRawModeHasNoAttributesOrEventsPrefix) {
  SpanFixture f;
  f.add();
  auto b = f.encode(mode_config(MappingMode::Raw));
  const Json d = doc(b, 0);
  EXPECT_EQ(d["http"]["route"], "/");
  EXPECT_EQ(d["exception"]["exception"]["type"], "E");
  EXPECT_EQ(d["exception"]["time"], "2024-07-18T14:48:33.467655123Z");
  EXPECT_FALSE(d.contains("Attributes"));
  EXPECT_FALSE(d.contains("Events"));
}

TEST(EsNoneRaw, SpanWithoutLinksSaysSoAndLinkValuesFollowGo) {
  SpanFixture f;
  auto& sp = f.add();
  sp.links.clear();
  sp.kind = static_cast<SpanKind>(9);  // not an OTLP kind: no Kind field
  auto& two = f.add();
  two.links[0].attributes.clear();
  two.links[0].span_id = {};
  two.links[0].attributes.push_back(kv(f.d.arena, "big", AnyValue::dbl(1e21)));
  two.links[0].attributes.push_back(
      kv(f.d.arena, "nan", AnyValue::dbl(std::numeric_limits<double>::quiet_NaN())));
  two.links[0].attributes.push_back(kv(f.d.arena, "half", AnyValue::dbl(-0.5)));
  auto b = f.encode(mode_config(MappingMode::None));
  EXPECT_EQ(doc(b, 0)["Link"], "[]");
  EXPECT_FALSE(doc(b, 0).contains("Kind"));
  EXPECT_EQ(
      doc(b, 1)["Link"],
      R"([{"attribute":{"big":1e+21,"half":-0.5,"nan":null},"spanID":"","traceID":"3132333435363738393a3b3c3d3e3f40"}])");
}

TEST(EsNoneRaw, RawSpanEventsComeAfterTheResourceAsInTheCollector) {
  SpanFixture f;
  auto& a = f.d.arena;
  f.d.resource_spans[0].resource.attributes.push_back(kv(a, "time", s(a, "a resource attribute")));
  auto& sp = f.add();
  sp.events[0].name = "Resource";  // its `Resource.time` meets the resource's `time`
  auto b = f.encode(mode_config(MappingMode::Raw));
  EXPECT_EQ(doc(b, 0)["Resource"]["time"], "2024-07-18T14:48:33.467655123Z");
  EXPECT_EQ(doc(b, 0)["Resource"]["service"]["name"], "svc");
  EXPECT_EQ(doc(b, 0)["Resource"]["exception"]["type"], "E");
}

TEST(EsNoneRaw, TracesRouteToTracesDataStreams) {
  SpanFixture f;
  f.add().attributes.push_back(kv(f.d.arena, "data_stream.dataset", s(f.d.arena, "api")));
  f.add();
  auto b = f.encode(mode_config(MappingMode::None));
  EXPECT_EQ(action(b, 0)["create"]["_index"], "traces-api-default");
  EXPECT_EQ(action(b, 1)["create"]["_index"], "traces-generic-default");
  auto st = f.encode(mode_config(MappingMode::Raw, {}, "static-traces"));
  EXPECT_EQ(action(st, 0)["create"]["_index"], "static-traces");
}

TEST(EsNoneRaw, DataPointsAreRejectedAsUnsupported) {
  MetricsData d;
  auto& a = d.arena;
  auto& m = d.resource_metrics.emplace_back(a).scope_metrics.emplace_back(a).metrics.emplace_back(a);
  m.name = "g";
  m.type = MetricType::Gauge;
  for (int i = 0; i < 3; ++i) {
    auto& p = m.number_points.emplace_back(a);
    p.value_type = NumberType::Int;
    p.as_int = i;
  }
  for (const MappingMode mode : {MappingMode::None, MappingMode::Raw}) {
    EncodedBatch b;
    Encoder(mode_config(mode)).encode_metrics(d, b);
    EXPECT_EQ(b.size(), 0u);
    EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 3u);
  }
}

// The output bound counts shared action lines as if repeated, so sharing them never lets a
// scope in that would not fit otherwise (es_encode_fuzz found the difference).
TEST(EsNoneRaw, TheOutputBoundAdmitsTheSameScopesWithSharedActionLines) {
  TracesData d;
  auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  for (int scope = 0; scope < 4; ++scope) {
    auto& ss = rs.scope_spans.emplace_back(a);
    for (int i = 0; i < 3; ++i) ss.spans.emplace_back(a).name = "span";
  }
  for (const MappingMode mode : {MappingMode::Otel, MappingMode::None, MappingMode::Raw})
    for (std::size_t bound = 100; bound < 4000; bound += 25) {
      EncoderConfig c = mode_config(mode);
      c.max_output_bytes = bound;
      EncodedBatch plain, shared;
      Encoder(c).encode_traces(d, plain);
      Encoder(sharing(c)).encode_traces(d, shared);
      ASSERT_EQ(shared.size(), plain.size()) << "bound " << bound;
      expect_shared_equivalent(shared, plain);
      ASSERT_EQ(rejected(shared, EncodeReject::OutputTooLarge),
                rejected(plain, EncodeReject::OutputTooLarge));
    }
}

TEST(EsNoneRaw, TheOutputBoundCoversTheseModesToo) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "big", s(a, std::string(4096, 'x'))));
  for (int i = 0; i < 100; ++i) f.add();
  EncoderConfig c = mode_config(MappingMode::None);
  c.max_output_bytes = 64 * 1024;  // 100 documents of > 4 KiB do not fit
  auto b = f.encode(c);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(rejected(b, EncodeReject::OutputTooLarge), 100u);
}

}  // namespace
}  // namespace tern::encoding::es::test
