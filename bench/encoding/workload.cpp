#include "workload.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace tern::bench {
namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

pdata::KeyValue kv(const pdata::Arena& a, std::string_view k, pdata::AnyValue v) { return {a.copy(k), v}; }

std::uint64_t g_trace_batch = 0;
std::uint64_t g_span_counter = 0;

}  // namespace

void build_logs_workload(std::size_t n, pdata::LogsData& d) {
  const auto& a = d.arena;
  auto& rl = d.resource_logs.emplace_back(a);
  auto& sl = rl.scope_logs.emplace_back(a);
  const std::uint64_t ts = now_ns();
  const std::string batch = "batch_0";
  for (std::size_t i = 0; i < n; ++i) {
    auto& r = sl.log_records.emplace_back(a);
    r.severity_number = 11;
    r.severity_text = a.copy("INFO3");
    r.body = pdata::AnyValue::string(a.copy("Load Generator Counter #" + std::to_string(i)));
    r.flags = 1;
    r.time_unix_nano = ts;
    r.attributes.push_back(kv(a, "batch_index", pdata::AnyValue::string(a.copy(batch))));
    r.attributes.push_back(kv(a, "item_index", pdata::AnyValue::string(a.copy("item_" + std::to_string(i)))));
    r.attributes.push_back(kv(a, "a", pdata::AnyValue::string(a.copy("test"))));
    r.attributes.push_back(kv(a, "b", pdata::AnyValue::dbl(5.0)));
    r.attributes.push_back(kv(a, "c", pdata::AnyValue::integer(3)));
    r.attributes.push_back(kv(a, "d", pdata::AnyValue::boolean(true)));
  }
}

void build_traces_workload(std::size_t n, pdata::TracesData& d) {
  const auto& a = d.arena;
  auto& rs = d.resource_spans.emplace_back(a);
  auto& ss = rs.scope_spans.emplace_back(a);
  const std::uint64_t ts = now_ns();
  const std::uint64_t batch = ++g_trace_batch;
  for (std::size_t i = 0; i < n; ++i) {
    auto& s = ss.spans.emplace_back(a);
    const std::uint64_t span_seq = ++g_span_counter;
    for (int b = 0; b < 8; ++b) {
      s.trace_id[8 + b] = static_cast<std::uint8_t>(batch >> (56 - 8 * b));
      s.span_id[b] = static_cast<std::uint8_t>(span_seq >> (56 - 8 * b));
    }
    s.name = a.copy("load-generator-span" + std::to_string(span_seq));
    s.kind = pdata::SpanKind::Client;
    s.start_time_unix_nano = ts + static_cast<std::uint64_t>(i) * 1000000000ull;
    s.end_time_unix_nano = s.start_time_unix_nano + 1000000ull;
    s.attributes.push_back(
        kv(a, "load_generator.span_seq_num", pdata::AnyValue::integer(static_cast<std::int64_t>(span_seq))));
    s.attributes.push_back(
        kv(a, "load_generator.trace_seq_num", pdata::AnyValue::integer(static_cast<std::int64_t>(batch))));
  }
}

void build_metrics_workload(std::size_t n, pdata::MetricsData& d) {
  const auto& a = d.arena;
  auto& rm = d.resource_metrics.emplace_back(a);
  auto& sm = rm.scope_metrics.emplace_back(a);
  const std::uint64_t ts = now_ns();
  for (std::size_t i = 0; i < n; ++i) {
    auto& m = sm.metrics.emplace_back(a);
    m.name = a.copy("load_generator_" + std::to_string(i));
    m.unit = a.copy("1");
    m.type = pdata::MetricType::Gauge;
    const auto batch = a.copy("batch_" + std::to_string(i));
    for (int j = 0; j < 7; ++j) {
      auto& p = m.number_points.emplace_back(a);
      p.start_time_unix_nano = ts;
      p.time_unix_nano = ts;
      p.value_type = pdata::NumberType::Int;
      p.as_int = static_cast<std::int64_t>(i * 7 + static_cast<std::size_t>(j));
      p.attributes.push_back(
          kv(a, "item_index", pdata::AnyValue::string(a.copy("item_" + std::to_string(j)))));
      p.attributes.push_back(kv(a, "batch_index", pdata::AnyValue::string(batch)));
    }
  }
}

}  // namespace tern::bench
