#include <gtest/gtest.h>

#include "gen/workload.h"

using namespace tern;

TEST(Workload, LogsMatchTheBenchmarkSpec) {
  pdata::LogsData logs;
  gen::build_logs_workload(10, logs, 1000, 3);
  ASSERT_EQ(logs.record_count(), 10u);
  const auto& rec = logs.resource_logs[0].scope_logs[0].log_records[7];
  EXPECT_EQ(rec.severity_number, 11);
  EXPECT_EQ(rec.severity_text, "INFO3");
  EXPECT_EQ(rec.body.string_value, "Load Generator Counter #7");
  ASSERT_EQ(rec.attributes.size(), 6u);
  EXPECT_EQ(rec.attributes[0].value.string_value, "batch_3");
  EXPECT_EQ(rec.attributes[1].value.string_value, "item_7");
  EXPECT_EQ(rec.attributes[3].value.kind, pdata::ValueKind::Double);
  EXPECT_EQ(rec.attributes[4].value.int_value, 3);
  EXPECT_TRUE(rec.attributes[5].value.bool_value);
}

TEST(Workload, TracesAndMetricsCounts) {
  pdata::TracesData traces;
  gen::build_traces_workload(5, traces, 0, 0);
  EXPECT_EQ(traces.span_count(), 5u);
  const auto& span = traces.resource_spans[0].scope_spans[0].spans[4];
  EXPECT_EQ(span.kind, pdata::SpanKind::Client);
  EXPECT_EQ(span.end_time_unix_nano - span.start_time_unix_nano, 1'000'000u);
  EXPECT_FALSE(pdata::is_zero(span.trace_id));
  EXPECT_FALSE(pdata::is_zero(span.span_id));

  pdata::MetricsData metrics;
  gen::build_metrics_workload(4, metrics, 0, 0);
  EXPECT_EQ(metrics.data_point_count(), 28u);
  EXPECT_EQ(metrics.resource_metrics[0].scope_metrics[0].metrics[3].name, "load_generator_3");
}
