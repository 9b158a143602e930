// Logs through the Tern SDK: a batch processor feeding either the stdout exporter (no
// arguments) or an OTLP exporter pointed at `tern run` (collector config:
// examples/sdk/sdk-to-elasticsearch.yaml; walkthrough in docs/sdk.md).
//
//   tern_sdk_logs_example                               # 3 records to stdout
//   tern_sdk_logs_example --otlp-http 127.0.0.1:4318    # OTLP/HTTP to tern run
//   tern_sdk_logs_example --otlp-grpc 127.0.0.1:4317 --count 1000
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/exporters.h"
#include "tern/sdk/logs/logger.h"
#include "tern/sdk/logs/otlp_log_exporter.h"

namespace logs = tern::sdk::logs;

namespace {

int Usage() {
  std::cerr << "usage: tern_sdk_logs_example [--otlp-http HOST:PORT | --otlp-grpc HOST:PORT] [--count N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string http, grpc;
  long count = 3;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--otlp-http") == 0 && has_value) {
      http = argv[++i];
    } else if (std::strcmp(argv[i], "--otlp-grpc") == 0 && has_value) {
      grpc = argv[++i];
    } else if (std::strcmp(argv[i], "--count") == 0 && has_value) {
      char* end = nullptr;
      count = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || count < 0) return Usage();
    } else {
      return Usage();
    }
  }
  if (!http.empty() && !grpc.empty()) return Usage();

  std::shared_ptr<logs::LogRecordExporter> exporter;
  std::shared_ptr<logs::OtlpLogExporter> otlp;  // kept to read its counters at the end
  try {
    logs::OtlpLogExporterOptions options;
    if (!http.empty()) {
      options.endpoint = http;
      otlp = std::make_shared<logs::OtlpHttpLogExporter>(options);
    } else if (!grpc.empty()) {
      options.endpoint = grpc;
      otlp = std::make_shared<logs::OtlpGrpcLogExporter>(options);
    }
  } catch (const std::exception& e) {
    std::cerr << "tern_sdk_logs_example: " << e.what() << '\n';
    return 2;
  }
  if (otlp) {
    exporter = otlp;
  } else {
    exporter = std::make_shared<logs::OStreamLogRecordExporter>(std::cout);
  }

  auto processor = std::make_unique<logs::BatchLogRecordProcessor>(exporter);
  const logs::BatchLogRecordProcessor& batch = *processor;  // owned by the provider, read at the end
  logs::LoggerProvider provider(
      logs::Resource{{"service.name", "tern-example"}, {"service.version", "0.1.0"}}, std::move(processor));
  logs::Logger& logger = provider.GetLogger("tern.example", "1.0");  // once, then keep it

  for (long i = 0; i < count; ++i) {
    logs::LogRecord record;  // on the stack: emitting does not allocate
    record.SetTimestamp(std::chrono::system_clock::now())
        .SetSeverity(logs::Severity::kInfo, "INFO")
        .SetBody("order processed")
        .SetEventName("order.processed")
        .AddAttribute("order.id", 1000 + i)
        .AddAttribute("amount", 9.99 * static_cast<double>(i % 10 + 1))
        .AddAttribute("express", i % 2 == 0);
    logger.Emit(record);
  }
  // Shutdown exports whatever the batch processor still holds.
  const bool shut_down = provider.Shutdown(std::chrono::seconds(30));
  // Records the batch processor did not export: its queue (max_queue_size, 2048) was full
  // because the loop above emits faster than one exporter sends.
  const std::uint64_t dropped = batch.dropped_count();
  if (otlp) {
    const auto s = otlp->stats();
    std::cerr << "tern_sdk_logs_example: exported " << s.exported_records << ", failed " << s.failed_records
              << ", rejected " << s.rejected_records << ", dropped " << dropped << " (queue full)\n";
    if (s.exported_records != static_cast<std::uint64_t>(count)) return 1;
  } else if (dropped != 0) {
    std::cerr << "tern_sdk_logs_example: dropped " << dropped << " (queue full)\n";
    return 1;
  }
  return shut_down ? 0 : 1;
}
