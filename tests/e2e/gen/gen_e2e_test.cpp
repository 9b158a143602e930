// The generator against the real collector and sink: exactly workers x count events arrive,
// with the requested body, severity and attributes; traces keep their parent/child shape;
// delta histograms are indexed (Elasticsearch's otel mapping takes no cumulative ones).
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using tern::test::Process;
using tern::test::Stream;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";

class GenToSink : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tern-gen-e2e-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    sink_ = std::make_unique<Process>(std::vector<std::string>{kTern, "sink", "--listen", "127.0.0.1:0",
                                                               "--dump", (dir_ / "dump.ndjson").string()});
    auto line = sink_->wait_for_line("tern sink listening on", std::chrono::seconds(20));
    ASSERT_TRUE(line) << sink_->output();
    const auto sink_port = *tern::test::parse_listen_port(*line);
    auto ports = tern::test::free_ports(2);
    ASSERT_EQ(ports.size(), 2u);
    http_ = ports[0];
    grpc_ = ports[1];
    std::ofstream(dir_ / "collector.yaml")
        << "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:" << http_
        << "\n      grpc:\n        endpoint: 127.0.0.1:" << grpc_
        << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port
        << "]\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n    metrics:\n"
           "      address: 127.0.0.1:0\n  pipelines:\n"
           "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n"
           "    traces: {receivers: [otlp], exporters: [elasticsearch]}\n"
           "    metrics: {receivers: [otlp], exporters: [elasticsearch]}\n";
    collector_ = std::make_unique<Process>(
        std::vector<std::string>{kTern, "run", "-c", (dir_ / "collector.yaml").string()});
    ASSERT_TRUE(collector_->wait_for_line("tern run: ready", std::chrono::seconds(20)))
        << collector_->output();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `tern gen ARGS...`; returns its exit code and stdout lines.
  int gen(std::vector<std::string> args, std::vector<std::string>& out) {
    args.insert(args.begin(), {kTern, "gen"});
    Process g(args);
    const auto code = g.wait(std::chrono::seconds(60));
    out = g.lines(Stream::Stdout);
    EXPECT_TRUE(code) << g.output();
    if (code && *code != 0) ADD_FAILURE() << g.output();
    return code.value_or(-1);
  }

  // Stops the collector (drains) and the sink (flushes the dump); returns the dump's lines.
  std::vector<std::string> finish() {
    collector_->signal(SIGTERM);
    EXPECT_EQ(collector_->wait(std::chrono::seconds(30)), 0) << collector_->output();
    sink_->signal(SIGTERM);
    EXPECT_EQ(sink_->wait(std::chrono::seconds(30)), 0) << sink_->output();
    std::ifstream f(dir_ / "dump.ndjson");
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    return lines;
  }

  fs::path dir_;
  std::unique_ptr<Process> sink_, collector_;
  std::uint16_t http_ = 0, grpc_ = 0;
};

TEST_F(GenToSink, LogsOverHttpAndGrpcArriveExactlyWithTheirFields) {
  std::vector<std::string> out;
  ASSERT_EQ(gen({"logs",
                 "--otlp-http",
                 "--otlp-insecure",
                 "--otlp-endpoint",
                 "127.0.0.1:" + std::to_string(http_),
                 "--workers",
                 "3",
                 "--logs",
                 "40",
                 "--batch-size",
                 "7",
                 "--body",
                 "hello from gen",
                 "--severity-text",
                 "Warn",
                 "--severity-number",
                 "13",
                 "--otlp-attributes",
                 "env=\"e2e\"",
                 "--telemetry-attributes",
                 "transport=\"http\""},
                out),
            0);
  // One line per worker, then the total.
  int worker_lines = 0;
  for (const auto& l : out)
    if (l.rfind("{\"worker\": ", 0) == 0) {
      EXPECT_NE(l.find("\"logs\": 40"), std::string::npos) << l;
      ++worker_lines;
    }
  EXPECT_EQ(worker_lines, 3);
  ASSERT_EQ(gen({"logs", "--otlp-insecure", "--otlp-endpoint", "127.0.0.1:" + std::to_string(grpc_),
                 "--workers", "2", "--logs", "25", "--telemetry-attributes", "transport=\"grpc\""},
                out),
            0);

  std::map<std::string, int> by_transport;
  simdjson::dom::parser parser;
  for (const auto& line : finish()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    auto src = doc["_source"];
    std::string_view transport;
    ASSERT_EQ(src["attributes"]["transport"].get_string().get(transport), simdjson::SUCCESS) << line;
    ++by_transport[std::string(transport)];
    EXPECT_EQ(std::string_view(src["resource"]["attributes"]["service.name"].get_string().value()),
              "telemetrygen");
    if (transport == "http") {
      EXPECT_EQ(std::string_view(src["body"]["text"].get_string().value()), "hello from gen") << line;
      EXPECT_EQ(std::string_view(src["severity_text"].get_string().value()), "Warn");
      EXPECT_EQ(src["severity_number"].get_int64().value(), 13);
      EXPECT_EQ(std::string_view(src["resource"]["attributes"]["env"].get_string().value()), "e2e");
    } else {
      EXPECT_EQ(std::string_view(src["body"]["text"].get_string().value()), "the message")
          << line;  // telemetrygen's default
      EXPECT_EQ(std::string_view(src["severity_text"].get_string().value()), "Info");
      EXPECT_EQ(src["severity_number"].get_int64().value(), 9);
    }
  }
  EXPECT_EQ(by_transport["http"], 3 * 40);
  EXPECT_EQ(by_transport["grpc"], 2 * 25);
}

TEST_F(GenToSink, TracesKeepTheirParentChildShape) {
  std::vector<std::string> out;
  ASSERT_EQ(
      gen({"traces", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
           "127.0.0.1:" + std::to_string(http_), "--workers", "2", "--traces", "5", "--child-spans", "3"},
          out),
      0);
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      spans_by_trace;  // trace -> (span, parent)
  simdjson::dom::parser parser;
  for (const auto& line : finish()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS);
    auto src = doc["_source"];
    ASSERT_EQ(std::string_view(doc["_index"].get_string().value()).rfind("traces-", 0), 0u) << line;
    std::string_view parent;
    if (src["parent_span_id"].get_string().get(parent) != simdjson::SUCCESS) parent = "";
    spans_by_trace[std::string(src["trace_id"].get_string().value())].emplace_back(
        std::string(src["span_id"].get_string().value()), std::string(parent));
  }
  ASSERT_EQ(spans_by_trace.size(), 2u * 5u);
  for (const auto& [trace, spans] : spans_by_trace) {
    ASSERT_EQ(spans.size(), 4u) << trace;  // one root + 3 children
    std::string root;
    for (const auto& [id, parent] : spans)
      if (parent.empty()) root = id;
    ASSERT_FALSE(root.empty()) << trace;
    for (const auto& [id, parent] : spans) {
      if (id != root) {
        EXPECT_EQ(parent, root) << trace;
      }
    }
  }
}

TEST_F(GenToSink, DeltaHistogramsAreIndexedAsMetricDocuments) {
  std::vector<std::string> out;
  // 10 per second: each point has its own millisecond, so each is its own document.
  ASSERT_EQ(gen({"metrics", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                 "127.0.0.1:" + std::to_string(http_), "--metrics", "3", "--rate", "10", "--metric-type",
                 "Histogram", "--aggregation-temporality", "delta", "--otlp-metric-name", "latency"},
                out),
            0);
  simdjson::dom::parser parser;
  std::size_t docs = 0;
  for (const auto& line : finish()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS);
    EXPECT_EQ(std::string_view(doc["_index"].get_string().value()), "metrics-generic.otel-default") << line;
    auto histogram = doc["_source"]["metrics"]["latency"];
    simdjson::dom::array counts, values;
    ASSERT_EQ(histogram["counts"].get_array().get(counts), simdjson::SUCCESS) << line;
    ASSERT_EQ(histogram["values"].get_array().get(values), simdjson::SUCCESS) << line;
    EXPECT_EQ(counts.size(), values.size()) << line;
    EXPECT_GT(counts.size(), 0u) << line;
    ++docs;
  }
  EXPECT_EQ(docs, 3u);
}

}  // namespace
