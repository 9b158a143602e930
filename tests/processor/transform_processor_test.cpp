// The transform processor on real batches: groups in order, each on the items of its context,
// gated by its conditions; resource and scope groups run once per resource / scope.
#include "processor/transform/transform_processor.h"

#include <gtest/gtest.h>

#include "otlp/json_codec.h"

namespace tern::processor {
namespace {

std::string text_attr(const pdata::Attributes& attrs, std::string_view key) {
  const auto* v = pdata::find_attribute(attrs, key);
  return v && v->kind == pdata::ValueKind::String ? std::string(v->string_value) : "<none>";
}

TEST(TransformProcessor, LogGroupsInOrderWithConditions) {
  processor::TransformProcessorConfig c;
  c.log_statements.push_back({"resource", {}, {R"(set(attributes["deployment.environment"], "prod"))"}});
  c.log_statements.push_back(
      {"log", {R"(severity_number >= SEVERITY_NUMBER_ERROR)"}, {R"(set(attributes["alert"], "yes"))"}});
  c.log_statements.push_back(
      {"log",
       {},
       {R"(delete_key(attributes, "password"))", R"(replace_pattern(body, "card=\\d+", "card=****"))"}});
  TransformProcessor t(c);
  pdata::LogsData logs;
  const auto err = otlp::decode_logs_json(
      R"({"resourceLogs":[{"resource":{},"scopeLogs":[{"logRecords":[
          {"severityNumber":17,"body":{"stringValue":"paid card=4111"},"attributes":[{"key":"password","value":{"stringValue":"x"}}]},
          {"severityNumber":9,"body":{"stringValue":"hello"}}]}]}]})",
      logs, otlp::DecodeOptions{});
  ASSERT_FALSE(err) << err->message;
  ASSERT_TRUE(t.process(logs).accepted());
  const auto& rl = logs.resource_logs[0];
  EXPECT_EQ(text_attr(rl.resource.attributes, "deployment.environment"), "prod");
  EXPECT_EQ(rl.resource.attributes.size(), 1u);  // once per resource, not per record
  const auto& recs = rl.scope_logs[0].log_records;
  EXPECT_EQ(text_attr(recs[0].attributes, "alert"), "yes");
  EXPECT_EQ(text_attr(recs[1].attributes, "alert"), "<none>");  // the group's condition
  EXPECT_EQ(text_attr(recs[0].attributes, "password"), "<none>");
  EXPECT_EQ(recs[0].body.string_value, "paid card=****");
}

TEST(TransformProcessor, SpansEventsAndDataPoints) {
  processor::TransformProcessorConfig c;
  c.trace_statements.push_back(
      {"span", {}, {R"(set(name, "GET /users/{id}") where IsMatch(name, "^GET /users/\\d+$"))"}});
  c.trace_statements.push_back({"spanevent", {}, {R"(set(attributes["seen"], true))"}});
  c.metric_statements.push_back({"datapoint", {}, {R"(delete_key(attributes, "pod"))"}});
  c.metric_statements.push_back({"metric", {}, {R"(set(unit, "ms") where name == "latency")"}});
  TransformProcessor t(c);
  pdata::TracesData traces;
  auto err = otlp::decode_traces_json(
      R"({"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[
          {"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"GET /users/42",
           "events":[{"name":"e"}]}]}]}]})",
      traces, otlp::DecodeOptions{});
  ASSERT_FALSE(err) << err->message;
  ASSERT_TRUE(t.process(traces).accepted());
  const auto& span = traces.resource_spans[0].scope_spans[0].spans[0];
  EXPECT_EQ(span.name, "GET /users/{id}");
  const auto* seen = pdata::find_attribute(span.events[0].attributes, "seen");
  ASSERT_TRUE(seen);
  EXPECT_TRUE(seen->bool_value);
  pdata::MetricsData metrics;
  err = otlp::decode_metrics_json(
      R"({"resourceMetrics":[{"resource":{},"scopeMetrics":[{"metrics":[
          {"name":"latency","gauge":{"dataPoints":[{"asDouble":1.5,"attributes":[
            {"key":"pod","value":{"stringValue":"p-1"}},{"key":"route","value":{"stringValue":"/"}}]}]}}]}]}]})",
      metrics, otlp::DecodeOptions{});
  ASSERT_FALSE(err) << err->message;
  ASSERT_TRUE(t.process(metrics).accepted());
  const auto& m = metrics.resource_metrics[0].scope_metrics[0].metrics[0];
  EXPECT_EQ(m.unit, "ms");
  ASSERT_EQ(m.number_points[0].attributes.size(), 1u);
  EXPECT_EQ(m.number_points[0].attributes[0].key, "route");
}

TEST(TransformProcessor, ABadStatementIsAnError) {
  processor::TransformProcessorConfig c;
  c.log_statements.push_back({"log", {}, {R"(set(attributes, "x"))"}});
  EXPECT_THROW(TransformProcessor{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tern::processor
