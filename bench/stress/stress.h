#pragma once
// Throughput harness: N worker threads run `iteration` in a loop, each counting in
// its own cache-line-padded slot; the main thread prints the rate every ~5 s.
#include <cstdint>
#include <functional>
#include <string>

namespace tern::stress {

struct RunOptions {
  unsigned threads = 1;
  double seconds = 10;
};

struct RunResult {
  std::uint64_t total_iterations = 0;
  double elapsed_seconds = 0;
  // CPU time the worker threads got (CLOCK_THREAD_CPUTIME_ID). On a shared machine a
  // worker may get much less than the wall time; iterations per CPU-second is the
  // load-independent figure.
  double worker_cpu_seconds = 0;
};

// `iteration(thread_index)` is called in a tight loop on each worker thread.
RunResult Run(const RunOptions& options, const std::function<void(unsigned)>& make_worker_prologue,
              void (*iteration)(unsigned thread, const void* ctx), const void* ctx);

std::string WithCommas(std::uint64_t n);

}  // namespace tern::stress
