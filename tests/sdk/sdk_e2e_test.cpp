// The SDK's network exporters against real processes: `tern sink` (an Elasticsearch
// stand-in) and `tern run` (OTLP receiver over HTTP and gRPC -> elasticsearch exporter ->
// that sink), on loopback. Records go through LoggerProvider + BatchLogRecordProcessor
// with the OTLP/HTTP, OTLP/gRPC and Elasticsearch-direct exporters, and through the
// example program; the sink's `_count` and its dumped documents are checked.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "sdk/test_util.h"
#include "support/http_client.h"
#include "support/process.h"
#include "support/test_certs.h"
#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/elasticsearch_log_exporter.h"
#include "tern/sdk/logs/logger.h"
#include "tern/sdk/logs/otlp_log_exporter.h"

namespace tern::sdk::logs {
namespace {

namespace fs = std::filesystem;
using tern::test::Process;
using tern::test::Stream;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";
const std::string kExample = std::string(TERN_BIN_DIR) + "/tern_sdk_logs_example";

class SdkToSink : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tern-sdk-e2e-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    sink_ = std::make_unique<Process>(std::vector<std::string>{kTern, "sink", "--listen", "127.0.0.1:0",
                                                               "--dump", (dir_ / "dump.ndjson").string()});
    auto line = sink_->wait_for_line("tern sink listening on", std::chrono::seconds(20));
    ASSERT_TRUE(line) << sink_->output();
    sink_port_ = *tern::test::parse_listen_port(*line);
    auto ports = tern::test::free_ports(2);
    ASSERT_EQ(ports.size(), 2u);
    http_ = ports[0];
    grpc_ = ports[1];
    std::ofstream(dir_ / "collector.yaml")
        << "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:" << http_
        << "\n      grpc:\n        endpoint: 127.0.0.1:" << grpc_
        << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port_
        << "]\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n    metrics:\n"
           "      address: 127.0.0.1:0\n  pipelines:\n"
           "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n";
    collector_ = std::make_unique<Process>(
        std::vector<std::string>{kTern, "run", "-c", (dir_ / "collector.yaml").string()});
    ASSERT_TRUE(collector_->wait_for_line("tern run: ready", std::chrono::seconds(20)))
        << collector_->output();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The sink's `_count` over every index; -1 when it does not answer.
  std::int64_t SinkCount() {
    tern::test::HttpClient client(sink_port_);
    auto reply = client.call("GET", "/_count");
    if (reply.status != 200) return reply.status == 404 ? 0 : -1;  // 404: no index yet
    simdjson::dom::parser parser;
    std::int64_t n = -1;
    if (parser.parse(reply.body)["count"].get_int64().get(n) != simdjson::SUCCESS) return -1;
    return n;
  }
  bool WaitForCount(std::int64_t expected) {
    return testing::WaitFor([&] { return SinkCount() >= expected; }, std::chrono::seconds(60));
  }

  // Emits `n` records through a batch processor over `exporter`, then shuts it down.
  static void EmitThrough(std::shared_ptr<const LogRecordExporter> exporter, const std::string& transport,
                          int n) {
    BatchLogRecordProcessorOptions po;
    po.max_queue_size = 4096;  // above n: nothing is dropped
    po.max_export_batch_size = 64;
    po.scheduled_delay = std::chrono::milliseconds(50);
    LoggerProvider provider(Resource{{"service.name", "sdk-e2e"}, {"transport", transport}},
                            std::make_unique<BatchLogRecordProcessor>(std::move(exporter), po));
    Logger& logger = provider.GetLogger("tern.sdk.e2e", "1.0");
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        for (int i = t; i < n; i += 2) {
          const std::string body = "e2e record " + std::to_string(i);
          LogRecord r;
          r.SetSeverity(Severity::kError, "ERROR")
              .SetBody(body)
              .AddAttribute("seq", i)
              .AddAttribute("via", transport);
          logger.Emit(r);
        }
      });
    for (auto& th : threads) th.join();
    EXPECT_TRUE(provider.Shutdown(std::chrono::seconds(60))) << transport;
  }

  // Stops the collector (drains) and the sink (flushes the dump); returns the dump's lines.
  std::vector<std::string> Finish() {
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
  std::uint16_t sink_port_ = 0, http_ = 0, grpc_ = 0;
};

TEST_F(SdkToSink, HttpGrpcAndDirectExportersDeliverEveryRecordWithItsFields) {
  constexpr int kN = 300;
  OtlpLogExporterOptions http;
  http.endpoint = "127.0.0.1:" + std::to_string(http_);
  EmitThrough(std::make_shared<OtlpHttpLogExporter>(http), "http", kN);
  OtlpLogExporterOptions grpc;
  grpc.endpoint = "127.0.0.1:" + std::to_string(grpc_);
  EmitThrough(std::make_shared<OtlpGrpcLogExporter>(grpc), "grpc", kN);
  ElasticsearchLogExporterOptions es;
  es.endpoints = {"http://127.0.0.1:" + std::to_string(sink_port_)};
  es.flush_interval = std::chrono::milliseconds(50);
  EmitThrough(std::make_shared<ElasticsearchLogExporter>(es), "es", kN);

  ASSERT_TRUE(WaitForCount(3 * kN)) << SinkCount();
  EXPECT_EQ(SinkCount(), 3 * kN);  // and no more

  std::map<std::string, std::set<std::int64_t>> seqs;  // transport -> seq values seen
  simdjson::dom::parser parser;
  for (const auto& line : Finish()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    EXPECT_EQ(std::string_view(doc["_index"].get_string().value()), "logs-generic.otel-default") << line;
    auto src = doc["_source"];
    const std::string transport(src["resource"]["attributes"]["transport"].get_string().value());
    EXPECT_EQ(std::string_view(src["resource"]["attributes"]["service.name"].get_string().value()),
              "sdk-e2e");
    EXPECT_EQ(std::string_view(src["attributes"]["via"].get_string().value()), transport) << line;
    const std::int64_t seq = src["attributes"]["seq"].get_int64().value();
    EXPECT_EQ(std::string_view(src["body"]["text"].get_string().value()),
              "e2e record " + std::to_string(seq));
    EXPECT_EQ(std::string_view(src["severity_text"].get_string().value()), "ERROR");
    EXPECT_EQ(src["severity_number"].get_int64().value(), 17);
    EXPECT_EQ(std::string_view(src["scope"]["name"].get_string().value()), "tern.sdk.e2e");
    EXPECT_TRUE(seqs[transport].insert(seq).second) << "duplicate " << line;
  }
  for (const char* t : {"http", "grpc", "es"}) EXPECT_EQ(seqs[t].size(), static_cast<std::size_t>(kN)) << t;
}

TEST_F(SdkToSink, ExampleProgramLogsThroughTernRun) {
  Process example({kExample, "--otlp-http", "127.0.0.1:" + std::to_string(http_), "--count", "40"});
  const auto code = example.wait(std::chrono::seconds(60));
  ASSERT_TRUE(code) << example.output();
  ASSERT_EQ(*code, 0) << example.output();
  ASSERT_TRUE(WaitForCount(40)) << SinkCount();
  int docs = 0;
  simdjson::dom::parser parser;
  for (const auto& line : Finish()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    auto src = doc["_source"];
    EXPECT_EQ(std::string_view(src["resource"]["attributes"]["service.name"].get_string().value()),
              "tern-example");
    EXPECT_EQ(std::string_view(src["body"]["text"].get_string().value()), "order processed");
    EXPECT_EQ(std::string_view(src["severity_text"].get_string().value()), "INFO");
    EXPECT_EQ(std::string_view(src["event_name"].get_string().value()), "order.processed");
    EXPECT_GE(src["attributes"]["order.id"].get_int64().value(), 1000);
    ++docs;
  }
  EXPECT_EQ(docs, 40);
}

// More records than the batch processor's queue holds, emitted in a tight loop: the
// example says how many it dropped instead of only "exported N" and exit code 1.
TEST_F(SdkToSink, ExampleProgramReportsDroppedRecords) {
  constexpr long kCount = 30000;
  Process example(
      {kExample, "--otlp-http", "127.0.0.1:" + std::to_string(http_), "--count", std::to_string(kCount)});
  const auto code = example.wait(std::chrono::seconds(120));
  ASSERT_TRUE(code) << example.output();
  const std::string out = example.output();
  // "exported N, failed N, rejected N, dropped N" (read without std::regex: GCC 12 warns
  // inside <regex> in the ASan build).
  const auto summary = out.rfind("exported ");
  ASSERT_NE(summary, std::string::npos) << out;
  const auto number_after = [&](const std::string& label) -> long {
    const auto at = out.find(label + " ", summary);
    if (at == std::string::npos || !std::isdigit(static_cast<unsigned char>(out[at + label.size() + 1])))
      return -1;
    return std::stol(out.substr(at + label.size() + 1));
  };
  const long exported = number_after("exported"), failed = number_after("failed"),
             dropped = number_after("dropped");
  ASSERT_GE(exported, 0) << out;
  ASSERT_GE(failed, 0) << out;
  ASSERT_GE(dropped, 0) << out;
  EXPECT_EQ(exported + failed + dropped, kCount) << out;
  EXPECT_EQ(*code, exported == kCount ? 0 : 1) << out;
}

// The Elasticsearch exporter straight to `tern sink` with a path the sink has no handler
// for (HTTP 400 for the whole request; one segment would be an index name): the export fails instead of being
// held until shutdown, and the provider shuts down and is destroyed without hanging.
TEST_F(SdkToSink, ElasticsearchExporterWithABadPathFailsAndExits) {
  ElasticsearchLogExporterOptions o;
  o.endpoints = {"http://127.0.0.1:" + std::to_string(sink_port_) + "/no/such/prefix"};  // 400: no handler
  auto exporter = std::make_shared<ElasticsearchLogExporter>(o);
  const bool returned = testing::ReturnsWithin(
      [exporter] {
        LoggerProvider provider(Resource{}, std::make_unique<BatchLogRecordProcessor>(exporter));
        LogRecord r;
        r.SetBody("x");
        for (int i = 0; i < 10; ++i) provider.GetLogger("l").Emit(r);
        EXPECT_TRUE(provider.ForceFlush(std::chrono::seconds(3)));  // the export ended (failed)
        EXPECT_TRUE(provider.Shutdown(std::chrono::seconds(3)));
      },
      std::chrono::seconds(20));
  EXPECT_TRUE(returned);
  EXPECT_EQ(exporter->stats().failed, 10u);
  EXPECT_EQ(exporter->stats().indexed, 0u);
}

// TLS against a real collector: `tern run` with TLS on both OTLP receivers. An https://
// endpoint is TLS with the CA given, without use_ssl_credentials; http:// to the same port
// is plaintext, which the TLS receiver refuses.
TEST_F(SdkToSink, OtlpExportersReachATlsCollectorThroughHttpsEndpoints) {
  const auto& certs = tern::test::test_certs();
  ASSERT_FALSE(certs.ca_cert.empty());
  auto ports = tern::test::free_ports(2);
  ASSERT_EQ(ports.size(), 2u);
  const std::string tls = "\n        tls:\n          cert_file: " + certs.server_cert +
                          "\n          key_file: " + certs.server_key;
  std::ofstream(dir_ / "tls.yaml")
      << "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:" << ports[0] << tls
      << "\n      grpc:\n        endpoint: 127.0.0.1:" << ports[1] << tls
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port_
      << "]\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n    metrics:\n"
         "      address: 127.0.0.1:0\n  pipelines:\n"
         "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n";
  Process collector({kTern, "run", "-c", (dir_ / "tls.yaml").string()});
  ASSERT_TRUE(collector.wait_for_line("tern run: ready", std::chrono::seconds(20))) << collector.output();

  OtlpLogExporterOptions o;
  o.ssl_credentials_cacert_path = certs.ca_cert;
  o.timeout = std::chrono::seconds(10);
  o.endpoint = "https://127.0.0.1:" + std::to_string(ports[0]);
  auto http = std::make_shared<OtlpHttpLogExporter>(o);
  o.endpoint = "https://127.0.0.1:" + std::to_string(ports[1]);
  auto grpc = std::make_shared<OtlpGrpcLogExporter>(o);
  EmitThrough(http, "https", 20);
  EmitThrough(grpc, "grpcs", 20);
  EXPECT_EQ(http->stats().exported_records, 20u);
  EXPECT_EQ(grpc->stats().exported_records, 20u);

  o.use_ssl_credentials = true;  // http:// is plaintext all the same
  o.max_retries = 0;
  o.timeout = std::chrono::seconds(2);
  o.endpoint = "http://127.0.0.1:" + std::to_string(ports[0]);
  OtlpHttpLogExporter plain(o);
  LogRecord r;
  r.SetBody("plain");
  const InstrumentationScope scope{"s", "", "", {}};
  const LogRecordEntry e{&scope, &r};
  EXPECT_EQ(plain.Export(LogRecordBatchView(Resource{}, {&e, 1})), ExportResult::kFailure);
  EXPECT_TRUE(WaitForCount(40)) << SinkCount();
  collector.signal(SIGTERM);
  EXPECT_EQ(collector.wait(std::chrono::seconds(30)), 0) << collector.output();
}

}  // namespace
}  // namespace tern::sdk::logs
