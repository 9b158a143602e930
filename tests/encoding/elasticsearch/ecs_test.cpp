// The ecs mapping mode: log records and spans with semantic-convention names mapped to
// Elastic Common Schema fields, as the OpenTelemetry Collector's ecs mode writes them
// (flattened, sorted, de-duplicated, de-dotted, the field added last winning).
#include "test_util.h"

namespace tern::encoding::es::test {
namespace {

EncoderConfig ecs_config(std::string logs_index = {}, std::string traces_index = {}) {
  EncoderConfig c = config(std::move(logs_index), {}, std::move(traces_index));
  c.mode = MappingMode::Ecs;
  return c;
}

EncodedBatch encode_logs(LogsFixture& f, EncoderConfig c = ecs_config()) {
  EncodedBatch b = f.encode(c);
  expect_no_duplicate_keys(b);
  return b;
}

// One record under `resource` attributes, the document's fields that come from them.
Json resource_fields(std::initializer_list<std::pair<std::string_view, AnyValue>> resource) {
  LogsFixture f;
  for (const auto& [k, v] : resource) f.rl->resource.attributes.push_back(kv(f.d.arena, k, v));
  f.add().time_unix_nano = kT;
  auto b = encode_logs(f);
  EXPECT_EQ(b.size(), 1u);
  Json d = doc(b, 0);
  for (const char* always : {"@timestamp", "data_stream"}) d.erase(always);
  return d;
}

TEST(EsEcs, ParsesItsName) { EXPECT_EQ(parse_mapping_mode("ecs"), MappingMode::Ecs); }

TEST(EsEcs, LogRecordIsTheCollectorsEcsDocumentByteForByte) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& res = f.rl->resource.attributes;
  res.push_back(kv(a, "service.name", s(a, "checkout")));
  res.push_back(kv(a, "service.instance.id", s(a, "i-1")));
  res.push_back(kv(a, "host.name", s(a, "web-1")));
  res.push_back(kv(a, "os.type", s(a, "darwin")));
  res.push_back(kv(a, "telemetry.sdk.name", s(a, "opentelemetry")));
  res.push_back(kv(a, "telemetry.sdk.language", s(a, "java")));
  res.push_back(kv(a, "telemetry.sdk.version", s(a, "1.40.0")));
  res.push_back(kv(a, "k8s.pod.name", s(a, "checkout-7d9f")));
  f.sl->scope.name = "my.lib";  // not written: only the scope's attributes are
  f.sl->scope.attributes.push_back(kv(a, "lib.attr", AnyValue::integer(3)));
  auto& r = f.add();
  r.time_unix_nano = kT;
  r.observed_time_unix_nano = kT + 5;
  r.trace_id = id<16>(1);
  r.span_id = id<8>(0xa0);
  r.severity_text = "ERROR";
  r.severity_number = 17;
  r.body = s(a, "payment \"failed\"");
  r.attributes.push_back(kv(a, "exception.type", s(a, "IOError")));
  r.attributes.push_back(kv(a, "exception.message", s(a, "disk")));
  r.attributes.push_back(kv(a, "event.name", s(a, "pay")));
  r.attributes.push_back(kv(a, "http.request.method", s(a, "POST")));
  r.attributes.push_back(kv(a, "nested", kvlist(a, {kv(a, "a", AnyValue::dbl(2.0))})));
  auto b = encode_logs(f);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-generic-default\"}}\n");
  EXPECT_EQ(doc_text(b, 0),
            R"({"@timestamp":"2024-07-18T14:48:33.467654123Z",)"
            R"("agent":{"name":"opentelemetry/java","version":"1.40.0"},)"
            R"("data_stream":{"dataset":"generic","namespace":"default","type":"logs"},)"
            R"("error":{"message":"disk","type":"IOError"},)"
            R"("event":{"action":"pay","severity":17},)"
            R"("host":{"hostname":"web-1","name":"web-1","os":{"platform":"darwin","type":"macos"}},)"
            R"("http":{"request":{"method":"POST"}},)"
            R"("kubernetes":{"pod":{"name":"checkout-7d9f"}},)"
            R"("lib":{"attr":3},)"
            R"("log":{"level":"ERROR"},)"
            R"("message":"payment \"failed\"",)"
            R"("nested":{"a":2.0},)"
            R"("service":{"name":"checkout","node":{"name":"i-1"}},)"
            R"("span":{"id":"a0a1a2a3a4a5a6a7"},)"
            R"("trace":{"id":"0102030405060708090a0b0c0d0e0f10"}})");
}

TEST(EsEcs, ResourceAttributesTakeTheirEcsNames) {
  const std::pair<std::string_view, std::string_view> renamed[] = {
      {"service.instance.id", "/service/node/name"},
      {"deployment.environment", "/service/environment"},
      {"deployment.environment.name", "/service/environment"},
      {"cloud.platform", "/cloud/service/name"},
      {"container.image.tags", "/container/image/tag"},
      {"host.arch", "/host/architecture"},
      {"process.parent_pid", "/process/parent/pid"},
      {"process.executable.name", "/process/title"},
      {"process.executable.path", "/process/executable"},
      {"process.command_line", "/process/args"},
      {"process.runtime.name", "/service/runtime/name"},
      {"process.runtime.version", "/service/runtime/version"},
      {"os.name", "/host/os/name"},
      {"os.type", "/host/os/platform"},
      {"os.description", "/host/os/full"},
      {"os.version", "/host/os/version"},
      {"client.address", "/client/ip"},
      {"source.address", "/source/ip"},
      {"k8s.deployment.name", "/kubernetes/deployment/name"},
      {"k8s.namespace.name", "/kubernetes/namespace"},
      {"k8s.node.name", "/kubernetes/node/name"},
      {"k8s.pod.name", "/kubernetes/pod/name"},
      {"k8s.pod.uid", "/kubernetes/pod/uid"},
      {"k8s.job.name", "/kubernetes/job/name"},
      {"k8s.cronjob.name", "/kubernetes/cronjob/name"},
      {"k8s.statefulset.name", "/kubernetes/statefulset/name"},
      {"k8s.replicaset.name", "/kubernetes/replicaset/name"},
      {"k8s.daemonset.name", "/kubernetes/daemonset/name"},
      {"k8s.container.name", "/kubernetes/container/name"},
      {"k8s.cluster.name", "/orchestrator/cluster/name"},
      {"faas.instance", "/faas/id"},
      {"faas.trigger", "/faas/trigger/type"},
  };
  for (const auto& [from, to] : renamed) {
    Arena a;
    Json d = resource_fields({{from, s(a, "v")}});
    d.erase("agent");
    if (from == "os.type") d["host"]["os"].erase("type");  // "v" is no known system: none
    EXPECT_EQ(d.flatten(), Json({{std::string(to), "v"}})) << from;
  }
}

TEST(EsEcs, HostNameIsKeptBesideHostHostnameUnlessThatIsGiven) {
  Arena a;
  EXPECT_EQ(resource_fields({{"host.name", s(a, "h")}})["host"],
            Json::parse(R"({"hostname":"h","name":"h"})"));
  EXPECT_EQ(resource_fields({{"host.hostname", s(a, "explicit")}, {"host.name", s(a, "h")}})["host"],
            Json::parse(R"({"hostname":"explicit","name":"h"})"));
}

TEST(EsEcs, TelemetryAttributesMakeTheAgentFields) {
  Arena a;
  auto agent = [](Json d) { return d["agent"]; };
  EXPECT_EQ(agent(resource_fields({})), Json::parse(R"({"name":"otlp"})"));
  EXPECT_EQ(
      agent(resource_fields({{"telemetry.sdk.name", s(a, "sdk")}, {"telemetry.sdk.version", s(a, "1")}})),
      Json::parse(R"({"name":"sdk","version":"1"})"));
  EXPECT_EQ(agent(resource_fields({{"telemetry.distro.name", s(a, "edot")},
                                   {"telemetry.distro.version", s(a, "2")},
                                   {"telemetry.sdk.version", s(a, "1")}})),
            Json::parse(R"({"name":"otlp/unknown/edot","version":"2"})"));
  EXPECT_EQ(agent(resource_fields({{"telemetry.sdk.name", s(a, "sdk")},
                                   {"telemetry.sdk.language", s(a, "go")},
                                   {"telemetry.distro.name", s(a, "edot")}})),
            Json::parse(R"({"name":"sdk/go/edot"})"));
  // A name that is no string reads as "" (Go's Str()): no agent.name at all.
  EXPECT_FALSE(resource_fields({{"telemetry.sdk.name", AnyValue::integer(1)}}).contains("agent"));
  // The telemetry attributes themselves are not written.
  EXPECT_FALSE(resource_fields({{"telemetry.sdk.language", s(a, "go")}}).contains("telemetry"));
}

TEST(EsEcs, HostOsTypeIsOneOfEcsValues) {
  Arena a;
  auto os_type = [](Json d) { return d["host"]["os"].value("type", std::string("(none)")); };
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "linux")}})), "linux");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "windows")}})), "windows");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "darwin")}})), "macos");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "solaris")}})), "unix");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "freebsd")}})), "(none)");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "linux")}, {"os.name", s(a, "Android")}})), "android");
  EXPECT_EQ(os_type(resource_fields({{"os.type", s(a, "darwin")}, {"os.name", s(a, "iOS")}})), "ios");
}

// Of equal names the field added last wins: record attributes over resource ones, the
// record's own fields over its attributes; a field the record does not have leaves the
// attribute as it is.
TEST(EsEcs, RecordFieldsWinOverAttributesOfTheSameName) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "team", s(a, "resource")));
  auto& r = f.add();
  r.time_unix_nano = kT;
  r.severity_text = "INFO";
  r.body = s(a, "the body");
  r.attributes.push_back(kv(a, "team", s(a, "record")));
  r.attributes.push_back(kv(a, "log.level", s(a, "attribute")));
  r.attributes.push_back(kv(a, "message", s(a, "attribute")));
  r.attributes.push_back(kv(a, "@timestamp", s(a, "attribute")));
  auto& m = f.add();  // a map body is no message; no severity text, no log.level
  m.observed_time_unix_nano = kT;
  m.body = kvlist(a, {kv(a, "k", s(a, "v"))});
  m.attributes.push_back(kv(a, "message", s(a, "attribute")));
  m.attributes.push_back(kv(a, "log.level", s(a, "attribute")));
  auto b = encode_logs(f);
  ASSERT_EQ(b.size(), 2u);
  const Json d0 = doc(b, 0), d1 = doc(b, 1);
  EXPECT_EQ(d0["team"], "record");
  EXPECT_EQ(d0["log"]["level"], "INFO");
  EXPECT_EQ(d0["message"], "the body");
  EXPECT_EQ(d0["@timestamp"], "2024-07-18T14:48:33.467654123Z");
  EXPECT_EQ(d1["message"], "attribute");
  EXPECT_EQ(d1["log"]["level"], "attribute");
  EXPECT_EQ(d1["@timestamp"], "2024-07-18T14:48:33.467654123Z");  // observed time without a time
  EXPECT_FALSE(d1.contains("k"));
  EXPECT_FALSE(d1.contains("event"));  // severity number 0: no event.severity
}

TEST(EsEcs, RoutesAsTheNoneModeAndWritesTheDataStream) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().attributes.push_back(kv(a, "data_stream.dataset", s(a, "Nginx-Access")));
  f.add();
  auto b = encode_logs(f);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(action(b, 0)["create"]["_index"], "logs-nginx_access-default");
  EXPECT_EQ(doc(b, 0)["data_stream"],
            Json::parse(R"({"dataset":"nginx_access","namespace":"default","type":"logs"})"));
  EXPECT_EQ(action(b, 1)["create"]["_index"], "logs-generic-default");
  // A static index is no data stream: no data_stream fields, the attribute stays as it is.
  auto s = encode_logs(f, ecs_config("my-logs"));
  EXPECT_EQ(action(s, 0)["create"]["_index"], "my-logs");
  EXPECT_EQ(doc(s, 0)["data_stream"], Json::parse(R"({"dataset":"Nginx-Access"})"));
  EXPECT_FALSE(doc(s, 1).contains("data_stream"));
}

TEST(EsEcs, AScopeMayAskForIt) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.sl->scope.attributes.push_back(kv(a, "elastic.mapping.mode", s(a, "ecs")));
  f.add().body = s(a, "hi");
  auto b = encode_logs(f, config());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(doc(b, 0)["message"], "hi");
  EXPECT_EQ(doc(b, 0)["elastic"]["mapping"]["mode"], "ecs");  // scope attributes are fields
  EncoderConfig only_otel = config();
  only_otel.allowed_modes = 1u << static_cast<unsigned>(MappingMode::Otel);
  auto refused = encode_logs(f, only_otel);
  EXPECT_EQ(refused.size(), 0u);
  EXPECT_EQ(rejected(refused, EncodeReject::UnsupportedMode), 1u);
}

TEST(EsEcs, SpanIsTheCollectorsEcsDocumentWithoutItsEvents) {
  TracesData d;
  auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  rs.resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));
  rs.resource.attributes.push_back(kv(a, "os.type", s(a, "linux")));
  auto& ss = rs.scope_spans.emplace_back(a);
  auto& sp = ss.spans.emplace_back(a);
  sp.trace_id = id<16>(1);
  sp.span_id = id<8>(0x11);
  sp.parent_span_id = id<8>(0x21);
  sp.name = "SELECT orders";
  sp.kind = SpanKind::Client;
  sp.start_time_unix_nano = kT;
  sp.end_time_unix_nano = kT + 1'500'000;
  sp.status.code = StatusCode::Error;
  sp.attributes.push_back(kv(a, "db.system", s(a, "postgresql")));
  sp.attributes.push_back(kv(a, "db.namespace", s(a, "shop")));
  sp.attributes.push_back(kv(a, "db.query.text", s(a, "SELECT 1")));
  sp.attributes.push_back(kv(a, "messaging.destination.name", s(a, "q1")));
  sp.attributes.push_back(kv(a, "messaging.operation.name", s(a, "send")));
  sp.events.emplace_back(a).name = "exception";  // not written in this mode
  auto& l = sp.links.emplace_back(a);
  l.trace_id = id<16>(0x31);
  l.span_id = id<8>(0x41);
  sp.links.emplace_back(a);             // neither id: null
  auto& tx = ss.spans.emplace_back(a);  // an Elastic APM transaction; status Ok
  tx.status.code = StatusCode::Ok;
  tx.start_time_unix_nano = kT;
  tx.attributes.push_back(kv(a, "processor.event", s(a, "transaction")));
  tx.attributes.push_back(kv(a, "messaging.destination.name", s(a, "q2")));
  EncodedBatch b;
  Encoder(ecs_config()).encode_traces(d, b);
  expect_valid(b);
  expect_no_duplicate_keys(b);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"traces-generic-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"2024-07-18T14:48:33.467654123Z",)"
      R"("data_stream":{"dataset":"generic","namespace":"default","type":"traces"},)"
      R"("event":{"outcome":"failure"},)"
      R"("host":{"os":{"platform":"linux","type":"linux"}},)"
      R"("parent":{"id":"2122232425262728"},)"
      R"("service":{"name":"svc"},)"
      R"("span":{"action":"send","db":{"instance":"shop","statement":"SELECT 1","type":"postgresql"},)"
      R"("id":"1112131415161718","kind":"CLIENT",)"
      R"("links":[{"span":{"id":"4142434445464748"},"trace":{"id":"3132333435363738393a3b3c3d3e3f40"}},null],)"
      R"("message":{"queue":{"name":"q1"}},"name":"SELECT orders"},)"
      R"("trace":{"id":"0102030405060708090a0b0c0d0e0f10"}})");
  const Json t = doc(b, 1);
  EXPECT_EQ(t["transaction"]["message"]["queue"]["name"], "q2");
  EXPECT_EQ(t["event"]["outcome"], "success");
  EXPECT_FALSE(t["span"].contains("kind"));  // unspecified: no span.kind
  EXPECT_FALSE(t.contains("trace"));         // all-zero ids are left out
}

TEST(EsEcs, DataPointsAreNotWritten) {
  MetricsData d;
  auto& a = d.arena;
  auto& sm = d.resource_metrics.emplace_back(a).scope_metrics.emplace_back(a);
  auto& m = sm.metrics.emplace_back(a);
  m.name = "m";
  m.type = MetricType::Gauge;
  for (const std::int64_t v : {1, 2}) {
    auto& p = m.number_points.emplace_back(a);
    p.value_type = NumberType::Int;
    p.as_int = v;
  }
  EncodedBatch b;
  Encoder(ecs_config()).encode_metrics(d, b);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(rejected(b, EncodeReject::UnsupportedMode), 2u);
}

}  // namespace
}  // namespace tern::encoding::es::test
