#pragma once
// Heap allocation counting for benchmarks: alloc_counter.cpp replaces the global
// operator new/delete and counts calls and bytes (relaxed atomics; process-wide).
#include <benchmark/benchmark.h>

#include <cstdint>

namespace tern::bench {

struct AllocSnapshot {
  std::uint64_t allocs = 0;
  std::uint64_t bytes = 0;
};

AllocSnapshot alloc_snapshot();

// Measures allocations over the benchmark loop and reports them per iteration as
// `allocs_per_op` and `bytes_per_op`.
class AllocScope {
public:
  explicit AllocScope(benchmark::State& state) : state_(state), start_(alloc_snapshot()) {}
  ~AllocScope() {
    const auto end = alloc_snapshot();
    const double iters = state_.iterations() ? static_cast<double>(state_.iterations()) : 1.0;
    state_.counters["allocs_per_op"] = static_cast<double>(end.allocs - start_.allocs) / iters;
    state_.counters["bytes_per_op"] = static_cast<double>(end.bytes - start_.bytes) / iters;
  }

private:
  benchmark::State& state_;
  AllocSnapshot start_;
};

}  // namespace tern::bench
