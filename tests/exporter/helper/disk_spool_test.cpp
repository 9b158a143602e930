// DiskSpool: a batch too large for the disk queue's max_size is split into frames that fit
// (by log record, span, data point); an item that alone can never fit is refused as
// permanent (kTooLarge), not as retryable (kUnavailable), and the rest of its batch is kept.
#include "exporter/helper/disk_spool.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "otlp/proto_split.h"

namespace tern::exporter::helper {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using component::ConsumeCode;
using component::ConsumeResult;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tern-disk-spool-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Records "rec-<i>" with bodies of `sizes[i]` bytes, spread over two resources and scopes.
std::string logs_json(const std::vector<std::size_t>& sizes) {
  std::string out = R"({"resourceLogs":[)";
  for (int r = 0; r < 2; ++r) {
    if (r) out += ",";
    out += R"({"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc-)" +
           std::to_string(r) + R"("}}]},"scopeLogs":[)";
    for (int s = 0; s < 2; ++s) {
      if (s) out += ",";
      out += R"({"scope":{"name":"scope-)" + std::to_string(s) + R"("},"logRecords":[)";
      bool first = true;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (static_cast<int>(i % 4) != r * 2 + s) continue;
        if (!first) out += ",";
        first = false;
        out += R"({"body":{"stringValue":"rec-)" + std::to_string(i) + ":" + std::string(sizes[i], 'x') +
               R"("}})";
      }
      out += "]}";
    }
    out += "]}";
  }
  return out + "]}";
}

// A spool whose reader loop runs and whose "exporter" takes every entry at once: entries
// popped and dropped settle as delivered, which acknowledges their frames and frees space.
struct Harness {
  TempDir tmp;
  queue::MemoryQueue out{queue::MemoryQueueLimits{}};
  std::unique_ptr<DiskSpool> spool;
  std::mutex mu;
  std::vector<std::string> bodies;  // records read back: "<first 8 bytes of the body>|<scope>"
  std::atomic<std::uint64_t> items{0};
  std::thread exporter;

  explicit Harness(std::uint64_t max_size) {
    queue::DiskQueueOptions o;
    o.directory = tmp.path() + "/q";
    o.max_size = max_size;
    o.segment_size = max_size / 8;
    o.sync = queue::DiskQueueOptions::Sync::kNone;
    spool = std::make_unique<DiskSpool>(
        "test", o, out, [this](pdata::BatchRef batch, std::string_view, queue::Entry& e) {
          const auto& d = *std::get<const pdata::LogsData*>(batch);
          std::lock_guard lk(mu);
          for (const auto& rl : d.resource_logs)
            for (const auto& sl : rl.scope_logs)
              for (const auto& lr : sl.log_records) {
                bodies.push_back(std::string(lr.body.string_value.substr(0, 8)) + "|" +
                                 std::string(sl.scope.name));
              }
          e.bytes = 1;
        });
    spool->start();
    exporter = std::thread([this] {
      std::vector<queue::Entry> batch;
      while (out.pop_batch(batch, 1 << 30, 1 << 30, 1ms)) {
        for (const auto& e : batch) items += e.items;
        batch.clear();
      }
    });
  }
  ~Harness() {
    spool->stop();
    out.close();
    exporter.join();
  }

  // Pushes as a client would: retries while the queue is full (503).
  ConsumeResult push(const std::vector<std::size_t>& sizes) {
    pdata::LogsData d;
    const std::string json = logs_json(sizes);
    EXPECT_FALSE(otlp::decode_logs_json(json, d, otlp::DecodeOptions{}));
    EXPECT_EQ(d.record_count(), sizes.size());
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    for (;;) {
      ConsumeResult r = spool->push(&d);
      if (r.code != ConsumeCode::kUnavailable || std::chrono::steady_clock::now() > deadline) return r;
      std::this_thread::sleep_for(5ms);
    }
  }

  std::set<std::string> distinct(std::size_t expect) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    for (;;) {
      {
        std::lock_guard lk(mu);
        std::set<std::string> seen(bodies.begin(), bodies.end());
        if (seen.size() >= expect || std::chrono::steady_clock::now() > deadline) return seen;
      }
      std::this_thread::sleep_for(5ms);
    }
  }
};

TEST(DiskSpool, BatchTooLargeForTheQueueIsSplitIntoFramesThatFit) {
  Harness h(64 << 10);
  const std::vector<std::size_t> sizes(40, 3000);  // ~120 KiB in one batch, 64 KiB max_size
  const ConsumeResult r = h.push(sizes);
  EXPECT_EQ(r.code, ConsumeCode::kOk) << r.message;
  EXPECT_EQ(r.rejected, 0u);
  const std::set<std::string> seen = h.distinct(40);
  EXPECT_EQ(seen.size(), 40u);
  // Each record kept its scope (the envelopes travel with the slices).
  for (std::size_t i = 0; i < 40; ++i) {
    std::string want = "rec-" + std::to_string(i) + ":";
    want = (want + "xxxxxxxx").substr(0, 8) + "|scope-" + std::to_string(i % 2);
    EXPECT_TRUE(seen.count(want)) << want;
  }
}

TEST(DiskSpool, ARecordThatCanNeverFitIsAPermanentError) {
  Harness h(64 << 10);
  const ConsumeResult r = h.push({100 << 10});
  EXPECT_EQ(r.code, ConsumeCode::kTooLarge) << r.message;
  EXPECT_NE(r.message.find("can never fit"), std::string::npos) << r.message;
}

TEST(DiskSpool, OnlyTheRecordsThatCanNeverFitAreRejected) {
  Harness h(64 << 10);
  std::vector<std::size_t> sizes(10, 1000);
  sizes[3] = 100 << 10;
  sizes[7] = 100 << 10;
  const ConsumeResult r = h.push(sizes);
  EXPECT_EQ(r.code, ConsumeCode::kOk) << r.message;
  EXPECT_EQ(r.rejected, 2u);
  EXPECT_EQ(h.distinct(8).size(), 8u);
}

// The slicer at the wire level: metrics (data points inside metrics) and traces.
TEST(ProtoSplit, MetricsAndTracesSlicesHoldEveryItemOnce) {
  const std::string metrics_json =
      R"({"resourceMetrics":[{"resource":{},"scopeMetrics":[{"scope":{"name":"s"},"metrics":[
    {"name":"g","gauge":{"dataPoints":[{"asInt":"1"},{"asInt":"2"},{"asInt":"3"}]}},
    {"name":"c","sum":{"aggregationTemporality":2,"isMonotonic":true,"dataPoints":[{"asDouble":4},{"asDouble":5}]}},
    {"name":"h","histogram":{"aggregationTemporality":1,"dataPoints":[{"count":"6","bucketCounts":["6"]}]}}]}]}]})";
  pdata::MetricsData m;
  ASSERT_FALSE(otlp::decode_metrics_json(metrics_json, m, otlp::DecodeOptions{}));
  std::string bytes;
  otlp::encode_metrics_proto(m, bytes);
  ASSERT_EQ(otlp::count_items(pdata::Signal::Metrics, bytes), 6u);
  std::size_t total = 0;
  for (std::uint64_t lo = 0; lo < 6; lo += 2) {
    std::string part;
    ASSERT_TRUE(otlp::slice_items(pdata::Signal::Metrics, bytes, lo, lo + 2, part));
    pdata::MetricsData p;
    ASSERT_FALSE(otlp::decode_metrics_proto(part, p, otlp::DecodeOptions{}));
    EXPECT_EQ(p.data_point_count(), 2u);
    total += p.data_point_count();
    // The sum keeps its temporality and monotonicity in its slice.
    for (const auto& rm : p.resource_metrics)
      for (const auto& sm : rm.scope_metrics)
        for (const auto& mt : sm.metrics)
          if (std::string_view(mt.name) == "c") {
            EXPECT_TRUE(mt.is_monotonic);
            EXPECT_EQ(mt.temporality, pdata::AggregationTemporality::Cumulative);
          }
  }
  EXPECT_EQ(total, 6u);

  const std::string traces_json = R"({"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[
    {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"a"},
    {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"b"},
    {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b176","name":"c"}]}]}]})";
  pdata::TracesData t;
  ASSERT_FALSE(otlp::decode_traces_json(traces_json, t, otlp::DecodeOptions{}));
  bytes.clear();
  otlp::encode_traces_proto(t, bytes);
  ASSERT_EQ(otlp::count_items(pdata::Signal::Traces, bytes), 3u);
  std::string part;
  ASSERT_TRUE(otlp::slice_items(pdata::Signal::Traces, bytes, 1, 3, part));
  pdata::TracesData p;
  ASSERT_FALSE(otlp::decode_traces_proto(part, p, otlp::DecodeOptions{}));
  ASSERT_EQ(p.span_count(), 2u);
  EXPECT_EQ(std::string_view(p.resource_spans[0].scope_spans[0].spans[0].name), "b");
}

}  // namespace
}  // namespace tern::exporter::helper
