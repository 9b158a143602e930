// The filter processor on real batches: what its conditions match goes, the rest stays in
// order; spans take their events along, metrics whose points all went go too; resources and
// scopes left empty are removed; counts per signal.
#include "processor/filter/filter_processor.h"

#include <gtest/gtest.h>

#include "otlp/json_codec.h"

namespace tern::processor {
namespace {

template <class Data, class Fn>
Data decode(std::string_view json, Fn fn) {
  Data d;
  const auto err = fn(json, d, otlp::DecodeOptions{});
  EXPECT_FALSE(err) << err->message;
  return d;
}

TEST(FilterProcessor, DropsMatchingLogRecordsAndEmptiedScopes) {
  processor::FilterProcessorConfig c;
  c.log_record = {R"(severity_number < SEVERITY_NUMBER_INFO)", R"(IsMatch(body, "healthz"))"};
  FilterProcessor f(c);
  auto logs = decode<pdata::LogsData>(
      R"({"resourceLogs":[
          {"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},"scopeLogs":[
            {"logRecords":[{"severityNumber":5,"body":{"stringValue":"debug"}},
                           {"severityNumber":9,"body":{"stringValue":"kept 1"}},
                           {"severityNumber":9,"body":{"stringValue":"GET /healthz"}},
                           {"severityNumber":17,"body":{"stringValue":"kept 2"}}]},
            {"logRecords":[{"severityNumber":1,"body":{"stringValue":"trace"}}]}]},
          {"resource":{},"scopeLogs":[{"logRecords":[{"severityNumber":6,"body":{"stringValue":"debug2"}}]}]}]})",
      otlp::decode_logs_json);
  ASSERT_TRUE(f.process(logs).accepted());
  ASSERT_EQ(logs.resource_logs.size(), 1u);  // the second resource had nothing left
  ASSERT_EQ(logs.resource_logs[0].scope_logs.size(), 1u);
  const auto& recs = logs.resource_logs[0].scope_logs[0].log_records;
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].body.string_value, "kept 1");
  EXPECT_EQ(recs[1].body.string_value, "kept 2");
  EXPECT_EQ(f.dropped(pdata::Signal::Logs), 4u);
  EXPECT_EQ(f.dropped(pdata::Signal::Traces), 0u);
}

TEST(FilterProcessor, SpansTakeTheirEventsAlong) {
  processor::FilterProcessorConfig c;
  c.span = {R"(name == "GET /healthz")"};
  c.spanevent = {R"(name == "noise")"};
  FilterProcessor f(c);
  auto traces = decode<pdata::TracesData>(
      R"({"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[
          {"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"GET /healthz",
           "events":[{"name":"noise"}]},
          {"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","name":"GET /cart",
           "events":[{"name":"noise"},{"name":"exception"}]}]}]}]})",
      otlp::decode_traces_json);
  ASSERT_TRUE(f.process(traces).accepted());
  const auto& spans = traces.resource_spans.at(0).scope_spans.at(0).spans;
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "GET /cart");
  ASSERT_EQ(spans[0].events.size(), 1u);
  EXPECT_EQ(spans[0].events[0].name, "exception");
  EXPECT_EQ(f.dropped(pdata::Signal::Traces), 2u);  // one span (its event with it) and one event
}

TEST(FilterProcessor, MetricsAndDataPoints) {
  processor::FilterProcessorConfig c;
  c.metric = {R"(IsMatch(name, "^jvm\\."))"};
  c.datapoint = {R"(attributes["route"] == "/healthz")"};
  FilterProcessor f(c);
  auto metrics = decode<pdata::MetricsData>(
      R"({"resourceMetrics":[{"resource":{},"scopeMetrics":[{"metrics":[
          {"name":"jvm.memory.used","gauge":{"dataPoints":[{"asInt":"1"},{"asInt":"2"}]}},
          {"name":"http.requests","sum":{"aggregationTemporality":2,"isMonotonic":true,"dataPoints":[
            {"asInt":"5","attributes":[{"key":"route","value":{"stringValue":"/healthz"}}]},
            {"asInt":"7","attributes":[{"key":"route","value":{"stringValue":"/cart"}}]}]}},
          {"name":"probe","gauge":{"dataPoints":[
            {"asDouble":1,"attributes":[{"key":"route","value":{"stringValue":"/healthz"}}]}]}}]}]}]})",
      otlp::decode_metrics_json);
  ASSERT_TRUE(f.process(metrics).accepted());
  const auto& ms = metrics.resource_metrics.at(0).scope_metrics.at(0).metrics;
  ASSERT_EQ(ms.size(), 1u);  // jvm.* by its name, probe because all its points went
  EXPECT_EQ(ms[0].name, "http.requests");
  ASSERT_EQ(ms[0].number_points.size(), 1u);
  EXPECT_EQ(ms[0].number_points[0].as_int, 7);
  EXPECT_EQ(f.dropped(pdata::Signal::Metrics), 4u);  // data points
}

TEST(FilterProcessor, ABadConditionIsAnError) {
  processor::FilterProcessorConfig c;
  c.log_record = {R"(body = "x")"};
  EXPECT_THROW(FilterProcessor{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tern::processor
