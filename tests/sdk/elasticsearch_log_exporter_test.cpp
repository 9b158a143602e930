// The Elasticsearch log exporter against an in-process `tern sink` (the Elasticsearch
// stand-in): documents are counted by the sink and read back from its dump file.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "sdk/exporter_test_util.h"
#include "sdk/test_util.h"
#include "sink/sink_server.h"
#include "support/process.h"
#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/elasticsearch_log_exporter.h"
#include "tern/sdk/logs/logger.h"

namespace tern::sdk::logs {
namespace {

namespace fs = std::filesystem;
using testing::BatchBuilder;

class EsExporterTest : public ::testing::Test {
 protected:
  void StartSink(sink::SinkOptions o = {}) {
    dump_ = fs::temp_directory_path() /
            ("tern-sdk-es-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".ndjson");
    o.port = 0;
    o.dump_path = dump_.string();
    sink_ = std::make_unique<sink::SinkServer>(o);
    port_ = sink_->start();
  }
  void TearDown() override {
    if (sink_) sink_->stop();
    fs::remove(dump_);
  }
  ElasticsearchLogExporterOptions Options() const {
    ElasticsearchLogExporterOptions o;
    o.endpoints = {"http://127.0.0.1:" + std::to_string(port_)};
    o.flush_interval = std::chrono::milliseconds(20);
    o.max_retries = 3;
    return o;
  }
  // Stops the sink (flushing its dump) and returns the dumped documents' lines.
  std::vector<std::string> Documents() {
    sink_->stop();
    std::ifstream f(dump_);
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    return lines;
  }

  fs::path dump_;
  std::unique_ptr<sink::SinkServer> sink_;
  std::uint16_t port_ = 0;
};

TEST_F(EsExporterTest, WritesOtelModeDocumentsToTheLogsDataStream) {
  StartSink();
  ElasticsearchLogExporter exporter(Options());
  BatchBuilder b;
  b.Add(5, "es");
  ASSERT_EQ(exporter.Export(b.View()), ExportResult::kSuccess);
  EXPECT_EQ(sink_->count("logs-generic.otel-default"), 5);
  EXPECT_EQ(exporter.stats().indexed, 5u);

  simdjson::dom::parser parser;
  std::set<std::int64_t> seqs;
  const auto docs = Documents();
  ASSERT_EQ(docs.size(), 5u);
  for (const auto& line : docs) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    EXPECT_EQ(std::string_view(doc["_index"].get_string().value()), "logs-generic.otel-default");
    auto src = doc["_source"];
    const std::int64_t seq = src["attributes"]["seq"].get_int64().value();
    seqs.insert(seq);
    EXPECT_EQ(std::string_view(src["body"]["text"].get_string().value()), "record " + std::to_string(seq));
    EXPECT_EQ(std::string_view(src["severity_text"].get_string().value()), "WARN");
    EXPECT_EQ(src["severity_number"].get_int64().value(), 13);
    EXPECT_EQ(std::string_view(src["event_name"].get_string().value()), "sdk.test");
    EXPECT_EQ(std::string_view(src["attributes"]["tag"].get_string().value()), "es");
    EXPECT_TRUE(src["attributes"]["flag"].get_bool().value());
    EXPECT_EQ(std::string_view(src["resource"]["attributes"]["service.name"].get_string().value()),
              "sdk-test");
    EXPECT_EQ(src["resource"]["attributes"]["host.id"].get_int64().value(), 7);
    EXPECT_EQ(std::string_view(src["scope"]["name"].get_string().value()), "scope.a");
    EXPECT_EQ(std::string_view(src["trace_id"].get_string().value()).size(), 32u);
  }
  EXPECT_EQ(seqs.size(), 5u);
}

TEST_F(EsExporterTest, StaticIndexAndConcurrentAsyncExports) {
  StartSink();
  auto o = Options();
  o.logs_index = "sdk-logs";
  o.num_workers = 2;
  o.max_encoders = 2;  // fewer than the threads: some encode with a temporary encoder
  ElasticsearchLogExporter exporter(o);
  constexpr int kThreads = 4, kExports = 25, kPerBatch = 4;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kExports; ++i) {
        BatchBuilder b;
        b.Add(kPerBatch);
        exporter.ExportAsync(b.View(), [&](ExportResult r) {
          if (r == ExportResult::kSuccess) ok.fetch_add(1);
        });
      }
    });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(exporter.ForceFlush(std::chrono::seconds(60)));
  EXPECT_EQ(ok.load(), kThreads * kExports);
  EXPECT_EQ(sink_->count("sdk-logs"), kThreads * kExports * kPerBatch);
}

TEST_F(EsExporterTest, RetriesTransientErrorsAndFailsRejectedDocuments) {
  sink::SinkOptions so;
  so.item_429_rate = 0.3;  // retried: every record still arrives
  so.mapping_error_field = "attributes.poison";
  StartSink(so);
  auto o = Options();
  o.max_retries = 0;  // retry until shutdown
  ElasticsearchLogExporter exporter(o);
  BatchBuilder good;
  good.Add(40);
  EXPECT_EQ(exporter.Export(good.View()), ExportResult::kSuccess);
  EXPECT_EQ(sink_->count("logs-*"), 40);

  LogRecord poisoned;
  poisoned.SetBody("bad").AddAttribute("poison", 1);
  const InstrumentationScope scope{"s", "", "", {}};
  const LogRecordEntry e{&scope, &poisoned};
  Resource resource;
  EXPECT_EQ(exporter.Export(LogRecordBatchView(resource, {&e, 1})), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed, 1u);
  EXPECT_EQ(exporter.stats().indexed, 40u);
}

TEST_F(EsExporterTest, UnreachableEndpointFailsAtShutdownAndLaterExportsFail) {
  StartSink();
  const std::uint16_t port = port_;
  sink_->stop();  // nothing listens there now
  sink_.reset();
  ElasticsearchLogExporterOptions o;
  o.endpoints = {"http://127.0.0.1:" + std::to_string(port)};
  o.flush_interval = std::chrono::milliseconds(20);
  o.max_retries = 0;  // retry until shutdown: the batch stays pending
  ElasticsearchLogExporter exporter(o);
  BatchBuilder b;
  b.Add(3);
  auto f = exporter.ExportFuture(b.View());
  EXPECT_FALSE(exporter.Shutdown(std::chrono::milliseconds(300)));
  EXPECT_EQ(f.get(), ExportResult::kFailure);  // undelivered: never acknowledged
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed, 6u);
}

// milliseconds::max() is "no limit": ForceFlush and Shutdown wait for the batch in flight
// (the sink answers after 300 ms) instead of overflowing into a deadline in the past.
TEST_F(EsExporterTest, NoTimeLimitWaitsForBatchesInFlight) {
  sink::SinkOptions so;
  so.latency_ms = 300;
  StartSink(so);
  ElasticsearchLogExporter exporter(Options());
  BatchBuilder b;
  b.Add(5);
  auto first = exporter.ExportFuture(b.View());
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::milliseconds::max()));
  ASSERT_EQ(first.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_EQ(first.get(), ExportResult::kSuccess);
  auto second = exporter.ExportFuture(b.View());
  EXPECT_TRUE(exporter.Shutdown(std::chrono::milliseconds::max()));
  ASSERT_EQ(second.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_EQ(second.get(), ExportResult::kSuccess);
  EXPECT_EQ(exporter.stats().indexed, 10u);
  EXPECT_EQ(sink_->count("logs-generic.otel-default"), 10);
}

TEST(EsExporterOptionsTest, BadEndpointThrows) {
  ElasticsearchLogExporterOptions o;
  o.endpoints = {"ftp://nope"};
  EXPECT_THROW(ElasticsearchLogExporter{o}, std::invalid_argument);
}

// A whole-request 400 (here: a path prefix the sink has no handler for) is a configuration
// error. The collector keeps such a request and retries it until shutdown; an application
// cannot hold its records forever, so the SDK fails the export.
TEST_F(EsExporterTest, WholeRequestClientErrorFailsTheExport) {
  StartSink();
  auto o = Options();
  o.endpoints = {"http://127.0.0.1:" + std::to_string(port_) + "/no/such/prefix"};
  auto exporter = std::make_shared<ElasticsearchLogExporter>(o);
  BatchBuilder b;
  b.Add(3);
  EXPECT_TRUE(testing::ReturnsWithin(
      [exporter, view = b.View()] { EXPECT_EQ(exporter->Export(view), ExportResult::kFailure); },
      std::chrono::seconds(20)));
  EXPECT_EQ(exporter->stats().failed, 3u);
  EXPECT_EQ(exporter->stats().indexed, 0u);
  EXPECT_TRUE(exporter->ForceFlush(std::chrono::seconds(10)));  // nothing left held
}

// The hang at exit: a batch processor whose export thread waits for a batch the bulk
// exporter keeps retrying (max_retries 0, nothing listening). Shutdown returns false at
// its timeout and the provider's destructor returns, with the records counted as failed.
TEST_F(EsExporterTest, ProviderShutdownEndsWithTheEndpointDownAndEndlessRetries) {
  const auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  auto o = Options();
  o.endpoints = {"http://127.0.0.1:" + std::to_string(ports[0])};
  o.max_retries = 0;  // retry until shutdown
  auto exporter = std::make_shared<ElasticsearchLogExporter>(o);
  auto provider =
      std::make_shared<LoggerProvider>(Resource{}, std::make_unique<BatchLogRecordProcessor>(exporter));
  LogRecord r;
  r.SetBody("x");
  for (int i = 0; i < 3; ++i) provider->GetLogger("l").Emit(r);
  EXPECT_FALSE(provider->ForceFlush(std::chrono::milliseconds(300)));
  auto shut = std::make_shared<std::atomic<bool>>(true);
  EXPECT_TRUE(
      testing::ReturnsWithin([provider, shut] { shut->store(provider->Shutdown(std::chrono::seconds(1))); },
                             std::chrono::seconds(10)));
  EXPECT_FALSE(shut->load());
  EXPECT_TRUE(
      testing::ReturnsWithin([p = std::move(provider)]() mutable { p.reset(); }, std::chrono::seconds(10)));
  EXPECT_EQ(exporter->stats().failed, 3u);
}

// The encoder leaves out records it cannot encode (here: a scope asking for a mapping mode
// that does not exist); the export is then not a success, and they count as failed.
TEST_F(EsExporterTest, RecordsTheEncoderDropsFailTheExport) {
  StartSink();
  ElasticsearchLogExporter exporter(Options());
  const InstrumentationScope good{"good", "", "", {}};
  const InstrumentationScope unknown{
      "unknown", "", "", {OwnedAttribute(Attribute{"elastic.mapping.mode", "logsdb"})}};
  LogRecord r;
  r.SetBody("x");
  const LogRecordEntry mixed[] = {{&good, &r}, {&unknown, &r}, {&good, &r}};
  Resource resource;
  EXPECT_EQ(exporter.Export(LogRecordBatchView(resource, mixed)), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().indexed, 2u);
  EXPECT_EQ(exporter.stats().failed, 1u);
  const LogRecordEntry only_dropped[] = {{&unknown, &r}};
  EXPECT_EQ(exporter.Export(LogRecordBatchView(resource, only_dropped)), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed, 2u);
  EXPECT_EQ(sink_->count("logs-*"), 2);
}

// ForceFlush covers the exports begun before it, not the ones other threads keep starting:
// under a steady stream of exports, waiting for the exporter to be idle never ended.
TEST_F(EsExporterTest, ForceFlushEndsWhileOtherThreadsKeepExporting) {
  sink::SinkOptions so;
  so.latency_ms = 50;
  StartSink(so);
  auto o = Options();
  o.num_workers = 4;
  ElasticsearchLogExporter exporter(o);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      BatchBuilder b;
      b.Add(2);
      while (!stop.load()) exporter.Export(b.View());
    });
  ASSERT_TRUE(testing::WaitFor([&] { return exporter.stats().indexed > 0; }));
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::seconds(5)));
  stop.store(true);
  for (auto& th : threads) th.join();
}

// A synchronous Export sends its batch at once instead of waiting for flush_interval: with
// a one-hour interval it still returns.
TEST_F(EsExporterTest, SynchronousExportDoesNotWaitForTheFlushInterval) {
  StartSink();
  auto o = Options();
  o.flush_interval = std::chrono::hours(1);
  auto exporter = std::make_shared<ElasticsearchLogExporter>(o);
  BatchBuilder b;
  b.Add(4);
  EXPECT_TRUE(testing::ReturnsWithin(
      [exporter, view = b.View()] { EXPECT_EQ(exporter->Export(view), ExportResult::kSuccess); },
      std::chrono::seconds(20)));
  EXPECT_EQ(sink_->count("logs-*"), 4);
}

TEST_F(EsExporterTest, SecondShutdownReturnsTheFirstResult) {
  const auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  auto o = Options();
  o.endpoints = {"http://127.0.0.1:" + std::to_string(ports[0])};
  o.max_retries = 0;
  ElasticsearchLogExporter exporter(o);
  BatchBuilder b;
  b.Add(1);
  auto f = exporter.ExportFuture(b.View());
  EXPECT_FALSE(exporter.Shutdown(std::chrono::milliseconds(200)));  // undelivered
  EXPECT_FALSE(exporter.Shutdown(std::chrono::seconds(1)));         // not "already done: true"
  EXPECT_EQ(f.get(), ExportResult::kFailure);
}

TEST(EsExporterOptionsTest, PortsOutsideTheTcpRangeThrow) {
  for (const char* ep : {"http://127.0.0.1:99999", "http://127.0.0.1:abc", "http://127.0.0.1:0",
                         "https://[::1]:65536/prefix"}) {
    ElasticsearchLogExporterOptions o;
    o.endpoints = {ep};
    EXPECT_THROW(ElasticsearchLogExporter{o}, std::invalid_argument) << ep;
  }
  ElasticsearchLogExporterOptions o;
  o.endpoints = {"http://127.0.0.1", "https://[::1]:9200/prefix"};  // 80, and a valid port
  EXPECT_NO_THROW(ElasticsearchLogExporter{o});
}

}  // namespace
}  // namespace tern::sdk::logs
