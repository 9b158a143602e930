// OTLP/JSON codec: canonical JSON round trips (decode -> encode gives the same
// bytes, covering every field), spelling variants, and error reporting.
#include <gtest/gtest.h>

#include <cmath>

#include "otlp/json_codec.h"

namespace tern::otlp {
namespace {

using namespace tern::pdata;

// Every field of every logs message, in the order the encoder writes them.
constexpr std::string_view kLogs =
    R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}],)"
    R"("droppedAttributesCount":1},"scopeLogs":[{"scope":{"name":"lib","version":"1.0","attributes":)"
    R"([{"key":"b","value":{"boolValue":true}}],"droppedAttributesCount":2},"logRecords":[{)"
    R"("timeUnixNano":"1700000000000000001","observedTimeUnixNano":"18446744073709551615",)"
    R"("severityNumber":9,"severityText":"INFO","body":{"kvlistValue":{"values":[)"
    R"({"key":"s","value":{"stringValue":"q\"\\\n\u0001é"}},{"key":"i","value":{"intValue":"-9223372036854775808"}},)"
    R"({"key":"d","value":{"doubleValue":1.5}},{"key":"nan","value":{"doubleValue":"NaN"}},)"
    R"({"key":"inf","value":{"doubleValue":"-Infinity"}},{"key":"by","value":{"bytesValue":"AAH/"}},)"
    R"({"key":"b1","value":{"bytesValue":"YQ=="}},{"key":"f","value":{"boolValue":false}},)"
    R"({"key":"es","value":{"stringValue":""}},{"key":"empty","value":{}},)"
    R"({"key":"arr","value":{"arrayValue":{"values":[{"intValue":"1"},{"arrayValue":{}},{"kvlistValue":{}}]}}}]}},)"
    R"("attributes":[{"key":"k","value":{"stringValue":"v"}}],"droppedAttributesCount":3,"flags":1,)"
    R"("traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"a1a2a3a4a5a6a7a8","eventName":"ev"}],)"
    R"("schemaUrl":"https://s/1"}],"schemaUrl":"https://s/0"}]})";

constexpr std::string_view kTraces =
    R"({"resourceSpans":[{"resource":{"attributes":[{"key":"r","value":{"intValue":"5"}}]},"scopeSpans":[{)"
    R"("scope":{"name":"tracer"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",)"
    R"("spanId":"eee19b7ec3c1b174","traceState":"a=b","parentSpanId":"eee19b7ec3c1b173","flags":257,)"
    R"("name":"GET /","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000",)"
    R"("attributes":[{"key":"http.method","value":{"stringValue":"GET"}}],"droppedAttributesCount":1,)"
    R"("events":[{"timeUnixNano":"1544712660500000000","name":"ev","attributes":[{"key":"x",)"
    R"("value":{"doubleValue":-0.25}}],"droppedAttributesCount":4}],"droppedEventsCount":2,)"
    R"("links":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","traceState":"c=d",)"
    R"("attributes":[{"key":"l","value":{"boolValue":true}}],"droppedAttributesCount":5,"flags":256}],)"
    R"("droppedLinksCount":3,"status":{"message":"boom","code":2}}],"schemaUrl":"u1"}],"schemaUrl":"u0"}]})";

constexpr std::string_view kMetrics =
    R"({"resourceMetrics":[{"resource":{"attributes":[{"key":"host","value":{"stringValue":"h"}}]},)"
    R"("scopeMetrics":[{"scope":{"name":"meter","version":"2"},"metrics":[)"
    R"({"name":"g","description":"a gauge","unit":"1","gauge":{"dataPoints":[{"attributes":[{"key":"a",)"
    R"("value":{"stringValue":"b"}}],"startTimeUnixNano":"1","timeUnixNano":"2","asDouble":0,)"
    R"("exemplars":[{"filteredAttributes":[{"key":"f","value":{"intValue":"1"}}],"timeUnixNano":"3",)"
    R"("asInt":"-7","spanId":"0102030405060708","traceId":"0102030405060708090a0b0c0d0e0f10"}],"flags":1}]},)"
    R"("metadata":[{"key":"m","value":{"stringValue":"meta"}}]},)"
    R"({"name":"s","sum":{"dataPoints":[{"timeUnixNano":"2","asInt":"9223372036854775807"}],)"
    R"("aggregationTemporality":2,"isMonotonic":true}},)"
    R"({"name":"h","histogram":{"dataPoints":[{"timeUnixNano":"5","count":"6","sum":10.5,)"
    R"("bucketCounts":["1","2","3"],"explicitBounds":[1,2.5],"exemplars":[{"asDouble":"Infinity"}],)"
    R"("flags":1,"min":0,"max":7}],"aggregationTemporality":1}},)"
    R"({"name":"nosum","histogram":{"dataPoints":[{"count":"1"}]}},)"
    R"({"name":"e","exponentialHistogram":{"dataPoints":[{"timeUnixNano":"5","count":"8","sum":1e+300,)"
    R"("scale":-3,"zeroCount":"1","positive":{"offset":-2,"bucketCounts":["3","4"]},)"
    R"("negative":{"bucketCounts":["0"]},"flags":1,"min":-1,"max":1,"zeroThreshold":1e-09}],)"
    R"("aggregationTemporality":2}},)"
    R"({"name":"q","summary":{"dataPoints":[{"timeUnixNano":"9","count":"4","sum":12,)"
    R"("quantileValues":[{"value":1},{"quantile":0.5,"value":3},{"quantile":1,"value":"NaN"}],"flags":1}]}},)"
    R"({"name":"empty"}]}]}]})";

template <class Data, class Dec, class Enc>
std::string round_trip(std::string_view in, Dec dec, Enc enc) {
  Data data;
  auto err = dec(in, data, DecodeOptions{});
  EXPECT_FALSE(err) << err->to_string();
  std::string out;
  enc(data, out);
  return out;
}

TEST(OtlpJson, LogsRoundTripEveryField) {
  EXPECT_EQ(round_trip<LogsData>(kLogs, decode_logs_json, encode_logs_json), kLogs);
}
TEST(OtlpJson, TracesRoundTripEveryField) {
  EXPECT_EQ(round_trip<TracesData>(kTraces, decode_traces_json, encode_traces_json), kTraces);
}
TEST(OtlpJson, MetricsRoundTripEveryField) {
  EXPECT_EQ(round_trip<MetricsData>(kMetrics, decode_metrics_json, encode_metrics_json), kMetrics);
}

TEST(OtlpJson, LogsDecodedValues) {
  LogsData d;
  ASSERT_FALSE(decode_logs_json(kLogs, d));
  const auto& r = d.resource_logs[0].scope_logs[0].log_records[0];
  EXPECT_EQ(r.time_unix_nano, 1700000000000000001ull);
  EXPECT_EQ(r.observed_time_unix_nano, UINT64_MAX);
  EXPECT_EQ(r.severity_number, 9);
  EXPECT_EQ(r.trace_id[0], 1);
  EXPECT_EQ(r.trace_id[15], 0x10);
  EXPECT_EQ(r.span_id[0], 0xa1);
  EXPECT_EQ(r.event_name, "ev");
  ASSERT_EQ(r.body.kind, ValueKind::KvList);
  const auto& kv = *r.body.kvlist;
  EXPECT_EQ(kv[0].value.string_value, "q\"\\\n\x01\xc3\xa9");
  EXPECT_EQ(kv[1].value.int_value, INT64_MIN);
  EXPECT_TRUE(std::isnan(kv[3].value.double_value));
  EXPECT_EQ(kv[5].value.kind, ValueKind::Bytes);
  EXPECT_EQ(kv[5].value.string_value, std::string_view("\x00\x01\xff", 3));
  EXPECT_EQ(kv[9].value.kind, ValueKind::Empty);
}

TEST(OtlpJson, SnakeCaseNumbersAndEnumNames) {
  constexpr std::string_view in =
      R"({"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"5B8EFFF798038103D269B633813FC60C",)"
      R"("span_id":"EEE19B7EC3C1B174","parent_span_id":"","start_time_unix_nano":1544712660000000000,)"
      R"("kind":"SPAN_KIND_CLIENT","status":{"code":"STATUS_CODE_ERROR"},"dropped_events_count":"2",)"
      R"("unknown_field":{"deep":[1,2,{"x":null}]},"attributes":[{"key":"n","value":{"int_value":42}}]}]}]}]})";
  TracesData d;
  auto err = decode_traces_json(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& s = d.resource_spans[0].scope_spans[0].spans[0];
  EXPECT_EQ(s.trace_id[0], 0x5b);
  EXPECT_EQ(s.span_id[7], 0x74);
  EXPECT_TRUE(is_zero(s.parent_span_id));
  EXPECT_EQ(s.start_time_unix_nano, 1544712660000000000ull);
  EXPECT_EQ(s.kind, SpanKind::Client);
  EXPECT_EQ(s.status.code, StatusCode::Error);
  EXPECT_EQ(s.dropped_events_count, 2u);
  EXPECT_EQ(s.attributes[0].value.int_value, 42);
  std::string out;
  encode_traces_json(d, out);
  EXPECT_NE(out.find(R"("traceId":"5b8efff798038103d269b633813fc60c")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("kind":3)"), std::string::npos) << out;
}

TEST(OtlpJson, SnakeCaseMetrics) {
  constexpr std::string_view in =
      R"({"resource_metrics":[{"scope_metrics":[{"metrics":[{"name":"e","exponential_histogram":{)"
      R"("aggregation_temporality":"AGGREGATION_TEMPORALITY_DELTA","data_points":[{"zero_count":3,)"
      R"("zero_threshold":0.5,"positive":{"bucket_counts":[1,"2"]},"time_unix_nano":"7"}]}}]}]}]})";
  MetricsData d;
  auto err = decode_metrics_json(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& m = d.resource_metrics[0].scope_metrics[0].metrics[0];
  EXPECT_EQ(m.type, MetricType::ExponentialHistogram);
  EXPECT_EQ(m.temporality, AggregationTemporality::Delta);
  const auto& p = m.exponential_histogram_points[0];
  EXPECT_EQ(p.zero_count, 3u);
  EXPECT_EQ(p.zero_threshold, 0.5);
  ASSERT_EQ(p.positive.bucket_counts.size(), 2u);
  EXPECT_EQ(p.positive.bucket_counts[1], 2u);
  EXPECT_FALSE(p.has_sum);
}

TEST(OtlpJson, EncodeReplacesInvalidUtf8) {
  LogsData d;
  auto& rl = d.resource_logs.emplace_back(d.arena);
  auto& sl = rl.scope_logs.emplace_back(d.arena);
  auto& r = sl.log_records.emplace_back(d.arena);
  r.body = AnyValue::string(d.arena.copy("a\xff" "b"));
  std::string out;
  encode_logs_json(d, out);
  EXPECT_NE(out.find("\"a\xef\xbf\xbd" "b\""), std::string::npos) << out;
  LogsData back;
  EXPECT_FALSE(decode_logs_json(out, back));
}

std::string logs_error(std::string_view in, DecodeOptions opt = {}) {
  LogsData d;
  auto err = decode_logs_json(in, d, opt);
  return err ? err->to_string() : "no error";
}

TEST(OtlpJson, Errors) {
  EXPECT_EQ(logs_error("not json").substr(0, 28), "at byte 0: invalid JSON: The");
  EXPECT_EQ(logs_error("[1]").substr(0, 24), "at byte 0: invalid JSON:");
  EXPECT_EQ(logs_error(R"({"resourceLogs":{}})"), "at byte 16 in resource_logs: expected array, got object");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityText":5}]}]}]})"),
            "at byte 62 in resource_logs.scope_logs.log_records.severity_text: expected string, got number");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"abc"}]}]}]})"),
            "at byte 57 in resource_logs.scope_logs.log_records.trace_id: id must be 32 hex digits, got 3");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"spanId":"zz00000000000000"}]}]}]})"),
            "at byte 56 in resource_logs.scope_logs.log_records.span_id: id is not hex: \"zz00000000000000\"");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"12x"}]}]}]})"),
            "at byte 62 in resource_logs.scope_logs.log_records.time_unix_nano: invalid integer \"12x\"");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"flags":-1}]}]}]})"),
            "at byte 55 in resource_logs.scope_logs.log_records.flags: number is not a 64-bit unsigned integer");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"LOUD"}]}]}]})"),
            "at byte 64 in resource_logs.scope_logs.log_records.severity_number: unknown enum value \"LOUD\"");
  EXPECT_NE(logs_error(R"({"resourceLogs":[]} x)"), "no error");
  EXPECT_EQ(logs_error(R"({"resourceLogs":[]} {})"), "at byte 20: trailing content after the JSON document");
  // Truncated documents.
  EXPECT_NE(logs_error(R"({"resourceLogs":[{"scopeLogs":[)").find("invalid JSON"), std::string::npos);
  EXPECT_NE(logs_error(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"ab)")
                .find("invalid JSON"),
            std::string::npos);
}

TEST(OtlpJson, DepthLimit) {
  std::string body = R"({"stringValue":"x"})";
  for (int i = 0; i < 10; ++i) body = R"({"arrayValue":{"values":[)" + body + "]}}";
  std::string in = R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":)" + body + "}]}]}]}";
  EXPECT_EQ(logs_error(in, DecodeOptions{.max_depth = 11}), "no error");
  auto err = logs_error(in, DecodeOptions{.max_depth = 10});
  EXPECT_NE(err.find("nesting depth exceeds max_depth (10)"), std::string::npos) << err;
  EXPECT_NE(err.find("log_records.body.array_value"), std::string::npos) << err;
}

TEST(OtlpJson, NullsAndEmpty) {
  LogsData d;
  ASSERT_FALSE(decode_logs_json(R"({"resourceLogs":[{"resource":null,"scopeLogs":null}]})", d));
  EXPECT_EQ(d.resource_logs.size(), 1u);
  LogsData e;
  ASSERT_FALSE(decode_logs_json("{}", e));
  std::string out;
  encode_logs_json(e, out);
  EXPECT_EQ(out, "{}");
}

}  // namespace
}  // namespace tern::otlp
