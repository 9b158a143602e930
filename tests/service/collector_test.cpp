// The collector end to end inside one process: OTLP/HTTP in, processors, memory queue
// (early and late encoding), Elasticsearch exporter, `tern sink` (in-process server) out.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "config/loader.h"
#include "net/http_server.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "service/collector.h"
#include "service/components.h"
#include "sink/sink_server.h"
#include "support/http_client.h"
#include "support/silent_peer.h"

namespace tern::service {
namespace {

namespace fs = std::filesystem;
using test::HttpClient;

config::Config load(const std::string& yaml) {
  auto r = service::load_config_string(yaml, "test.yaml",
                                       [](std::string_view) { return std::optional<std::string>(); });
  for (const auto& d : r.diagnostics.items)
    if (d.severity == config::Severity::kError) ADD_FAILURE() << d.format();
  EXPECT_TRUE(r.ok());
  // The default metrics address is the Collector's 127.0.0.1:8888: tests running in parallel
  // (ctest -j) would race for it. A config that keeps the default gets a free port instead.
  if (r.config.telemetry.metrics_address == config::Telemetry{}.metrics_address)
    r.config.telemetry.metrics_address = "127.0.0.1:0";
  return r.config;
}

std::string config_yaml(std::uint16_t sink_port, const std::string& exporter_extra = "",
                        const std::string& processors = "[resource, batch]") {
  return R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 10ms
  resource:
    actions:
      - key: deployment.environment
        value: test
        action: upsert
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:)" +
         std::to_string(sink_port) + R"(]
    flush:
      interval: 20ms
    retry:
      initial_interval: 10ms
      max_interval: 50ms
)" + exporter_extra +
         R"(
extensions:
  health_check:
    endpoint: 127.0.0.1:0
service:
  extensions: [health_check]
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    logs:
      receivers: [otlp]
      processors: )" +
         processors + R"(
      exporters: [elasticsearch]
    traces:
      receivers: [otlp]
      exporters: [elasticsearch]
    metrics:
      receivers: [otlp]
      exporters: [elasticsearch]
)";
}

std::string logs_json(int n, int batch) {
  std::string s =
      R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeLogs":[{"logRecords":[)";
  for (int i = 0; i < n; ++i) {
    if (i) s += ',';
    s += R"({"timeUnixNano":"1700000000000000000","severityText":"INFO","body":{"stringValue":"line )" +
         std::to_string(batch) + "-" + std::to_string(i) + R"("}})";
  }
  return s + "]}]}]}";
}

// A port nothing listens on now: a sink's, stopped (its server closes the port on stop).
std::uint16_t unused_port() {
  sink::SinkOptions o;
  o.port = 0;
  sink::SinkServer s(o);
  const auto p = s.start();
  s.stop();
  return p;
}

class CollectorTest : public ::testing::Test {
 protected:
  void start_sink(sink::SinkOptions o = {}) {
    o.host = "127.0.0.1";
    o.port = 0;
    dump_ = fs::temp_directory_path() / ("tern-collector-" + std::to_string(::getpid()) + ".ndjson");
    fs::remove(dump_);
    o.dump_path = dump_.string();
    sink_ = std::make_unique<sink::SinkServer>(o);
    sink_port_ = sink_->start();
  }
  void start_collector(const std::string& yaml) {
    collector_ = std::make_unique<Collector>(load(yaml));
    collector_->start();
    http_ = std::make_unique<HttpClient>(collector_->receiver_http_port("otlp"));
  }
  void TearDown() override {
    if (collector_) collector_->shutdown(std::chrono::seconds(5));
    if (sink_) sink_->stop();
    fs::remove(dump_);
  }
  // Waits until the sink holds `n` log documents or `deadline` passes.
  void wait_for_logs(std::int64_t n, std::chrono::steady_clock::time_point deadline) {
    while (sink_->count("logs-*") < n && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  test::HttpReply post(const std::string& path, const std::string& body, const std::string& type) {
    return http_->call("POST", path, body, {{"Content-Type", type}});
  }
  std::vector<std::string> dump_lines() {
    sink_->stop();
    std::ifstream f(dump_);
    std::vector<std::string> out;
    for (std::string line; std::getline(f, line);) out.push_back(line);
    return out;
  }

  std::unique_ptr<sink::SinkServer> sink_;
  std::uint16_t sink_port_ = 0;
  fs::path dump_;
  std::unique_ptr<Collector> collector_;
  std::unique_ptr<HttpClient> http_;
};

TEST_F(CollectorTest, EverySignalOverJsonAndProtobufReachesTheSink) {
  start_sink();
  start_collector(config_yaml(sink_port_));
  EXPECT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);
  pdata::LogsData logs;
  ASSERT_FALSE(otlp::decode_logs_json(logs_json(2, 1), logs));
  std::string proto;
  otlp::encode_logs_proto(logs, proto);
  EXPECT_EQ(post("/v1/logs", proto, "application/x-protobuf").status, 200);
  EXPECT_EQ(
      post(
          "/v1/traces",
          R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",)"
          R"("spanId":"eee19b7ec3c1b174","name":"GET /","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]})",
          "application/json")
          .status,
      200);
  EXPECT_EQ(post("/v1/metrics",
                 R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m","gauge":{"dataPoints":[)"
                 R"({"timeUnixNano":"1","asInt":"4"}]}}]}]}]})",
                 "application/json")
                .status,
            200);
  collector_->shutdown(std::chrono::seconds(10));  // drains the queue
  EXPECT_EQ(sink_->count("logs-*"), 5);
  EXPECT_EQ(sink_->count("traces-*"), 1);
  EXPECT_EQ(sink_->count("metrics-*"), 1);
  // The resource processor ran on logs only, and the documents are in otel mode.
  int checked = 0;
  simdjson::dom::parser parser;
  for (const auto& line : dump_lines()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    std::string_view index = doc["_index"].get_string().value();
    auto env = doc["_source"]["resource"]["attributes"]["deployment.environment"];
    if (index.rfind("logs-", 0) == 0) {
      EXPECT_EQ(env.get_string().value(), "test") << line;
      EXPECT_EQ(doc["_source"]["body"]["text"].get_string().value().rfind("line ", 0), 0u) << line;
      ++checked;
    } else {
      EXPECT_TRUE(env.error()) << line;
    }
  }
  EXPECT_EQ(checked, 5);
}

TEST_F(CollectorTest, LateEncodingDeliversTheSameDocuments) {
  start_sink();
  start_collector(config_yaml(sink_port_, "    encoding: late\n"));
  for (int b = 0; b < 10; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  collector_->shutdown(std::chrono::seconds(10));
  EXPECT_EQ(sink_->count("logs-*"), 100);
}

TEST_F(CollectorTest, BackPressureAnswers429AndLosesNothingAccepted) {
  sink::SinkOptions slow;
  slow.latency_ms = 100;
  start_sink(slow);
  // One queued request at most and a sender that takes ~100 ms per tiny request: clients
  // get 429 quickly; what got 200 must all arrive.
  std::string yaml = config_yaml(
      sink_port_, "    num_workers: 1\n    sending_queue:\n      enabled: true\n      queue_size: 1\n",
      "[batch]");
  const std::string flush = "    flush:\n      interval: 20ms\n";
  yaml.replace(yaml.find(flush), flush.size(), "    flush:\n      bytes: 100\n      interval: 10ms\n");
  start_collector(yaml);
  int accepted_records = 0, refused = 0;
  std::string retry_after;
  for (int b = 0; b < 60; ++b) {
    auto r = post("/v1/logs", logs_json(5, b), "application/json");
    if (r.status == 200) {
      accepted_records += 5;
    } else {
      ASSERT_EQ(r.status, 429) << r.body;
      retry_after = r.header("retry-after");
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_FALSE(retry_after.empty());
  collector_->shutdown(std::chrono::seconds(30));
  EXPECT_EQ(sink_->count("logs-*"), accepted_records);
}

TEST_F(CollectorTest, HealthCheckAndInternalMetrics) {
  start_sink();
  start_collector(config_yaml(sink_port_));
  ASSERT_EQ(post("/v1/logs", logs_json(4, 0), "application/json").status, 200);
  HttpClient health(collector_->health_check_port());
  auto h = health.call("GET", "/");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, R"({"status":"Server available"})");
  HttpClient metrics(collector_->metrics_port());
  auto m = metrics.call("GET", "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("# TYPE tern_receiver_accepted_items_total counter"), std::string::npos);
  EXPECT_NE(m.body.find("tern_receiver_accepted_items_total{receiver=\"otlp\",signal=\"logs\"} 4"),
            std::string::npos)
      << m.body;
  EXPECT_NE(m.body.find("tern_exporter_queue_bytes{exporter=\"elasticsearch\"}"), std::string::npos);
  EXPECT_NE(m.body.find("tern_exporter_queue_items{exporter=\"elasticsearch\"}"), std::string::npos);
  // What bulk-delivery.md asks the endpoint for, once the documents are indexed: requests by
  // status and the latency histogram (failures by reason show in the next test).
  wait_for_logs(4, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  for (int i = 0; i < 100 && m.body.find("status=\"200\"") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    m = metrics.call("GET", "/metrics");
  }
  EXPECT_NE(m.body.find("tern_exporter_requests_by_status_total{exporter=\"elasticsearch\",status=\"200\"} "),
            std::string::npos)
      << m.body;
  EXPECT_NE(m.body.find("# TYPE tern_exporter_request_latency_ms histogram"), std::string::npos);
  EXPECT_NE(m.body.find("tern_exporter_request_latency_ms_bucket{exporter=\"elasticsearch\",le=\"+Inf\"} "),
            std::string::npos);
  EXPECT_NE(m.body.find("tern_exporter_request_latency_ms_count{exporter=\"elasticsearch\"} "),
            std::string::npos);
  EXPECT_EQ(metrics.call("GET", "/other").status, 404);
  const auto port = collector_->health_check_port();
  collector_->shutdown(std::chrono::seconds(5));
  HttpClient after(port);
  EXPECT_EQ(after.call("GET", "/").status, 0) << "the extension stops with the collector";
}

// A memory_limiter in several pipelines has a limiter in each; its refusals are one series,
// labelled with the processor's id. Each pipeline's limiter wrote an unlabelled sample of
// the same series, an exposition Prometheus refuses.
TEST_F(CollectorTest, MemoryLimiterRefusalsAreOneSeriesPerProcessor) {
  start_sink();
  std::string yaml = config_yaml(sink_port_, "", "[memory_limiter, batch]");
  yaml.replace(yaml.find("processors:\n"), 12,
               "processors:\n  memory_limiter: {check_interval: 1s, limit_mib: 1000000}\n");
  const std::string traces = "    traces:\n      receivers: [otlp]\n";
  yaml.replace(yaml.find(traces), traces.size(), traces + "      processors: [memory_limiter]\n");
  start_collector(yaml);
  HttpClient metrics(collector_->metrics_port());
  const std::string body = metrics.call("GET", "/metrics").body;
  std::size_t samples = 0;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("tern_memory_limiter_refused_total", 0) == 0) {
      ++samples;
      EXPECT_EQ(line, "tern_memory_limiter_refused_total{processor=\"memory_limiter\"} 0");
    }
  EXPECT_EQ(samples, 1u) << body;
}

// docs/metrics.md is the reference of /metrics: every family a collector with every kind of
// component serves is named there, and no series is written twice (a memory_limiter in two
// pipelines wrote two unlabelled samples of one series, which Prometheus refuses).
TEST_F(CollectorTest, EveryServedMetricIsInTheMetricsReference) {
  sink::SinkOptions so;
  so.mapping_error_field = "severity_text";  // permanent failures: the by-reason family too
  start_sink(so);
  const fs::path dir = fs::temp_directory_path() / ("tern-collector-metrics-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "app.log") << "one\ntwo\n";
  const std::string sink = "127.0.0.1:" + std::to_string(sink_port_);
  start_collector(R"(
receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
  filelog:
    include: [)" + (dir / "app.log").string() +
                  R"(]
    start_at: beginning
processors:
  batch: {timeout: 10ms}
  memory_limiter: {check_interval: 1s, limit_mib: 1000000}  # never reached: it only has to be there
  filter:
    logs:
      log_record: ['body == "drop me"']
exporters:
  elasticsearch:
    endpoints: [http://)" +
                  sink +
                  R"(]
    flush: {interval: 20ms}
    sending_queue: {enabled: true, type: disk, directory: )" +
                  (dir / "queue").string() + R"(}
  otlphttp:
    endpoint: http://)" +
                  sink +
                  R"(
    retry_on_failure: {enabled: false}
    sending_queue: {storage: file_storage}
  debug:
extensions:
  file_storage: {directory: )" +
                  (dir / "storage").string() + R"(}
service:
  extensions: [file_storage]
  telemetry:
    metrics: {address: 127.0.0.1:0}
  pipelines:
    logs:
      receivers: [otlp, filelog]
      processors: [memory_limiter, filter, batch]
      exporters: [elasticsearch, otlphttp, debug]
    traces:
      receivers: [otlp]
      processors: [memory_limiter, batch]
      exporters: [elasticsearch]
)");
  ASSERT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);
  HttpClient metrics(collector_->metrics_port());
  std::string body;
  for (int i = 0; i < 250; ++i) {
    body = metrics.call("GET", "/metrics").body;
    if (body.find("tern_exporter_docs_failed_by_reason_total{") != std::string::npos &&
        body.find("tern_exporter_requests_by_status_total{") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ifstream in(TERN_SOURCE_DIR "/docs/metrics.md");
  ASSERT_TRUE(in) << "docs/metrics.md";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> families, series;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      families.insert(name);
      EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name << " is not in docs/metrics.md";
    } else if (!line.empty() && line[0] != '#') {
      EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "served twice: " << line;
    }
  }
  // Every kind of component above served its families (the list is not empty by accident).
  for (const char* name : {"tern_receiver_requests_total", "tern_filelog_batches_sent_total",
                           "tern_memory_limiter_refused_total", "tern_processor_filter_dropped_items_total",
                           "tern_exporter_docs_failed_by_reason_total", "tern_exporter_request_latency_ms",
                           "tern_exporter_items_sent_total", "tern_exporter_debug_events_total",
                           "tern_exporter_disk_queue_written_frames_total", "tern_process_uptime_seconds"})
    EXPECT_TRUE(families.count(name)) << name << "\n" << body;
  EXPECT_NE(body.find("tern_memory_limiter_refused_total{processor=\"memory_limiter\"} "), std::string::npos)
      << body;
  collector_->shutdown(std::chrono::seconds(5));
  collector_.reset();
  fs::remove_all(dir);
}

// mapping.mode bodymap: map bodies are indexed as the documents themselves, other records
// are counted as not encoded (and their requests still settle), in every place encoding
// happens: the memory queue's producers (early), its consumers (late), the disk queue's
// reader loop.
TEST_F(CollectorTest, BodyMapIndexesMapBodiesAndCountsTheRest) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-bodymap-" + std::to_string(::getpid()));
  const std::string disk =
      "\n    sending_queue:\n      enabled: true\n      type: disk\n      directory: " + dir.string();
  for (const std::string& encoding : {std::string("early"), std::string("late"), "early" + disk}) {
    SCOPED_TRACE(encoding);
    fs::remove_all(dir);
    start_sink();
    start_collector(R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:)" +
                    std::to_string(sink_port_) + R"(]
    encoding: )" + encoding +
                    R"(
    mapping:
      mode: bodymap
    flush:
      interval: 20ms
service:
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [elasticsearch]
)");
    std::string maps = R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[)";
    for (int i = 0; i < 5; ++i)
      maps +=
          std::string(i ? "," : "") +
          R"({"attributes":[{"key":"data_stream.dataset","value":{"stringValue":"app"}}],"body":{"kvlistValue":{"values":[)"
          R"({"key":"@timestamp","value":{"stringValue":"2024-03-12T20:00:41Z"}},{"key":"n","value":{"intValue":")" +
          std::to_string(i) + R"("}}]}}},{"body":{"stringValue":"text"}})";
    maps += "]}]}]}";
    EXPECT_EQ(post("/v1/logs", maps, "application/json").status, 200);
    EXPECT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);  // text bodies only
    // 5 + 3 text bodies, counted once encoded (late encoding: when the sender takes them).
    HttpClient metrics(collector_->metrics_port());
    const std::string rejected = "tern_exporter_encode_rejected_total{exporter=\"elasticsearch\"} 8\n";
    std::string body;
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(std::chrono::milliseconds(20)))
      if ((body = metrics.call("GET", "/metrics").body).find(rejected) != std::string::npos) break;
    EXPECT_NE(body.find(rejected), std::string::npos) << body;
    wait_for_logs(5, std::chrono::steady_clock::now() +
                         std::chrono::seconds(20));  // the disk queue does not drain at shutdown
    collector_->shutdown(std::chrono::seconds(10));
    EXPECT_EQ(sink_->count("logs-app-default"), 5);
    EXPECT_EQ(sink_->count("logs-*"), 5);
    std::set<std::int64_t> seen;
    simdjson::dom::parser parser;
    for (const auto& line : dump_lines()) {
      simdjson::dom::element doc;
      ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
      simdjson::dom::object source;
      ASSERT_EQ(doc["_source"].get(source), simdjson::SUCCESS) << line;
      EXPECT_EQ(source.size(), 2u) << "the body map and nothing else: " << line;
      EXPECT_EQ(source["@timestamp"].get_string().value(), "2024-03-12T20:00:41Z");
      seen.insert(source["n"].get_int64().value());
    }
    EXPECT_EQ(seen, (std::set<std::int64_t>{0, 1, 2, 3, 4}));
    collector_.reset();
    sink_.reset();
  }
  fs::remove_all(dir);
}

// mapping.mode none and raw: logs and spans in the Collector's original document shape,
// encoded in the memory queue's producers (early), its consumers (late) and the disk
// queue's reader loop, into data streams without the ".otel" suffix.
TEST_F(CollectorTest, NoneAndRawModesIndexLogsAndSpansInTheCollectorsOriginalShape) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-none-" + std::to_string(::getpid()));
  const std::string disk =
      "\n    sending_queue:\n      enabled: true\n      type: disk\n      directory: " + dir.string();
  for (const std::string mode : {"none", "raw"})
    for (const std::string& encoding : {std::string("early"), std::string("late"), "early" + disk}) {
      SCOPED_TRACE(mode + " " + encoding);
      fs::remove_all(dir);
      start_sink();
      start_collector(R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:)" +
                      std::to_string(sink_port_) + R"(]
    encoding: )" + encoding +
                      R"(
    mapping:
      mode: )" + mode +
                      R"(
    flush:
      interval: 20ms
service:
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [elasticsearch]
    traces:
      receivers: [otlp]
      exporters: [elasticsearch]
)");
      EXPECT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);
      EXPECT_EQ(
          post("/v1/traces",
               R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",)"
               R"("spanId":"eee19b7ec3c1b174","name":"GET /","kind":2,"startTimeUnixNano":"1000",)"
               R"("endTimeUnixNano":"3000","attributes":[{"key":"http.route","value":{"stringValue":"/"}}],)"
               R"("events":[{"name":"ping","timeUnixNano":"2000"}]}]}]}]})",
               "application/json")
              .status,
          200);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while ((sink_->count("logs-generic-default") < 3 || sink_->count("traces-generic-default") < 1) &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      collector_->shutdown(std::chrono::seconds(10));
      EXPECT_EQ(sink_->count("logs-generic-default"), 3);
      EXPECT_EQ(sink_->count("traces-generic-default"), 1);  // the event is inside the span
      EXPECT_EQ(sink_->count("*"), 4);
      simdjson::dom::parser parser;
      int logs = 0, spans = 0;
      for (const auto& line : dump_lines()) {
        simdjson::dom::element doc;
        ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
        simdjson::dom::element src = doc["_source"];
        std::string_view name;
        if (src["Body"].get_string().get(name) == simdjson::SUCCESS) {
          ++logs;
          EXPECT_EQ(name.substr(0, 5), "line ") << line;
          EXPECT_EQ(src["@timestamp"].get_string().value(), "2023-11-14T22:13:20.000000000Z") << line;
          EXPECT_EQ(src["Resource"]["service"]["name"].get_string().value(), "svc") << line;
          EXPECT_EQ(src["SeverityText"].get_string().value(), "INFO") << line;
        } else {
          ++spans;
          EXPECT_EQ(src["Name"].get_string().value(), "GET /") << line;
          EXPECT_EQ(src["Kind"].get_string().value(), "SPAN_KIND_SERVER") << line;
          EXPECT_EQ(src["TraceId"].get_string().value(), "5b8efff798038103d269b633813fc60c") << line;
          EXPECT_EQ(src["Duration"].get_int64().value(), 2) << line;
          const char* attrs = mode == "none" ? "Attributes" : "http";
          const char* key = mode == "none" ? "http" : "route";
          EXPECT_EQ(src[attrs][key].error(), simdjson::SUCCESS) << line;
          const char* events = mode == "none" ? "Events" : "ping";
          EXPECT_EQ(src[events].error(), simdjson::SUCCESS) << line;
        }
      }
      EXPECT_EQ(logs, 3);
      EXPECT_EQ(spans, 1);
      collector_.reset();
      sink_.reset();
    }
  fs::remove_all(dir);
}

// filelog's max_batch_lines reaches the receiver: 95 lines in batches of at most 10.
TEST_F(CollectorTest, FilelogBatchesFollowMaxBatchLines) {
  start_sink();
  const fs::path log =
      fs::temp_directory_path() / ("tern-collector-batch-" + std::to_string(::getpid()) + ".log");
  {
    std::ofstream f(log);
    for (int i = 0; i < 95; ++i) f << "line " << i << "\n";
  }
  std::string yaml = config_yaml(sink_port_);
  yaml.replace(
      yaml.find("processors:\n"), 0,
      "  filelog:\n    include: [" + log.string() + "]\n    start_at: beginning\n    max_batch_lines: 10\n");
  yaml.replace(yaml.find("receivers: [otlp]"), 17, "receivers: [otlp, filelog]");
  start_collector(yaml);
  wait_for_logs(95, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  EXPECT_EQ(sink_->count("logs-*"), 95);
  HttpClient metrics(collector_->metrics_port());
  const std::string body = metrics.call("GET", "/metrics").body;
  const std::string key = "tern_filelog_batches_sent_total{receiver=\"filelog\"} ";
  const auto at = body.find(key);
  ASSERT_NE(at, std::string::npos) << body;
  EXPECT_GE(std::stoi(body.substr(at + key.size())), 10);  // with the default (1000) it is 1
  fs::remove(log);
}

// filelog operators end to end: a regex_parser with timestamp and severity blocks, a
// remove and a move, then the Elasticsearch document: the line's own time as @timestamp,
// its level as severity, the message as body; a line that does not match is dropped.
TEST_F(CollectorTest, FilelogOperatorsShapeTheDocuments) {
  start_sink();
  const fs::path log =
      fs::temp_directory_path() / ("tern-collector-ops-" + std::to_string(::getpid()) + ".log");
  {
    std::ofstream f(log);
    f << "2022-01-02T07:24:56.250-0700 [WARN] disk almost full\n"
      << "garbage that does not match\n"
      << "2022-01-02T14:25:00.000Z [error] write failed\n";
  }
  std::string yaml = config_yaml(sink_port_);
  yaml.replace(yaml.find("processors:\n"), 0,
               "  filelog:\n    include: [" + log.string() +
                   "]\n    start_at: beginning\n"
                   "    operators:\n"
                   "      - type: regex_parser\n"
                   "        regex: '^(?P<time>\\S+) \\[(?P<level>\\w+)\\] (?P<message>.*)$'\n"
                   "        on_error: drop_quiet\n"
                   "        timestamp: {parse_from: attributes.time, layout: '%Y-%m-%dT%H:%M:%S.%L%z'}\n"
                   "        severity: {parse_from: attributes.level}\n"
                   "      - {type: remove, field: attributes.time}\n"
                   "      - {type: move, from: attributes.message, to: body}\n");
  yaml.replace(yaml.find("receivers: [otlp]"), 17, "receivers: [otlp, filelog]");
  start_collector(yaml);
  wait_for_logs(2, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  HttpClient metrics(collector_->metrics_port());
  const std::string body = metrics.call("GET", "/metrics").body;
  EXPECT_NE(body.find("tern_filelog_records_dropped_total{receiver=\"filelog\"} 1"), std::string::npos)
      << body;
  collector_->shutdown(std::chrono::seconds(10));
  simdjson::dom::parser parser;
  std::map<std::string, std::string> by_body;  // body -> "@timestamp severity_text severity_number"
  for (const auto& line : dump_lines()) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    simdjson::dom::element src = doc["_source"];
    EXPECT_EQ(src["attributes"]["time"].error(), simdjson::NO_SUCH_FIELD) << line;     // removed
    EXPECT_EQ(src["attributes"]["message"].error(), simdjson::NO_SUCH_FIELD) << line;  // moved
    by_body[std::string(src["body"]["text"].get_string().value())] =
        std::string(src["@timestamp"].get_string().value()) + " " +
        std::string(src["severity_text"].get_string().value()) + " " +
        std::to_string(src["severity_number"].get_int64().value());
  }
  EXPECT_EQ(by_body, (std::map<std::string, std::string>{{"disk almost full", "1641133496250.000000 WARN 13"},
                                                         {"write failed", "1641133500000.000000 error 17"}}));
  fs::remove(log);
}

// The Collector's form of a filelog checkpoint: `storage: file_storage` names a file_storage
// extension (listed in service.extensions beside health_check), whose directory holds it.
TEST_F(CollectorTest, FilelogStorageNamesAFileStorageExtension) {
  start_sink();
  const std::string tag = std::to_string(::getpid());
  const fs::path log = fs::temp_directory_path() / ("tern-collector-fs-" + tag + ".log");
  const fs::path dir = fs::temp_directory_path() / ("tern-collector-fs-" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream f(log);
    for (int i = 0; i < 20; ++i) f << "line " << i << "\n";
  }
  std::string yaml = config_yaml(sink_port_);
  yaml.replace(yaml.find("processors:\n"), 0,
               "  filelog:\n    include: [" + log.string() +
                   "]\n    start_at: beginning\n    storage: file_storage\n");
  yaml.replace(yaml.find("receivers: [otlp]"), 17, "receivers: [otlp, filelog]");
  yaml.replace(yaml.find("  health_check:\n"), 0, "  file_storage:\n    directory: " + dir.string() + "\n");
  yaml.replace(yaml.find("extensions: [health_check]"), 26, "extensions: [health_check, file_storage]");
  start_collector(yaml);
  wait_for_logs(20, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  EXPECT_EQ(sink_->count("logs-*"), 20);
  collector_->shutdown(std::chrono::seconds(10));
  collector_.reset();
  EXPECT_TRUE(fs::exists(dir / "filelog-filelog.json"));
  fs::remove(log);
  fs::remove_all(dir);
}

// The disk queue: what a client was answered 200 for is on disk; a collector stopped before
// it could deliver (the sink is down) leaves it there, and the next one on the same
// directory delivers it.
TEST_F(CollectorTest, DiskQueueKeepsAcceptedDataAcrossARestart) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-disk-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto dead_port = unused_port();
  const std::string queue =
      "    sending_queue:\n      enabled: true\n      type: disk\n      directory: " + dir.string() +
      "\n      segment_size: 64KiB\n      compression: zstd\n";
  start_collector(config_yaml(dead_port, queue));
  for (int b = 0; b < 20; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  collector_->shutdown(std::chrono::milliseconds(200));  // nothing could be delivered
  collector_.reset();
  ASSERT_FALSE(fs::is_empty(dir));

  start_sink();
  start_collector(config_yaml(sink_port_, queue));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  wait_for_logs(200, deadline);
  EXPECT_EQ(sink_->count("logs-*"), 200);
  // More data through the same queue. Shutdown stops the disk reader (frames not read yet
  // stay on disk for the next start), so wait for delivery before stopping.
  for (int b = 20; b < 25; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  wait_for_logs(250, deadline);
  collector_->shutdown(std::chrono::seconds(10));
  int docs = 0;
  std::set<std::string> bodies;
  for (const auto& line : dump_lines()) {
    ++docs;
    const auto p = line.find("\"text\":\"line ");
    ASSERT_NE(p, std::string::npos) << line;
    bodies.insert(line.substr(p + 13, line.find('"', p + 13) - p - 13));
  }
  EXPECT_EQ(docs, 250);
  EXPECT_EQ(bodies.size(), 250u) << "every record exactly once";
  fs::remove_all(dir);
}

// Documents Elasticsearch refuses for good are counted by their error.type on /metrics.
TEST_F(CollectorTest, PermanentFailuresAreCountedByReason) {
  sink::SinkOptions o;
  o.mapping_error_field = "severity_text";  // every log document has it
  start_sink(o);
  start_collector(config_yaml(sink_port_));
  ASSERT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);
  HttpClient metrics(collector_->metrics_port());
  const std::string want =
      "tern_exporter_docs_failed_by_reason_total{exporter=\"elasticsearch\",reason=\"mapper_parsing_"
      "exception\"} 3";
  std::string body;
  for (int i = 0; i < 250 && body.find(want) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    body = metrics.call("GET", "/metrics").body;
  }
  EXPECT_NE(body.find(want), std::string::npos) << body;
}

// `encoding: late` with a disk queue: the reader loop encodes anyway (the loader warns).
// The consumers encoded a batch they were never given before, and crashed.
TEST_F(CollectorTest, LateEncodingWithADiskQueueDelivers) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-late-disk-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  start_sink();
  start_collector(config_yaml(sink_port_,
                              "    encoding: late\n    sending_queue:\n      enabled: true\n"
                              "      type: disk\n      directory: " +
                                  dir.string() + "\n"));
  for (int b = 0; b < 5; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  wait_for_logs(50, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  EXPECT_EQ(sink_->count("logs-*"), 50);
  collector_->shutdown(std::chrono::seconds(5));
  collector_.reset();
  fs::remove_all(dir);
}

// A sink that stays down must not hold the collector past its shutdown timeout: the queue's
// consumers, blocked on a full sender, give up at the deadline (the memory queue's data is
// lost with the process and said so; a disk queue keeps it, tested above). The bound below
// is liveness, not speed: before the fix shutdown waited for the sink forever.
TEST_F(CollectorTest, ShutdownEndsWithinItsTimeoutWhileTheSinkIsDown) {
  const auto dead_port = unused_port();
  std::string yaml = config_yaml(dead_port, "    num_workers: 1\n", "[batch]");
  const std::string flush = "    flush:\n      interval: 20ms\n";
  yaml.replace(yaml.find(flush), flush.size(), "    flush:\n      bytes: 200\n      interval: 10ms\n");
  start_collector(yaml);
  for (int b = 0; b < 40; ++b) ASSERT_EQ(post("/v1/logs", logs_json(5, b), "application/json").status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the sender fills up and retries
  // What is lost is said in events: the queued requests the deadline left, and the
  // documents the sender still held. Together, all 200 records.
  std::ostringstream log;
  auto capture = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(capture);
  const auto t0 = std::chrono::steady_clock::now();
  collector_->shutdown(std::chrono::milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  spdlog::default_logger()->sinks().pop_back();
  const std::string text = log.str();
  // The number between `before` and `after` in the log (0 when it has no such line).
  const auto count_between = [&](std::string_view before, std::string_view after) -> std::uint64_t {
    const auto at = text.find(before);
    if (at == std::string::npos) return 0;
    const auto from = at + before.size(), to = text.find(after, from);
    return to == std::string::npos ? 0 : std::stoull(text.substr(from, to - from));
  };
  const std::uint64_t lost = count_between("queued requests (", " events) not sent") +
                             count_between("batches (", " documents) undelivered");
  EXPECT_EQ(lost, 200u) << text;
}

// The Collector's persistent queue, `sending_queue.storage: file_storage`: the disk queue in
// a directory of the extension's; what was accepted while the sink was down is delivered by
// the next collector on the same extension.
TEST_F(CollectorTest, PersistentQueueInAFileStorageExtension) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-pq-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto with_storage = [&](std::uint16_t port) {
    std::string yaml = config_yaml(port, "    sending_queue:\n      storage: file_storage\n");
    yaml.replace(yaml.find("  health_check:\n"), 0, "  file_storage:\n    directory: " + dir.string() + "\n");
    return yaml;
  };
  start_collector(with_storage(9));  // nothing listens there
  for (int b = 0; b < 5; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  collector_->shutdown(std::chrono::milliseconds(200));
  collector_.reset();
  ASSERT_TRUE(fs::is_directory(dir / "exporter_elasticsearch"));
  ASSERT_FALSE(fs::is_empty(dir / "exporter_elasticsearch"));

  start_sink();
  start_collector(with_storage(sink_port_));
  wait_for_logs(50, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  EXPECT_EQ(sink_->count("logs-*"), 50);
  collector_->shutdown(std::chrono::seconds(10));
  fs::remove_all(dir);
}

// An agent in front of a gateway, the persistent queue on its `otlphttp` exporter: what the
// agent accepted while the gateway was down is sent by the next agent on the same extension.
TEST_F(CollectorTest, OtlpExporterPersistentQueueDeliversAfterTheGatewayReturns) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-otlp-pq-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::uint16_t gateway_port = unused_port();  // the gateway starts on it later
  const std::string agent_yaml = R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
exporters:
  otlphttp:
    endpoint: http://127.0.0.1:)" +
                                 std::to_string(gateway_port) + R"(
    compression: none
    retry_on_failure: {initial_interval: 10ms, max_interval: 50ms}
    sending_queue: {storage: file_storage/agent}
extensions:
  file_storage/agent:
    directory: )" + dir.string() +
                                 R"(
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlphttp]}
)";
  start_collector(agent_yaml);
  for (int b = 0; b < 5; ++b) ASSERT_EQ(post("/v1/logs", logs_json(10, b), "application/json").status, 200);
  collector_->shutdown(std::chrono::milliseconds(200));  // the gateway is down: nothing sent
  collector_.reset();
  ASSERT_FALSE(fs::is_empty(dir / "exporter_otlphttp"));

  start_sink();
  std::string gateway_yaml = config_yaml(sink_port_);
  gateway_yaml.replace(gateway_yaml.find("127.0.0.1:0"), 11, "127.0.0.1:" + std::to_string(gateway_port));
  Collector gateway(load(gateway_yaml));
  gateway.start();
  start_collector(agent_yaml);
  wait_for_logs(50, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  collector_->shutdown(std::chrono::seconds(10));
  gateway.shutdown(std::chrono::seconds(10));
  EXPECT_EQ(sink_->count("logs-*"), 50) << "every accepted record exactly once";
  std::set<std::string> bodies;
  for (const auto& line : dump_lines()) {
    const auto p = line.find("\"text\":\"line ");
    ASSERT_NE(p, std::string::npos) << line;
    bodies.insert(line.substr(p + 13, line.find('"', p + 13) - p - 13));
  }
  EXPECT_EQ(bodies.size(), 50u);
  fs::remove_all(dir);
}

// service.shutdown_timeout holds with otlp / otlphttp exporters whose requests a peer never
// answers, even with `timeout: 0`: at the deadline the requests in flight are cancelled. A
// blackhole gateway held shutdown 19 s (gRPC) and 29 s (timeout 30s), or for ever (0s).
TEST_F(CollectorTest, OtlpExportersShutdownKeepsToItsTimeoutAgainstAPeerThatNeverAnswers) {
  const tern::test::SilentPeer peer;  // connections complete, nothing is ever answered
  const std::string port = std::to_string(peer.port());
  start_collector(R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
exporters:
  otlp:
    endpoint: 127.0.0.1:)" +
                  port + R"(
    tls: {insecure: true}
    timeout: 0s
  otlphttp:
    endpoint: http://127.0.0.1:)" +
                  port + R"(
    timeout: 0s
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlp, otlphttp]}
)");
  for (int b = 0; b < 3; ++b) ASSERT_EQ(post("/v1/logs", logs_json(5, b), "application/json").status, 200);
  // Both senders have a request in flight (counted when it is sent): what the shutdown
  // has to cancel.
  HttpClient metrics(collector_->metrics_port());
  const auto requests = [&](const std::string& exporter) {
    const std::string key = "tern_exporter_requests_total{exporter=\"" + exporter + "\"} ";
    const std::string body = metrics.call("GET", "/metrics").body;
    const auto at = body.find(key);
    return at == std::string::npos ? 0.0 : std::stod(body.substr(at + key.size()));
  };
  for (int i = 0; i < 500 && (requests("otlp") < 1 || requests("otlphttp") < 1); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(requests("otlp"), 1);
  ASSERT_GE(requests("otlphttp"), 1);
  const auto t0 = std::chrono::steady_clock::now();
  collector_->shutdown(std::chrono::seconds(1));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << "a liveness bound";
}

// resourcedetection: the env and system detectors' attributes on every document's resource;
// with override: false a resource's own value stays.
TEST_F(CollectorTest, ResourceDetectionAddsHostAndEnvironmentAttributes) {
  ::setenv("OTEL_RESOURCE_ATTRIBUTES", "service.namespace=shop,service.name=from-env", 1);
  start_sink();
  std::string yaml = config_yaml(sink_port_, "", "[resourcedetection, batch]");
  yaml.replace(yaml.find("processors:\n") + 12, 0,
               "  resourcedetection:\n    detectors: [env, system]\n    override: false\n"
               "    system: {hostname_sources: [os]}\n");
  start_collector(yaml);
  ::unsetenv("OTEL_RESOURCE_ATTRIBUTES");  // read once, at start-up
  ASSERT_EQ(post("/v1/logs", logs_json(3, 0), "application/json").status, 200);
  wait_for_logs(3, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  collector_->shutdown(std::chrono::seconds(5));
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const auto lines = dump_lines();
  ASSERT_EQ(lines.size(), 3u);
  simdjson::dom::parser parser;
  for (const auto& line : lines) {
    simdjson::dom::element doc = parser.parse(line);  // the sink's dump: {"_index", "_id", "_source"}
    simdjson::dom::object attrs = doc["_source"]["resource"]["attributes"].get_object();
    EXPECT_EQ(std::string_view(attrs["host.name"].get_string()), host) << line;
    EXPECT_EQ(std::string_view(attrs["os.type"].get_string()), "linux") << line;
    EXPECT_EQ(std::string_view(attrs["service.namespace"].get_string()), "shop") << line;
    EXPECT_EQ(std::string_view(attrs["service.name"].get_string()), "svc") << line;  // its own, kept
  }
}

// filter: records its OTTL conditions match never reach the exporter; the others do, and
// the drops are counted.
TEST_F(CollectorTest, FilterProcessorDropsWhatItsConditionsMatch) {
  start_sink();
  std::string yaml = config_yaml(sink_port_, "", "[filter/noise, batch]");
  yaml.replace(yaml.find("processors:\n") + 12, 0,
               "  filter/noise:\n    logs:\n      log_record:\n"
               "        - 'IsMatch(body, \"-[02468]$\")'\n");
  start_collector(yaml);
  ASSERT_EQ(post("/v1/logs", logs_json(10, 7), "application/json").status,
            200);  // bodies "line 7-0".."line 7-9"
  wait_for_logs(5, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  HttpClient metrics(collector_->metrics_port());
  const auto m = metrics.call("GET", "/metrics").body;
  EXPECT_NE(m.find("tern_processor_filter_dropped_items_total{processor=\"filter/noise\",signal=\"logs\"} 5"),
            std::string::npos)
      << m;
  collector_->shutdown(std::chrono::seconds(5));
  std::set<std::string> bodies;
  for (const auto& line : dump_lines()) {
    const auto p = line.find("\"text\":\"line ");
    ASSERT_NE(p, std::string::npos) << line;
    bodies.insert(line.substr(p + 13, line.find('"', p + 13) - p - 13));
  }
  EXPECT_EQ(bodies, (std::set<std::string>{"7-1", "7-3", "7-5", "7-7", "7-9"}));
}

// transform: statements change the documents Elasticsearch gets (an attribute set where a
// condition holds, a key deleted, the body rewritten, a resource attribute).
TEST_F(CollectorTest, TransformProcessorChangesTheDocuments) {
  start_sink();
  std::string yaml = config_yaml(sink_port_, "", "[transform, batch]");
  yaml.replace(yaml.find("processors:\n") + 12, 0,
               "  transform:\n    log_statements:\n"
               "      - context: resource\n        statements: ['set(attributes[\"team\"], \"payments\")']\n"
               "      - 'set(attributes[\"even\"], true) where IsMatch(body, \"[02468]$\")'\n"
               "      - 'replace_pattern(body, \"^line \", \"entry \")'\n");
  start_collector(yaml);
  ASSERT_EQ(post("/v1/logs", logs_json(4, 3), "application/json").status, 200);
  wait_for_logs(4, std::chrono::steady_clock::now() + std::chrono::seconds(20));
  collector_->shutdown(std::chrono::seconds(5));
  const auto lines = dump_lines();
  ASSERT_EQ(lines.size(), 4u);
  simdjson::dom::parser parser;
  int even = 0;
  for (const auto& line : lines) {
    simdjson::dom::element doc = parser.parse(line);
    const simdjson::dom::element src = doc["_source"];
    const std::string_view body = src["body"]["text"].get_string();
    EXPECT_TRUE(body.starts_with("entry 3-")) << line;
    EXPECT_EQ(std::string_view(src["resource"]["attributes"]["team"].get_string()), "payments") << line;
    bool flag = false;
    if (src["attributes"]["even"].get(flag) == simdjson::SUCCESS) {
      EXPECT_TRUE(flag);
      EXPECT_TRUE(body.ends_with("0") || body.ends_with("2")) << line;
      ++even;
    }
  }
  EXPECT_EQ(even, 2);
}

TEST_F(CollectorTest, AFullDiskQueueAnswers503WithRetryAfter) {
  const auto dir = fs::temp_directory_path() / ("tern-collector-full-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  // Nothing listens on the endpoint: the queue only fills.
  start_collector(config_yaml(
      9, "    sending_queue:\n      enabled: true\n      type: disk\n      directory: " + dir.string() +
             "\n      max_size: 64KiB\n      segment_size: 16KiB\n"));
  int ok = 0, unavailable = 0;
  std::string retry_after;
  for (int b = 0; b < 200 && unavailable == 0; ++b) {
    auto r = post("/v1/logs", logs_json(20, b), "application/json");
    if (r.status == 200) {
      ++ok;
    } else {
      ASSERT_EQ(r.status, 503) << r.body;
      EXPECT_NE(r.body.find("disk queue"), std::string::npos) << r.body;
      retry_after = r.header("retry-after");
      ++unavailable;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_EQ(unavailable, 1);
  EXPECT_FALSE(retry_after.empty());
  HttpClient metrics(collector_->metrics_port());
  const auto m = metrics.call("GET", "/metrics").body;
  EXPECT_NE(m.find("tern_exporter_disk_queue_full_total{exporter=\"elasticsearch\"} 1"), std::string::npos)
      << m;
  collector_->shutdown(std::chrono::milliseconds(100));
  fs::remove_all(dir);
}

TEST(CollectorBuild, AnUnusableDiskQueueDirectoryIsAClearError) {
  const auto file = fs::temp_directory_path() / ("tern-not-a-dir-" + std::to_string(::getpid()));
  std::ofstream(file) << "x";
  auto cfg = load(R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
exporters:
  elasticsearch:
    endpoints: [http://127.0.0.1:9]
    sending_queue:
      enabled: true
      type: disk
      directory: )" +
                  (file / "queue").string() + R"(
service:
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [elasticsearch]
)");
  try {
    Collector c(cfg);
    FAIL() << "built";
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("exporter \"elasticsearch\": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find((file / "queue").string()), std::string::npos) << e.what();
  }
  fs::remove(file);
}

// Every health_check extension serves (the second replaced the first, which stopped).
TEST(CollectorStart, EveryHealthCheckServes) {
  auto cfg = load(R"(
receivers:
  otlp: {protocols: {http: {endpoint: "127.0.0.1:0"}}}
exporters:
  debug: {}
extensions:
  health_check: {endpoint: "127.0.0.1:0"}
  health_check/2: {endpoint: "127.0.0.1:0", path: /health}
service:
  extensions: [health_check, health_check/2]
  telemetry: {metrics: {level: none}}
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  Collector c(cfg);
  c.start();
  const auto ports = c.health_check_ports();
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(c.health_check_port(), ports[0]);
  EXPECT_EQ(HttpClient(ports[0]).call("GET", "/").status, 200);
  EXPECT_EQ(HttpClient(ports[1]).call("GET", "/health").status, 200);
  c.shutdown(std::chrono::milliseconds(1000));
}

// A listener that cannot bind is named by its component and address.
TEST(CollectorStart, APortInUseNamesTheComponent) {
  net::HttpServerOptions o;
  o.threads = 1;
  net::HttpServer taken(o, [](net::HttpRequest&) { return net::HttpResponse{}; });
  const std::string port = std::to_string(taken.start());
  auto cfg = load(R"(
receivers:
  otlp: {protocols: {http: {endpoint: "127.0.0.1:0"}}}
  otlp/2: {protocols: {http: {endpoint: "127.0.0.1:)" +
                  port + R"("}}}
exporters:
  debug: {}
service:
  telemetry: {metrics: {level: none}}
  pipelines:
    logs: {receivers: [otlp, otlp/2], exporters: [debug]}
)");
  Collector c(cfg);
  try {
    c.start();
    FAIL() << "started";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "receivers.otlp/2: cannot listen on 127.0.0.1:" + port + ": Address already in use");
  }
}

}  // namespace
}  // namespace tern::service
