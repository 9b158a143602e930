// Golden tests for logs, traces, attributes, strings and routing (spec sections 1-4).
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "test_util.h"
#include "text/json_string.h"

namespace tern::encoding::es::test {
namespace {

TEST(EsLogs, WorkedExample1ExactBytes) {
  LogsFixture f;
  f.add().body = s(f.d.arena, "foo");
  auto b = f.encode();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"0.000000","observed_timestamp":"0.000000","data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},"resource":{},"scope":{},"body":{"text":"foo"}})");
  EXPECT_EQ(b.items[0].events, 1u);
}

TEST(EsLogs, TimestampsPaddedAndObservedFallback) {
  LogsFixture f;
  auto& r = f.add();
  r.time_unix_nano = 1721314113467654123ull;
  r.observed_time_unix_nano = 1721314113467000005ull;
  auto& r2 = f.add();
  r2.observed_time_unix_nano = 5;
  auto b = f.encode();
  EXPECT_EQ(doc(b, 0)["@timestamp"], "1721314113467.654123");
  EXPECT_EQ(doc(b, 0)["observed_timestamp"], "1721314113467.000005");
  EXPECT_EQ(doc(b, 1)["@timestamp"], "0.000005");
}

TEST(EsLogs, FullRecordKeyOrder) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->schema_url = "https://r";
  f.rl->resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));
  f.rl->resource.dropped_attributes_count = 1;
  f.sl->schema_url = "https://s";
  f.sl->scope.name = "sc";
  f.sl->scope.version = "1.0";
  auto& r = f.add();
  r.time_unix_nano = 1000000;
  r.observed_time_unix_nano = 2000000;
  r.severity_text = "INFO";
  r.severity_number = 9;
  r.trace_id[15] = 1;
  r.span_id[0] = 0xab;
  r.attributes.push_back(kv(a, "event.name", s(a, "ev")));
  r.dropped_attributes_count = 2;
  r.body = AnyValue::integer(42);
  auto b = f.encode();
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"1.000000","observed_timestamp":"2.000000","data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},"severity_text":"INFO","severity_number":9,"trace_id":"00000000000000000000000000000001","span_id":"ab00000000000000","attributes":{"event.name":"ev"},"dropped_attributes_count":2,"event_name":"ev","resource":{"schema_url":"https://r","attributes":{"service.name":"svc"},"dropped_attributes_count":1},"scope":{"schema_url":"https://s","name":"sc","version":"1.0"},"body":{"text":42}})");
}

TEST(EsLogs, EventNameFieldWins) {
  LogsFixture f;
  auto& r = f.add();
  r.event_name = "field";
  r.attributes.push_back(kv(f.d.arena, "event.name", s(f.d.arena, "attr")));
  EXPECT_EQ(doc(f.encode(), 0)["event_name"], "field");
}

TEST(EsLogs, BodyKinds) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().body = kvlist(a, {kv(a, "a", AnyValue::integer(1)), kv(a, "a.b", AnyValue::integer(2))});
  f.add().body = array(a, {kvlist(a, {kv(a, "x", AnyValue::integer(1))}), kvlist(a, {})});
  f.add().body = array(a, {AnyValue::integer(1), s(a, "x")});
  f.add().body = AnyValue::dbl(1.5);
  f.add().body = AnyValue::boolean(true);
  f.add().body = AnyValue::bytes(a.copy("\x2a"));
  f.add();  // empty body: omitted
  auto b = f.encode();
  ASSERT_EQ(b.size(), 7u);
  EXPECT_NE(doc_text(b, 0).find(R"("body":{"structured":{"a":1,"a.b":2}})"), std::string::npos);
  EXPECT_EQ(doc(b, 1)["body"], Json::parse(R"({"structured":[{"x":1},{}]})"));
  EXPECT_EQ(doc(b, 2)["body"], Json::parse(R"({"structured":{"value":[1,"x"]}})"));
  EXPECT_NE(doc_text(b, 3).find(R"("body":{"text":1.5})"), std::string::npos);
  EXPECT_EQ(doc(b, 4)["body"], Json::parse(R"({"text":true})"));
  EXPECT_EQ(doc(b, 5)["body"], Json::parse(R"({"text":"2a"})"));
  EXPECT_FALSE(doc(b, 6).contains("body"));
}

TEST(EsAttributes, AllValueKindsAndDottedKeys) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  r.attributes.push_back(kv(a, "empty", AnyValue{}));
  r.attributes.push_back(kv(a, "d", AnyValue::dbl(42)));
  r.attributes.push_back(kv(a, "big", AnyValue::dbl(1e300)));
  r.attributes.push_back(kv(a, "neg", AnyValue::integer(-7)));
  r.attributes.push_back(kv(a, "bytes", AnyValue::bytes(a.copy(std::string_view("\x00\xff", 2)))));
  r.attributes.push_back(kv(a, "arr", array(a, {AnyValue::integer(1), AnyValue::dbl(0.5), s(a, "x")})));
  r.attributes.push_back(kv(a, "map", kvlist(a, {kv(a, "foo.bar", s(a, "baz"))})));
  auto b = f.encode();
  EXPECT_NE(
      doc_text(b, 0).find(
          R"("attributes":{"empty":null,"d":42.0,"big":1e+300,"neg":-7,"bytes":"00ff","arr":[1,0.5,"x"],"map":{"foo.bar":"baz"}})"),
      std::string::npos)
      << doc_text(b, 0);
}

TEST(EsAttributes, ExcludedKeysAndEmptyObject) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  r.attributes.push_back(kv(a, "data_stream.type", s(a, "x")));
  r.attributes.push_back(kv(a, "elasticsearch.mapping.hints", array(a, {s(a, "_doc_count")})));
  r.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "id1")));
  auto b = f.encode();
  EXPECT_NE(doc_text(b, 0).find(R"("attributes":{},)"), std::string::npos);
}

TEST(EsAttributes, GeoMerging) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  r.attributes.push_back(kv(a, "geo.location.lat", AnyValue::dbl(1.5)));
  r.attributes.push_back(kv(a, "x", AnyValue::integer(1)));
  r.attributes.push_back(kv(a, "geo.location.lon", AnyValue::dbl(2.5)));
  r.attributes.push_back(kv(a, "client.geo.location.lon", AnyValue::dbl(3.0)));
  r.attributes.push_back(kv(a, "client.geo.location.lat", AnyValue::dbl(4.0)));
  r.attributes.push_back(kv(a, "server.geo.location.lat", AnyValue::dbl(5.0)));  // lone half
  r.attributes.push_back(kv(a, "xgeo.location.lon", AnyValue::dbl(6.0)));        // no dot: no match
  r.attributes.push_back(kv(a, "xgeo.location.lat", AnyValue::dbl(7.0)));
  r.attributes.push_back(kv(a, "s.geo.location.lat", s(a, "1")));  // not double
  r.attributes.push_back(kv(a, "s.geo.location.lon", AnyValue::dbl(1.0)));
  auto b = f.encode();
  EXPECT_NE(
      doc_text(b, 0).find(
          R"("attributes":{"x":1,"server.geo.location.lat":5.0,"xgeo.location.lon":6.0,"xgeo.location.lat":7.0,"s.geo.location.lat":"1","s.geo.location.lon":1.0,"geo.location":[2.5,1.5],"client.geo.location":[3.0,4.0]})"),
      std::string::npos)
      << doc_text(b, 0);
}

// Repeated halves (duplicate keys): the first of each key pairs, the repeats stay in place as
// plain attributes; nothing is lost and `geo.location` is written once.
TEST(EsAttributes, GeoMergingWithRepeatedHalves) {
  LogsFixture f;
  auto& a = f.d.arena;
  using Doubles = std::initializer_list<std::pair<const char*, double>>;
  for (const Doubles& record :
       {Doubles{{"geo.location.lat", 1.0}, {"geo.location.lon", 2.0}, {"geo.location.lon", 3.0}},
        Doubles{{"c.geo.location.lat", 4.0}, {"c.geo.location.lat", 5.0}, {"c.geo.location.lon", 6.0}}}) {
    auto& r = f.add();
    for (const auto& [key, value] : record) r.attributes.push_back(kv(a, key, AnyValue::dbl(value)));
  }
  auto b = f.encode();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NE(doc_text(b, 0).find(R"("attributes":{"geo.location.lon":3.0,"geo.location":[2.0,1.0]})"),
            std::string::npos)
      << doc_text(b, 0);
  EXPECT_NE(doc_text(b, 1).find(R"("attributes":{"c.geo.location.lat":5.0,"c.geo.location":[6.0,4.0]})"),
            std::string::npos)
      << doc_text(b, 1);
}

TEST(EsStrings, EscapingAndInvalidUtf8) {
  std::string out;
  text::append_json_string(out, std::string_view("a\"b\\c\n\t\x01\x1f\x7f", 10));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\x7f\"");
  out.clear();
  text::append_json_string(out, "h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(out, "\"h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  out.clear();
  // lone continuation, overlong, surrogate, truncated 3-byte, > U+10FFFF
  text::append_json_string(out, "\x80|\xC0\xAF|\xED\xA0\x80|\xE2\x82|\xF4\x90\x80\x80");
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(out, "\"" + fffd + "|" + fffd + fffd + "|" + fffd + fffd + fffd + "|" + fffd + fffd + "|" + fffd +
                     fffd + fffd + fffd + "\"");
}

TEST(EsStrings, Doubles) {
  auto d = [](double v) {
    std::string o;
    text::append_json_double(o, v);
    return o;
  };
  EXPECT_EQ(d(42), "42.0");
  EXPECT_EQ(d(1.5), "1.5");
  EXPECT_EQ(d(1e300), "1e+300");
  EXPECT_EQ(d(-0.0), "-0.0");
  EXPECT_EQ(d(0.1), "0.1");
  EXPECT_EQ(d(std::nan("")), "null");
}

TEST(EsRouting, StaticIndexAndElasticsearchIndex) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add();
  f.add().attributes.push_back(kv(a, "elasticsearch.index", s(a, "my-index")));
  auto b = f.encode(config("static"));
  EXPECT_EQ(action(b, 0)["create"]["_index"], "static");
  EXPECT_FALSE(doc(b, 0).contains("data_stream"));
  auto b2 = f.encode();
  EXPECT_EQ(action(b2, 1)["create"]["_index"], "my-index");
  EXPECT_FALSE(doc(b2, 1).contains("data_stream"));
}

TEST(EsRouting, LookupOrderAndSanitizing) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(
      kv(a, "data_stream.namespace", s(a, "resource.namespace.-\\/*?\"<>| ,#:")));
  f.rl->resource.attributes.push_back(kv(a, "data_stream.dataset", s(a, "resource.dataset")));
  f.sl->scope.attributes.push_back(kv(a, "data_stream.dataset", s(a, "scope.dataset")));
  f.add().attributes.push_back(kv(a, "data_stream.dataset", s(a, "record.dataset.\\/*?\"<>| ,#:")));
  f.add();
  auto b = f.encode();
  EXPECT_EQ(doc(b, 0)["data_stream"]["dataset"], "record.dataset.____________.otel");
  EXPECT_EQ(doc(b, 0)["data_stream"]["namespace"], "resource.namespace.-____________");
  EXPECT_EQ(action(b, 0)["create"]["_index"],
            "logs-record.dataset.____________.otel-resource.namespace.-____________");
  EXPECT_EQ(doc(b, 1)["data_stream"]["dataset"], "scope.dataset.otel");
  EXPECT_EQ(doc(b, 1)["scope"]["attributes"], Json::object());
}

TEST(EsRouting, ReceiverScopeNameAndTruncation) {
  EXPECT_EQ(
      receiver_from_scope_name("github.com/open-telemetry/collector/receiver/hostmetricsreceiver/internal"),
      "hostmetricsreceiver");
  EXPECT_EQ(receiver_from_scope_name("x/receiver/foo"), "");
  EXPECT_EQ(receiver_from_scope_name("x/receiver/foo/receiver/barreceiver"), "barreceiver");
  EXPECT_EQ(receiver_from_scope_name("x/receiver/areceiverbreceiverc"), "areceiverbreceiver");
  std::string out;
  sanitize_dataset(std::string(94, 'a') + "\xC3\xA9zz", out);
  EXPECT_EQ(out, std::string(94, 'a'));  // would split é: cut before it
  sanitize_namespace("UPPER-case", out);
  EXPECT_EQ(out, "upper-case");
  sanitize_dataset("UPPER-case", out);
  EXPECT_EQ(out, "upper_case");
  // Elasticsearch refuses an index name that lowercasing would change, non-ASCII letters
  // included: they are lowered too.
  sanitize_dataset("UPPER-Case.\xC3\x84\xC3\x96", out);  // ÄÖ
  EXPECT_EQ(out, "upper_case.\xC3\xA4\xC3\xB6");         // äö
  sanitize_namespace("NS-\xCE\xA3\xD0\x96", out);        // ΣЖ
  EXPECT_EQ(out, "ns-\xCF\x83\xD0\xB6");                 // σж
  // Lowering can change a letter's length: cut after, on a character boundary.
  sanitize_dataset(std::string(93, 'a') + "\xC8\xBA", out);  // Ⱥ (2 bytes) -> ⱥ (3 bytes)
  EXPECT_EQ(out, std::string(93, 'a'));
  sanitize_dataset(std::string(94, 'a') + "\xE2\x84\xAA" + "b", out);  // the Kelvin sign -> k
  EXPECT_EQ(out, std::string(94, 'a') + "k");
  // Bytes that are not UTF-8 pass as they are (the JSON writer replaces them).
  sanitize_namespace(
      "A\xFF\xC3"
      "B",
      out);
  EXPECT_EQ(out,
            "a\xFF\xC3"
            "b");

  LogsFixture f;
  f.sl->scope.name = "otel/receiver/filelogreceiver";
  f.add();
  EXPECT_EQ(action(f.encode(), 0)["create"]["_index"], "logs-filelogreceiver.otel-default");
}

TEST(EsRouting, NonAsciiDatasetsAreLowered) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().attributes.push_back(kv(a, "data_stream.dataset", s(a, "\xC3\x84pfel")));     // Äpfel
  f.add().attributes.push_back(kv(a, "data_stream.namespace", s(a, "PROD-\xC3\x9C")));  // PROD-Ü
  auto b = f.encode();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(action(b, 0)["create"]["_index"], "logs-\xC3\xA4pfel.otel-default");
  EXPECT_EQ(doc(b, 0)["data_stream"]["dataset"], "\xC3\xA4pfel.otel");
  EXPECT_EQ(action(b, 1)["create"]["_index"], "logs-generic.otel-prod-\xC3\xBC");
  EXPECT_EQ(doc(b, 1)["data_stream"]["namespace"], "prod-\xC3\xBC");
}

TEST(EsRouting, DynamicId) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "abc")));
  f.add().attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "")));
  auto b = f.encode(config({}, {}, {}, true));
  EXPECT_EQ(b.action(0), "{\"create\":{\"_id\":\"abc\",\"_index\":\"logs-generic.otel-default\"}}\n");
  EXPECT_FALSE(action(b, 1)["create"].contains("_id"));
  auto b2 = f.encode();
  EXPECT_FALSE(action(b2, 0)["create"].contains("_id"));
}

// An `elasticsearch.document_id` of another kind is its text, as the Collector reads it
// (pcommon's AsString); it used to give no `_id` at all. In every mode that honours it.
TEST(EsRouting, DynamicIdOfAnotherKindIsItsText) {
  for (MappingMode mode : {MappingMode::Otel, MappingMode::BodyMap, MappingMode::None, MappingMode::Ecs}) {
    SCOPED_TRACE(static_cast<int>(mode));
    LogsFixture f;
    auto& a = f.d.arena;
    const AnyValue ids[] = {AnyValue::integer(5), AnyValue::boolean(true),
                            AnyValue::dbl(1.5),   AnyValue::bytes(a.copy(std::string("\x01\x02"))),
                            AnyValue(),           kvlist(a, {kv(a, "k", AnyValue::integer(1))})};
    for (const AnyValue& id : ids) {
      auto& r = f.add();
      r.body = kvlist(a, {kv(a, "m", s(a, "x"))});  // bodymap wants a map body
      r.attributes.push_back(kv(a, "elasticsearch.document_id", id));
    }
    EncoderConfig c = config({}, {}, {}, true);
    c.mode = mode;
    auto b = f.encode(c);
    ASSERT_EQ(b.size(), 6u);
    EXPECT_EQ(action(b, 0)["create"]["_id"], "5");
    EXPECT_EQ(action(b, 1)["create"]["_id"], "true");
    EXPECT_EQ(action(b, 2)["create"]["_id"], "1.5");
    EXPECT_EQ(action(b, 3)["create"]["_id"], "AQI=");
    EXPECT_FALSE(action(b, 4)["create"].contains("_id"));  // an empty value: ""
    EXPECT_EQ(action(b, 5)["create"]["_id"], "{\"k\":1}");
  }
}

// The Collector's logs_dynamic_pipeline: a log record's non-empty elasticsearch.ingest_pipeline
// (its text, as AsString reads it) is its action line's `pipeline`, in every mode; otel mode
// then leaves the attribute out of the document. Off, it is an attribute like any other.
TEST(EsRouting, DynamicPipeline) {
  for (MappingMode mode : {MappingMode::Otel, MappingMode::BodyMap, MappingMode::None, MappingMode::Ecs}) {
    SCOPED_TRACE(static_cast<int>(mode));
    LogsFixture f;
    auto& a = f.d.arena;
    const AnyValue pipelines[] = {s(a, "logs-p1"), s(a, ""), AnyValue::integer(7)};
    for (const AnyValue& p : pipelines) {
      auto& r = f.add();
      r.body = kvlist(a, {kv(a, "m", s(a, "x"))});  // bodymap wants a map body
      r.attributes.push_back(kv(a, "elasticsearch.ingest_pipeline", p));
      r.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "d")));
    }
    f.add().body = kvlist(a, {kv(a, "m", s(a, "y"))});  // none at all: the scope's cached action
    // Only a record's own attribute is its pipeline; in the resource and scope it is data.
    f.rl->resource.attributes.push_back(kv(a, "elasticsearch.ingest_pipeline", s(a, "res-p")));
    f.sl->scope.attributes.push_back(kv(a, "elasticsearch.ingest_pipeline", s(a, "scope-p")));
    EncoderConfig c = config({}, {}, {}, true);
    c.mode = mode;
    c.logs_dynamic_pipeline = true;
    auto b = f.encode(c);
    ASSERT_EQ(b.size(), 4u);
    EXPECT_EQ(action(b, 0)["create"]["pipeline"], "logs-p1");
    EXPECT_EQ(action(b, 0)["create"]["_id"], "d");
    EXPECT_FALSE(action(b, 1)["create"].contains("pipeline"));
    EXPECT_EQ(action(b, 2)["create"]["pipeline"], "7");
    EXPECT_FALSE(action(b, 3)["create"].contains("pipeline"));
    if (mode == MappingMode::Otel) {
      EXPECT_EQ(
          b.action(0),
          "{\"create\":{\"_id\":\"d\",\"_index\":\"logs-generic.otel-default\",\"pipeline\":\"logs-p1\"}}\n");
      EXPECT_EQ(doc(b, 0)["attributes"], nlohmann::json::object());  // both control attributes out
      EXPECT_EQ(doc(b, 3)["resource"]["attributes"]["elasticsearch.ingest_pipeline"], "res-p");
      EXPECT_EQ(doc(b, 3)["scope"]["attributes"]["elasticsearch.ingest_pipeline"], "scope-p");
    }
  }
  // A span's attribute is data too, with the option on (it is for logs).
  {
    TracesData t;
    auto& ss = t.resource_spans.emplace_back(t.arena).scope_spans.emplace_back(t.arena);
    auto& span = ss.spans.emplace_back(t.arena);
    span.name = "s";
    span.attributes.push_back(kv(t.arena, "elasticsearch.ingest_pipeline", s(t.arena, "span-p")));
    EncoderConfig c;
    c.logs_dynamic_pipeline = true;
    EncodedBatch b;
    Encoder(c).encode_traces(t, b);
    expect_valid(b);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_FALSE(action(b, 0)["create"].contains("pipeline"));
    EXPECT_EQ(doc(b, 0)["attributes"]["elasticsearch.ingest_pipeline"], "span-p");
  }
  // Off: no pipeline, and in otel mode the attribute is written like any other.
  LogsFixture f;
  auto& a = f.d.arena;
  f.add().attributes.push_back(kv(a, "elasticsearch.ingest_pipeline", s(a, "p")));
  auto b = f.encode();
  EXPECT_FALSE(action(b, 0)["create"].contains("pipeline"));
  EXPECT_EQ(doc(b, 0)["attributes"]["elasticsearch.ingest_pipeline"], "p");
}

// Elasticsearch refuses an `_id` over 512 bytes by failing the whole bulk request (400
// action_request_validation_exception), which the exporter retries for ever: such a record
// is not written, in every mode that honours logs_dynamic_id, and counted under its reason.
TEST(EsRouting, DynamicIdOver512BytesIsRejectedAndCounted) {
  for (MappingMode mode : {MappingMode::Otel, MappingMode::BodyMap, MappingMode::None, MappingMode::Raw}) {
    SCOPED_TRACE(static_cast<int>(mode));
    LogsFixture f;
    auto& a = f.d.arena;
    const std::string at_limit(512, 'a'), over(513, 'b');
    for (const std::string* id : {&at_limit, &over, &at_limit}) {
      auto& r = f.add();
      r.body = kvlist(a, {kv(a, "m", AnyValue::integer(1))});
      r.attributes.push_back(kv(a, "elasticsearch.document_id", s(a, *id)));
    }
    f.add().body = kvlist(a, {kv(a, "m", AnyValue::integer(2))});  // no id
    EncoderConfig c = config({}, {}, {}, true);
    c.mode = mode;
    auto b = f.encode(c);
    expect_valid(b);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b.stats.rejected[std::size_t(EncodeReject::DocumentIdTooLong)], 1u);
    EXPECT_EQ(b.stats.total_rejected(), 1u);
    EXPECT_EQ(action(b, 0)["create"]["_id"], at_limit);
    EXPECT_EQ(action(b, 1)["create"]["_id"], at_limit);
    EXPECT_FALSE(action(b, 2)["create"].contains("_id"));
    // Without logs_dynamic_id the attribute is not an id: nothing is rejected.
    c.logs_dynamic_id = false;
    EXPECT_EQ(f.encode(c).size(), 4u);
  }
  EXPECT_STREQ(to_string(EncodeReject::DocumentIdTooLong), "document_id_too_long");
}

TEST(EsRouting, SharedActionLinesReferToTheFirstCopy) {
  LogsFixture f;
  auto& a = f.d.arena;
  f.add();                                                                         // 0: writes it
  f.add();                                                                         // 1: shares 0's
  f.add().attributes.push_back(kv(a, "data_stream.dataset", s(a, "own")));         // 2: own route
  f.add();                                                                         // 3: shares 0's
  f.add().attributes.push_back(kv(a, "elasticsearch.document_id", s(a, "id-4")));  // 4: has an _id
  f.rl->scope_logs.emplace_back(a).log_records.emplace_back(a);                    // 5: new scope
  f.rl->scope_logs.back().log_records.emplace_back(a);                             // 6: shares 5's
  const EncodedBatch plain = f.encode(config({}, {}, {}, true));
  const EncodedBatch b = f.encode(sharing(config({}, {}, {}, true)));
  expect_shared_equivalent(b, plain);
  std::vector<bool> shares;
  for (const auto& it : b.items) shares.push_back(it.shares_action());
  EXPECT_EQ(shares, (std::vector<bool>{false, true, false, true, false, false, true}));
  EXPECT_EQ(b.items[1].action_at, b.items[0].offset);
  EXPECT_EQ(b.items[3].action_at, b.items[0].offset);
  EXPECT_EQ(b.items[6].action_at, b.items[5].offset);
  EXPECT_EQ(b.action(3), "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n");
  EXPECT_EQ(b.data.size(), plain.data.size() - 3 * b.action(3).size());

  // A second batch into the same output starts over: nothing refers across calls.
  Encoder enc(sharing(config({}, {}, {}, true)));
  EncodedBatch again;
  enc.encode_logs(f.d, again);
  enc.encode_logs(f.d, again);
  EXPECT_FALSE(again.items[7].shares_action());
  EXPECT_EQ(again.items[8].action_at, again.items[7].offset);
}

// Records are written in one pass; one that turns out to route itself (its routing key may
// come after attributes already written) is taken back and written on its own route, and
// the scope's later records are scanned first. Shared action lines stay consistent either
// way, also when the taken-back record was the one that wrote the scope's action line.
TEST(EsLogsOnePass, ARecordThatRoutesItselfIsTakenBackAndWrittenOnItsRoute) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& first = f.add();  // 0: routes itself, after two attributes: nothing of it may stay
  first.attributes.push_back(kv(a, "x", AnyValue::integer(1)));
  first.attributes.push_back(kv(a, "y", s(a, "z")));
  first.attributes.push_back(kv(a, "data_stream.namespace", s(a, "own")));
  f.add().attributes.push_back(kv(a, "x", AnyValue::integer(2)));                // 1: the scope's route
  f.add();                                                                       // 2: shares 1's
  f.add().attributes.push_back(kv(a, "elasticsearch.index", s(a, "my-index")));  // 3: own index
  f.add();                                                                       // 4: scanned, shares 1's
  const EncodedBatch plain = f.encode();
  const EncodedBatch b = f.encode(sharing(config()));
  expect_shared_equivalent(b, plain);
  EXPECT_EQ(action(plain, 0)["create"]["_index"], "logs-generic.otel-own");
  EXPECT_EQ(doc(plain, 0)["attributes"], Json::parse(R"({"x":1,"y":"z"})"));
  EXPECT_EQ(doc(plain, 0)["data_stream"]["namespace"], "own");
  EXPECT_EQ(action(plain, 1)["create"]["_index"], "logs-generic.otel-default");
  EXPECT_EQ(action(plain, 3)["create"]["_index"], "my-index");
  EXPECT_EQ(action(plain, 4)["create"]["_index"], "logs-generic.otel-default");
  std::vector<bool> shares;
  for (const auto& it : b.items) shares.push_back(it.shares_action());
  EXPECT_EQ(shares, (std::vector<bool>{false, false, true, false, true}));
  EXPECT_EQ(b.items[2].action_at, b.items[1].offset);
  EXPECT_EQ(b.items[4].action_at, b.items[1].offset);

  // Taken back after records written in one pass, while sharing the scope's action line.
  LogsFixture g;
  auto& ga = g.d.arena;
  g.add();                                                                     // 0: writes it
  g.add();                                                                     // 1: shares it
  g.add().attributes.push_back(kv(ga, "data_stream.dataset", s(ga, "mine")));  // 2: taken back
  g.add();                                                                     // 3: scanned, shares 0's
  const EncodedBatch g_plain = g.encode();
  const EncodedBatch g_shared = g.encode(sharing(config()));
  expect_shared_equivalent(g_shared, g_plain);
  EXPECT_EQ(action(g_plain, 2)["create"]["_index"], "logs-mine.otel-default");
  EXPECT_EQ(g_shared.items[3].action_at, g_shared.items[0].offset);

  // With a static index routing keys route nothing: only left out, nothing taken back.
  const EncodedBatch s1 = f.encode(config("static"));
  for (std::size_t i = 0; i < s1.size(); ++i) EXPECT_EQ(action(s1, i)["create"]["_index"], "static");
  EXPECT_EQ(doc(s1, 0)["attributes"], Json::parse(R"({"x":1,"y":"z"})"));
}

// Keys and string values below 64 bytes take one reservation each; at 64 and beyond, and
// for values that are no scalar, the writer's general path. Both write the same JSON,
// escapes and invalid UTF-8 included, next to each other in one record.
TEST(EsLogsOnePass, ShortAndLongMembersSideBySide) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  const std::string k63(63, 'k'), k64(64, 'K'), v63(63, 'v'), v64(64, 'V');
  r.attributes.push_back(kv(a, k63, s(a, v63)));
  r.attributes.push_back(kv(a, k64, s(a, "short")));
  r.attributes.push_back(kv(a, "short", s(a, v64)));
  r.attributes.push_back(kv(a, "m", kvlist(a, {kv(a, "in", AnyValue::integer(1))})));
  r.attributes.push_back(kv(a, "q\"uote", s(a, "tab\there")));
  r.attributes.push_back(kv(a, "bad", AnyValue::string(a.copy(std::string_view("\xC3(", 2)))));
  r.attributes.push_back(kv(a, "bytes", AnyValue::bytes(a.copy(std::string_view("\x01\xff", 2)))));
  r.attributes.push_back(kv(a, "empty", AnyValue{}));
  r.attributes.push_back(kv(a, "neg", AnyValue::dbl(-0.0)));
  r.attributes.push_back(kv(a, "big", AnyValue::integer(-1234567890123)));
  r.attributes.push_back(kv(a, "f", AnyValue::boolean(false)));
  const std::string k74(74, 'L');  // 64 + 10: its length passes the role test modulo 64
  r.attributes.push_back(kv(a, k74, AnyValue::integer(74)));
  const EncodedBatch b = f.encode();
  Json want = Json::object();
  want[k74] = 74;
  want[k63] = v63;
  want[k64] = "short";
  want["short"] = v64;
  want["m"] = Json::parse(R"({"in":1})");
  want["q\"uote"] = "tab\there";
  want["bad"] = "\xEF\xBF\xBD(";
  want["bytes"] = "01ff";
  want["empty"] = nullptr;
  want["neg"] = -0.0;
  want["big"] = -1234567890123;
  want["f"] = false;
  EXPECT_EQ(doc(b, 0)["attributes"], want);
  EXPECT_NE(doc_text(b, 0).find(R"("neg":-0.0,)"), std::string::npos) << doc_text(b, 0);
}

// String attributes whose key and value both fit one 16-byte load are tested side by side
// (clean_string_member): every pair of lengths 0 to 17, the last byte clean or needing an
// escape (quote, control byte, invalid UTF-8), whatever bytes follow in memory, next to a
// member that takes another path.
TEST(EsLogsOnePass, StringMembersOfEveryShortLength) {
  const std::string tail(32, '"');  // bytes after each string that must not count
  struct Case {
    std::string key_buf, value_buf;
    Json key, value;
  };
  std::vector<Case> cases;
  const char lasts[] = {'k', '"', '\x01', '\xE9'};
  for (std::size_t nk = 0; nk <= 17; ++nk)
    for (std::size_t nv = 0; nv <= 17; ++nv)
      for (const char last : lasts) {
        Case c;
        std::string k(nk, 'k'), v(nv, 'v');
        if (nk) k.back() = last;
        if (nv) v.back() = last == 'k' ? 'v' : last;
        const auto json_text = [](std::string t) {
          if (!t.empty() && t.back() == '\xE9') t.replace(t.size() - 1, 1, "\xEF\xBF\xBD");  // U+FFFD
          return Json(t);
        };
        c.key = json_text(k);
        c.value = json_text(v);
        c.key_buf = k + tail;
        c.value_buf = v + tail;
        cases.push_back(std::move(c));
      }
  LogsFixture f;
  for (const Case& c : cases) {
    auto& r = f.add();
    const std::string_view key(c.key_buf.data(), c.key_buf.size() - tail.size());
    const std::string_view value(c.value_buf.data(), c.value_buf.size() - tail.size());
    r.attributes.push_back({key, AnyValue::string(value)});
    r.attributes.push_back({"#", AnyValue::integer(7)});
  }
  const EncodedBatch b = f.encode();
  ASSERT_EQ(b.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Json want = Json::object();
    want[cases[i].key.get<std::string>()] = cases[i].value;
    want["#"] = 7;
    ASSERT_EQ(doc(b, i)["attributes"], want) << doc_text(b, i);
  }
}

// ... and the two loads never cross into the next page: keys and values ending at the very
// end of a page followed by an unmapped one.
TEST(EsLogsOnePass, StringMembersEndingAtAPageEnd) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  char* pages[2];
  for (char*& base : pages) {
    void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    base = static_cast<char*>(m);
    ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  }
  for (std::size_t nk = 1; nk <= 17; ++nk)
    for (std::size_t nv = 1; nv <= 17; ++nv) {
      char* k = pages[0] + page - nk;
      char* v = pages[1] + page - nv;
      std::memset(k, 'k', nk);
      std::memset(v, 'v', nv);
      LogsFixture f;
      f.add().attributes.push_back({std::string_view(k, nk), AnyValue::string(std::string_view(v, nv))});
      const EncodedBatch b = f.encode();
      Json want = Json::object();
      want[std::string(nk, 'k')] = std::string(nv, 'v');
      ASSERT_EQ(doc(b, 0)["attributes"], want) << nk << " " << nv;
    }
  for (char* base : pages) munmap(base, 2 * page);
}

// What the one pass leaves to the general path still comes out in the spec's order:
// severity_text beyond the inline bound, dropped counts, a long event_name, a map body.
TEST(EsLogsOnePass, RareFieldsInTheirPlace) {
  LogsFixture f;
  auto& a = f.d.arena;
  auto& r = f.add();
  const std::string long_text(300, 'S'), long_name(300, 'n');
  r.severity_text = a.copy(long_text);
  r.severity_number = 9;
  r.dropped_attributes_count = 2;
  r.attributes.push_back(kv(a, "event.name", s(a, long_name)));
  r.body = kvlist(a, {kv(a, "k", s(a, "v"))});
  auto& r2 = f.add();
  r2.attributes.push_back(kv(a, "a", AnyValue::integer(1)));
  r2.dropped_attributes_count = 1;
  r2.body = AnyValue::integer(7);
  const EncodedBatch b = f.encode();
  const auto first = nlohmann::ordered_json::parse(doc_text(b, 0));
  std::vector<std::string> keys;
  for (const auto& [key, value] : first.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "@timestamp", "observed_timestamp", "data_stream", "severity_text", "severity_number",
                      "attributes", "dropped_attributes_count", "event_name", "resource", "scope", "body"}));
  EXPECT_EQ(doc(b, 0)["severity_text"], long_text);
  EXPECT_EQ(doc(b, 0)["event_name"], long_name);
  EXPECT_EQ(doc(b, 0)["attributes"]["event.name"], long_name);
  EXPECT_EQ(doc(b, 0)["body"]["structured"], Json::parse(R"({"k":"v"})"));
  EXPECT_EQ(doc(b, 1)["dropped_attributes_count"], 1);
  EXPECT_EQ(doc(b, 1)["body"]["text"], 7);
}

TEST(EsTraces, SpanAndEvents) {
  TracesData d;
  auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  auto& ss = rs.scope_spans.emplace_back(a);
  auto& sp = ss.spans.emplace_back(a);
  sp.trace_id[0] = 0xAB;
  sp.span_id[7] = 1;
  sp.parent_span_id[0] = 2;
  sp.trace_state = "k=v";
  sp.name = "op";
  sp.kind = SpanKind::Server;
  sp.start_time_unix_nano = 1000000005;
  sp.end_time_unix_nano = 1000001005;
  sp.dropped_events_count = 3;
  auto& l = sp.links.emplace_back(a);
  l.span_id[0] = 9;
  l.attributes.push_back(kv(a, "k", AnyValue::integer(1)));
  sp.status.code = StatusCode::Error;
  sp.status.message = "bad";
  auto& ev = sp.events.emplace_back(a);
  ev.time_unix_nano = 7;
  ev.name = "exception";
  ev.attributes.push_back(kv(a, "exception.type", s(a, "E")));
  auto& ev2 = sp.events.emplace_back(a);  // no name, no attributes
  ev2.dropped_attributes_count = 1;
  auto& sp2 = ss.spans.emplace_back(a);  // all defaults
  sp2.kind = static_cast<SpanKind>(99);
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_traces(d, b);
  expect_valid(b);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b.action(0), "{\"create\":{\"_index\":\"traces-generic.otel-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 0),
      R"({"@timestamp":"1000.000005","data_stream":{"type":"traces","dataset":"generic.otel","namespace":"default"},"trace_id":"ab000000000000000000000000000000","span_id":"0000000000000001","trace_state":"k=v","parent_span_id":"0200000000000000","name":"op","kind":"Server","duration":1000,"dropped_events_count":3,"links":[{"span_id":"0900000000000000","attributes":{"k":1}}],"status":{"message":"bad","code":"Error"},"resource":{},"scope":{}})");
  EXPECT_EQ(b.action(1), "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n");
  EXPECT_EQ(
      doc_text(b, 1),
      R"({"@timestamp":"0.000007","data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},"trace_id":"ab000000000000000000000000000000","span_id":"0000000000000001","event_name":"exception","attributes":{"exception.type":"E","event.name":"exception"},"resource":{},"scope":{}})");
  EXPECT_EQ(
      doc_text(b, 2),
      R"({"@timestamp":"0.000000","data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},"trace_id":"ab000000000000000000000000000000","span_id":"0000000000000001","dropped_attributes_count":1,"resource":{},"scope":{}})");
  EXPECT_EQ(
      doc_text(b, 3),
      R"({"@timestamp":"0.000000","data_stream":{"type":"traces","dataset":"generic.otel","namespace":"default"},"kind":"Unspecified","duration":0,"links":[],"status":{},"resource":{},"scope":{}})");
  EXPECT_EQ(b.event_count(), 4u);

  EncodedBatch st;
  Encoder(config("ev", {}, "tr")).encode_traces(d, st);
  EXPECT_EQ(action(st, 0)["create"]["_index"], "tr");
  EXPECT_EQ(action(st, 1)["create"]["_index"], "ev");
}

// Spans are written in one pass as log records are (write_span); one that routes itself is
// taken back and written on its own route, the scope's later spans are scanned first, and
// span events keep their items right after their span either way.
TEST(EsSpansOnePass, ASpanThatRoutesItselfIsTakenBackAndWrittenOnItsRoute) {
  TracesData d;
  auto& a = d.arena;
  auto& ss = d.resource_spans.emplace_back(a).scope_spans.emplace_back(a);
  auto add = [&](const char* name) -> Span& {
    auto& sp = ss.spans.emplace_back(a);
    sp.name = name;
    sp.span_id[7] = static_cast<std::uint8_t>(ss.spans.size());
    return sp;
  };
  add("0").events.emplace_back(a).name = "e0";  // 0, 1: event
  auto& routed = add("2");                      // 2: own route
  routed.attributes.push_back(kv(a, "x", AnyValue::integer(1)));
  routed.attributes.push_back(kv(a, "data_stream.dataset", s(a, "mine")));
  routed.events.emplace_back(a).name = "e3";                        // 3: event
  add("4").attributes.push_back(kv(a, "y", AnyValue::integer(2)));  // 4: scanned
  const auto encode = [&](EncoderConfig cfg) {
    EncodedBatch b;
    Encoder(cfg).encode_traces(d, b);
    expect_valid(b);
    return b;
  };
  const EncodedBatch plain = encode({});
  ASSERT_EQ(plain.size(), 5u);
  const char* want_index[] = {"traces-generic.otel-default", "logs-generic.otel-default",
                              "traces-mine.otel-default", "logs-generic.otel-default",
                              "traces-generic.otel-default"};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(action(plain, i)["create"]["_index"], want_index[i]) << i;
  EXPECT_EQ(doc(plain, 0)["name"], "0");
  EXPECT_EQ(doc(plain, 1)["event_name"], "e0");
  EXPECT_EQ(doc(plain, 2)["attributes"], Json::parse(R"({"x":1})"));
  EXPECT_EQ(doc(plain, 2)["data_stream"]["dataset"], "mine.otel");
  EXPECT_EQ(doc(plain, 3)["event_name"], "e3");
  EXPECT_EQ(doc(plain, 4)["attributes"], Json::parse(R"({"y":2})"));
  const EncodedBatch shared = encode(sharing({}));
  expect_shared_equivalent(shared, plain);
  EXPECT_EQ(shared.items[4].action_at, shared.items[0].offset);  // the scanned span shares span 0's

  // A static index: routing keys are only left out.
  const EncodedBatch st = encode(config({}, {}, "static"));
  EXPECT_EQ(action(st, 2)["create"]["_index"], "static");
  EXPECT_EQ(doc(st, 2)["attributes"], Json::parse(R"({"x":1})"));
}

// Both span paths write the same bytes: each span below is encoded once in one pass and once
// scanned (after a span that routes itself, which turns scanning on for the rest of its
// scope), and the two documents are compared byte for byte. The spans cover what the one
// pass writes itself (status message and code in every combination, ids, trace_state,
// kinds, escapes, geo points, excluded keys) and what it hands to the writer (links,
// dropped counts, names and trace states beyond the inline bound, long attributes).
TEST(EsSpansOnePass, OnePassAndScannedSpansAreTheSameBytes) {
  TracesData d;
  auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  rs.resource.attributes.push_back(kv(a, "service.name", s(a, "svc")));
  rs.scope_spans.emplace_back(a);
  rs.scope_spans.emplace_back(a);
  auto& one_pass = rs.scope_spans[0];
  auto& scanned = rs.scope_spans[1];
  scanned.spans.emplace_back(a).attributes.push_back(kv(a, "elasticsearch.index", s(a, "elsewhere")));
  const std::string long_name(300, 'n');
  const auto fill = [&](Span& sp, int i) {
    sp.trace_id[3] = static_cast<std::uint8_t>(i + 1);
    if (i % 2) sp.span_id[0] = 0xfe;
    if (i % 3 == 0) sp.parent_span_id[7] = 0x10;
    sp.kind = static_cast<SpanKind>(i % 7);
    sp.start_time_unix_nano = 1721314113467654123ull + static_cast<std::uint64_t>(i) * 999999937ull;
    sp.end_time_unix_nano = sp.start_time_unix_nano + static_cast<std::uint64_t>(i) * 1000;
    sp.name =
        i == 12 ? a.copy(long_name) : a.copy(std::string("op \"").append(std::to_string(i)).append("\""));
    if (i == 6) sp.trace_state = a.copy(std::string(280, 's'));
    if (i == 7) sp.trace_state = "k=v";
    sp.status.code = static_cast<StatusCode>(i % 3);
    if (i % 2 == 1) sp.status.message = i == 9 ? a.copy(std::string(300, 'm')) : a.copy("why\n");
    sp.attributes.push_back(kv(a, std::string("k").append(std::to_string(i)), AnyValue::integer(i)));
    if (i == 2) {
      sp.attributes.push_back(kv(a, "geo.location.lat", AnyValue::dbl(1.5)));
      sp.attributes.push_back(kv(a, "geo.location.lon", AnyValue::dbl(2.5)));
      sp.attributes.push_back(kv(a, "elasticsearch.mapping.hints", s(a, "x")));
      sp.attributes.push_back(kv(a, "event.name", s(a, "plain here")));
    }
    if (i == 3) sp.attributes.push_back(kv(a, std::string(70, 'L'), s(a, std::string(90, 'v'))));
    if (i == 4) sp.links.emplace_back(a).span_id[1] = 3;
    if (i == 8) {
      sp.dropped_attributes_count = 1;
      sp.dropped_events_count = 2;
      sp.dropped_links_count = 3;
    }
    if (i == 10) sp.attributes.clear();
  };
  constexpr int kSpans = 13;
  for (int i = 0; i < kSpans; ++i) {
    fill(one_pass.spans.emplace_back(a), i);
    fill(scanned.spans.emplace_back(a), i);
  }
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_traces(d, b);
  expect_valid(b);
  ASSERT_EQ(b.size(), 2u * kSpans + 1);
  EXPECT_EQ(action(b, kSpans)["create"]["_index"], "elsewhere");
  for (int i = 0; i < kSpans; ++i) {
    EXPECT_EQ(b.document(i), b.document(kSpans + 1 + i)) << i;
    EXPECT_EQ(b.action(i), b.action(kSpans + 1 + i)) << i;
  }
  EXPECT_EQ(doc(b, 1)["status"], Json::parse(R"({"message":"why\n","code":"Ok"})"));
  EXPECT_EQ(doc(b, 2)["status"], Json::parse(R"({"code":"Error"})"));
  EXPECT_EQ(doc(b, 3)["status"], Json::parse(R"({"message":"why\n"})"));
  EXPECT_EQ(doc(b, 11)["status"], Json::parse(R"({"message":"why\n","code":"Error"})"));
  EXPECT_EQ(doc(b, 9)["status"]["message"], std::string(300, 'm'));
  EXPECT_EQ(doc(b, 0)["status"], Json::object());
  EXPECT_EQ(doc(b, 2)["attributes"]["geo.location"], Json::parse("[2.5,1.5]"));
  EXPECT_FALSE(doc(b, 2)["attributes"].contains("elasticsearch.mapping.hints"));
  EXPECT_EQ(doc(b, 2)["attributes"]["event.name"], "plain here");
  EXPECT_EQ(doc(b, 12)["name"], long_name);
  EXPECT_EQ(doc(b, 8)["dropped_links_count"], 3);
  EXPECT_FALSE(doc(b, 10).contains("attributes"));
}

// Every document repeats its resource and scope, so a small request can ask for an
// enormous output; a scope whose repeated parts cannot fit what is left of
// max_output_bytes is not written, and its items are counted as output_too_large.
TEST(EsOutputBound, AScopeThatCannotFitIsRejectedWholeAndTheOthersAreWritten) {
  LogsData d;
  auto& a = d.arena;
  const auto add_scope = [&](std::size_t resource_bytes, std::size_t records) {
    auto& rl = d.resource_logs.emplace_back(a);
    if (resource_bytes)
      rl.resource.attributes.push_back(kv(a, "big", s(a, std::string(resource_bytes, 'x'))));
    auto& sl = rl.scope_logs.emplace_back(a);
    for (std::size_t i = 0; i < records; ++i) sl.log_records.emplace_back(a).body = s(a, "r");
  };
  add_scope(0, 10);          // fits
  add_scope(64 << 10, 200);  // 200 x 64 KiB = 12.5 MiB: does not
  add_scope(0, 5);           // fits what is left
  EncoderConfig cfg;
  cfg.max_output_bytes = 8 << 20;
  EncodedBatch b;
  Encoder(cfg).encode_logs(d, b);
  expect_valid(b);
  EXPECT_EQ(b.size(), 15u);
  EXPECT_EQ(b.stats.rejected[std::size_t(EncodeReject::OutputTooLarge)], 200u);
  EXPECT_EQ(b.stats.total_rejected(), 200u);
  EXPECT_LT(b.data.size(), 64u << 10);
  EXPECT_STREQ(to_string(EncodeReject::OutputTooLarge), "output_too_large");
}

TEST(EsOutputBound, TheDefaultBoundStopsAOneMegabyteRequestFromAskingForAGigabyte) {
  // A 1 MiB resource attribute on 1,000 empty records: a request of about 1 MiB whose
  // documents would take 1 GiB; the default bound (512 MiB) refuses the scope up front.
  LogsFixture f;
  auto& a = f.d.arena;
  f.rl->resource.attributes.push_back(kv(a, "big", s(a, std::string(1 << 20, 'x'))));
  for (int i = 0; i < 1000; ++i) f.add();
  auto b = f.encode();
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.stats.rejected[std::size_t(EncodeReject::OutputTooLarge)], 1000u);
  EXPECT_LT(b.data.capacity(), 64u << 20);  // nothing near the documents' size was reserved
  // 20 of them (20 MiB) are well within the default bound and are written.
  f.sl->log_records.erase(f.sl->log_records.begin() + 20, f.sl->log_records.end());
  auto ok = f.encode();
  EXPECT_EQ(ok.size(), 20u);
  EXPECT_EQ(ok.stats.total_rejected(), 0u);
}

TEST(EsOutputBound, SpansCountTheirEventsAndBodyMapItsActionLines) {
  TracesData d;
  auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  rs.resource.attributes.push_back(kv(a, "big", s(a, std::string(4096, 'x'))));
  auto& ss = rs.scope_spans.emplace_back(a);
  for (int i = 0; i < 10; ++i) {
    auto& sp = ss.spans.emplace_back(a);
    sp.events.emplace_back(a);
    sp.events.emplace_back(a);
  }
  EncoderConfig cfg;
  cfg.max_output_bytes = 64 << 10;  // 30 documents x 4 KiB of resource do not fit
  EncodedBatch b;
  Encoder(cfg).encode_traces(d, b);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.stats.rejected[std::size_t(EncodeReject::OutputTooLarge)], 30u);  // 10 spans, 20 events
  cfg.max_output_bytes = 1 << 20;
  EncodedBatch fits;
  Encoder(cfg).encode_traces(d, fits);
  expect_valid(fits);
  EXPECT_EQ(fits.size(), 30u);

  LogsFixture f;
  for (int i = 0; i < 10; ++i) f.add().body = kvlist(f.d.arena, {});
  EncoderConfig bm;
  bm.mode = MappingMode::BodyMap;
  bm.max_output_bytes = 100;  // ten action lines of ~45 bytes
  auto r = f.encode(bm);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.stats.rejected[std::size_t(EncodeReject::OutputTooLarge)], 10u);
}

}  // namespace
}  // namespace tern::encoding::es::test
