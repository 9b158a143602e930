// Pipelines: processors in order, fan-out to exporters, refusals, copies for fan-out
// across pipelines whose processors change batches.
#include <gtest/gtest.h>

#include "otlp/json_codec.h"
#include "pipeline/pipeline.h"
#include "processor/attributes/attributes_processor.h"

namespace tern::pipeline {
namespace {

// An exporter stage that records what it got and answers what it is told to.
class RecordingStage final : public Exporter {
 public:
  ConsumeResult answer = ConsumeResult::ok();
  std::vector<std::shared_ptr<pdata::LogsData>> logs;
  void start() override {}
  void shutdown(std::chrono::milliseconds) override {}
  void collect_metrics(std::vector<component::MetricSample>&) const override {}
  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    logs.push_back(std::move(b));
    return answer;
  }
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData>) override { return answer; }
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData>) override { return answer; }
};

std::shared_ptr<pdata::LogsData> logs() {
  auto d = std::make_shared<pdata::LogsData>();
  EXPECT_FALSE(otlp::decode_logs_json(
      R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"x"}}]}]}]})", *d));
  return d;
}

std::shared_ptr<component::Processor> upsert(const std::string& key, const std::string& value) {
  processor::AttributesProcessorConfig c;
  c.actions.push_back({key, value, processor::AttributesProcessorConfig::Action::kUpsert});
  return std::make_shared<processor::AttributesProcessor>(c,
                                                          processor::AttributesProcessor::Target::kRecords);
}

std::string attrs_json(const pdata::LogsData& d) {
  std::string out;
  otlp::encode_logs_json(d, out);
  return out;
}

TEST(Pipeline, ProcessorsRunThenEveryExporterGetsTheBatch) {
  auto a = std::make_shared<RecordingStage>(), b = std::make_shared<RecordingStage>();
  Pipeline p("logs", {upsert("k", "v")}, {a, b});
  ASSERT_TRUE(p.consume_logs(logs()).accepted());
  ASSERT_EQ(a->logs.size(), 1u);
  ASSERT_EQ(b->logs.size(), 1u);
  EXPECT_EQ(a->logs[0], b->logs[0]) << "one pipeline: exporters share the batch";
  EXPECT_NE(attrs_json(*a->logs[0]).find(R"("key":"k")"), std::string::npos);
}

TEST(Pipeline, TheFirstRefusalIsTheAnswer) {
  auto a = std::make_shared<RecordingStage>(), b = std::make_shared<RecordingStage>();
  b->answer = ConsumeResult::retry_later("full", std::chrono::seconds(2));
  Pipeline p("logs", {}, {a, b});
  auto r = p.consume_logs(logs());
  EXPECT_EQ(r.code, ConsumeCode::kRetryLater);
  EXPECT_EQ(r.message, "full");
  EXPECT_EQ(a->logs.size(), 1u) << "the exporter that took it keeps it (a retry duplicates there)";
}

// Exporters that took a batch but refused part of it (an encoder's rejects): the client
// hears the largest such count (each exporter counts the same items), unless one refused all.
TEST(Pipeline, TheLargestPartialRejectionIsTheAnswer) {
  auto a = std::make_shared<RecordingStage>(), b = std::make_shared<RecordingStage>(),
       c = std::make_shared<RecordingStage>();
  a->answer.rejected = 1;
  a->answer.message = "one";
  b->answer.rejected = 3;
  b->answer.message = "three";
  c->answer.rejected = 2;
  auto r = Pipeline("logs", {}, {a, b, c}).consume_logs(logs());
  ASSERT_TRUE(r.accepted());
  EXPECT_EQ(r.rejected, 3u);
  EXPECT_EQ(r.message, "three");
  c->answer = ConsumeResult::retry_later("full", std::chrono::seconds(1));
  r = Pipeline("logs", {}, {a, b, c}).consume_logs(logs());
  EXPECT_EQ(r.code, ConsumeCode::kRetryLater);
  EXPECT_EQ(r.message, "full");

  ReceiverRouter router;  // and across pipelines
  c->answer = ConsumeResult::ok();
  router.add(pdata::Signal::Logs,
             std::make_shared<Pipeline>("logs/a", std::vector<std::shared_ptr<component::Processor>>{},
                                        std::vector<std::shared_ptr<Exporter>>{c}));
  router.add(pdata::Signal::Logs,
             std::make_shared<Pipeline>("logs/b", std::vector<std::shared_ptr<component::Processor>>{},
                                        std::vector<std::shared_ptr<Exporter>>{b}));
  r = router.consume_logs(logs());
  ASSERT_TRUE(r.accepted());
  EXPECT_EQ(r.rejected, 3u);
  EXPECT_EQ(r.message, "three");
}

TEST(ReceiverRouter, PipelinesThatChangeBatchesGetTheirOwnCopy) {
  auto a = std::make_shared<RecordingStage>(), b = std::make_shared<RecordingStage>();
  ReceiverRouter router;
  router.add(pdata::Signal::Logs, std::make_shared<Pipeline>("logs/a", std::vector{upsert("team", "a")},
                                                             std::vector<std::shared_ptr<Exporter>>{a}));
  router.add(pdata::Signal::Logs, std::make_shared<Pipeline>("logs/b", std::vector{upsert("team", "b")},
                                                             std::vector<std::shared_ptr<Exporter>>{b}));
  ASSERT_TRUE(router.consume_logs(logs()).accepted());
  ASSERT_EQ(a->logs.size(), 1u);
  ASSERT_EQ(b->logs.size(), 1u);
  EXPECT_NE(a->logs[0], b->logs[0]);
  EXPECT_NE(attrs_json(*a->logs[0]).find(R"({"stringValue":"a"})"), std::string::npos);
  EXPECT_EQ(attrs_json(*a->logs[0]).find(R"({"stringValue":"b"})"), std::string::npos)
      << attrs_json(*a->logs[0]);
  EXPECT_NE(attrs_json(*b->logs[0]).find(R"({"stringValue":"b"})"), std::string::npos);
}

TEST(ReceiverRouter, ASignalWithoutPipelineIsInvalid) {
  ReceiverRouter router;
  auto r = router.consume_traces(std::make_shared<pdata::TracesData>());
  EXPECT_EQ(r.code, ConsumeCode::kInvalid);
}

TEST(Clone, IsDeepAndEqual) {
  auto d = logs();
  auto c = clone(*d);
  EXPECT_EQ(attrs_json(*c), attrs_json(*d));
  EXPECT_NE(c->resource_logs[0].scope_logs[0].log_records[0].body.string_value.data(),
            d->resource_logs[0].scope_logs[0].log_records[0].body.string_value.data());
}

}  // namespace
}  // namespace tern::pipeline
