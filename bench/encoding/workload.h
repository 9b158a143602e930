#pragma once
// Encoding benchmark workloads, exactly as shared/spec/benchmarks.md
// "Encoding workload" describes them (same shape as the Collector's benchmark).
#include <cstddef>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::bench {

void build_logs_workload(std::size_t n, pdata::LogsData& out);
void build_traces_workload(std::size_t n, pdata::TracesData& out);
void build_metrics_workload(std::size_t n, pdata::MetricsData& out);

}  // namespace tern::bench
