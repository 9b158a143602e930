// Logs through the Tern SDK: a batch processor feeding the stdout exporter.
#include <chrono>
#include <iostream>
#include <memory>

#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/exporters.h"
#include "tern/sdk/logs/logger.h"

namespace logs = tern::sdk::logs;

int main() {
  auto exporter = std::make_shared<logs::OStreamLogRecordExporter>(std::cout);
  logs::LoggerProvider provider(
      logs::Resource{{"service.name", "tern-example"}, {"service.version", "0.1.0"}},
      std::make_unique<logs::BatchLogRecordProcessor>(exporter));
  logs::Logger& logger = provider.GetLogger("tern.example", "1.0");

  for (int i = 0; i < 3; ++i) {
    logs::LogRecord record;
    record.SetTimestamp(std::chrono::system_clock::now())
        .SetSeverity(logs::Severity::kInfo, "INFO")
        .SetBody("order processed")
        .SetEventName("order.processed")
        .AddAttribute("order.id", 1000 + i)
        .AddAttribute("amount", 9.99 * (i + 1))
        .AddAttribute("express", i % 2 == 0);
    logger.Emit(record);
  }
  // Shutdown exports whatever the batch processor still holds.
  return provider.Shutdown() ? 0 : 1;
}
