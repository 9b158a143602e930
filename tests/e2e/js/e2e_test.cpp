// End to end with real processes on loopback: the OpenTelemetry JavaScript SDK's OTLP
// exporters (send.mjs: protobuf over HTTP, JSON over HTTP, gRPC) -> `tern run` (OTLP
// receiver, Elasticsearch exporter) -> `tern sink --dump FILE`. Every document of the dump is
// checked field by field, in key order, against the otel mapping
// (docs/elasticsearch-mapping.md, shared/spec/elasticsearch-otel-mode.md); the data set is
// the one send.mjs emits (fixed timestamps and ids; keep both files in sync).
//
// Also: back-pressure through the real binaries (a slow sink, a one-item queue: the receiver
// answers 429 + Retry-After, and exactly what got 200 is in the sink after SIGTERM), and an
// invalid config (exit 1, the diagnostics on stderr).
//
// node and npm are required (fixture tern_e2e_js installs node_modules): without them these
// tests fail, they do not skip.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zstd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/http_client.h"
#include "support/process.h"
#include "support/test_certs.h"

namespace tern::e2e {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // ordered: the documents' key order is checked too
using namespace std::chrono_literals;
using test::Process;
using test::Stream;

const std::string kTern = TERN_BIN_DIR "/tern";
const fs::path kJsDir = TERN_E2E_JS_DIR;

// ------------------------------------------------------------------ helpers

// `node` from PATH (Process does no PATH lookup); empty when there is none.
std::string find_node() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / "node";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

// `n` distinct free loopback ports: bound to port 0 together, then released. tern run does
// not print ephemeral receiver ports, so the config has to name fixed ones.

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tern-e2e-js-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// `tern sink --listen 127.0.0.1:0 --dump FILE [extra...]`.
struct Sink {
  Process proc;
  std::uint16_t port = 0;
  Sink(const fs::path& dump, std::vector<std::string> extra) : proc(args(dump, std::move(extra))) {
    auto line = proc.wait_for_line("tern sink listening on ", 20s);
    if (!line) throw std::runtime_error("tern sink did not start:\n" + proc.output());
    port = test::parse_listen_port(*line).value_or(0);
    if (port == 0) throw std::runtime_error("no port in: " + *line);
  }
  static std::vector<std::string> args(const fs::path& dump, std::vector<std::string> extra) {
    std::vector<std::string> a{kTern, "sink", "--listen", "127.0.0.1:0", "--dump", dump.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// A collector config: OTLP receiver (HTTP, and gRPC when grpc_port != 0) on fixed loopback
// ports, the Elasticsearch exporter to the sink, one pipeline per signal.
std::string collector_yaml(std::uint16_t sink_port, std::uint16_t http_port, std::uint16_t grpc_port,
                           const std::string& exporter_extra) {
  std::string y = "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:" +
                  std::to_string(http_port) + "\n";
  if (grpc_port != 0) y += "      grpc:\n        endpoint: 127.0.0.1:" + std::to_string(grpc_port) + "\n";
  y += "exporters:\n  elasticsearch:\n    endpoint: http://127.0.0.1:" + std::to_string(sink_port) + "\n" +
       exporter_extra;
  y += R"(service:
  shutdown_timeout: 20s
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [elasticsearch]
    traces:
      receivers: [otlp]
      exporters: [elasticsearch]
    metrics:
      receivers: [otlp]
      exporters: [elasticsearch]
)";
  return y;
}

// `tern run -c CFG`, waited for until it prints `tern run: ready`.
std::unique_ptr<Process> start_collector(const fs::path& cfg) {
  auto p = std::make_unique<Process>(std::vector<std::string>{kTern, "run", "-c", cfg.string()});
  if (!p->wait_for_line("tern run: ready", 20s)) {
    ADD_FAILURE() << "tern run did not get ready:\n" << p->output();
    return nullptr;
  }
  return p;
}

// The raw dump lines and their parsed form (ordered, so key order can be compared).
struct Dump {
  std::vector<std::string> lines;
  std::vector<json> docs;
};

Dump read_dump(const fs::path& path) {
  Dump d;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    d.lines.push_back(line);
    d.docs.push_back(json::parse(line, nullptr, /*allow_exceptions=*/false));
    EXPECT_FALSE(d.docs.back().is_discarded()) << "not JSON: " << line;
  }
  return d;
}

std::vector<std::string> keys_of(const json& obj) {
  std::vector<std::string> k;
  if (obj.is_object())
    for (const auto& [key, value] : obj.items()) k.push_back(key);
  return k;
}

// "<epoch_ms>.<ns remainder, 6 digits>" of seconds `s` + `ns` nanoseconds.
std::string ts(std::int64_t s, std::int64_t ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(s * 1000 + ns / 1000000),
                static_cast<long long>(ns % 1000000));
  return buf;
}

// ------------------------------------------------------------------ expected documents

struct Expected {
  std::string key;    // identity in the dump (see identity())
  std::string index;  // _index
  json source;        // the whole _source, in key order; metrics: without timestamps/hash
};

json data_stream(const std::string& type) {
  return json{{"type", type}, {"dataset", "generic.otel"}, {"namespace", "default"}};
}

const json kResource =
    json{{"attributes", json{{"service.name", "tern-e2e-js"}, {"service.version", "1.2.3"}}}};

// What must be in the sink for one transport (t = 1 proto, 2 json, 3 grpc), as send.mjs
// emits it.
std::vector<Expected> expected_for(const std::string& transport, int t, const std::string& run_id) {
  const std::int64_t s = 1700000000 + t;
  const std::string trace_id = "5b8efff798038103d269b633813fc60" + std::to_string(t);
  auto span_id = [&](int n) { return "eee19b7ec3c1b1" + std::to_string(t) + std::to_string(n); };
  auto tag = [&](json extra = json::object()) {
    json a{{"transport", transport}, {"run.id", run_id}};
    for (const auto& [k, v] : extra.items()) a[k] = v;
    return a;
  };
  const json logs_scope{{"name", "tern.e2e.logs"}, {"version", "0.2.0"}};
  const json traces_scope{{"name", "tern.e2e.traces"}, {"version", "0.1.0"}};
  const json metrics_scope{{"name", "tern.e2e.metrics"}, {"version", "0.3.0"}};
  const std::string logs_index = "logs-generic.otel-default";
  const std::string traces_index = "traces-generic.otel-default";
  const std::string metrics_index = "metrics-generic.otel-default";
  std::vector<Expected> e;

  // Logs (4).
  e.push_back({"log/user logged in: héllo ✓", logs_index,
               json{{"@timestamp", ts(s, 123456789)},
                    {"observed_timestamp", ts(s, 987654321)},
                    {"data_stream", data_stream("logs")},
                    {"severity_text", "INFO"},
                    {"severity_number", 9},
                    {"trace_id", trace_id},
                    {"span_id", span_id(1)},
                    {"attributes", tag(json{{"str", "value"},
                                            {"int", 42},
                                            {"double", 3.25},
                                            {"bool", true},
                                            {"array.str", json::array({"a", "b"})},
                                            {"map", json{{"inner", "v"}, {"n", 1}}}})},
                    {"event_name", "user.login"},
                    {"resource", kResource},
                    {"scope", logs_scope},
                    {"body", json{{"text", "user logged in: héllo ✓"}}}}});
  e.push_back({"log/{\"structured\":{\"message\":\"failed\",\"code\":500}}", logs_index,
               json{{"@timestamp", ts(s, 5)},
                    {"observed_timestamp", ts(s, 6)},
                    {"data_stream", data_stream("logs")},
                    {"severity_text", "ERROR"},
                    {"severity_number", 17},
                    {"attributes", tag(json{{"exception.type", "IOError"}})},
                    {"resource", kResource},
                    {"scope", logs_scope},
                    {"body", json{{"structured", json{{"message", "failed"}, {"code", 500}}}}}}});
  e.push_back({"log/42", logs_index,
               json{{"@timestamp", ts(s, 0)},
                    {"observed_timestamp", ts(s, 0)},
                    {"data_stream", data_stream("logs")},
                    {"severity_number", 13},
                    {"attributes", tag()},
                    {"resource", kResource},
                    {"scope", logs_scope},
                    {"body", json{{"text", 42}}}}});
  e.push_back({"log/from the other logger", logs_index,
               json{{"@timestamp", ts(s, 999000)},
                    {"observed_timestamp", ts(s, 999000)},
                    {"data_stream", data_stream("logs")},
                    {"severity_text", "debug"},
                    {"severity_number", 5},
                    {"attributes", tag()},
                    {"resource", kResource},
                    {"scope", json{{"name", "tern.e2e.other"}}},
                    {"body", json{{"text", "from the other logger"}}}}});

  // Spans (3) and span events (3, in logs-*).
  e.push_back(
      {"span/GET /orders", traces_index,
       json{{"@timestamp", ts(s, 1000)},
            {"data_stream", data_stream("traces")},
            {"trace_id", trace_id},
            {"span_id", span_id(1)},
            {"name", "GET /orders"},
            {"kind", "Server"},
            {"duration", 1000000000},
            {"attributes",
             tag(json{{"http.method", "GET"}, {"http.status_code", 200}, {"ok", true}, {"ratio", 0.25}})},
            {"links", json::array()},
            {"status", json{{"code", "Ok"}}},
            {"resource", kResource},
            {"scope", traces_scope}}});
  e.push_back({"span/SELECT orders", traces_index,
               json{{"@timestamp", ts(s, 4000)},
                    {"data_stream", data_stream("traces")},
                    {"trace_id", trace_id},
                    {"span_id", span_id(2)},
                    {"parent_span_id", span_id(1)},
                    {"name", "SELECT orders"},
                    {"kind", "Client"},
                    {"duration", 2000},
                    {"attributes", tag(json{{"db.system", "postgresql"}, {"rows", json::array({"a", "b"})}})},
                    {"links", json::array()},
                    {"status", json{{"message", "query timed out"}, {"code", "Error"}}},
                    {"resource", kResource},
                    {"scope", traces_scope}}});
  e.push_back({"span/publish", traces_index,
               json{{"@timestamp", ts(s, 7000)},
                    {"data_stream", data_stream("traces")},
                    {"trace_id", trace_id},
                    {"span_id", span_id(3)},
                    {"parent_span_id", span_id(1)},
                    {"name", "publish"},
                    {"kind", "Producer"},
                    {"duration", 1000},
                    {"attributes", tag()},
                    {"links", json::array()},
                    {"status", json::object()},
                    {"resource", kResource},
                    {"scope", traces_scope}}});
  auto event = [&](const std::string& name, std::int64_t ns, int span, json attrs) {
    attrs["event.name"] = name;
    return Expected{"event/" + name, logs_index,
                    json{{"@timestamp", ts(s, ns)},
                         {"data_stream", data_stream("logs")},
                         {"trace_id", trace_id},
                         {"span_id", span_id(span)},
                         {"event_name", name},
                         {"attributes", attrs},
                         {"resource", kResource},
                         {"scope", traces_scope}}};
  };
  e.push_back(event("cache.miss", 2000, 1, tag(json{{"key", "orders:42"}, {"size", 3}})));
  e.push_back(event("retry", 3000, 1, tag()));
  e.push_back(event("exception", 5000, 2, tag(json{{"exception.message", "timeout"}})));

  // Metrics (4 documents: distinct units / attributes never share one).
  auto metric = [&](const std::string& key, const std::string& unit, json attrs, json metrics) {
    return Expected{"metric/" + key, metrics_index,
                    json{{"unit", unit},
                         {"data_stream", data_stream("metrics")},
                         {"attributes", attrs},
                         {"resource", kResource},
                         {"scope", metrics_scope},
                         {"metrics", metrics}}};
  };
  e.push_back(metric("{request}/a", "{request}", tag(json{{"route", "/a"}}), json{{"e2e.requests", 5}}));
  e.push_back(metric("{request}/b", "{request}", tag(json{{"route", "/b"}}), json{{"e2e.requests", 7}}));
  e.push_back(metric("Cel", "Cel", tag(), json{{"e2e.temperature", 21.5}}));
  e.push_back(metric("ms", "ms", tag(),
                     json{{"e2e.latency", json{{"counts", json::array({1, 2, 1})},
                                               {"values", json::array({5.0, 55.0, 100.0})}}}}));
  return e;
}

// The identity of a dumped document: kind and what tells it apart within a transport.
std::string identity(const json& doc) {
  const std::string index = doc.value("_index", "");
  const json& src = doc["_source"];
  auto str = [&](const char* k) {
    return src.contains(k) && src[k].is_string() ? src[k].get<std::string>() : "";
  };
  if (index.rfind("traces-", 0) == 0) return "span/" + str("name");
  if (index.rfind("metrics-", 0) == 0) {
    std::string key = str("unit");
    if (src.contains("attributes") && src["attributes"].contains("route"))
      key += src["attributes"]["route"].get<std::string>();
    return "metric/" + key;
  }
  if (src.contains("observed_timestamp")) {  // a log record (span events have none)
    if (!src.contains("body")) return "log/";
    const json& body = src["body"];
    if (body.contains("text") && body["text"].is_string()) return "log/" + body["text"].get<std::string>();
    if (body.contains("text")) return "log/" + body["text"].dump();
    return "log/" + body.dump();
  }
  return "event/" + str("event_name");
}

// ------------------------------------------------------------------ the tests

// send.mjs over its three transports into `tern run` -> `tern sink`; every document checked.
// With `tls`, both receivers serve TLS (the test CA's server certificate) and send.mjs
// trusts that CA (its --ca flag: the exporters' own TLS options).
void SendEverySignalAndCheckEveryDocument(bool tls) {
  const std::string node = find_node();
  ASSERT_FALSE(node.empty()) << "node not found on PATH (Node.js >= 20.6 is required)";
  ASSERT_TRUE(fs::exists(kJsDir / "node_modules"))
      << "run " << (kJsDir / "setup.sh") << " (ctest fixture tern_e2e_js)";
  TempDir tmp;
  const fs::path dump = tmp.path() / "dump.ndjson";
  auto sink = std::make_unique<Sink>(dump, std::vector<std::string>{});
  auto ports = tern::test::free_ports(2);
  ASSERT_EQ(ports.size(), 2u);
  const fs::path cfg = tmp.path() / "collector.yaml";
  std::string yaml = collector_yaml(sink->port, ports[0], ports[1], "    flush:\n      interval: 100ms\n");
  if (tls) {
    const auto& c = test::test_certs();
    ASSERT_FALSE(c.ca_cert.empty());
    const std::string server_tls =
        "\n        tls: {cert_file: " + c.server_cert + ", key_file: " + c.server_key + "}";
    for (const std::uint16_t port : {ports[0], ports[1]}) {
      const std::string at = "endpoint: 127.0.0.1:" + std::to_string(port);
      yaml.replace(yaml.find(at), at.size(), at + server_tls);
    }
  }
  write_file(cfg, yaml);
  auto collector = start_collector(cfg);
  ASSERT_TRUE(collector);

  const std::string run_id = "e2e-" + std::to_string(::getpid());
  {
    std::vector<std::string> args{
        node,       (kJsDir / "send.mjs").string(),
        "--http",   (tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(ports[0]),
        "--grpc",   "127.0.0.1:" + std::to_string(ports[1]),
        "--run-id", run_id};
    if (tls) args.insert(args.end(), {"--ca", test::test_certs().ca_cert});
    Process send(args);
    auto rc = send.wait(45s);
    ASSERT_TRUE(rc.has_value()) << "send.mjs hangs:\n" << send.output();
    ASSERT_EQ(*rc, 0) << send.output() << "\ntern run:\n" << collector->output();
  }
  ASSERT_TRUE(collector->signal(SIGTERM));
  auto collector_rc = collector->wait(30s);
  ASSERT_TRUE(collector_rc.has_value()) << "tern run did not stop after SIGTERM:\n" << collector->output();
  EXPECT_EQ(*collector_rc, 0) << collector->output();
  ASSERT_TRUE(sink->proc.signal(SIGTERM));
  EXPECT_EQ(sink->proc.wait(10s), std::optional<int>(0)) << sink->proc.output();

  const Dump d = read_dump(dump);
  // 3 transports x (4 logs + 3 spans + 3 span events + 4 metric documents).
  ASSERT_EQ(d.docs.size(), 42u) << "tern run:\n" << collector->output();

  std::map<std::string, std::map<std::string, std::size_t>> by_transport;  // transport -> identity -> doc
  std::map<std::string, std::map<std::string, int>> kinds;                 // transport -> kind -> count
  std::set<std::string> ids;
  for (std::size_t i = 0; i < d.docs.size(); ++i) {
    const json& doc = d.docs[i];
    ASSERT_TRUE(doc.is_object() && doc.contains("_source") && doc["_source"].is_object()) << d.lines[i];
    EXPECT_EQ(keys_of(doc), (std::vector<std::string>{"_index", "_id", "_source"})) << d.lines[i];
    const std::string id = doc.value("_id", "");
    EXPECT_EQ(id.size(), 20u) << "generated _id: " << d.lines[i];
    EXPECT_TRUE(ids.insert(id).second) << "duplicate _id: " << d.lines[i];
    const json& attrs = doc["_source"].contains("attributes") ? doc["_source"]["attributes"] : json::object();
    const std::string transport = attrs.value("transport", "");
    EXPECT_EQ(attrs.value("run.id", ""), run_id) << d.lines[i];
    const std::string key = identity(doc);
    ++kinds[transport][key.substr(0, key.find('/'))];
    EXPECT_TRUE(by_transport[transport].emplace(key, i).second)
        << "two documents " << key << ": " << d.lines[i];
  }
  EXPECT_EQ(by_transport.size(), 3u);

  const std::vector<std::pair<std::string, int>> transports{{"proto", 1}, {"json", 2}, {"grpc", 3}};
  for (const auto& [transport, t] : transports) {
    SCOPED_TRACE("transport " + transport);
    EXPECT_EQ(kinds[transport]["log"], 4);
    EXPECT_EQ(kinds[transport]["span"], 3);
    EXPECT_EQ(kinds[transport]["event"], 3);
    EXPECT_EQ(kinds[transport]["metric"], 4);
    std::set<std::string> hashes;
    for (const Expected& want : expected_for(transport, t, run_id)) {
      SCOPED_TRACE(want.key);
      auto it = by_transport[transport].find(want.key);
      if (it == by_transport[transport].end()) {
        ADD_FAILURE() << "missing document " << want.key;
        continue;
      }
      const std::string& line = d.lines[it->second];
      const json& doc = d.docs[it->second];
      EXPECT_EQ(doc["_index"], want.index) << line;
      json got = doc["_source"];
      if (want.index.rfind("metrics-", 0) == 0) {
        // Collection time: integer epoch milliseconds, start <= end; the rest is exact.
        EXPECT_EQ(keys_of(got), (std::vector<std::string>{"@timestamp", "start_timestamp", "unit",
                                                          "data_stream", "attributes", "resource", "scope",
                                                          "metrics", "_metric_names_hash"}))
            << line;
        EXPECT_TRUE(got["@timestamp"].is_number_integer()) << line;
        EXPECT_TRUE(got["start_timestamp"].is_number_integer()) << line;
        if (got["@timestamp"].is_number_integer() && got["start_timestamp"].is_number_integer()) {
          EXPECT_LE(got["start_timestamp"].get<std::int64_t>(), got["@timestamp"].get<std::int64_t>())
              << line;
          EXPECT_GT(got["@timestamp"].get<std::int64_t>(), 1700000000000) << line;
        }
        const std::string hash = got.value("_metric_names_hash", "");
        EXPECT_EQ(hash.size(), 16u) << line;
        EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos) << line;
        hashes.insert(got.value("unit", "") + "=" + hash);
        got.erase("@timestamp");
        got.erase("start_timestamp");
        got.erase("_metric_names_hash");
      }
      // Field by field, then the key order.
      for (const auto& [k, v] : want.source.items()) {
        if (!got.contains(k))
          ADD_FAILURE() << "missing field " << k << " in " << line;
        else
          EXPECT_EQ(got[k].dump(), v.dump()) << "field " << k << " in " << line;
      }
      EXPECT_EQ(keys_of(got), keys_of(want.source)) << line;
    }
    // One hash per metric name set: the two e2e.requests documents share theirs.
    EXPECT_EQ(hashes.size(), 3u);
  }
  // Doubles keep a radix point, integers have none (json equality above cannot tell 5 from 5.0).
  std::string all;
  for (const auto& line : d.lines) all += line + "\n";
  EXPECT_NE(all.find(R"("metrics":{"e2e.requests":5})"), std::string::npos);
  EXPECT_NE(all.find(R"("metrics":{"e2e.latency":{"counts":[1,2,1],"values":[5.0,55.0,100.0]}})"),
            std::string::npos);
  EXPECT_NE(all.find(R"("double":3.25,)"), std::string::npos);
}

TEST(E2eJs, EverySignalOverEveryTransportIsIndexedFieldByField) {
  SendEverySignalAndCheckEveryDocument(false);
}

// The same over TLS: HTTPS for protobuf and JSON, gRPC with TLS credentials.
TEST(E2eJs, EverySignalOverEveryTransportOverTlsIsIndexedFieldByField) {
  SendEverySignalAndCheckEveryDocument(true);
}

// Logs as OTLP/JSON: `n` records of batch `b`.
std::string logs_json(int n, int b) {
  std::string s =
      R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bp"}}]},"scopeLogs":[{"logRecords":[)";
  for (int i = 0; i < n; ++i) {
    if (i) s += ',';
    s += R"({"timeUnixNano":"1700000000000000000","severityText":"INFO","body":{"stringValue":"line )" +
         std::to_string(b) + "-" + std::to_string(i) + R"("}})";
  }
  return s + "]}]}]}";
}

TEST(E2eJs, BackPressureAnswers429AndDeliversExactlyWhatWasAccepted) {
  TempDir tmp;
  const fs::path dump = tmp.path() / "dump.ndjson";
  Sink sink(dump, {"--latency-ms", "300"});
  auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  const fs::path cfg = tmp.path() / "collector.yaml";
  write_file(cfg, collector_yaml(sink.port, ports[0], 0,
                                 "    num_workers: 1\n"
                                 "    flush:\n      bytes: 200\n      interval: 10ms\n"
                                 "    sending_queue:\n      enabled: true\n      queue_size: 1\n"));
  auto collector = start_collector(cfg);
  ASSERT_TRUE(collector);

  constexpr int kRequests = 60, kRecords = 5;
  int accepted_records = 0, accepted = 0, refused = 0;
  {
    test::HttpClient http(ports[0]);
    for (int b = 0; b < kRequests; ++b) {
      auto r = http.call("POST", "/v1/logs", logs_json(kRecords, b), {{"Content-Type", "application/json"}});
      if (r.status == 200) {
        accepted_records += kRecords;
        ++accepted;
      } else {
        ASSERT_EQ(r.status, 429) << r.body;
        EXPECT_FALSE(r.header("retry-after").empty()) << "429 without Retry-After";
        ++refused;
      }
    }
  }
  ::testing::Test::RecordProperty("accepted_requests", accepted);
  ::testing::Test::RecordProperty("refused_requests", refused);
  EXPECT_GT(refused, 0) << "no back-pressure: the queue never filled";
  EXPECT_GT(accepted, 0);
  ASSERT_TRUE(collector->signal(SIGTERM));
  auto rc = collector->wait(40s);
  ASSERT_TRUE(rc.has_value()) << "tern run did not drain and stop:\n" << collector->output();
  EXPECT_EQ(*rc, 0) << collector->output();

  test::HttpClient es(sink.port);
  auto count = es.call("GET", "/logs-*/_count");
  ASSERT_EQ(count.status, 200) << count.body;
  const json c = json::parse(count.body, nullptr, false);
  ASSERT_TRUE(c.is_object() && c.contains("count")) << count.body;
  EXPECT_EQ(c["count"].get<int>(), accepted_records)
      << accepted << " requests accepted, " << refused << " refused\n"
      << collector->output();
  ASSERT_TRUE(sink.proc.signal(SIGTERM));
  EXPECT_EQ(sink.proc.wait(10s), std::optional<int>(0));
  EXPECT_EQ(read_dump(dump).docs.size(), static_cast<std::size_t>(accepted_records));
}

// A message compressed with zstd, flagged so and with `grpc-encoding: zstd` (what the
// Collector's otlp exporter sends with `compression: zstd`), sent over a raw HTTP/2 stream as
// no gRPC library here can: gRPC's C++ server passes it on still compressed, and the receiver
// decompresses it. Before, the data was refused (INVALID_ARGUMENT) and lost.
TEST(E2eJs, GrpcMessageCompressedWithZstdIsIndexed) {
  const std::string node = find_node();
  ASSERT_FALSE(node.empty()) << "node is required";
  TempDir tmp;
  const fs::path dump = tmp.path() / "dump.ndjson";
  Sink sink(dump, {});
  auto ports = tern::test::free_ports(2);
  ASSERT_EQ(ports.size(), 2u);
  const fs::path cfg = tmp.path() / "collector.yaml";
  write_file(cfg, collector_yaml(sink.port, ports[0], ports[1], "    flush:\n      interval: 10ms\n"));
  auto collector = start_collector(cfg);
  ASSERT_TRUE(collector);

  // The request in protobuf, made by `tern convert`, then compressed with zstd.
  write_file(tmp.path() / "logs.json", logs_json(7, 1));
  Process convert({kTern, "convert", "--signal", "logs", "--from", "otlp-json", "--to", "otlp-proto", "-i",
                   (tmp.path() / "logs.json").string(), "-o", (tmp.path() / "logs.pb").string()});
  ASSERT_EQ(convert.wait(30s), std::optional<int>(0)) << convert.output();
  std::ifstream in(tmp.path() / "logs.pb", std::ios::binary);
  const std::string pb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(pb.empty());
  std::string zst(ZSTD_compressBound(pb.size()), '\0');
  const std::size_t n = ZSTD_compress(zst.data(), zst.size(), pb.data(), pb.size(), 3);
  ASSERT_FALSE(ZSTD_isError(n));
  zst.resize(n);
  write_file(tmp.path() / "logs.pb.zst", zst);

  Process send({node, (kJsDir / "grpc_raw.mjs").string(), "127.0.0.1:" + std::to_string(ports[1]), "zstd",
                (tmp.path() / "logs.pb.zst").string()});
  ASSERT_EQ(send.wait(30s), std::optional<int>(0)) << send.output();
  const std::vector<std::string> lines = send.lines();
  ASSERT_EQ(lines.size(), 1u) << send.output();
  const json answer = json::parse(lines[0], nullptr, false);
  ASSERT_TRUE(answer.is_object()) << send.output();
  EXPECT_EQ(answer.value("grpc_status", std::string("none")), "0") << send.output();

  ASSERT_TRUE(collector->signal(SIGTERM));
  EXPECT_EQ(collector->wait(40s), std::optional<int>(0)) << collector->output();
  ASSERT_TRUE(sink.proc.signal(SIGTERM));
  EXPECT_EQ(sink.proc.wait(10s), std::optional<int>(0));
  EXPECT_EQ(read_dump(dump).docs.size(), 7u);
}

TEST(E2eJs, InvalidConfigExits1WithTheDiagnosticsOnStderr) {
  TempDir tmp;
  const fs::path cfg = tmp.path() / "bad.yaml";
  write_file(cfg, R"(receivers:
  otlp:
    protocols:
      htp:
        endpoint: 127.0.0.1:0
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9
    flush:
      interval: 5x
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  Process run({kTern, "run", "-c", cfg.string()});
  auto rc = run.wait(20s);
  ASSERT_TRUE(rc.has_value()) << run.output();
  EXPECT_EQ(*rc, 1);
  const std::string f = cfg.string();
  EXPECT_EQ(run.lines(Stream::Stderr),
            (std::vector<std::string>{
                f + ":2:3: error: receivers.otlp: at least one protocol (grpc or http) must be configured "
                    "under protocols",
                f + ":4:7: error: unknown key \"htp\" in receivers.otlp.protocols (did you mean \"http\"?)",
                f + ":10:17: error: exporters.elasticsearch.flush.interval: invalid duration \"5x\": unknown "
                    "unit \"x\" (one "
                    "of ns, us, ms, s, m, h)",
                "tern run: " + f + " has 3 error(s); not starting"}));
  EXPECT_EQ(run.lines(Stream::Stdout), std::vector<std::string>{})
      << "nothing on stdout, no `tern run: ready`";
}

}  // namespace
}  // namespace tern::e2e
