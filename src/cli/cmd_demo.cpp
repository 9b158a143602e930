// `tern demo`: the README's first command. Until the collector lands, it generates
// logs, traces and metrics and runs them through Tern's codecs (OTLP/JSON encode, decode,
// re-encode, Elasticsearch bulk encoding), checking that each OTLP round trip is
// byte-identical, and prints a live line and a summary.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "encoding/elasticsearch/encoder.h"
#include "gen/workload.h"
#include "otlp/json_codec.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Totals {
  std::uint64_t events = 0, json_bytes = 0, bulk_bytes = 0, bulk_items = 0, failures = 0;
};

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

struct Buffers {
  std::string json, json2;
  tern::encoding::EncodedBatch bulk;
};

// One batch of one signal: model -> OTLP/JSON -> model -> OTLP/JSON (must match) -> bulk.
template <class Data, class Build, class EncJson, class DecJson, class EncEs>
void round_trip(std::size_t n, std::uint64_t batch, Totals& t, Buffers& b, Build build, EncJson enc_json,
                DecJson dec_json, EncEs enc_es) {
  Data source;
  build(n, source, tern::gen::now_unix_nano(), batch);
  b.json.clear();  // the JSON encoders append
  b.json2.clear();
  enc_json(source, b.json);
  Data decoded;
  if (auto err = dec_json(b.json, decoded)) {
    std::fprintf(stderr, "demo: OTLP/JSON decode failed: %s\n", err->to_string().c_str());
    ++t.failures;
    return;
  }
  enc_json(decoded, b.json2);
  if (b.json2 != b.json) ++t.failures;
  b.bulk.clear();
  enc_es(decoded, b.bulk);
  t.events += b.bulk.event_count();
  t.json_bytes += b.json.size();
  t.bulk_bytes += b.bulk.bytes();
  t.bulk_items += b.bulk.size();
}

int run_demo(double duration_s, std::size_t batch_size) {
  namespace otlp = tern::otlp;
  namespace gen = tern::gen;
  tern::encoding::es::Encoder encoder{tern::encoding::es::EncoderConfig{}};
  Buffers b;
  Totals t;
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  auto next_print = start + std::chrono::seconds(1);
  std::uint64_t batch = 0;
  std::printf("tern demo: generating logs, traces and metrics for %.1f s (batches of %zu)\n", duration_s, batch_size);
  while (std::chrono::duration<double>(Clock::now() - start).count() < duration_s) {
    round_trip<tern::pdata::LogsData>(
        batch_size, batch, t, b, gen::build_logs_workload,
        [](const auto& d, std::string& o) { otlp::encode_logs_json(d, o); },
        [](std::string_view in, auto& d) { return otlp::decode_logs_json(in, d); },
        [&](const auto& d, auto& out) { encoder.encode_logs(d, out); });
    round_trip<tern::pdata::TracesData>(
        batch_size, batch, t, b, gen::build_traces_workload,
        [](const auto& d, std::string& o) { otlp::encode_traces_json(d, o); },
        [](std::string_view in, auto& d) { return otlp::decode_traces_json(in, d); },
        [&](const auto& d, auto& out) { encoder.encode_traces(d, out); });
    round_trip<tern::pdata::MetricsData>(
        batch_size / 7 + 1, batch, t, b, gen::build_metrics_workload,
        [](const auto& d, std::string& o) { otlp::encode_metrics_json(d, o); },
        [](std::string_view in, auto& d) { return otlp::decode_metrics_json(in, d); },
        [&](const auto& d, auto& out) { encoder.encode_metrics(d, out); });
    ++batch;
    if (Clock::now() >= next_print) {
      const double el = std::chrono::duration<double>(Clock::now() - start).count();
      std::printf("  %5.1f s  events %llu  (%.0f events/s through all stages)\n", el,
                  static_cast<unsigned long long>(t.events), static_cast<double>(t.events) / el);
      std::fflush(stdout);
      next_print += std::chrono::seconds(1);
    }
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  std::printf("summary: %llu events in %.2f s = %.0f events/s; CPU %.2f us/event (all stages); peak RSS %.1f MiB\n",
              static_cast<unsigned long long>(t.events), elapsed, static_cast<double>(t.events) / elapsed,
              t.events ? cpu * 1e6 / static_cast<double>(t.events) : 0.0, static_cast<double>(peak_rss_kib()) / 1024.0);
  std::printf("         OTLP/JSON %.1f MB, Elasticsearch bulk %.1f MB in %llu items\n",
              static_cast<double>(t.json_bytes) / 1e6, static_cast<double>(t.bulk_bytes) / 1e6,
              static_cast<unsigned long long>(t.bulk_items));
  std::printf("         OTLP/JSON round trips byte-identical: %s\n", t.failures == 0 ? "yes" : "NO");
  return t.failures == 0 ? 0 : 1;
}

const tern::cli::RegisterCommand kDemoCommand{"demo", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "Run the demo: generated telemetry through Tern's codecs and encoder");
  auto duration = std::make_shared<double>(3.0);
  auto batch = std::make_shared<std::size_t>(1000);
  cmd->add_option("--duration", *duration, "Seconds to run")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--batch-size", *batch, "Items per generated batch")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->callback([duration, batch] { tern::cli::set_exit_code(run_demo(*duration, *batch)); });
}};

}  // namespace
