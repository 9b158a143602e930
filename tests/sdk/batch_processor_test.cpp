#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/exporters.h"
#include "test_util.h"

namespace tern::sdk::logs {
namespace {

using testing::FailingFlushExporter;
using testing::GatedExporter;
using testing::ReturnsWithin;
using testing::SlowExporter;
using testing::StuckUntilShutdownExporter;
using testing::WaitFor;
using namespace std::chrono_literals;

const InstrumentationScope kScope{"scope", "1", "", {}};

void EmitSeq(LogRecordProcessor& p, std::int64_t seq, std::int64_t thread = 0) {
  LogRecord r;
  r.AddAttribute("seq", seq).AddAttribute("thread", thread);
  p.OnEmit(r, kScope);
}

BatchLogRecordProcessorOptions Options(std::size_t queue, std::size_t batch,
                                       std::chrono::milliseconds delay = std::chrono::hours(1)) {
  BatchLogRecordProcessorOptions o;
  o.max_queue_size = queue;
  o.max_export_batch_size = batch;
  o.scheduled_delay = delay;
  return o;
}

TEST(BatchProcessorTest, DefaultsMatchTheSpec) {
  BatchLogRecordProcessorOptions o;
  EXPECT_EQ(o.max_queue_size, 2048u);
  EXPECT_EQ(o.max_export_batch_size, 512u);
  EXPECT_EQ(o.scheduled_delay, 1000ms);
  BatchLogRecordProcessor p(std::make_shared<NoopLogRecordExporter>());
  EXPECT_EQ(p.capacity(), 2048u);
}

TEST(BatchProcessorTest, SingleProducerOrderIsPreserved) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(16384, 512));
  constexpr int kN = 10000;
  for (int i = 0; i < kN; ++i) EmitSeq(p, i);
  ASSERT_TRUE(p.ForceFlush(20s));
  EXPECT_EQ(p.dropped_count(), 0u);
  const auto records = exporter->records();
  ASSERT_EQ(records.size(), static_cast<std::size_t>(kN));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(records[i].view().attributes()[0].value.as_int(), i);
  EXPECT_EQ(records[0].scope_name, "scope");
}

TEST(BatchProcessorTest, ForceFlushExportsEverythingQueued) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(64, 32));
  for (int i = 0; i < 5; ++i) EmitSeq(p, i);  // below the batch size, timer is 1 h away
  ASSERT_TRUE(p.ForceFlush(20s));
  EXPECT_EQ(exporter->record_count(), 5u);
  ASSERT_TRUE(p.ForceFlush(20s));  // nothing new: still fine, nothing exported twice
  EXPECT_EQ(exporter->record_count(), 5u);
}

TEST(BatchProcessorTest, SplitsByMaxExportBatchSize) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(64, 4));
  for (int i = 0; i < 10; ++i) EmitSeq(p, i);
  ASSERT_TRUE(p.ForceFlush(20s));
  EXPECT_EQ(exporter->batch_sizes(), (std::vector<std::size_t>{4, 4, 2}));
}

TEST(BatchProcessorTest, FullBatchIsExportedWithoutFlushOrTimer) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(64, 8));
  for (int i = 0; i < 8; ++i) EmitSeq(p, i);
  EXPECT_TRUE(WaitFor([&] { return exporter->record_count() == 8; }));
  EXPECT_EQ(exporter->batch_sizes(), (std::vector<std::size_t>{8}));
}

TEST(BatchProcessorTest, ScheduledDelayExportsWithoutFlush) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(64, 32, 20ms));
  for (int i = 0; i < 3; ++i) EmitSeq(p, i);
  EXPECT_TRUE(WaitFor([&] { return exporter->record_count() == 3; }));
}

TEST(BatchProcessorTest, ShutdownFlushesAndLaterEmitsAreDropped) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(64, 32));
  for (int i = 0; i < 5; ++i) EmitSeq(p, i);
  ASSERT_TRUE(p.Shutdown(20s));
  EXPECT_EQ(exporter->record_count(), 5u);
  EXPECT_EQ(exporter->shutdown_calls(), 1);
  EXPECT_EQ(p.dropped_count(), 0u);
  EmitSeq(p, 5);
  EXPECT_EQ(p.dropped_count(), 1u);
  EXPECT_EQ(exporter->record_count(), 5u);
  EXPECT_FALSE(p.ForceFlush(1s));
  EXPECT_TRUE(p.Shutdown(1s));  // idempotent
  EXPECT_EQ(exporter->shutdown_calls(), 1);
}

TEST(BatchProcessorTest, FullRingDropsAndCounts) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<GatedExporter>(memory);
  BatchLogRecordProcessor p(gated, Options(8, 1));
  EmitSeq(p, 0);
  // The export thread takes record 0 and blocks in Export: the ring is empty again.
  ASSERT_TRUE(WaitFor([&] { return gated->entered() == 1; }));
  for (int i = 1; i <= 8; ++i) EmitSeq(p, i);  // fills all 8 slots
  EXPECT_EQ(p.dropped_count(), 0u);
  for (int i = 9; i < 14; ++i) EmitSeq(p, i);  // no room
  EXPECT_EQ(p.dropped_count(), 5u);
  gated->Open();
  ASSERT_TRUE(p.ForceFlush(20s));
  EXPECT_EQ(memory->record_count(), 9u);
  const auto records = memory->records();
  for (int i = 0; i < 9; ++i) EXPECT_EQ(records[i].view().attributes()[0].value.as_int(), i);
}

TEST(BatchProcessorTest, ShutdownTimesOutOnStuckExporterThenDestructorFinishes) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<GatedExporter>(memory);
  {
    BatchLogRecordProcessor p(gated, Options(8, 1));
    EmitSeq(p, 0);
    ASSERT_TRUE(WaitFor([&] { return gated->entered() == 1; }));
    EXPECT_FALSE(p.Shutdown(10ms));
    gated->Open();  // the destructor now joins a thread that can finish
  }
  EXPECT_EQ(memory->record_count(), 1u);
}

TEST(BatchProcessorTest, ForceFlushTimesOutOnStuckExporterThenSucceeds) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<GatedExporter>(memory);
  BatchLogRecordProcessor p(gated, Options(8, 1));
  EmitSeq(p, 0);
  ASSERT_TRUE(WaitFor([&] { return gated->entered() == 1; }));
  EmitSeq(p, 1);
  EXPECT_FALSE(p.ForceFlush(10ms));  // the exporter cannot return while the gate is shut
  gated->Open();
  EXPECT_TRUE(p.ForceFlush(20s));  // a timed-out flush leaves the processor usable
  EXPECT_EQ(memory->record_count(), 2u);
  EXPECT_EQ(p.dropped_count(), 0u);
}

// milliseconds::max() is "no limit" (the OpenTelemetry C++ SDK's default): the calls wait
// for the exporter instead of overflowing into a deadline in the past and failing at once.
TEST(BatchProcessorTest, NoTimeLimitWaitsForTheExporter) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto slow = std::make_shared<SlowExporter>(memory, 300ms);
  BatchLogRecordProcessor p(slow, Options(64, 32));
  EmitSeq(p, 0);
  EXPECT_TRUE(p.ForceFlush(std::chrono::milliseconds::max()));
  EXPECT_EQ(memory->record_count(), 1u);
  EmitSeq(p, 1);
  EXPECT_TRUE(p.Shutdown(std::chrono::milliseconds::max()));
  EXPECT_EQ(memory->record_count(), 2u);
  EXPECT_EQ(memory->shutdown_calls(), 1);
  EXPECT_EQ(p.dropped_count(), 0u);
}

// The exporter's ForceFlush/Shutdown get what is left of the caller's deadline, not a
// fixed 5 s: an exporter still sending (Elasticsearch) fails what is unsent when its
// own timeout runs out.
TEST(BatchProcessorTest, ExporterGetsTheTimeLeftOfTheCallersTimeout) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto slow = std::make_shared<SlowExporter>(memory, 0ms);
  BatchLogRecordProcessor p(slow, Options(64, 32));
  EmitSeq(p, 0);
  ASSERT_TRUE(p.ForceFlush(120s));
  EXPECT_GT(slow->last_flush_timeout(), 60s);  // generous: the export took a fraction of 120 s
  EXPECT_LE(slow->last_flush_timeout(), 120s);
  ASSERT_TRUE(p.ForceFlush(std::chrono::milliseconds::max()));
  EXPECT_EQ(slow->last_flush_timeout(), std::chrono::milliseconds::max());  // no limit stays no limit
  EmitSeq(p, 1);
  ASSERT_TRUE(p.Shutdown(120s));
  EXPECT_GT(slow->last_shutdown_timeout(), 60s);
  EXPECT_LE(slow->last_shutdown_timeout(), 120s);
  EXPECT_EQ(memory->record_count(), 2u);
}

TEST(BatchProcessorTest, ShutdownWithoutTimeLimitPassesNoLimitToTheExporter) {
  auto slow = std::make_shared<SlowExporter>(std::make_shared<InMemoryLogRecordExporter>(), 0ms);
  BatchLogRecordProcessor p(slow, Options(64, 32));
  ASSERT_TRUE(p.Shutdown(std::chrono::milliseconds::max()));
  EXPECT_EQ(slow->last_shutdown_timeout(), std::chrono::milliseconds::max());
}

TEST(BatchProcessorTest, ConcurrentEmittersAreAllAccountedFor) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(exporter, Options(256, 64, 5ms));
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) EmitSeq(p, i, t);
    });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(p.ForceFlush(20s));
  const std::uint64_t dropped = p.dropped_count();
  EXPECT_EQ(exporter->record_count() + dropped, static_cast<std::uint64_t>(kThreads * kPerThread));
  // Each producer's surviving records keep their order.
  std::vector<std::int64_t> last(kThreads, -1);
  for (const auto& rec : exporter->records()) {
    const LogRecord v = rec.view();
    const auto t = v.attributes()[1].value.as_int();
    const auto seq = v.attributes()[0].value.as_int();
    ASSERT_GT(seq, last[t]);
    last[t] = seq;
  }
  for (const auto& b : exporter->batch_sizes()) EXPECT_LE(b, 64u);
}

TEST(BatchProcessorTest, ConcurrentEmitWithFlushAndShutdown) {
  auto exporter = std::make_shared<InMemoryLogRecordExporter>();
  auto p = std::make_unique<BatchLogRecordProcessor>(exporter, Options(128, 16, 1ms));
  std::atomic<std::uint64_t> emitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) {
        EmitSeq(*p, i, t);
        emitted.fetch_add(1);
      }
    });
  for (int i = 0; i < 20; ++i) p->ForceFlush(20s);
  p->Shutdown(20s);
  for (auto& th : threads) th.join();
  EXPECT_EQ(exporter->record_count() + p->dropped_count(), emitted.load());
}

// The hang at exit: the export thread is blocked in an Export that only ends when the
// exporter is shut down, and only that thread used to shut it down. A timed-out Shutdown
// now shuts the exporter down itself, so the blocked export ends and the destructor's join
// returns.
TEST(BatchProcessorTest, TimedOutShutdownShutsTheExporterDownSoTheDestructorReturns) {
  auto stuck = std::make_shared<StuckUntilShutdownExporter>();
  auto p = std::make_shared<std::unique_ptr<BatchLogRecordProcessor>>(
      std::make_unique<BatchLogRecordProcessor>(stuck, Options(8, 1)));
  EmitSeq(**p, 0);
  ASSERT_TRUE(WaitFor([&] { return stuck->entered() == 1; }));
  EXPECT_FALSE((*p)->Shutdown(100ms));
  EXPECT_GE(stuck->shutdown_calls(), 1);
  EXPECT_TRUE(ReturnsWithin([p] { p->reset(); }, 10s));  // the destructor joins the export thread
}

// A shutdown that timed out stays a failed shutdown: asking again, once the export thread
// has finished, does not report success for records the timeout abandoned.
TEST(BatchProcessorTest, ShutdownAfterATimedOutOneIsStillFalse) {
  auto stuck = std::make_shared<StuckUntilShutdownExporter>();
  BatchLogRecordProcessor p(stuck, Options(8, 1));
  EmitSeq(p, 0);
  ASSERT_TRUE(WaitFor([&] { return stuck->entered() == 1; }));
  EXPECT_FALSE(p.Shutdown(50ms));
  EXPECT_FALSE(p.Shutdown(20s));  // waits for the thread to finish, then reports the failure
}

// A second, concurrent Shutdown waits for the first one and returns its result once the
// queued record is exported, instead of returning before anything was exported.
TEST(BatchProcessorTest, ConcurrentShutdownWaitsForTheFirstOne) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  auto gated = std::make_shared<GatedExporter>(memory);
  BatchLogRecordProcessor p(gated, Options(8, 1));
  EmitSeq(p, 0);
  ASSERT_TRUE(WaitFor([&] { return gated->entered() == 1; }));
  std::atomic<int> first{-1};
  std::thread t([&] { first.store(p.Shutdown(20s) ? 1 : 0); });
  // The first shutdown has begun once emits are dropped (records emitted before that are
  // queued behind record 0).
  ASSERT_TRUE(WaitFor([&] {
    EmitSeq(p, 1);
    return p.dropped_count() > 0;
  }));
  gated->Open();
  EXPECT_TRUE(p.Shutdown(20s));
  EXPECT_GE(memory->record_count(), 1u);  // the first shutdown's export has happened
  t.join();
  EXPECT_EQ(first.load(), 1);
}

// OTel C++ returns the exporter's results: a failed exporter ForceFlush or Shutdown is a
// failed processor ForceFlush or Shutdown.
TEST(BatchProcessorTest, ExporterFlushAndShutdownResultsArePropagated) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(std::make_shared<FailingFlushExporter>(memory), Options(8, 4));
  EmitSeq(p, 0);
  EXPECT_FALSE(p.ForceFlush(20s));
  EXPECT_EQ(memory->record_count(), 1u);  // the records were exported all the same
  EmitSeq(p, 1);
  EXPECT_FALSE(p.Shutdown(20s));
  EXPECT_EQ(memory->record_count(), 2u);
  EXPECT_FALSE(p.Shutdown(20s));  // asked again: the same answer
}

TEST(BatchProcessorTest, ZeroScheduledDelayIsRaisedToTheMinimum) {
  auto memory = std::make_shared<InMemoryLogRecordExporter>();
  BatchLogRecordProcessor p(memory, Options(8, 4, 0ms));
  EXPECT_EQ(p.scheduled_delay(), BatchLogRecordProcessor::kMinScheduledDelay);
  BatchLogRecordProcessor negative(memory, Options(8, 4, -5ms));
  EXPECT_EQ(negative.scheduled_delay(), BatchLogRecordProcessor::kMinScheduledDelay);
  EmitSeq(p, 0);  // the timer still exports
  EXPECT_TRUE(WaitFor([&] { return memory->record_count() == 1; }));
}

}  // namespace
}  // namespace tern::sdk::logs
