// `tern-stress logs`: each iteration builds a LogRecord with three attributes on the
// stack and emits it through a real Logger and processor (cf. opentelemetry-rust
// stress/src/logs.rs).
#include <cstdio>
#include <memory>
#include <string>

#include "stress.h"
#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/exporters.h"
#include "tern/sdk/logs/logger.h"
#include "tern/sdk/logs/simple_processor.h"

namespace tern::stress {

namespace logs = tern::sdk::logs;

namespace {

// Measures the Logger/LogRecord cost alone.
class NoopProcessor final : public logs::LogRecordProcessor {
 public:
  void OnEmit(const logs::LogRecord&, const logs::InstrumentationScope&) noexcept override {}
  bool ForceFlush(std::chrono::milliseconds) noexcept override { return true; }
  bool Shutdown(std::chrono::milliseconds) noexcept override { return true; }
};

// "memory": copies each record into owned storage, the work an in-memory or
// encoding exporter does, but keeps only the last copy per thread: keeping them all
// (InMemoryLogRecordExporter) would exhaust RAM within seconds at these rates.
class CopyingExporter final : public logs::LogRecordExporter {
 public:
  logs::ExportResult Export(const logs::LogRecordBatchView& batch) const noexcept override {
    thread_local logs::LogRecordData last;
    for (const auto& e : batch) last.Assign(*e.record);
    return logs::ExportResult::kSuccess;
  }
};

void EmitOne(unsigned, const void* ctx) {
  const auto* logger = static_cast<const logs::Logger*>(ctx);
  logs::LogRecord record;
  record.SetSeverity(logs::Severity::kInfo, "INFO")
      .SetEventName("my-event-name")
      .SetBody("my-event-body")
      .AddAttribute("event_id", 20)
      .AddAttribute("user_name", "otel")
      .AddAttribute("user_email", "otel@opentelemetry.io");
  logger->Emit(record);
}

}  // namespace

int RunLogs(const std::string& processor_name, const std::string& exporter_name, const RunOptions& options) {
  std::shared_ptr<const logs::LogRecordExporter> exporter;
  if (exporter_name == "memory") {
    exporter = std::make_shared<CopyingExporter>();
  } else {
    exporter = std::make_shared<logs::NoopLogRecordExporter>();
  }
  std::unique_ptr<logs::LogRecordProcessor> processor;
  logs::BatchLogRecordProcessor* batch = nullptr;
  if (processor_name == "simple") {
    processor = std::make_unique<logs::SimpleLogRecordProcessor>(exporter);
  } else if (processor_name == "batch") {
    auto p = std::make_unique<logs::BatchLogRecordProcessor>(exporter);
    batch = p.get();
    processor = std::move(p);
  } else {
    processor = std::make_unique<NoopProcessor>();
  }
  logs::LoggerProvider provider(logs::Resource{{"service.name", "tern-stress"}}, std::move(processor));
  logs::Logger& logger = provider.GetLogger("tern-stress", "0.1.0");

  std::printf("Number of threads: %u\n", options.threads);
  std::printf("Processor: %s, exporter: %s, duration: %gs\n", processor_name.c_str(), exporter_name.c_str(),
              options.seconds);
  std::fflush(stdout);
  const RunResult r = Run(options, nullptr, EmitOne, &logger);
  provider.Shutdown();

  const double rate = r.total_iterations / r.elapsed_seconds;
  std::printf("Total iterations: %s in %.2fs\n", WithCommas(r.total_iterations).c_str(), r.elapsed_seconds);
  std::printf("Average throughput: %s iterations/sec (%s per thread)\n",
              WithCommas(static_cast<std::uint64_t>(rate)).c_str(),
              WithCommas(static_cast<std::uint64_t>(rate / options.threads)).c_str());
  if (r.worker_cpu_seconds > 0) {
    std::printf("Worker CPU: %.2fs (%.0f%% of wall time per thread), %s iterations per CPU-second\n",
                r.worker_cpu_seconds, 100.0 * r.worker_cpu_seconds / (r.elapsed_seconds * options.threads),
                WithCommas(static_cast<std::uint64_t>(r.total_iterations / r.worker_cpu_seconds)).c_str());
  }
  if (batch != nullptr) {
    const auto dropped = batch->dropped_count();
    std::printf("Dropped: %s (%.1f%%), exported: %s\n", WithCommas(dropped).c_str(),
                100.0 * dropped / std::max<std::uint64_t>(r.total_iterations, 1),
                WithCommas(r.total_iterations - dropped).c_str());
  }
  return 0;
}

}  // namespace tern::stress
