// OTLP/JSON codec: canonical JSON round trips (decode -> encode gives the same
// bytes, covering every field), spelling variants, and error reporting.
#include <gtest/gtest.h>

#include <cmath>

#include "otlp/json_codec.h"
#include "otlp/otlp_fixtures.h"

namespace tern::otlp {
namespace {

using namespace tern::pdata;

using namespace tern::otlp::fixtures;

template <class Data, class Dec, class Enc>
std::string round_trip(std::string_view in, Dec dec, Enc enc) {
  Data data;
  auto err = dec(in, data, DecodeOptions{});
  EXPECT_FALSE(err) << err->to_string();
  std::string out;
  enc(data, out);
  return out;
}

TEST(OtlpJson, MaxDecodedBytesRefusesARequestOfMillionsOfEmptyItems) {
  std::string in = R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[)";
  for (int i = 0; i < 200000; ++i) in += i ? ",{}" : "{}";
  in += "]}]}]}";
  LogsData bounded;
  auto err = decode_logs_json(in, bounded, DecodeOptions{.max_decoded_bytes = 4u << 20});
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message, decoded_size_message(4u << 20));
  EXPECT_NO_THROW(bounded.arena.copy(std::string(8u << 20, 'x')));
  LogsData roomy;
  ASSERT_FALSE(decode_logs_json(in, roomy, DecodeOptions{.max_decoded_bytes = 256u << 20}).has_value());
  EXPECT_EQ(roomy.record_count(), 200000u);
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
            "at byte 55 in resource_logs.scope_logs.log_records.flags: -1 is out of range for uint32");
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

// Keys given twice outside a oneof, and null list elements, are taken as the Collector's
// pdata decoder takes them (docs/otlp-json.md): lists append, other fields keep the last
// value, a null element is an empty one.
TEST(OtlpJson, RepeatedKeysAndNullElementsAreTakenAsTheCollectorTakesThem) {
  LogsData d;
  ASSERT_FALSE(decode_logs_json(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityText":"A",)"
                                R"("severityText":"B"}]}]}],"resourceLogs":[null,{}]})",
                                d));
  ASSERT_EQ(d.resource_logs.size(), 3u) << "the second resourceLogs appends";
  ASSERT_EQ(d.resource_logs[0].scope_logs.size(), 1u);
  ASSERT_EQ(d.resource_logs[0].scope_logs[0].log_records.size(), 1u);
  EXPECT_EQ(d.resource_logs[0].scope_logs[0].log_records[0].severity_text, "B") << "the last value";
  EXPECT_TRUE(d.resource_logs[1].scope_logs.empty()) << "null is an empty element";
  LogsData n;
  ASSERT_FALSE(decode_logs_json(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[null,null]}]}]})", n));
  EXPECT_EQ(n.record_count(), 2u);
}

std::string log_json(std::string_view record) {
  return R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[)" + std::string(record) + "]}]}]}";
}
// Offset of the `n`-th occurrence of `what` in `in` (for exact error offsets).
std::size_t pos(std::string_view in, std::string_view what, int n = 1) {
  std::size_t p = std::string_view::npos;
  for (int i = 0; i < n; ++i) p = in.find(what, p + 1);
  return p;
}

// ---- integers with an exponent or a fraction (ProtoJSON accepts them when integral) ----

TEST(OtlpJson, IntegersWithExponentOrIntegralFraction) {
  LogsData d;
  auto err = decode_logs_json(
      log_json(
          R"({"timeUnixNano":1e3,"body":{"intValue":1e2}},{"body":{"intValue":5.0}},)"
          R"({"body":{"intValue":"1e2"}},{"body":{"intValue":"-2.50E1"}},)"
          R"({"observedTimeUnixNano":1.8446744073709551615e19,"body":{"intValue":"-9.223372036854775808e18"}},)"
          R"({"timeUnixNano":"9.007199254740993e15","body":{"intValue":9223372036854775807.000}},)"
          R"({"flags":4.294967295E+9,"droppedAttributesCount":"0e999","body":{"intValue":-0.0}},)"
          R"({"severityNumber":1.7e1,"body":{"intValue":120000e-4}})"),
      d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& rs = d.resource_logs[0].scope_logs[0].log_records;
  ASSERT_EQ(rs.size(), 8u);
  EXPECT_EQ(rs[0].time_unix_nano, 1000u);
  EXPECT_EQ(rs[0].body.int_value, 100);
  EXPECT_EQ(rs[1].body.int_value, 5);
  EXPECT_EQ(rs[2].body.int_value, 100);
  EXPECT_EQ(rs[3].body.int_value, -25);
  EXPECT_EQ(rs[4].observed_time_unix_nano, UINT64_MAX);
  EXPECT_EQ(rs[4].body.int_value, INT64_MIN);
  EXPECT_EQ(rs[5].time_unix_nano, 9007199254740993u);  // 2^53 + 1: exact, not rounded through a double
  EXPECT_EQ(rs[5].body.int_value, INT64_MAX);
  EXPECT_EQ(rs[6].flags, UINT32_MAX);
  EXPECT_EQ(rs[6].dropped_attributes_count, 0u);
  EXPECT_EQ(rs[6].body.kind, ValueKind::Int);
  EXPECT_EQ(rs[6].body.int_value, 0);
  EXPECT_EQ(rs[7].severity_number, 17);
  EXPECT_EQ(rs[7].body.int_value, 12);
}

TEST(OtlpJson, IntegerErrors) {
  auto body_int = [](std::string_view v) {
    return logs_error(log_json(R"({"body":{"intValue":)" + std::string(v) + "}}"));
  };
  const std::string at = "at byte 66 in resource_logs.scope_logs.log_records.body.int_value: ";
  EXPECT_EQ(body_int("5.5"), at + "5.5 is not an integer");
  EXPECT_EQ(body_int("\"5.5\""), at + "5.5 is not an integer");
  EXPECT_EQ(body_int("1e-2"), at + "1e-2 is not an integer");
  EXPECT_EQ(body_int("1.0000000000000000000001e21"), at + "1.0000000000000000000001e21 is not an integer");
  EXPECT_EQ(body_int("9223372036854775808"), at + "9223372036854775808 is out of range for int64");
  EXPECT_EQ(body_int("\"9223372036854775808\""), at + "9223372036854775808 is out of range for int64");
  EXPECT_EQ(body_int("9.223372036854775808e18"), at + "9.223372036854775808e18 is out of range for int64");
  EXPECT_EQ(body_int("-9223372036854775809"), at + "-9223372036854775809 is out of range for int64");
  EXPECT_EQ(body_int("1e400"), at + "1e400 is out of range for int64");
  EXPECT_EQ(body_int("\"1e\""), at + "invalid integer \"1e\"");
  EXPECT_EQ(body_int("\"1.\""), at + "invalid integer \"1.\"");
  EXPECT_EQ(body_int("\"+1\""), at + "invalid integer \"+1\"");
  EXPECT_EQ(body_int("\" 1\""), at + "invalid integer \" 1\"");
  EXPECT_EQ(body_int("\"0x10\""), at + "invalid integer \"0x10\"");
  EXPECT_EQ(body_int("-"), at + "invalid number -");
  EXPECT_EQ(body_int("01"), at + "invalid number 01");
  EXPECT_EQ(body_int("1.e2"), at + "invalid number 1.e2");
  const std::string t = "at byte 62 in resource_logs.scope_logs.log_records.time_unix_nano: ";
  EXPECT_EQ(logs_error(log_json(R"({"timeUnixNano":18446744073709551616})")),
            t + "18446744073709551616 is out of range for uint64");
  EXPECT_EQ(logs_error(log_json(R"({"timeUnixNano":1.8446744073709551616e19})")),
            t + "1.8446744073709551616e19 is out of range for uint64");
  EXPECT_EQ(logs_error(log_json(R"({"timeUnixNano":-1e0})")), t + "-1e0 is out of range for uint64");
  EXPECT_EQ(logs_error(log_json(R"({"timeUnixNano":"-1"})")), t + "-1 is out of range for uint64");
  const std::string f = "at byte 55 in resource_logs.scope_logs.log_records.flags: ";
  EXPECT_EQ(logs_error(log_json(R"({"flags":4294967296})")), f + "4294967296 is out of range for uint32");
  EXPECT_EQ(logs_error(log_json(R"({"flags":4.294967296e9})")),
            f + "4.294967296e9 is out of range for uint32");
  EXPECT_EQ(logs_error(log_json(R"({"flags":"4294967296"})")), f + "4294967296 is out of range for uint32");
  const std::string s = "at byte 64 in resource_logs.scope_logs.log_records.severity_number: ";
  EXPECT_EQ(logs_error(log_json(R"({"severityNumber":2147483648})")),
            s + "2147483648 is out of range for int32");
  EXPECT_EQ(logs_error(log_json(R"({"severityNumber":-2.147483649e9})")),
            s + "-2.147483649e9 is out of range for int32");
}

// ---- AnyValue depth: at most max_depth arrayValue/kvlistValue levels, as in protobuf ----

// A string inside `levels` arrayValue (or kvlistValue) levels.
std::string nested_json(int levels, bool kvlist) {
  std::string v = R"({"stringValue":"x"})";
  for (int i = 0; i < levels; ++i)
    v = kvlist ? R"({"kvlistValue":{"values":[{"key":"k","value":)" + v + "}]}}"
               : R"({"arrayValue":{"values":[)" + v + "]}}";
  return v;
}

TEST(OtlpJson, DepthLimitCountsArrayAndKvlistLevels) {
  for (bool kvlist : {false, true}) {
    for (bool attribute : {false, true}) {
      auto in = [&](int levels) {
        const std::string v = nested_json(levels, kvlist);
        return log_json(attribute ? R"({"attributes":[{"key":"a","value":)" + v + "}]}"
                                  : R"({"body":)" + v + "}");
      };
      SCOPED_TRACE(std::string(kvlist ? "kvlist" : "array") + (attribute ? " attribute" : " body"));
      EXPECT_EQ(logs_error(in(63)), "no error");
      EXPECT_EQ(logs_error(in(64)), "no error");
      const std::string deep = in(65);
      const std::string member = kvlist ? "kvlistValue" : "arrayValue";
      std::string field = attribute ? "attributes.value" : "body";
      for (int i = 0; i < 65; ++i)
        field += kvlist ? (i ? ".value.kvlist_value" : ".kvlist_value") : ".array_value";
      EXPECT_EQ(logs_error(deep),
                "at byte " + std::to_string(pos(deep, "\"" + member + "\":", 65) + member.size() + 3) +
                    " in resource_logs.scope_logs.log_records." + field +
                    ": AnyValue nesting exceeds max_depth 64");
    }
  }
  const std::string ten = log_json(R"({"body":)" + nested_json(10, false) + "}");
  EXPECT_EQ(logs_error(ten, DecodeOptions{.max_depth = 10}), "no error");
  EXPECT_NE(logs_error(ten, DecodeOptions{.max_depth = 9}).find(": AnyValue nesting exceeds max_depth 9"),
            std::string::npos);
  // max_depth 0: scalars only.
  EXPECT_EQ(logs_error(log_json(R"({"body":{"intValue":1}})"), DecodeOptions{.max_depth = 0}), "no error");
  EXPECT_EQ(logs_error(log_json(R"({"body":{"arrayValue":{}}})"), DecodeOptions{.max_depth = 0}),
            "at byte 68 in resource_logs.scope_logs.log_records.body.array_value: AnyValue nesting exceeds "
            "max_depth 0");
}

// ---- oneofs: a second member is an error (protobuf's JSON parser: "oneof ... already set") ----

std::string metrics_error(std::string_view in, DecodeOptions opt = {}) {
  MetricsData d;
  auto err = decode_metrics_json(in, d, opt);
  return err ? err->to_string() : "no error";
}
std::string metric_json(std::string_view metric) {
  return R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[)" + std::string(metric) + "]}]}]}";
}
TEST(OtlpJson, MetricWithTwoDataKindsIsAnError) {
  // Before: the points of both were merged into one sum.
  const std::string both = metric_json(
      R"({"name":"m","gauge":{"dataPoints":[{"asDouble":1}]},"sum":{"dataPoints":[{"asDouble":2}],)"
      R"("aggregationTemporality":2,"isMonotonic":true}})");
  EXPECT_EQ(metrics_error(both),
            "at byte " + std::to_string(pos(both, R"({"dataPoints":[{"asDouble":2})")) +
                " in resource_metrics.scope_metrics.metrics.sum: oneof \"data\" already set by gauge");
  // Before: a sum with the histogram's temporality.
  const std::string hist = metric_json(
      R"({"name":"m","histogram":{"dataPoints":[{"count":"3"}],"aggregationTemporality":1},"sum":{}})");
  EXPECT_EQ(metrics_error(hist),
            "at byte " + std::to_string(pos(hist, R"("sum":{})") + 6) +
                " in resource_metrics.scope_metrics.metrics.sum: oneof \"data\" already set by histogram");
  // The same member twice, and snake_case after camelCase.
  EXPECT_EQ(
      metrics_error(metric_json(R"({"summary":{},"summary":{}})")),
      "at byte 73 in resource_metrics.scope_metrics.metrics.summary: oneof \"data\" already set by summary");
  EXPECT_EQ(
      metrics_error(metric_json(R"({"exponentialHistogram":{},"exponential_histogram":{}})")),
      "at byte 100 in resource_metrics.scope_metrics.metrics.exponential_histogram: oneof \"data\" already "
      "set by exponential_histogram");
  // A null member does not count: the other one is the metric's data.
  MetricsData d;
  auto err = decode_metrics_json(
      metric_json(
          R"({"gauge":null,"sum":{"dataPoints":[{"asInt":"4"}],"isMonotonic":true},"histogram":null})"),
      d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& m = d.resource_metrics[0].scope_metrics[0].metrics[0];
  EXPECT_EQ(m.type, MetricType::Sum);
  EXPECT_TRUE(m.is_monotonic);
  ASSERT_EQ(m.number_points.size(), 1u);
  EXPECT_EQ(m.number_points[0].as_int, 4);
}

TEST(OtlpJson, AnyValueWithTwoMembersIsAnError) {
  const std::string two = log_json(R"({"body":{"stringValue":"a","intValue":"5"}})");
  EXPECT_EQ(logs_error(two),
            "at byte " + std::to_string(pos(two, R"("5")")) +
                " in resource_logs.scope_logs.log_records.body.int_value: oneof \"value\" already "
                "set by string_value");
  const std::string attr =
      log_json(R"({"attributes":[{"key":"k","value":{"arrayValue":{},"kvlist_value":{}}}]})");
  EXPECT_EQ(logs_error(attr),
            "at byte " + std::to_string(pos(attr, R"("kvlist_value":{})") + 15) +
                " in resource_logs.scope_logs.log_records.attributes.value.kvlist_value: oneof "
                "\"value\" already set by array_value");
  EXPECT_NE(logs_error(log_json(R"({"body":{"boolValue":true,"boolValue":false}})"))
                .find("body.bool_value: oneof \"value\" already set by bool_value"),
            std::string::npos);
  EXPECT_NE(logs_error(log_json(R"({"body":{"doubleValue":1,"bytesValue":""}})"))
                .find("body.bytes_value: oneof \"value\" already set by double_value"),
            std::string::npos);
  // null members do not count.
  LogsData d;
  auto err =
      decode_logs_json(log_json(R"({"body":{"stringValue":null,"intValue":"3","doubleValue":null}})"), d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& body = d.resource_logs[0].scope_logs[0].log_records[0].body;
  EXPECT_EQ(body.kind, ValueKind::Int);
  EXPECT_EQ(body.int_value, 3);
}

TEST(OtlpJson, NumberValueWithTwoMembersIsAnError) {
  const std::string point = metric_json(R"({"gauge":{"dataPoints":[{"asDouble":1.5,"asInt":"2"}]}})");
  EXPECT_EQ(metrics_error(point),
            "at byte " + std::to_string(pos(point, R"("2")")) +
                " in resource_metrics.scope_metrics.metrics.gauge.data_points.as_int: oneof "
                "\"value\" already set by as_double");
  const std::string ex = metric_json(R"({"sum":{"dataPoints":[{"exemplars":[{"as_int":1,"asDouble":2}]}]}})");
  EXPECT_EQ(metrics_error(ex),
            "at byte " + std::to_string(pos(ex, "2}")) +
                " in resource_metrics.scope_metrics.metrics.sum.data_points.exemplars.as_double: "
                "oneof \"value\" already set by as_int");
  MetricsData d;
  auto err = decode_metrics_json(
      metric_json(
          R"({"gauge":{"dataPoints":[{"asDouble":null,"asInt":"7","exemplars":[{"asInt":null,"asDouble":0.25}]}]}})"),
      d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& p = d.resource_metrics[0].scope_metrics[0].metrics[0].number_points[0];
  EXPECT_EQ(p.value_type, NumberType::Int);
  EXPECT_EQ(p.as_int, 7);
  EXPECT_EQ(p.exemplars[0].value_type, NumberType::Double);
  EXPECT_EQ(p.exemplars[0].as_double, 0.25);
}

// ---- null leaves optional fields and oneofs unset ----

TEST(OtlpJson, NullLeavesOptionalFieldsUnset) {
  MetricsData d;
  auto err = decode_metrics_json(
      metric_json(
          R"({"name":"h","histogram":{"dataPoints":[{"count":"1","sum":null,"min":null,"max":null}]}},)"
          R"({"name":"e","exponentialHistogram":{"dataPoints":[{"count":"1","sum":null,"min":null,"max":null}]}},)"
          R"({"name":"g","gauge":{"dataPoints":[{"asDouble":null},{"asInt":null}]}},)"
          R"({"name":"n","gauge":null},)"
          R"({"name":"s","histogram":{"dataPoints":[{"sum":0,"min":null,"max":-1.5}]}})"),
      d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& ms = d.resource_metrics[0].scope_metrics[0].metrics;
  ASSERT_EQ(ms.size(), 5u);
  const auto& h = ms[0].histogram_points[0];
  EXPECT_EQ(h.count, 1u);
  EXPECT_FALSE(h.has_sum);
  EXPECT_FALSE(h.has_min);
  EXPECT_FALSE(h.has_max);
  const auto& e = ms[1].exponential_histogram_points[0];
  EXPECT_FALSE(e.has_sum);
  EXPECT_FALSE(e.has_min);
  EXPECT_FALSE(e.has_max);
  ASSERT_EQ(ms[2].number_points.size(), 2u);
  EXPECT_EQ(ms[2].number_points[0].value_type, NumberType::None);
  EXPECT_EQ(ms[2].number_points[1].value_type, NumberType::None);
  EXPECT_EQ(ms[3].type, MetricType::Empty);
  const auto& s = ms[4].histogram_points[0];
  EXPECT_TRUE(s.has_sum);
  EXPECT_EQ(s.sum, 0.0);
  EXPECT_FALSE(s.has_min);
  EXPECT_TRUE(s.has_max);
  EXPECT_EQ(s.max, -1.5);
  // Re-encoded, the absent fields stay absent.
  std::string out;
  encode_metrics_json(d, out);
  EXPECT_EQ(out, R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[)"
                 R"({"name":"h","histogram":{"dataPoints":[{"count":"1"}]}},)"
                 R"({"name":"e","exponentialHistogram":{"dataPoints":[{"count":"1"}]}},)"
                 R"({"name":"g","gauge":{"dataPoints":[{},{}]}},)"
                 R"({"name":"n"},)"
                 R"({"name":"s","histogram":{"dataPoints":[{"sum":0,"max":-1.5}]}}]}]}]})");
}

TEST(OtlpJson, NullAnyValueMembersLeaveTheValueEmpty) {
  LogsData d;
  auto err = decode_logs_json(
      log_json(
          R"({"body":{"stringValue":null}},{"body":{"intValue":null}},{"body":{"boolValue":null}},)"
          R"({"body":{"doubleValue":null}},{"body":{"bytesValue":null}},{"body":{"arrayValue":null}},)"
          R"({"body":{"kvlistValue":null}},{"body":{"arrayValue":{}}},{"body":{"kvlistValue":{"values":null}}})"),
      d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& rs = d.resource_logs[0].scope_logs[0].log_records;
  ASSERT_EQ(rs.size(), 9u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(rs[i].body.kind, ValueKind::Empty) << i;
  ASSERT_EQ(rs[7].body.kind, ValueKind::Array);  // present but empty: still set
  EXPECT_TRUE(rs[7].body.array->empty());
  ASSERT_EQ(rs[8].body.kind, ValueKind::KvList);
  EXPECT_TRUE(rs[8].body.kvlist->empty());
}

}  // namespace
}  // namespace tern::otlp
