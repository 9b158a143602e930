#include "gen/workload.h"

#include <chrono>
#include <string>

namespace tern::gen {
namespace {
pdata::Str arena_string(const pdata::Arena& arena, const std::string& s) { return arena.copy(s); }
}  // namespace

std::uint64_t now_unix_nano() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

void build_logs_workload(std::size_t n, pdata::LogsData& out, std::uint64_t now_ns, std::uint64_t batch) {
  const auto& arena = out.arena;
  auto& sl = out.resource_logs.emplace_back(arena).scope_logs.emplace_back(arena);
  sl.log_records.reserve(n);
  const pdata::Str batch_index = arena_string(arena, "batch_" + std::to_string(batch));
  for (std::size_t i = 0; i < n; ++i) {
    auto& rec = sl.log_records.emplace_back(arena);
    rec.time_unix_nano = now_ns;
    rec.observed_time_unix_nano = now_ns;
    rec.severity_number = 11;
    rec.severity_text = "INFO3";
    rec.flags = 1;
    rec.body = pdata::AnyValue::string(arena_string(arena, "Load Generator Counter #" + std::to_string(i)));
    rec.attributes.reserve(6);
    rec.attributes.push_back({"batch_index", pdata::AnyValue::string(batch_index)});
    rec.attributes.push_back({"item_index", pdata::AnyValue::string(arena_string(arena, "item_" + std::to_string(i)))});
    rec.attributes.push_back({"a", pdata::AnyValue::string("test")});
    rec.attributes.push_back({"b", pdata::AnyValue::dbl(5.0)});
    rec.attributes.push_back({"c", pdata::AnyValue::integer(3)});
    rec.attributes.push_back({"d", pdata::AnyValue::boolean(true)});
  }
}

void build_traces_workload(std::size_t n, pdata::TracesData& out, std::uint64_t now_ns, std::uint64_t batch) {
  const auto& arena = out.arena;
  auto& ss = out.resource_spans.emplace_back(arena).scope_spans.emplace_back(arena);
  ss.spans.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& span = ss.spans.emplace_back(arena);
    const std::uint64_t span_seq = batch * n + i + 1;  // a global counter across batches
    for (int b = 0; b < 8; ++b) {
      span.trace_id[15 - b] = static_cast<std::uint8_t>((batch + 1) >> (8 * b));
      span.span_id[7 - b] = static_cast<std::uint8_t>(span_seq >> (8 * b));
    }
    span.name = arena_string(arena, "load-generator-span" + std::to_string(span_seq));
    span.kind = pdata::SpanKind::Client;
    span.start_time_unix_nano = now_ns + i * 1'000'000'000ULL;
    span.end_time_unix_nano = span.start_time_unix_nano + 1'000'000ULL;
    span.attributes.reserve(2);
    span.attributes.push_back({"load_generator.span_seq_num", pdata::AnyValue::integer(static_cast<std::int64_t>(span_seq))});
    span.attributes.push_back({"load_generator.trace_seq_num", pdata::AnyValue::integer(static_cast<std::int64_t>(batch))});
  }
}

void build_metrics_workload(std::size_t n, pdata::MetricsData& out, std::uint64_t now_ns, std::uint64_t batch) {
  const auto& arena = out.arena;
  auto& sm = out.resource_metrics.emplace_back(arena).scope_metrics.emplace_back(arena);
  sm.metrics.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& m = sm.metrics.emplace_back(arena);
    m.name = arena_string(arena, "load_generator_" + std::to_string(i));
    m.unit = "1";
    m.type = pdata::MetricType::Gauge;
    m.number_points.reserve(7);
    const pdata::Str batch_index = arena_string(arena, "batch_" + std::to_string(i));
    for (int j = 0; j < 7; ++j) {
      auto& dp = m.number_points.emplace_back(arena);
      dp.start_time_unix_nano = now_ns;
      dp.time_unix_nano = now_ns;
      dp.value_type = pdata::NumberType::Int;
      dp.as_int = static_cast<std::int64_t>(batch * 7 + static_cast<std::uint64_t>(j));
      dp.attributes.reserve(2);
      dp.attributes.push_back({"item_index", pdata::AnyValue::string(arena_string(arena, "item_" + std::to_string(j)))});
      dp.attributes.push_back({"batch_index", pdata::AnyValue::string(batch_index)});
    }
  }
}

}  // namespace tern::gen
