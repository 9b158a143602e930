// tern-bench-collector: the collector benchmark of issue #5, with real processes.
//
// For each encoding (early, late) it starts `tern sink` and `tern run`, then:
//  1. throughput: C client threads post OTLP/HTTP protobuf log requests (B records of the
//     spec's logs workload each) for S seconds; reports events/s (accepted by the
//     collector and counted in the sink) and collector CPU-µs per event (utime+stime of
//     the `tern run` process from /proc) and the sink's CPU for comparison;
//  2. memory: a second collector whose sink answers slowly (--latency-ms), so its queue
//     fills to the same content (queue_size requests) in both modes; reports the
//     collector's peak RSS (VmHWM).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gen/workload.h"
#include "otlp/proto_codec.h"
#include "support/http_client.h"
#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using tern::test::Process;

struct Options {
  std::string bin_dir;
  int clients = 2;
  int batch = 1000;
  double seconds = 5;
  int queue_requests = 100;
};

std::uint64_t peak_rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

std::uint16_t start_sink(std::unique_ptr<Process>& p, const Options& o, int latency_ms) {
  std::vector<std::string> argv{o.bin_dir + "/tern", "sink", "--listen", "127.0.0.1:0"};
  if (latency_ms) argv.insert(argv.end(), {"--latency-ms", std::to_string(latency_ms)});
  p = std::make_unique<Process>(argv);
  auto line = p->wait_for_line("tern sink listening on", std::chrono::seconds(10));
  if (!line) throw std::runtime_error("tern sink did not start: " + p->output());
  return *tern::test::parse_listen_port(*line);
}

// Starts `tern run` on a config written to `dir`; returns its OTLP/HTTP port.
// `metrics_port` 0: any free port (the throughput phase does not read the metrics).
std::uint16_t start_collector(std::unique_ptr<Process>& p, const Options& o, const fs::path& dir,
                              const std::string& encoding, std::uint16_t sink_port, std::uint16_t http_port,
                              std::uint16_t metrics_port) {
  const fs::path cfg = dir / ("collector-" + encoding + ".yaml");
  std::ofstream(cfg) << fmt::format(R"(receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:{}
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:{}]
    encoding: {}
    sending_queue:
      enabled: true
      queue_size: {}
      max_bytes: 4294967296
service:
  telemetry:
    metrics:
      address: 127.0.0.1:{}
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [elasticsearch]
)",
                                    http_port, sink_port, encoding, o.queue_requests, metrics_port);
  p = std::make_unique<Process>(std::vector<std::string>{o.bin_dir + "/tern", "run", "-c", cfg.string()});
  if (!p->wait_for_line("tern run: ready", std::chrono::seconds(10)))
    throw std::runtime_error("tern run did not start: " + p->output());
  return http_port;
}

std::uint16_t free_port() {
  // Bind-and-release is racy in general; on a quiet loopback it is good enough for a bench.
  static std::uint16_t next = 24318;
  return next++;
}

struct Load {
  std::uint64_t accepted_events = 0, refused_requests = 0;
};

Load drive(std::uint16_t port, const Options& o, const std::string& body, double seconds) {
  std::atomic<std::uint64_t> accepted{0}, refused{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c)
    threads.emplace_back([&] {
      tern::test::HttpClient http(port);
      while (!stop.load(std::memory_order_relaxed)) {
        auto r = http.call("POST", "/v1/logs", body, {{"Content-Type", "application/x-protobuf"}});
        if (r.status == 200)
          accepted += static_cast<std::uint64_t>(o.batch);
        else {
          ++refused;
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  return {accepted.load(), refused.load()};
}

// The first sample of gauge `name` on the collector's /metrics, -1 if absent.
double collector_gauge(std::uint16_t metrics_port, std::string_view name) {
  tern::test::HttpClient http(metrics_port);
  const auto r = http.call("GET", "/metrics");
  for (std::size_t at = 0; (at = r.body.find(name, at)) != std::string::npos; at += name.size()) {
    if (at != 0 && r.body[at - 1] != '\n') continue;  // a # HELP / # TYPE line
    const auto value = r.body.find(' ', at), eol = r.body.find('\n', at);
    if (value < eol) return std::stod(r.body.substr(value + 1, eol - value - 1));
  }
  return -1;
}

std::int64_t sink_count(std::uint16_t sink_port) {
  tern::test::HttpClient http(sink_port);
  auto r = http.call("GET", "/logs-*/_count");
  auto pos = r.body.find("\"count\":");
  return pos == std::string::npos ? -1 : std::stoll(r.body.substr(pos + 8));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.bin_dir = fs::path(argv[0]).parent_path().string();
  CLI::App app{"OTLP/HTTP logs -> tern run -> tern sink: early vs late encoding"};
  app.add_option("--clients", o.clients, "Client threads posting requests")->capture_default_str();
  app.add_option("--batch", o.batch, "Log records per request")->capture_default_str();
  app.add_option("--seconds", o.seconds, "Duration of the throughput phase")->capture_default_str();
  app.add_option("--queue-requests", o.queue_requests, "sending_queue.queue_size for the memory phase")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  tern::pdata::LogsData logs;
  tern::gen::build_logs_workload(static_cast<std::size_t>(o.batch), logs, tern::gen::now_unix_nano(), 0);
  std::string body;
  tern::otlp::encode_logs_proto(logs, body);
  const fs::path dir = fs::temp_directory_path() / ("tern-bench-collector-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fmt::print("request: {} log records, {} bytes protobuf; {} clients\n", o.batch, body.size(), o.clients);
  fmt::print("{:<6} {:>12} {:>14} {:>14} {:>16} {:>18} {:>14} {:>16}\n", "mode", "events/s",
             "collector_us/ev", "sink_us/ev", "tput_peak_rss_MiB", "full_queue_rss_MiB", "queue_entries",
             "queue_held_MiB");
  for (const std::string encoding : {"early", "late"}) {
    std::unique_ptr<Process> sink, collector;
    const auto sink_port = start_sink(sink, o, 0);
    const auto port = start_collector(collector, o, dir, encoding, sink_port, free_port(), 0);
    const auto c0 = tern::test::cpu_time_us(collector->pid()).value_or(0);
    const auto s0 = tern::test::cpu_time_us(sink->pid()).value_or(0);
    const auto t0 = std::chrono::steady_clock::now();
    const Load load = drive(port, o, body, o.seconds);
    collector->signal(SIGTERM);  // drains the queue before exiting
    const auto rss_tput = peak_rss_kib(collector->pid());
    std::uint64_t c1 = c0;
    for (int i = 0; i < 600 && collector->running(); ++i) {
      c1 = tern::test::cpu_time_us(collector->pid()).value_or(c1);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    collector->wait(std::chrono::seconds(30));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto s1 = tern::test::cpu_time_us(sink->pid()).value_or(s0);
    const auto delivered = sink_count(sink_port);
    if (delivered != static_cast<std::int64_t>(load.accepted_events))
      fmt::print(stderr, "WARNING: {} accepted but {} in the sink\n", load.accepted_events, delivered);

    // Memory phase: a slow sink; the queue fills to queue_requests entries.
    std::unique_ptr<Process> slow_sink, slow_collector;
    const auto slow_port = start_sink(slow_sink, o, 5000);
    const auto metrics_port = tern::test::free_ports(1).at(0);
    const auto port2 =
        start_collector(slow_collector, o, dir, encoding, slow_port, free_port(), metrics_port);
    drive(port2, o, body, 3.0);
    const auto rss_full = peak_rss_kib(slow_collector->pid());
    // What the queue holds at that point (its own accounting: encoded bytes early, arena
    // bytes late), to show both modes had the same content.
    const double queued = collector_gauge(metrics_port, "tern_exporter_queue_size");
    const double queued_bytes = collector_gauge(metrics_port, "tern_exporter_queue_bytes");
    slow_collector->signal(SIGKILL);
    fmt::print(
        "{:<6} {:>12.0f} {:>14.3f} {:>14.3f} {:>16.1f} {:>18.1f} {:>14.0f} {:>16.1f}\n", encoding,
        static_cast<double>(load.accepted_events) / secs,
        static_cast<double>(c1 - c0) / static_cast<double>(std::max<std::uint64_t>(load.accepted_events, 1)),
        static_cast<double>(s1 - s0) / static_cast<double>(std::max<std::uint64_t>(load.accepted_events, 1)),
        static_cast<double>(rss_tput) / 1024.0, static_cast<double>(rss_full) / 1024.0, queued,
        queued_bytes / 1048576.0);
  }
  fs::remove_all(dir);
  return 0;
}
