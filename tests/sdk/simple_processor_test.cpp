#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tern/sdk/logs/exporters.h"
#include "tern/sdk/logs/simple_processor.h"

namespace tern::sdk::logs {
namespace {

// Checks that Export runs on the emitting thread.
class ThreadCheckingExporter final : public LogRecordExporter {
 public:
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    for (const auto& e : batch) {
      const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
      if (e.record->attributes()[0].value.as_int() != static_cast<std::int64_t>(tid))
        wrong_thread_.fetch_add(1);
    }
    calls_.fetch_add(1);
    return ExportResult::kSuccess;
  }
  mutable std::atomic<int> calls_{0};
  mutable std::atomic<int> wrong_thread_{0};
};

TEST(SimpleProcessorTest, ExportsEachRecordOnCallerThread) {
  auto exporter = std::make_shared<ThreadCheckingExporter>();
  SimpleLogRecordProcessor processor(exporter);
  InstrumentationScope scope{"s", "", "", {}};
  for (int i = 0; i < 3; ++i) {
    LogRecord r;
    r.AddAttribute("tid",
                   static_cast<std::int64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    processor.OnEmit(r, scope);
  }
  EXPECT_EQ(exporter->calls_.load(), 3);
  EXPECT_EQ(exporter->wrong_thread_.load(), 0);
}

TEST(SimpleProcessorTest, ConcurrentEmittersAllExported) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  SimpleLogRecordProcessor processor(exporter);
  InstrumentationScope scope{"s", "", "", {}};
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        LogRecord r;
        r.AddAttribute("thread", t).AddAttribute("seq", i);
        processor.OnEmit(r, scope);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(exporter->record_count(), static_cast<std::size_t>(kThreads * kPerThread));
  // Per-thread order survives the lock-free list.
  std::vector<std::int64_t> next(kThreads, 0);
  for (const auto& rec : exporter->records()) {
    const LogRecord v = rec.view();
    const auto t = v.attributes()[0].value.as_int();
    EXPECT_EQ(v.attributes()[1].value.as_int(), next[t]++);
  }
}

TEST(SimpleProcessorTest, ShutdownStopsExportsAndShutsExporterDown) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  SimpleLogRecordProcessor processor(exporter);
  InstrumentationScope scope{"s", "", "", {}};
  processor.OnEmit(LogRecord{}, scope);
  EXPECT_TRUE(processor.ForceFlush(std::chrono::seconds(1)));
  EXPECT_TRUE(processor.Shutdown(std::chrono::seconds(1)));
  processor.OnEmit(LogRecord{}, scope);
  EXPECT_EQ(exporter->record_count(), 1u);
  EXPECT_EQ(exporter->shutdown_calls(), 1);
  EXPECT_FALSE(processor.ForceFlush(std::chrono::seconds(1)));
}

}  // namespace
}  // namespace tern::sdk::logs
