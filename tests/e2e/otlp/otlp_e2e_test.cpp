// Two collectors chained by the OTLP exporter: `tern gen` sends to collector A, whose
// `otlp` (gRPC) and `otlphttp` exporters forward logs and traces to collector B, which
// indexes them into `tern sink`. Every generated event arrives exactly once. And: a client
// whose request the Elasticsearch encoder refuses in part is told so (partial success).
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "support/http_client.h"
#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using tern::test::Process;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";

std::string port(std::uint16_t p) { return "127.0.0.1:" + std::to_string(p); }

TEST(OtlpChain, GenToCollectorToCollectorToSinkIsExact) {
  const fs::path dir = fs::temp_directory_path() / ("tern-otlp-e2e-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir / "dump.ndjson").string()});
  auto line = sink.wait_for_line("tern sink listening on", std::chrono::seconds(20));
  ASSERT_TRUE(line) << sink.output();
  const auto sink_port = *tern::test::parse_listen_port(*line);
  const auto ports = tern::test::free_ports(4);
  ASSERT_EQ(ports.size(), 4u);
  const auto a_grpc = ports[0], b_grpc = ports[1], b_http = ports[2];

  // B: OTLP in (both protocols) -> Elasticsearch (the sink).
  std::ofstream(dir / "b.yaml")
      << "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: " << port(b_grpc)
      << "\n      http:\n        endpoint: " << port(b_http)
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://" << port(sink_port)
      << "]\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n    metrics:\n"
         "      address: 127.0.0.1:0\n  pipelines:\n"
         "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n"
         "    traces: {receivers: [otlp], exporters: [elasticsearch]}\n";
  // A: OTLP/gRPC in -> logs over OTLP/gRPC, traces over OTLP/HTTP, to B.
  std::ofstream(dir / "a.yaml") << "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: "
                                << port(a_grpc) << "\nexporters:\n  otlp:\n    endpoint: " << port(b_grpc)
                                << "\n    tls:\n      insecure: true\n  otlphttp:\n    endpoint: http://"
                                << port(b_http)
                                << "\n    compression: none\nservice:\n  telemetry:\n    metrics:\n"
                                   "      address: 127.0.0.1:0\n  pipelines:\n"
                                   "    logs: {receivers: [otlp], exporters: [otlp]}\n"
                                   "    traces: {receivers: [otlp], exporters: [otlphttp]}\n";
  Process b({kTern, "run", "-c", (dir / "b.yaml").string()});
  ASSERT_TRUE(b.wait_for_line("tern run: ready", std::chrono::seconds(20))) << b.output();
  Process a({kTern, "run", "-c", (dir / "a.yaml").string()});
  ASSERT_TRUE(a.wait_for_line("tern run: ready", std::chrono::seconds(20))) << a.output();

  for (std::vector<std::string> args :
       {std::vector<std::string>{"logs", "--logs", "150", "--batch-size", "20"},
        std::vector<std::string>{"traces", "--traces", "30", "--child-spans", "1"}}) {
    args.insert(args.begin(), {kTern, "gen"});
    args.insert(args.end(), {"--otlp-insecure", "--otlp-endpoint", port(a_grpc), "--workers", "2"});
    Process g(args);
    const auto code = g.wait(std::chrono::seconds(60));
    ASSERT_TRUE(code) << g.output();
    ASSERT_EQ(*code, 0) << g.output();
  }

  // Stopping in order drains each queue into the next hop.
  a.signal(SIGTERM);
  EXPECT_EQ(a.wait(std::chrono::seconds(30)), 0) << a.output();
  b.signal(SIGTERM);
  EXPECT_EQ(b.wait(std::chrono::seconds(30)), 0) << b.output();
  sink.signal(SIGTERM);
  EXPECT_EQ(sink.wait(std::chrono::seconds(30)), 0) << sink.output();

  std::map<std::string, int> by_kind;
  simdjson::dom::parser parser;
  std::ifstream f(dir / "dump.ndjson");
  for (std::string l; std::getline(f, l);) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(l).get(doc), simdjson::SUCCESS) << l;
    const std::string_view index = doc["_index"].get_string().value();
    ++by_kind[std::string(index.substr(0, index.find('-')))];
  }
  EXPECT_EQ(by_kind["logs"], 2 * 150);
  EXPECT_EQ(by_kind["traces"], 2 * 30 * 2);  // a root and one child per trace
  EXPECT_EQ(by_kind.size(), 2u);
  fs::remove_all(dir);
}

// TLS files are loaded when the collector starts: one that cannot be read stops it, naming
// the exporter, the setting and the path (the TLS paths themselves: tests/e2e/tls).
TEST(OtlpChain, TlsFilesThatCannotBeLoadedStopTheCollector) {
  const fs::path dir = fs::temp_directory_path() / ("tern-otlp-e2e-tls-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string head =
      "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 127.0.0.1:0\nexporters:\n";
  std::ofstream(dir / "grpc.yaml")
      << head
      << "  otlp:\n    endpoint: 127.0.0.1:4317\n    tls:\n      ca_file: "
         "/nonexistent/ca.pem\nservice:\n  telemetry: {metrics: {address: 127.0.0.1:0}}\n  pipelines:\n"
         "    logs: {receivers: [otlp], exporters: [otlp]}\n";
  std::ofstream(dir / "http.yaml")
      << head
      << "  otlphttp:\n    endpoint: https://127.0.0.1:4318\n    tls:\n      cert_file: /nonexistent/c.pem\n"
         "      key_file: /nonexistent/k.pem\nservice:\n  telemetry: {metrics: {address: 127.0.0.1:0}}\n  "
         "pipelines:\n"
         "    logs: {receivers: [otlp], exporters: [otlphttp]}\n";
  // The loader reads them where TLS is on, so `tern validate` reports what `tern run`
  // refuses (it said "configuration is valid"), with the file's line and column.
  for (const char* command : {"run", "validate"}) {
    SCOPED_TRACE(command);
    Process grpc({kTern, command, "-c", (dir / "grpc.yaml").string()});
    EXPECT_EQ(grpc.wait(std::chrono::seconds(30)), 1) << grpc.output();
    EXPECT_NE(grpc.output().find("grpc.yaml:10:16: error: exporters.otlp.tls.ca_file: cannot read "
                                 "\"/nonexistent/ca.pem\""),
              std::string::npos)
        << grpc.output();
    Process http({kTern, command, "-c", (dir / "http.yaml").string()});
    EXPECT_EQ(http.wait(std::chrono::seconds(30)), 1) << http.output();
    EXPECT_NE(http.output().find("http.yaml:10:18: error: exporters.otlphttp.tls.cert_file: cannot read "
                                 "\"/nonexistent/c.pem\""),
              std::string::npos)
        << http.output();
  }
  fs::remove_all(dir);
}

}  // namespace

namespace {

// `tern gen` logs (`logs` of them) and traces (`traces`, a root and one child span each) ->
// `tern run` with an Elasticsearch exporter in mapping mode `mode` -> `tern sink`: the
// indexed documents (`_index` and `_source` lines of the sink's dump), once `tern run` has
// shown that the mode refuses a metrics pipeline before it starts.
std::vector<std::string> run_mapping_chain(const std::string& mode, int logs, int traces) {
  const fs::path dir = fs::temp_directory_path() / ("tern-" + mode + "-e2e-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> docs;
  [&] {
    Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir / "dump.ndjson").string()});
    auto line = sink.wait_for_line("tern sink listening on", std::chrono::seconds(20));
    ASSERT_TRUE(line) << sink.output();
    const auto sink_port = *tern::test::parse_listen_port(*line);
    const auto ports = tern::test::free_ports(1);
    ASSERT_EQ(ports.size(), 1u);
    const std::string config =
        "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: " + port(ports[0]) +
        "\nexporters:\n  elasticsearch:\n    endpoints: [http://" + port(sink_port) +
        "]\n    mapping:\n      mode: " + mode +
        "\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n"
        "    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
        "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n"
        "    traces: {receivers: [otlp], exporters: [elasticsearch]}\n";
    std::ofstream(dir / "bad.yaml") << config
                                    << "    metrics: {receivers: [otlp], exporters: [elasticsearch]}\n";
    Process bad({kTern, "run", "-c", (dir / "bad.yaml").string()});
    EXPECT_EQ(bad.wait(std::chrono::seconds(20)), 1) << bad.output();
    EXPECT_NE(bad.output().find("mapping.mode " + mode + " encodes logs and traces only"), std::string::npos)
        << bad.output();

    std::ofstream(dir / "good.yaml") << config;
    Process collector({kTern, "run", "-c", (dir / "good.yaml").string()});
    ASSERT_TRUE(collector.wait_for_line("tern run: ready", std::chrono::seconds(20))) << collector.output();
    for (std::vector<std::string> args :
         {std::vector<std::string>{"logs", "--logs", std::to_string(logs)},
          std::vector<std::string>{"traces", "--traces", std::to_string(traces), "--child-spans", "1"}}) {
      args.insert(args.begin(), {kTern, "gen"});
      args.insert(args.end(), {"--otlp-insecure", "--otlp-endpoint", port(ports[0])});
      Process g(args);
      const auto code = g.wait(std::chrono::seconds(60));
      ASSERT_TRUE(code) << g.output();
      ASSERT_EQ(*code, 0) << g.output();
    }
    collector.signal(SIGTERM);
    EXPECT_EQ(collector.wait(std::chrono::seconds(30)), 0) << collector.output();
    sink.signal(SIGTERM);
    EXPECT_EQ(sink.wait(std::chrono::seconds(30)), 0) << sink.output();
    std::ifstream f(dir / "dump.ndjson");
    for (std::string l; std::getline(f, l);) docs.push_back(std::move(l));
  }();
  fs::remove_all(dir);
  return docs;
}

}  // namespace

// mapping.mode none, with real processes: `tern gen` -> `tern run` -> `tern sink`. Logs and
// spans arrive once each in the Collector's original shape, in data streams without the
// ".otel" suffix; a none exporter in a metrics pipeline stops `tern run` before it starts.
TEST(OtlpChain, NoneMappingModeIndexesTheCollectorsOriginalDocuments) {
  std::map<std::string, int> by_index;
  simdjson::dom::parser parser;
  for (const std::string& l : run_mapping_chain("none", 120, 25)) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(l).get(doc), simdjson::SUCCESS) << l;
    const std::string index(doc["_index"].get_string().value());
    ++by_index[index];
    simdjson::dom::element src = doc["_source"];
    const std::string_view ts = src["@timestamp"].get_string().value();
    EXPECT_EQ(ts.size(), 30u) << l;  // 2026-12-05T03:34:31.123456789Z
    EXPECT_EQ(ts.back(), 'Z') << l;
    EXPECT_EQ(src["Resource"]["service"]["name"].error(), simdjson::SUCCESS) << l;
    EXPECT_EQ(src["Scope"]["name"].error(), simdjson::SUCCESS) << l;
    EXPECT_EQ(src["data_stream"].error(), simdjson::NO_SUCH_FIELD) << l;  // under Attributes
    EXPECT_EQ(src["Attributes"]["data_stream"]["namespace"].get_string().value(), "default") << l;
    if (index == "logs-generic-default") {
      EXPECT_EQ(src["Body"].is_string(), true) << l;
      EXPECT_EQ(src["SeverityText"].error(), simdjson::SUCCESS) << l;
    } else {
      EXPECT_EQ(src["Kind"].error(), simdjson::SUCCESS) << l;
      EXPECT_EQ(src["Duration"].is_int64(), true) << l;
      EXPECT_EQ(src["Link"].is_string(), true) << l;
    }
  }
  EXPECT_EQ(by_index["logs-generic-default"], 120);
  EXPECT_EQ(by_index["traces-generic-default"], 25 * 2);  // a root and one child per trace
  EXPECT_EQ(by_index.size(), 2u);
}

// mapping.mode ecs, with real processes: logs and spans arrive once each with Elastic Common
// Schema names (message, log.level, agent.name, span.kind, ...), in data streams whose fields
// the documents carry; an ecs exporter in a metrics pipeline stops `tern run` before it starts.
TEST(OtlpChain, EcsMappingModeIndexesEcsDocuments) {
  std::map<std::string, int> by_index;
  simdjson::dom::parser parser;
  for (const std::string& l : run_mapping_chain("ecs", 80, 20)) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(l).get(doc), simdjson::SUCCESS) << l;
    const std::string index(doc["_index"].get_string().value());
    ++by_index[index];
    simdjson::dom::element src = doc["_source"];
    EXPECT_EQ(src["@timestamp"].get_string().value().size(), 30u) << l;
    EXPECT_EQ(src["service"]["name"].error(), simdjson::SUCCESS) << l;  // telemetrygen's service.name
    EXPECT_EQ(src["data_stream"]["namespace"].get_string().value(), "default") << l;
    EXPECT_EQ(src["Resource"].error(), simdjson::NO_SUCH_FIELD) << l;
    if (index == "logs-generic-default") {
      EXPECT_EQ(src["message"].is_string(), true) << l;
      EXPECT_EQ(src["log"]["level"].is_string(), true) << l;
      EXPECT_EQ(src["agent"]["name"].is_string(), true) << l;
      EXPECT_EQ(src["data_stream"]["type"].get_string().value(), "logs") << l;
    } else {
      EXPECT_EQ(src["span"]["id"].is_string(), true) << l;
      EXPECT_EQ(src["span"]["kind"].is_string(), true) << l;
      EXPECT_EQ(src["trace"]["id"].is_string(), true) << l;
      EXPECT_EQ(src["data_stream"]["type"].get_string().value(), "traces") << l;
    }
  }
  EXPECT_EQ(by_index["logs-generic-default"], 80);
  EXPECT_EQ(by_index["traces-generic-default"], 20 * 2);  // a root and one child per trace
  EXPECT_EQ(by_index.size(), 2u);
}

namespace {

// Four data points: NaN and +Inf gauges and a cumulative histogram, which the Elasticsearch
// encoder refuses, and one gauge it writes.
constexpr const char* kMetricsWithRejects = R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[
  {"name":"nan","gauge":{"dataPoints":[{"timeUnixNano":"1700000000000000000","asDouble":"NaN"}]}},
  {"name":"inf","gauge":{"dataPoints":[{"timeUnixNano":"1700000000000000000","asDouble":"Infinity"}]}},
  {"name":"ok","gauge":{"dataPoints":[{"timeUnixNano":"1700000000000000000","asInt":"7"}]}},
  {"name":"cum","histogram":{"aggregationTemporality":2,"dataPoints":[
    {"timeUnixNano":"1700000000000000000","count":"1","bucketCounts":["1"]}]}}]}]}]})";

// Posts kMetricsWithRejects to a collector whose exporter encodes as `encoding` says and
// returns the reply; `docs` gets the sink's document count once the collector has stopped.
tern::test::HttpReply post_rejected_metrics(const std::string& encoding, const std::string& content_type,
                                            const std::string& body, long& docs) {
  const fs::path dir =
      fs::temp_directory_path() / ("tern-otlp-partial-" + std::to_string(::getpid()) + "-" + encoding);
  fs::create_directories(dir);
  Process sink({kTern, "sink", "--listen", "127.0.0.1:0"});
  auto line = sink.wait_for_line("tern sink listening on", std::chrono::seconds(20));
  EXPECT_TRUE(line) << sink.output();
  if (!line) return {};
  const auto sink_port = *tern::test::parse_listen_port(*line);
  const auto ports = tern::test::free_ports(1);
  std::ofstream(dir / "c.yaml")
      << "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: " << port(ports.at(0))
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://" << port(sink_port)
      << "]\n    encoding: " << encoding
      << "\n    flush:\n      interval: 50ms\nservice:\n  telemetry:\n    metrics:\n"
         "      address: 127.0.0.1:0\n  pipelines:\n"
         "    metrics: {receivers: [otlp], exporters: [elasticsearch]}\n";
  Process c({kTern, "run", "-c", (dir / "c.yaml").string()});
  EXPECT_TRUE(c.wait_for_line("tern run: ready", std::chrono::seconds(20))) << c.output();
  tern::test::HttpReply reply =
      tern::test::HttpClient(ports.at(0)).call("POST", "/v1/metrics", body, {{"Content-Type", content_type}});
  c.signal(SIGTERM);
  EXPECT_EQ(c.wait(std::chrono::seconds(30)), 0) << c.output();
  const auto count = tern::test::HttpClient(sink_port).call("GET", "/_count");
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  docs = parser.parse(count.body).get(j) == simdjson::SUCCESS
             ? static_cast<long>(j["count"].get_int64().value())
             : -1;
  sink.signal(SIGTERM);
  EXPECT_EQ(sink.wait(std::chrono::seconds(30)), 0) << sink.output();
  fs::remove_all(dir);
  return reply;
}

}  // namespace

// Early encoding encodes before the client is answered: what the encoder refused comes
// back as OTLP's partial success, with the reasons.
TEST(OtlpPartialSuccess, EarlyEncodingTellsTheClientWhatTheEncoderRefused) {
  long docs = 0;
  const auto reply = post_rejected_metrics("early", "application/json", kMetricsWithRejects, docs);
  ASSERT_EQ(reply.status, 200) << reply.body;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  ASSERT_EQ(parser.parse(reply.body).get(j), simdjson::SUCCESS) << reply.body;
  EXPECT_EQ(j["partialSuccess"]["rejectedDataPoints"].get_string().value(), "3") << reply.body;
  const std::string_view message = j["partialSuccess"]["errorMessage"].get_string().value();
  EXPECT_NE(message.find("nan_or_inf: 2"), std::string_view::npos) << message;
  EXPECT_NE(message.find("cumulative_histogram: 1"), std::string_view::npos) << message;
  EXPECT_EQ(docs, 1);
}

// Late encoding answers before it encodes: the client hears nothing of the refusal (the
// exporter's counter and log tell), and the same point still arrives.
TEST(OtlpPartialSuccess, LateEncodingAnswersBeforeItEncodes) {
  long docs = 0;
  const auto reply = post_rejected_metrics("late", "application/json", kMetricsWithRejects, docs);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.body, "{}");
  EXPECT_EQ(docs, 1);
}

// The Collector's keys of this stop, with real processes: `tern gen` posts logs over HTTP to
// the receiver's logs_url_path; the exporter (an endpoint URL with a query,
// include_source_on_error, logs_dynamic_pipeline) sends records carrying an
// elasticsearch.ingest_pipeline with that pipeline in their action line. `tern sink` has no
// pipelines and refuses them ("pipeline with id [p1] does not exist"), as Elasticsearch
// would: they land in the dead-letter file; the records without one are indexed, and the
// attribute never reaches a document.
TEST(OtlpChain, UrlPathsEndpointQueryAndDynamicPipelines) {
  const fs::path dir = fs::temp_directory_path() / ("tern-pipeline-e2e-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  [&] {
    Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir / "dump.ndjson").string()});
    auto line = sink.wait_for_line("tern sink listening on", std::chrono::seconds(20));
    ASSERT_TRUE(line) << sink.output();
    const auto sink_port = *tern::test::parse_listen_port(*line);
    const auto ports = tern::test::free_ports(1);
    ASSERT_EQ(ports.size(), 1u);
    std::ofstream(dir / "c.yaml")
        << "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: " << port(ports[0])
        << "\n        logs_url_path: ingest/logs\nexporters:\n  elasticsearch:\n    endpoint: 'http://"
        << port(sink_port) << "?refresh=false&timeout=30s'\n    include_source_on_error: false\n"
        << "    logs_dynamic_pipeline: {enabled: true}\n    retry: {enabled: false}\n"
        << "    dead_letter: {path: " << (dir / "dead.ndjson").string() << "}\n"
        << "    flush: {interval: 50ms}\nservice:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n"
        << "  pipelines:\n    logs: {receivers: [otlp], exporters: [elasticsearch]}\n";
    Process collector({kTern, "run", "-c", (dir / "c.yaml").string()});
    ASSERT_TRUE(collector.wait_for_line("tern run: ready", std::chrono::seconds(20))) << collector.output();
    for (const auto& [count, extra] :
         {std::pair<int, std::vector<std::string>>{
              30, {"--telemetry-attributes", "elasticsearch.ingest_pipeline=\"p1\""}},
          {20, {}}}) {
      std::vector<std::string> args = {kTern,
                                       "gen",
                                       "logs",
                                       "--logs",
                                       std::to_string(count),
                                       "--otlp-http",
                                       "--otlp-insecure",
                                       "--otlp-endpoint",
                                       port(ports[0]),
                                       "--otlp-http-url-path",
                                       "/ingest/logs"};
      args.insert(args.end(), extra.begin(), extra.end());
      Process g(args);
      const auto code = g.wait(std::chrono::seconds(60));
      ASSERT_TRUE(code) << g.output();
      ASSERT_EQ(*code, 0) << g.output();
    }
    collector.signal(SIGTERM);
    EXPECT_EQ(collector.wait(std::chrono::seconds(30)), 0) << collector.output();
    sink.signal(SIGTERM);
    EXPECT_EQ(sink.wait(std::chrono::seconds(30)), 0) << sink.output();
  }();
  int indexed = 0, dead = 0;
  std::ifstream dump(dir / "dump.ndjson");
  for (std::string l; std::getline(dump, l); ++indexed)
    EXPECT_EQ(l.find("ingest_pipeline"), std::string::npos) << l;
  std::ifstream dl(dir / "dead.ndjson");
  for (std::string l; std::getline(dl, l); ++dead)
    EXPECT_NE(l.find("pipeline with id [p1] does not exist"), std::string::npos) << l;
  EXPECT_EQ(indexed, 20);
  EXPECT_EQ(dead, 30);
  fs::remove_all(dir);
}
