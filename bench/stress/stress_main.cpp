#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "stress.h"

namespace tern::stress {

int RunLogs(const std::string& processor, const std::string& exporter, const RunOptions& options);

std::string WithCommas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {
struct alignas(64) Counter {
  std::atomic<std::uint64_t> value{0};
  double cpu_seconds = 0;  // written by its worker before it exits, read after join
};

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

RunResult Run(const RunOptions& options, const std::function<void(unsigned)>& prologue,
              void (*iteration)(unsigned, const void*), const void* ctx) {
  std::vector<Counter> counters(options.threads);
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < options.threads; ++t) {
    workers.emplace_back([&, t] {
      if (prologue) prologue(t);
      auto& c = counters[t].value;
      const double cpu_start = ThreadCpuSeconds();
      while (!stop.load(std::memory_order_relaxed)) {
        iteration(t, ctx);
        // Single writer: a plain load+store instead of a locked add.
        c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
      counters[t].cpu_seconds = ThreadCpuSeconds() - cpu_start;
    });
  }
  auto sum = [&] {
    std::uint64_t n = 0;
    for (auto& c : counters) n += c.value.load(std::memory_order_relaxed);
    return n;
  };
  const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(options.seconds));
  auto last_time = start;
  std::uint64_t last_count = 0;
  while (std::chrono::steady_clock::now() < end) {
    const auto next = std::min(end, last_time + std::chrono::seconds(5));
    std::this_thread::sleep_until(next);
    const auto now = std::chrono::steady_clock::now();
    const std::uint64_t count = sum();
    const double dt = std::chrono::duration<double>(now - last_time).count();
    if (dt >= 1.0) {
      std::printf("Throughput: %s iterations/sec\n",
                  WithCommas(static_cast<std::uint64_t>((count - last_count) / dt)).c_str());
      std::fflush(stdout);
    }
    last_time = now;
    last_count = count;
  }
  stop.store(true);
  for (auto& w : workers) w.join();
  RunResult r;
  r.total_iterations = sum();
  r.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& c : counters) r.worker_cpu_seconds += c.cpu_seconds;
  return r;
}

}  // namespace tern::stress

int main(int argc, char** argv) {
  CLI::App app{"tern-stress: multi-threaded throughput tests"};
  app.require_subcommand(1);
  tern::stress::RunOptions options;
  std::string processor = "batch";
  std::string exporter = "noop";
  auto* logs = app.add_subcommand("logs", "Emit log records through tern::sdk::logs");
  logs->add_option("--threads", options.threads, "Emitting threads")->check(CLI::Range(1u, 1024u));
  logs->add_option("--seconds", options.seconds, "Duration")->check(CLI::PositiveNumber);
  logs->add_option("--processor", processor, "simple|batch|noop")
      ->check(CLI::IsMember({"simple", "batch", "noop"}));
  logs->add_option("--exporter", exporter, "noop|memory")->check(CLI::IsMember({"noop", "memory"}));
  CLI11_PARSE(app, argc, argv);
  return tern::stress::RunLogs(processor, exporter, options);
}
