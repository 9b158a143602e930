#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "tern/sdk/logs/exporters.h"

namespace tern::sdk::logs {
namespace {

const InstrumentationScope kScope{"my.scope", "2.0", "", {}};

TEST(OStreamExporterTest, WritesOneLinePerRecord) {
  std::ostringstream out;
  OStreamLogRecordExporter exporter(out);
  LogRecord a;
  TraceId trace{};
  trace[15] = 0xff;
  a.SetTimestamp(1).SetSeverity(Severity::kInfo, "INFO").SetBody("hi").AddAttribute("n", 3);
  a.SetTraceContext(trace, SpanId{}, 1);
  LogRecord b;
  b.SetBody(true).SetEventName("ev");
  const LogRecordEntry entries[] = {{&kScope, &a}, {&kScope, &b}};
  Resource resource;
  ASSERT_EQ(exporter.Export(LogRecordBatchView(resource, entries)), ExportResult::kSuccess);
  const std::string s = out.str();
  EXPECT_NE(s.find("severity=9 severity_text=INFO scope=my.scope body=\"hi\" n=3"), std::string::npos) << s;
  EXPECT_NE(s.find("trace_id=000000000000000000000000000000ff"), std::string::npos) << s;
  EXPECT_NE(s.find("event=ev body=true"), std::string::npos) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 2);
}

TEST(OStreamExporterTest, ConcurrentExportsDoNotInterleaveLines) {
  std::ostringstream out;
  OStreamLogRecordExporter exporter(out);
  Resource resource;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        LogRecord r;
        r.SetBody("0123456789012345678901234567890123456789");
        const LogRecordEntry e{&kScope, &r};
        exporter.Export(LogRecordBatchView(resource, {&e, 1}));
      }
    });
  for (auto& th : threads) th.join();
  std::istringstream in(out.str());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_NE(line.find("body=\"0123456789012345678901234567890123456789\""), std::string::npos);
  }
  EXPECT_EQ(lines, 800);
}

// A network-style exporter: completes on another thread; Export waits for it.
class ThreadedAsyncExporter final : public AsyncLogRecordExporter {
 public:
  void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const override {
    const std::size_t n = batch.size();  // "encode" before returning
    std::thread([n, done = std::move(done)] {
      done(n > 0 ? ExportResult::kSuccess : ExportResult::kFailure);
    }).detach();
  }
};

TEST(AsyncExporterTest, SyncExportIsConvenienceOverAsync) {
  ThreadedAsyncExporter exporter;
  LogRecord r;
  const LogRecordEntry e{&kScope, &r};
  Resource resource;
  EXPECT_EQ(exporter.Export(LogRecordBatchView(resource, {&e, 1})), ExportResult::kSuccess);
  EXPECT_EQ(exporter.Export(LogRecordBatchView(resource, {})), ExportResult::kFailure);
}

TEST(AsyncExporterTest, DefaultAsyncRunsSyncExport) {
  InMemoryLogRecordExporter exporter;
  LogRecord r;
  const LogRecordEntry e{&kScope, &r};
  Resource resource;
  auto f = exporter.ExportFuture(LogRecordBatchView(resource, {&e, 1}));
  EXPECT_EQ(f.get(), ExportResult::kSuccess);
  EXPECT_EQ(exporter.record_count(), 1u);
  EXPECT_EQ(exporter.records()[0].scope_version, "2.0");
}

}  // namespace
}  // namespace tern::sdk::logs
