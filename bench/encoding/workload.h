#pragma once
// The benchmark workloads of ../shared/spec/benchmarks.md, stamped with the current time.
// The builders themselves live in src/gen (one definition for demo, bench and tests).
#include <cstddef>
#include <string>

#include "gen/workload.h"

namespace tern::bench {

inline void build_logs_workload(std::size_t n, pdata::LogsData& out) {
  gen::build_logs_workload(n, out, gen::now_unix_nano());
}
inline void build_traces_workload(std::size_t n, pdata::TracesData& out) {
  gen::build_traces_workload(n, out, gen::now_unix_nano());
}
inline void build_metrics_workload(std::size_t n, pdata::MetricsData& out) {
  gen::build_metrics_workload(n, out, gen::now_unix_nano());
}

// Tern's own variant of the logs workload (not in the spec): the records a traced service
// writes, each with its own timestamps (100 µs apart, observed 1.3 ms later) and trace
// context (a trace per 10 records, a span per record). The spec's workload gives every
// record the same timestamps and no ids, which the encoder's caches and zero tests absorb.
inline void build_traced_logs_workload(std::size_t n, pdata::LogsData& out) {
  build_logs_workload(n, out);
  std::uint64_t i = 0;
  for (auto& r : out.resource_logs.front().scope_logs.front().log_records) {
    r.time_unix_nano += i * 100'000;
    r.observed_time_unix_nano = r.time_unix_nano + 1'300'000;
    for (int b = 0; b < 8; ++b) {
      r.trace_id[b] = static_cast<std::uint8_t>(0x5a ^ b);
      r.trace_id[8 + b] = static_cast<std::uint8_t>((i / 10) >> (8 * b));
      r.span_id[b] = static_cast<std::uint8_t>(((i + 1) * 0x9E3779B97F4A7C15ull) >> (8 * b));
    }
    ++i;
  }
}

// Tern's own workload for the bodymap mode (not in the spec): the logs workload's fields
// carried in a map body, the way a structured logger ships its event as the document:
// {"@timestamp": "<RFC 3339>", "message": "Load Generator Counter #<i>",
//  "batch_index": "batch_0", "item_index": "item_<i>", "a": "test", "b": 5.0, "c": 3, "d": true}.
inline void build_bodymap_workload(std::size_t n, pdata::LogsData& out) {
  const auto& a = out.arena;
  auto& sl = out.resource_logs.emplace_back(a).scope_logs.emplace_back(a);
  sl.log_records.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& rec = sl.log_records.emplace_back(a);
    auto* body = a.make<pdata::Vec<pdata::KeyValue>>(a.vec<pdata::KeyValue>());
    body->reserve(8);
    body->push_back({"@timestamp", pdata::AnyValue::string("2026-12-04T20:00:41.123456789Z")});
    body->push_back(
        {"message", pdata::AnyValue::string(a.copy("Load Generator Counter #" + std::to_string(i)))});
    body->push_back({"batch_index", pdata::AnyValue::string("batch_0")});
    body->push_back({"item_index", pdata::AnyValue::string(a.copy("item_" + std::to_string(i)))});
    body->push_back({"a", pdata::AnyValue::string("test")});
    body->push_back({"b", pdata::AnyValue::dbl(5.0)});
    body->push_back({"c", pdata::AnyValue::integer(3)});
    body->push_back({"d", pdata::AnyValue::boolean(true)});
    rec.body = pdata::AnyValue::make_kvlist(body);
  }
}

}  // namespace tern::bench
