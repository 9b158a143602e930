#include <gtest/gtest.h>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

using namespace tern::pdata;

TEST(Arena, CopiedStringsOutliveTheSource) {
  LogsData logs;
  std::string source = "hello";
  Str copy = logs.arena.copy(source);
  source.assign("xxxxx");
  EXPECT_EQ(copy, "hello");
  EXPECT_TRUE(logs.arena.copy("").empty());
}

TEST(Arena, HeldBufferBacksViews) {
  LogsData logs;
  Str view = logs.arena.hold(std::string("request bytes"));
  EXPECT_EQ(view, "request bytes");
}

TEST(Pdata, HandBuiltLogsUseTheArena) {
  LogsData logs;
  auto& rl = logs.resource_logs.emplace_back(logs.arena);
  rl.resource.attributes.push_back({"service.name", AnyValue::string("svc")});
  auto& sl = rl.scope_logs.emplace_back(logs.arena);
  for (int i = 0; i < 3; ++i) {
    auto& rec = sl.log_records.emplace_back(logs.arena);
    rec.body = AnyValue::integer(i);
    auto* arr = logs.arena.make<Vec<AnyValue>>(logs.arena.vec<AnyValue>());
    arr->push_back(AnyValue::dbl(1.5));
    rec.attributes.push_back({"arr", AnyValue::make_array(arr)});
  }
  EXPECT_EQ(logs.record_count(), 3u);
  EXPECT_EQ(sl.log_records[2].body.int_value, 2);
  EXPECT_EQ(sl.log_records[0].attributes.get_allocator().resource(), logs.arena.resource());
  const auto* v = find_attribute(rl.resource.attributes, "service.name");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->string_value, "svc");
  EXPECT_EQ(find_attribute(rl.resource.attributes, "missing"), nullptr);
}

TEST(Pdata, CountsAcrossSignals) {
  TracesData traces;
  auto& ss = traces.resource_spans.emplace_back(traces.arena).scope_spans.emplace_back(traces.arena);
  ss.spans.emplace_back(traces.arena).events.emplace_back(traces.arena);
  EXPECT_EQ(traces.span_count(), 1u);
  EXPECT_TRUE(is_zero(ss.spans[0].trace_id));

  MetricsData metrics;
  auto& m = metrics.resource_metrics.emplace_back(metrics.arena)
                .scope_metrics.emplace_back(metrics.arena)
                .metrics.emplace_back(metrics.arena);
  m.type = MetricType::Gauge;
  m.number_points.emplace_back(metrics.arena);
  m.number_points.emplace_back(metrics.arena);
  EXPECT_EQ(metrics.data_point_count(), 2u);
}
