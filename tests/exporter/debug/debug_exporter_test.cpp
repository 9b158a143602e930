// The debug exporter: its config, the Collector's text layouts, sampling, and its output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/debug/config.h"
#include "exporter/debug/factory.h"
#include "exporter/debug/text_format.h"
#include "service/components.h"

namespace tern::exporter::debug {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::shared_ptr<pdata::LogsData> logs(int records) {
  auto d = std::make_shared<pdata::LogsData>();
  auto& rl = d->resource_logs.emplace_back(d->arena);
  rl.resource.attributes.push_back({"service.name", pdata::AnyValue::string("svc")});
  auto& sl = rl.scope_logs.emplace_back(d->arena);
  sl.scope.name = "lib";
  sl.scope.version = "1.0";
  for (int i = 0; i < records; ++i) {
    auto& lr = sl.log_records.emplace_back(d->arena);
    lr.time_unix_nano = 1699678143509369393ull;
    lr.severity_number = 9;
    lr.severity_text = "INFO";
    lr.body = pdata::AnyValue::string("hello");
    lr.attributes.push_back({"k", pdata::AnyValue::integer(42)});
    lr.trace_id[15] = 1;
  }
  return d;
}

std::shared_ptr<pdata::TracesData> traces() {
  auto d = std::make_shared<pdata::TracesData>();
  auto& rs = d->resource_spans.emplace_back(d->arena);
  auto& ss = rs.scope_spans.emplace_back(d->arena);
  auto& s = ss.spans.emplace_back(d->arena);
  s.name = "okey-dokey";
  s.kind = pdata::SpanKind::Server;
  s.trace_id[0] = 0x3b;
  s.span_id[7] = 0x5c;
  s.start_time_unix_nano = 1'000'000'000;
  s.end_time_unix_nano = 1'500'000'000;
  s.attributes.push_back({"peer.service", pdata::AnyValue::string("client")});
  auto& ev = s.events.emplace_back(d->arena);
  ev.name = "retry";
  return d;
}

std::shared_ptr<pdata::MetricsData> metrics() {
  auto d = std::make_shared<pdata::MetricsData>();
  auto& rm = d->resource_metrics.emplace_back(d->arena);
  auto& sm = rm.scope_metrics.emplace_back(d->arena);
  auto& m = sm.metrics.emplace_back(d->arena);
  m.name = "requests";
  m.type = pdata::MetricType::Sum;
  m.is_monotonic = true;
  m.temporality = pdata::AggregationTemporality::Cumulative;
  auto& p = m.number_points.emplace_back(d->arena);
  p.value_type = pdata::NumberType::Int;
  p.as_int = 7;
  p.attributes.push_back({"code", pdata::AnyValue::string("200")});
  return d;
}

TEST(DebugText, SummariesAreTheCollectorsBasicLines) {
  EXPECT_EQ(
      summary(*logs(3), "debug"),
      R"(Logs {"kind": "exporter", "data_type": "logs", "name": "debug", "resource logs": 1, "log records": 3})");
  EXPECT_EQ(
      summary(*traces(), "debug/x"),
      R"(Traces {"kind": "exporter", "data_type": "traces", "name": "debug/x", "resource spans": 1, "spans": 1})");
  EXPECT_EQ(
      summary(*metrics(), "debug"),
      R"(Metrics {"kind": "exporter", "data_type": "metrics", "name": "debug", "resource metrics": 1, "metrics": 1, "data points": 1})");
}

TEST(DebugText, NormalIsAboutOneLinePerItem) {
  EXPECT_EQ(normal(*logs(2)), "hello k=42\nhello k=42\n");
  EXPECT_EQ(normal(*traces()),
            "okey-dokey 3b000000000000000000000000000000 000000000000005c peer.service=client\n");
  EXPECT_EQ(normal(*metrics()), "requests{code=200} 7\n");
}

TEST(DebugText, DetailedLogsAsPdataText) {
  const std::string t = detailed(*logs(1));
  EXPECT_THAT(
      t, HasSubstr(
             "ResourceLog #0\nResource SchemaURL: \nResource attributes:\n     -> service.name: Str(svc)\n"));
  EXPECT_THAT(t, HasSubstr("ScopeLogs #0\nScopeLogs SchemaURL: \nInstrumentationScope lib 1.0\n"));
  EXPECT_THAT(t, HasSubstr("LogRecord #0\nObservedTimestamp: 1970-01-01 00:00:00 +0000 UTC\n"
                           "Timestamp: 2023-11-11 04:49:03.509369393 +0000 UTC\nSeverityText: INFO\n"
                           "SeverityNumber: Info(9)\nBody: Str(hello)\nAttributes:\n     -> k: Int(42)\n"
                           "Trace ID: 00000000000000000000000000000001\nSpan ID: \nFlags: 0\n"));
}

TEST(DebugText, DetailedSpansAndMetrics) {
  const std::string t = detailed(*traces());
  EXPECT_THAT(
      t, HasSubstr("Span #0\n    Trace ID       : 3b000000000000000000000000000000\n    Parent ID      : \n"
                   "    ID             : 000000000000005c\n    Name           : okey-dokey\n"
                   "    Kind           : Server\n    Start time     : 1970-01-01 00:00:01 +0000 UTC\n"
                   "    End time       : 1970-01-01 00:00:01.5 +0000 UTC\n    Status code    : Unset\n"));
  EXPECT_THAT(t, HasSubstr("Events:\nSpanEvent #0\n     -> Name: retry\n"));
  const std::string m = detailed(*metrics());
  EXPECT_THAT(
      m, HasSubstr("Metric #0\nDescriptor:\n     -> Name: requests\n     -> Description: \n     -> Unit: \n"
                   "     -> DataType: Sum\n     -> IsMonotonic: true\n"
                   "     -> AggregationTemporality: Cumulative\nNumberDataPoints #0\n"
                   "Data point attributes:\n     -> code: Str(200)\n"));
  EXPECT_THAT(m, HasSubstr("Value: 7\n"));
}

config::LoadResult load(const std::string& debug_section) {
  return service::load_config_string(
      "receivers: {otlp: {protocols: {http: {}}}}\nexporters:\n  debug: " + debug_section +
          "\nservice:\n  pipelines:\n    logs: {receivers: [otlp], exporters: [debug]}\n",
      "t.yaml");
}

TEST(DebugConfig, TheCollectorsKeysWithTheirDefaults) {
  auto r = load("{}");
  ASSERT_TRUE(r.ok());
  const auto& c = r.config.exporters[0].settings<DebugExporterConfig>();
  EXPECT_EQ(c.verbosity, DebugExporterConfig::Verbosity::kBasic);
  EXPECT_EQ(c.sampling_initial, 2u);
  EXPECT_EQ(c.sampling_thereafter, 1u);
  EXPECT_TRUE(c.use_internal_logger);
  r = load(
      "{verbosity: detailed, sampling_initial: 5, sampling_thereafter: 200, use_internal_logger: false}");
  ASSERT_TRUE(r.ok());
  const auto& d = r.config.exporters[0].settings<DebugExporterConfig>();
  EXPECT_EQ(d.verbosity, DebugExporterConfig::Verbosity::kDetailed);
  EXPECT_EQ(d.sampling_initial, 5u);
  EXPECT_EQ(d.sampling_thereafter, 200u);
  EXPECT_FALSE(d.use_internal_logger);
}

TEST(DebugConfig, RefusesWhatCannotMeanAnything) {
  auto r = load("{verbosity: loud}");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.diagnostics.items[0].format(),
              HasSubstr("exporters.debug.verbosity: invalid value \"loud\""));
  r = load("{sampling_thereafter: 0}");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.diagnostics.items[0].format(), HasSubstr("sampling_thereafter: must be at least 1"));
  r = load("{loglevel: debug}");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.diagnostics.items[0].format(), HasSubstr("unknown key \"loglevel\""));
}

// Built through the registry as the collector builds it; output to stdout
// (use_internal_logger: false) so the test can read it.
std::shared_ptr<component::Exporter> make(const std::string& section, config::LoadResult& keep) {
  keep = load(section);
  EXPECT_TRUE(keep.ok());
  const auto& c = keep.config.exporters[0];
  return dynamic_cast<const component::ExporterFactory&>(*c.type).create(c, {});
}

TEST(DebugExporter, WritesEveryBatchAndCountsEvents) {
  config::LoadResult keep;
  auto e = make("{verbosity: normal, use_internal_logger: false}", keep);
  ::testing::internal::CaptureStdout();
  EXPECT_TRUE(e->consume_logs(logs(2)).accepted());
  EXPECT_TRUE(e->consume_traces(traces()).accepted());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("\"log records\": 2}\nhello k=42\nhello k=42\n"));
  EXPECT_THAT(out, HasSubstr("\"spans\": 1}\nokey-dokey "));
  std::vector<component::MetricSample> samples;
  e->collect_metrics(samples);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].value, 3);  // 2 log records + 1 span
}

TEST(DebugExporter, SamplesAsZapDoes) {
  config::LoadResult keep;
  auto e = make("{sampling_initial: 2, sampling_thereafter: 3, use_internal_logger: false}", keep);
  ::testing::internal::CaptureStdout();
  for (int i = 0; i < 8; ++i) e->consume_logs(logs(1));
  const std::string out = ::testing::internal::GetCapturedStdout();
  std::size_t lines = 0;
  for (char ch : out) lines += ch == '\n';
  // Within one second: batches 1, 2 (initial), then 5 and 8 (every third after them). The
  // loop may straddle a second boundary, which restarts the count: at least 4, at most 6.
  EXPECT_GE(lines, 4u);
  EXPECT_LE(lines, 6u);
}

}  // namespace
}  // namespace tern::exporter::debug
