// `tern demo`: the real pipeline on loopback, in one process so it needs no free ports
// and leaves nothing behind: generator workers (each with its own OTLP/HTTP protobuf
// client) -> the collector (OTLP receiver, batch, memory queue with early encoding,
// Elasticsearch exporter) -> `tern sink`. At the end it checks that the sink holds
// exactly what the collector accepted and prints throughput, CPU and memory.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command.h"
#include "cli/flag_checks.h"
#include "exporter/otlp/otlp_client.h"
#include "gen/generator.h"
#include "gen/workload.h"
#include "otlp/proto_codec.h"
#include "service/collector.h"
#include "service/components.h"
#include "sink/sink_server.h"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

std::string demo_config(std::uint16_t sink_port) {
  return R"(receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 200ms
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:)" +
         std::to_string(sink_port) + R"(]
    flush:
      interval: 100ms
service:
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    logs: {receivers: [otlp], processors: [batch], exporters: [elasticsearch]}
    traces: {receivers: [otlp], processors: [batch], exporters: [elasticsearch]}
    metrics: {receivers: [otlp], processors: [batch], exporters: [elasticsearch]}
)";
}

struct Sent {
  std::atomic<std::uint64_t> logs{0}, spans{0}, points{0}, refused{0}, failed{0};
};

// One generator worker: its own client and request bodies; cycles logs, traces, metrics.
void worker(int id, std::uint16_t port, std::size_t batch, Clock::time_point until, Sent& sent) {
  tern::exporter::otlp::OtlpClientOptions o;
  o.protocol = tern::exporter::otlp::Protocol::Http;
  o.endpoint = "127.0.0.1:" + std::to_string(port);
  auto client = tern::exporter::otlp::make_otlp_client(o);
  std::string logs, traces, metrics;
  {
    const auto now = tern::gen::now_unix_nano();
    tern::pdata::LogsData l;
    tern::gen::build_logs_workload(batch, l, now, static_cast<std::uint64_t>(id));
    tern::otlp::encode_logs_proto(l, logs);
    tern::pdata::TracesData t;
    tern::gen::build_traces_workload(batch, t, now, static_cast<std::uint64_t>(id));
    tern::otlp::encode_traces_proto(t, traces);
    tern::pdata::MetricsData m;
    tern::gen::build_metrics_workload(batch / 7 + 1, m, now, static_cast<std::uint64_t>(id));
    tern::otlp::encode_metrics_proto(m, metrics);
  }
  const std::uint64_t points = 7 * (batch / 7 + 1);
  struct Job {
    tern::pdata::Signal signal;
    const std::string* body;
    std::atomic<std::uint64_t>* counter;
    std::uint64_t events;
  };
  const Job jobs[] = {{tern::pdata::Signal::Logs, &logs, &sent.logs, batch},
                      {tern::pdata::Signal::Traces, &traces, &sent.spans, batch},
                      {tern::pdata::Signal::Metrics, &metrics, &sent.points, points}};
  for (std::size_t i = 0; Clock::now() < until; ++i) {
    const Job& j = jobs[i % 3];
    auto st = client->export_request(j.signal, *j.body);
    if (st.ok) {
      j.counter->fetch_add(j.events, std::memory_order_relaxed);
    } else if (st.code == 429 || st.code == 503) {
      sent.refused.fetch_add(1, std::memory_order_relaxed);  // back-pressure: try again later
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } else {
      sent.failed.fetch_add(1, std::memory_order_relaxed);
      std::fprintf(stderr, "tern demo: export failed: %s\n", st.message.c_str());
      return;
    }
  }
}

int run_demo(double duration_s, std::size_t batch, int workers) {
  tern::sink::SinkOptions so;
  so.host = "127.0.0.1";
  so.port = 0;
  tern::sink::SinkServer sink(so);
  const auto sink_port = sink.start();
  auto loaded = tern::service::load_config_string(demo_config(sink_port), "<built-in demo config>");
  for (const auto& d : loaded.diagnostics.items) std::fprintf(stderr, "%s\n", d.format().c_str());
  if (!loaded.ok()) return 1;
  tern::service::Collector collector(loaded.config);
  collector.start();
  const auto port = collector.receiver_http_port("otlp");
  std::printf(
      "tern demo: %d generator workers -> tern collector (OTLP/HTTP 127.0.0.1:%u) -> tern sink "
      "(127.0.0.1:%u)\n",
      workers, port, sink_port);
  std::printf("           logs, traces and metrics in requests of %zu items for %.1f s\n", batch, duration_s);
  std::fflush(stdout);

  Sent sent;
  const auto start = Clock::now();
  const double cpu0 = cpu_seconds();
  const auto until =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration_s));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) threads.emplace_back(worker, w, port, batch, until, std::ref(sent));
  for (auto next = start + std::chrono::seconds(1); next < until; next += std::chrono::seconds(1)) {
    std::this_thread::sleep_until(next);
    const double el = std::chrono::duration<double>(Clock::now() - start).count();
    const auto total = sent.logs + sent.spans + sent.points;
    std::printf("  %4.1f s  accepted %llu events (%.0f/s), in sink %lld documents\n", el,
                static_cast<unsigned long long>(total), static_cast<double>(total) / el,
                static_cast<long long>(sink.count("*")));
    std::fflush(stdout);
  }
  for (auto& t : threads) t.join();
  collector.shutdown(std::chrono::seconds(30));  // drains the queue into the sink
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu0;
  sink.stop();

  const auto logs = static_cast<long long>(sent.logs), spans = static_cast<long long>(sent.spans),
             points = static_cast<long long>(sent.points);
  // Spans of the workload have no events, and each metric data point is its own document.
  const auto in_logs = static_cast<long long>(sink.count("logs-*"));
  const auto in_traces = static_cast<long long>(sink.count("traces-*"));
  const auto in_metrics = static_cast<long long>(sink.count("metrics-*"));
  const bool exact = in_logs == logs && in_traces == spans && in_metrics == points && sent.failed == 0;
  const auto total = logs + spans + points;
  std::printf(
      "summary: %lld events accepted in %.2f s = %.0f events/s (%llu requests refused with back-pressure)\n",
      total, elapsed, static_cast<double>(total) / elapsed, static_cast<unsigned long long>(sent.refused));
  std::printf("         sink: logs %lld/%lld, traces %lld/%lld, metrics %lld/%lld documents -> %s\n", in_logs,
              logs, in_traces, spans, in_metrics, points,
              exact ? "every accepted event delivered" : "MISMATCH");
  std::printf(
      "         process CPU %.2f us/event (generator + collector + sink together), peak RSS %.1f MiB\n",
      total ? cpu * 1e6 / static_cast<double>(total) : 0.0, static_cast<double>(peak_rss_kib()) / 1024.0);
  return exact ? 0 : 1;
}

const tern::cli::RegisterCommand kDemoCommand{
    "demo", [](CLI::App& app) {
      auto* cmd =
          app.add_subcommand("demo", "Run the demo pipeline: generator -> collector -> sink, on loopback");
      auto duration = std::make_shared<double>(5.0);
      auto batch = std::make_shared<std::size_t>(1000);
      auto workers = std::make_shared<int>(2);
      cmd->add_option("--duration", *duration, "Seconds to generate")
          ->capture_default_str()
          ->check(tern::cli::positive_number());
      // The bounds of `tern gen`: each worker is a thread with its own connection, and a
      // request is built whole in memory.
      cmd->add_option("--batch-size", *batch, "Items per export request")
          ->capture_default_str()
          ->check(tern::cli::integer_range(1, static_cast<std::int64_t>(tern::gen::kMaxBatchSize)));
      cmd->add_option("--workers", *workers, "Generator workers")
          ->capture_default_str()
          ->check(tern::cli::integer_range(1, tern::gen::kMaxWorkers));
      cmd->callback([=] { tern::cli::set_exit_code(run_demo(*duration, *batch, *workers)); });
    }};

}  // namespace
