// tern-sdk-es-rate URL RATE SECONDS
//
// The logs SDK as docs/sdk.md recommends it for Elasticsearch: LoggerProvider +
// BatchLogRecordProcessor (default options) + ElasticsearchLogExporter, fed RATE records per
// second from one thread for SECONDS, then Shutdown. Prints how long one synchronous Export
// of one record takes, then what was emitted, dropped by the processor (its queue full),
// indexed and failed, and how many bulk requests carried them. Point it at `tern sink`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/elasticsearch_log_exporter.h"
#include "tern/sdk/logs/logger.h"

namespace logs = tern::sdk::logs;
using std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s URL RATE_PER_SECOND SECONDS\n", argv[0]);
    return 2;
  }
  const long rate = std::atol(argv[2]);
  const double seconds = std::atof(argv[3]);
  if (rate <= 0 || !(seconds > 0)) {
    std::fprintf(stderr, "RATE and SECONDS must be positive\n");
    return 2;
  }
  logs::ElasticsearchLogExporterOptions options;
  options.endpoints = {argv[1]};
  auto exporter = std::make_shared<logs::ElasticsearchLogExporter>(options);
  {
    // One synchronous Export of one record (indexed too: `indexed` counts it).
    logs::InstrumentationScope scope;
    scope.name = "probe";
    logs::Resource resource{{"service.name", "tern-sdk-es-rate"}};
    logs::LogRecord record;
    record.SetBody("probe");
    logs::LogRecordEntry entry{&scope, &record};
    const auto t0 = steady_clock::now();
    const auto result = exporter->Export(logs::LogRecordBatchView(resource, {&entry, 1}));
    std::printf("one synchronous Export: result %d in %.1f ms\n", static_cast<int>(result),
                std::chrono::duration<double, std::milli>(steady_clock::now() - t0).count());
  }
  auto processor = std::make_unique<logs::BatchLogRecordProcessor>(exporter);
  auto* batch = processor.get();
  logs::LoggerProvider provider(logs::Resource{{"service.name", "tern-sdk-es-rate"}}, std::move(processor));
  auto& logger = provider.GetLogger("rate");
  const long n = static_cast<long>(static_cast<double>(rate) * seconds);
  const auto t0 = steady_clock::now();
  for (long i = 0; i < n; ++i) {
    std::this_thread::sleep_until(t0 + std::chrono::nanoseconds(static_cast<long long>(i * 1e9 / rate)));
    logs::LogRecord record;
    record.SetBody("paced").AddAttribute("i", i);
    logger.Emit(record);
  }
  const bool shut_down = provider.Shutdown(std::chrono::seconds(30));
  const auto s = exporter->stats();
  std::printf(
      "emitted %ld at %ld/s: shutdown %s, dropped by the processor %lu, indexed %lu (probe included), "
      "failed %lu, bulk requests %lu\n",
      n, rate, shut_down ? "ok" : "timed out", static_cast<unsigned long>(batch->dropped_count()),
      static_cast<unsigned long>(s.indexed), static_cast<unsigned long>(s.failed),
      static_cast<unsigned long>(s.bulk_requests));
  return shut_down ? 0 : 1;
}
