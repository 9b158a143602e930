#include <gtest/gtest.h>

#include "pdata/logs.h"
#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/exporters.h"
#include "tern/sdk/logs/logger.h"
#include "tern/sdk/logs/simple_processor.h"
#include "test_util.h"

namespace tern::sdk::logs {
namespace {

// Records the resource and scope seen by the exporter, and converts each batch to
// pdata: the batch view maps onto one ResourceLogs with one ScopeLogs per scope run.
class PdataExporter final : public LogRecordExporter {
 public:
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    auto data = std::make_unique<pdata::LogsData>();
    const auto& a = data->arena;
    auto& rl = data->resource_logs.emplace_back(a);
    for (const auto& kv : batch.resource().attributes)
      rl.resource.attributes.push_back({a.copy(kv.key), Convert(a, kv.value.view())});
    const InstrumentationScope* current = nullptr;
    for (const auto& e : batch) {
      if (e.scope != current) {
        current = e.scope;
        auto& sl = rl.scope_logs.emplace_back(a);
        sl.scope.name = a.copy(current->name);
        sl.scope.version = a.copy(current->version);
      }
      auto& rec = rl.scope_logs.back().log_records.emplace_back(a);
      rec.time_unix_nano = e.record->timestamp();
      rec.severity_number = static_cast<std::int32_t>(e.record->severity());
      rec.body = Convert(a, e.record->body());
      for (const auto& attr : e.record->attributes())
        rec.attributes.push_back({a.copy(attr.key), Convert(a, attr.value)});
      rec.dropped_attributes_count = e.record->dropped_attributes_count();
    }
    const pdata::LogsData* expected = nullptr;
    last_.compare_exchange_strong(expected, data.release());
    return ExportResult::kSuccess;
  }
  ~PdataExporter() override { delete last_.load(); }
  const pdata::LogsData* first() const { return last_.load(); }

 private:
  static pdata::AnyValue Convert(const pdata::Arena& a, const Value& v) {
    switch (v.kind()) {
      case ValueKind::kString:
        return pdata::AnyValue::string(a.copy(v.as_string()));
      case ValueKind::kBool:
        return pdata::AnyValue::boolean(v.as_bool());
      case ValueKind::kInt:
        return pdata::AnyValue::integer(v.as_int());
      case ValueKind::kDouble:
        return pdata::AnyValue::dbl(v.as_double());
      case ValueKind::kEmpty:
        break;
    }
    return {};
  }
  mutable std::atomic<const pdata::LogsData*> last_{nullptr};  // keeps the first batch only
};

TEST(LoggerTest, ExporterSeesResourceScopeAndRecordAsPdata) {
  auto exporter = std::make_shared<PdataExporter>();
  LoggerProvider provider(Resource{{"service.name", "svc"}, {"pid", 12}},
                          std::make_unique<SimpleLogRecordProcessor>(exporter));
  Logger& logger = provider.GetLogger("lib", "1.2");
  LogRecord r;
  r.SetTimestamp(99).SetSeverity(Severity::kInfo).SetBody(3.5).AddAttribute("k", "v");
  logger.Emit(r);

  const pdata::LogsData* data = exporter->first();
  ASSERT_NE(data, nullptr);
  ASSERT_EQ(data->resource_logs.size(), 1u);
  const auto& rl = data->resource_logs[0];
  ASSERT_EQ(rl.resource.attributes.size(), 2u);
  const auto* name = pdata::find_attribute(rl.resource.attributes, "service.name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->string_value, "svc");
  EXPECT_EQ(pdata::find_attribute(rl.resource.attributes, "pid")->int_value, 12);
  ASSERT_EQ(rl.scope_logs.size(), 1u);
  EXPECT_EQ(rl.scope_logs[0].scope.name, "lib");
  EXPECT_EQ(rl.scope_logs[0].scope.version, "1.2");
  ASSERT_EQ(data->record_count(), 1u);
  const auto& rec = rl.scope_logs[0].log_records[0];
  EXPECT_EQ(rec.time_unix_nano, 99u);
  EXPECT_EQ(rec.severity_number, 9);
  EXPECT_EQ(rec.body.kind, pdata::ValueKind::Double);
  EXPECT_DOUBLE_EQ(rec.body.double_value, 3.5);
  EXPECT_EQ(pdata::find_attribute(rec.attributes, "k")->string_value, "v");
}

TEST(LoggerTest, SameScopeGivesSameLogger) {
  LoggerProvider provider;
  Logger& a = provider.GetLogger("x", "1");
  EXPECT_EQ(&a, &provider.GetLogger("x", "1"));
  EXPECT_NE(&a, &provider.GetLogger("x", "2"));
  EXPECT_NE(&a, &provider.GetLogger("y", "1"));
  EXPECT_EQ(a.scope().name, "x");
}

TEST(LoggerTest, EveryProcessorSeesEachRecordAndShutdownStopsEmits) {
  auto e1 = std::make_shared<InMemoryLogRecordExporter>();
  auto e2 = std::make_shared<InMemoryLogRecordExporter>();
  std::vector<std::unique_ptr<LogRecordProcessor>> ps;
  ps.push_back(std::make_unique<SimpleLogRecordProcessor>(e1));
  ps.push_back(std::make_unique<SimpleLogRecordProcessor>(e2));
  LoggerProvider provider(Resource{}, std::move(ps));
  Logger& logger = provider.GetLogger("l");
  logger.Emit(LogRecord{});
  EXPECT_TRUE(provider.ForceFlush());
  EXPECT_TRUE(provider.Shutdown());
  logger.Emit(LogRecord{});
  EXPECT_EQ(e1->record_count(), 1u);
  EXPECT_EQ(e2->record_count(), 1u);
  EXPECT_EQ(e1->shutdown_calls(), 1);
  EXPECT_FALSE(provider.ForceFlush());
  EXPECT_TRUE(provider.Shutdown());  // idempotent
  EXPECT_EQ(e1->shutdown_calls(), 1);
}

// Huge timeouts mean "no limit": steady_clock::now() + timeout must not overflow into a
// deadline in the past (false at once, nothing exported).
TEST(LoggerTest, ProviderFlushAndShutdownWithoutTimeLimitWaitForTheExporter) {
  using std::chrono::milliseconds;
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto slow = std::make_shared<testing::SlowExporter>(memory, milliseconds(300));
  LoggerProvider provider(Resource{}, std::make_unique<BatchLogRecordProcessor>(slow));
  Logger& logger = provider.GetLogger("l");
  logger.Emit(LogRecord{});
  EXPECT_TRUE(provider.ForceFlush(milliseconds::max()));
  EXPECT_EQ(memory->record_count(), 1u);
  logger.Emit(LogRecord{});
  EXPECT_TRUE(provider.ForceFlush(std::chrono::hours(24 * 365 * 1000)));  // beyond steady_clock's range
  EXPECT_EQ(memory->record_count(), 2u);
  logger.Emit(LogRecord{});
  EXPECT_TRUE(provider.Shutdown(milliseconds::max()));
  EXPECT_EQ(memory->record_count(), 3u);
  EXPECT_EQ(slow->last_shutdown_timeout(), milliseconds::max());
}

TEST(LoggerTest, ProviderShutdownTimeoutReachesTheExporter) {
  auto slow = std::make_shared<testing::SlowExporter>(std::make_shared<InMemoryLogRecordExporter>(),
                                                      std::chrono::milliseconds(0));
  LoggerProvider provider(Resource{}, std::make_unique<BatchLogRecordProcessor>(slow));
  provider.GetLogger("l").Emit(LogRecord{});
  ASSERT_TRUE(provider.Shutdown(std::chrono::seconds(120)));
  // What is left of the 120 s (generous bound: the export took a fraction of it), not 5 s.
  EXPECT_GT(slow->last_shutdown_timeout(), std::chrono::seconds(60));
  EXPECT_LE(slow->last_shutdown_timeout(), std::chrono::seconds(120));
}

TEST(LoggerTest, EmitsAfterShutdownAreCountedAsDropped) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  auto processor = std::make_unique<BatchLogRecordProcessor>(exporter);
  const BatchLogRecordProcessor* batch = processor.get();
  LoggerProvider provider(Resource{}, std::move(processor));
  Logger& logger = provider.GetLogger("l");
  logger.Emit(LogRecord{});
  ASSERT_TRUE(provider.Shutdown());
  for (int i = 0; i < 3; ++i) logger.Emit(LogRecord{});
  EXPECT_EQ(exporter->record_count(), 1u);
  EXPECT_EQ(batch->dropped_count(), 3u);
}

// A Shutdown that timed out leaves the export thread running, with queued records that
// point to their logger's scope: the provider's destructor must free the loggers only
// after the processors (whose destructors join that thread).
TEST(LoggerTest, ScopesOutliveTheExportThreadOfATimedOutShutdown) {
  const std::string scope_name(64, 's');  // heap-allocated: a freed scope does not keep it
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<testing::GatedExporter>(memory);
  BatchLogRecordProcessorOptions options;
  options.max_export_batch_size = 1;
  auto provider =
      std::make_unique<LoggerProvider>(Resource{}, std::make_unique<BatchLogRecordProcessor>(gated, options));
  Logger& logger = provider->GetLogger(scope_name);
  logger.Emit(LogRecord{});
  EXPECT_TRUE(testing::WaitFor([&] { return gated->entered() == 1; }));
  logger.Emit(LogRecord{});  // queued behind the stuck export
  EXPECT_FALSE(provider->Shutdown(std::chrono::milliseconds(10)));
  // Opened only once the destructor has started: it then waits in the processor's join
  // while the thread exports the queued record.
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gated->Open();
  });
  provider.reset();
  opener.join();
  const auto records = memory->records();
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) EXPECT_EQ(r.scope_name, scope_name);
}

// A second Shutdown while the first is still exporting used to return true at once, so an
// application could exit with its records still queued. It now waits for the first one
// (within its own timeout) and returns its result.
TEST(LoggerTest, SecondProviderShutdownWaitsForTheFirstAndGetsItsResult) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<testing::GatedExporter>(memory);
  BatchLogRecordProcessorOptions o;
  o.max_export_batch_size = 1;
  auto processor = std::make_unique<BatchLogRecordProcessor>(gated, o);
  auto* proc = processor.get();
  LoggerProvider provider(Resource{}, std::move(processor));
  Logger& logger = provider.GetLogger("l");
  LogRecord r;
  r.SetBody("x");
  logger.Emit(r);
  ASSERT_TRUE(testing::WaitFor([&] { return gated->entered() == 1; }));
  std::atomic<int> first{-1};
  std::thread t([&] { first.store(provider.Shutdown(std::chrono::seconds(20)) ? 1 : 0); });
  // The first shutdown has begun once the processor drops emits.
  ASSERT_TRUE(testing::WaitFor([&] {
    logger.Emit(r);
    return proc->dropped_count() > 0;
  }));
  EXPECT_FALSE(provider.Shutdown(std::chrono::milliseconds(20)));  // the first is stuck on the gate
  gated->Open();
  EXPECT_TRUE(provider.Shutdown(std::chrono::seconds(20)));
  EXPECT_GE(memory->record_count(), 1u);
  t.join();
  EXPECT_EQ(first.load(), 1);
  EXPECT_TRUE(provider.Shutdown(std::chrono::seconds(20)));  // later: the same result
}

// The provider's destructor returns even when the exporter can only be unblocked by its
// own Shutdown (the Elasticsearch exporter with a batch it cannot deliver).
TEST(LoggerTest, ProviderDestructorReturnsWhenTheExportThreadIsStuck) {
  auto stuck = std::make_shared<testing::StuckUntilShutdownExporter>();
  EXPECT_TRUE(testing::ReturnsWithin(
      [stuck] {
        LoggerProvider provider(Resource{}, std::make_unique<BatchLogRecordProcessor>(stuck));
        LogRecord r;
        r.SetBody("x");
        provider.GetLogger("l").Emit(r);
        provider.ForceFlush(std::chrono::milliseconds(200));  // starts the export that gets stuck
        // ~LoggerProvider: Shutdown(5 s) times out, shuts the exporter down, joins.
      },
      std::chrono::seconds(30)));
  EXPECT_GE(stuck->shutdown_calls(), 1);
}

TEST(LoggerTest, SimpleProcessorSecondShutdownGetsTheFirstResult) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  SimpleLogRecordProcessor p(std::make_shared<testing::FailingFlushExporter>(memory));
  EXPECT_FALSE(p.Shutdown(std::chrono::seconds(1)));
  EXPECT_FALSE(p.Shutdown(std::chrono::seconds(1)));  // not "true, already done"
}

}  // namespace
}  // namespace tern::sdk::logs
