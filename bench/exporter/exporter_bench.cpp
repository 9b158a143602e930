// tern-bench-exporter: Elasticsearch bulk exporter throughput to a `tern sink` child
// process over loopback, with pre-encoded log items (gen workload + ES encoder).
//
// For each (compression, workers) case: a fresh sink process, `--events` log events
// submitted in batches of `--batch`, timed from the first submit until every batch
// completed. CPU is split three ways so the exporter's cost is not blurred:
//   exporter threads = process CPU - main thread CPU (getrusage SELF / THREAD),
//   main thread      = batch copies + submit() (the caller's side),
//   sink             = the child's utime+stime from /proc/<pid>/stat.
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "encoding/elasticsearch/encoder.h"
#include "exporter/elasticsearch/bulk_exporter.h"
#include "gen/workload.h"

extern char** environ;

namespace {

using tern::exporter::es::BulkExporter;
using tern::exporter::es::BulkExporterOptions;
using Clock = std::chrono::steady_clock;

double cpu_seconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double proc_cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the parenthesized command name: state is field 3, utime 14, stime 15.
  std::istringstream rest(s.substr(s.rfind(')') + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

class ChildSink {
 public:
  ChildSink(const std::string& tern, int threads) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    std::vector<std::string> argv{tern,          "sink",      "--listen",
                                  "127.0.0.1:0", "--threads", std::to_string(threads)};
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int rc = posix_spawn(&pid_, tern.c_str(), &fa, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) throw std::runtime_error("cannot run " + tern);
    std::string line;
    char ch;
    while (read(fds[0], &ch, 1) == 1 && ch != '\n') line += ch;
    close(fds[0]);
    auto colon = line.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("unexpected sink output: " + line);
    port_ = std::stoi(line.substr(colon + 1));
  }
  ~ChildSink() {
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

struct Args {
  std::string tern;
  std::size_t events = 1000000;
  std::size_t batch = 1000;
  std::vector<unsigned> workers;
  std::vector<bool> gzip{true, false};
  int sink_threads = 2;
  std::uint64_t flush_bytes = 5000000;
  std::vector<bool> shared_actions{false};  // EncoderConfig::share_action_lines (the collector's queues)
};

void run_case(const Args& a, const std::vector<tern::encoding::EncodedBatch>& pool, bool gzip,
              unsigned workers, bool shared) {
  ChildSink sink(a.tern, a.sink_threads);
  BulkExporterOptions o;
  o.endpoints = {"http://127.0.0.1:" + std::to_string(sink.port())};
  o.num_workers = workers;
  o.gzip = gzip;
  o.flush_bytes = a.flush_bytes;
  o.require_data_stream = true;
  BulkExporter ex(o);
  ex.start();

  std::atomic<std::uint64_t> indexed{0}, not_indexed{0};
  auto done = [&](const tern::exporter::es::BulkResult& r) {
    indexed += r.indexed;
    not_indexed += r.items - r.indexed;
  };
  const double sink0 = proc_cpu_seconds(sink.pid());
  const double self0 = cpu_seconds(RUSAGE_SELF), main0 = cpu_seconds(RUSAGE_THREAD);
  const auto t0 = Clock::now();
  std::size_t sent = 0;
  for (std::size_t i = 0; sent < a.events; ++i) {
    tern::encoding::EncodedBatch b = pool[i % pool.size()];  // the caller's copy; counted as main thread
    sent += b.event_count();
    ex.submit(std::move(b), done);
  }
  ex.flush();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double self1 = cpu_seconds(RUSAGE_SELF), main1 = cpu_seconds(RUSAGE_THREAD);
  const double sink1 = proc_cpu_seconds(sink.pid());
  auto k = ex.counters();
  ex.shutdown(std::chrono::milliseconds(1000));

  const double ev = static_cast<double>(sent);
  const double exporter_cpu = (self1 - self0) - (main1 - main0);
  std::printf(
      "gzip=%-3s workers=%u actions=%-6s events=%zu  events/s=%.0f  exporter_cpu_us/event=%.3f  "
      "main_cpu_us/event=%.3f  "
      "sink_cpu_us/event=%.3f  requests=%llu  MB_uncompressed=%.1f  MB_wire=%.1f  indexed=%llu  "
      "not_indexed=%llu\n",
      gzip ? "on" : "off", workers, shared ? "shared" : "inline", sent, ev / wall, exporter_cpu / ev * 1e6,
      (main1 - main0) / ev * 1e6, (sink1 - sink0) / ev * 1e6, static_cast<unsigned long long>(k.requests),
      k.bytes_uncompressed / 1e6, k.bytes_compressed / 1e6, static_cast<unsigned long long>(indexed.load()),
      static_cast<unsigned long long>(not_indexed.load()));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  a.tern = std::string(TERN_BIN_DIR) + "/tern";
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value for " + s);
      return argv[++i];
    };
    if (s == "--events") {
      a.events = std::stoull(next());
    } else if (s == "--batch") {
      a.batch = std::stoull(next());
    } else if (s == "--workers") {
      a.workers.push_back(static_cast<unsigned>(std::stoul(next())));
    } else if (s == "--gzip") {
      std::string v = next();
      a.gzip = v == "both" ? std::vector<bool>{true, false} : std::vector<bool>{v == "on"};
    } else if (s == "--sink-threads") {
      a.sink_threads = std::stoi(next());
    } else if (s == "--flush-bytes") {
      a.flush_bytes = std::stoull(next());
    } else if (s == "--shared-actions") {
      std::string v = next();
      a.shared_actions = v == "both" ? std::vector<bool>{false, true} : std::vector<bool>{v == "on"};
    } else if (s == "--tern") {
      a.tern = next();
    } else {
      std::fprintf(
          stderr,
          "usage: tern-bench-exporter [--events N] [--batch N] [--workers N]... [--gzip on|off|both] "
          "[--sink-threads N] [--flush-bytes N] [--shared-actions on|off|both] [--tern PATH]\n");
      return 2;
    }
  }
  if (a.workers.empty()) a.workers = {1, std::max(1u, std::thread::hardware_concurrency())};

  // Pools of distinct pre-encoded batches (otel mapping mode, data stream routing): action
  // lines inline, or shared as the collector's queues hold them.
  std::vector<tern::encoding::EncodedBatch> pools[2];
  std::size_t bytes[2] = {0, 0};
  for (const bool shared : {false, true}) {
    tern::encoding::es::EncoderConfig config;
    config.share_action_lines = shared;
    tern::encoding::es::Encoder enc{config};
    auto& pool = pools[shared];
    pool.resize(16);
    for (std::size_t i = 0; i < pool.size(); ++i) {
      tern::pdata::LogsData logs(std::size_t{1} << 20);
      tern::gen::build_logs_workload(a.batch, logs, tern::gen::now_unix_nano(), i);
      enc.encode_logs(logs, pool[i]);
      bytes[shared] += pool[i].bytes();
    }
  }
  const double items = static_cast<double>(pools[0].size() * a.batch);
  std::printf(
      "tern-bench-exporter: %zu events per batch, %.0f bytes per item (%.0f held with shared action lines), "
      "hardware threads %u\n",
      a.batch, static_cast<double>(bytes[0]) / items, static_cast<double>(bytes[1]) / items,
      std::thread::hardware_concurrency());
  for (bool gz : a.gzip)
    for (unsigned w : a.workers)
      for (bool shared : a.shared_actions) run_case(a, pools[shared], gz, w, shared);
  return 0;
}
