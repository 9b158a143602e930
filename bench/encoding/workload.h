#pragma once
// The benchmark workloads of ../shared/spec/benchmarks.md, stamped with the current time.
// The builders themselves live in src/gen (one definition for demo, bench and tests).
#include <cstddef>

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

}  // namespace tern::bench
