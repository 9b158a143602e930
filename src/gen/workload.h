#pragma once
// Synthetic telemetry in the shapes of ../shared/spec/benchmarks.md ("Encoding
// workload"): the batches the demo, the benchmarks and the generator send.
#include <cstddef>
#include <cstdint>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::gen {

// `n` log records: severity 11 / "INFO3", body "Load Generator Counter #<i>", flags 1,
// attributes batch_index, item_index, a="test", b=5.0, c=3, d=true.
void build_logs_workload(std::size_t n, pdata::LogsData& out, std::uint64_t now_ns, std::uint64_t batch = 0);
// `n` client spans of 1 ms, start = now + i s, with two int attributes.
void build_traces_workload(std::size_t n, pdata::TracesData& out, std::uint64_t now_ns, std::uint64_t batch = 0);
// `n` gauge metrics load_generator_<i>, 7 int data points each (7·n events).
void build_metrics_workload(std::size_t n, pdata::MetricsData& out, std::uint64_t now_ns, std::uint64_t batch = 0);

std::uint64_t now_unix_nano();

}  // namespace tern::gen
