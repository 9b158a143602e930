// TLS end to end with the real binaries: `tern gen` sends over TLS (gRPC with a client
// certificate, HTTP with server verification) into a `tern run` whose receivers require
// them; clients that do not trust the server or talk plaintext are refused; and a
// collector forwards to a second one with the `otlp` and `otlphttp` exporters over TLS.
// Every count is checked in what `tern sink` indexed.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "support/process.h"
#include "support/test_certs.h"

namespace {

namespace fs = std::filesystem;
using tern::test::Process;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";

class TlsEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tern-tls-e2e-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    ASSERT_FALSE(certs().ca_cert.empty());
  }

  // `tern sink --dump`, plain or (extra args) over TLS; sets sink_port_.
  void start_sink(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{kTern,         "sink",   "--listen",
                                  "127.0.0.1:0", "--dump", (dir_ / "dump.ndjson").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    sink_ = std::make_unique<Process>(args);

    const bool tls = !extra.empty();
    auto line = sink_->wait_for_line(tls ? "tern sink (TLS) listening on" : "tern sink listening on",
                                     std::chrono::seconds(20));
    ASSERT_TRUE(line) << sink_->output();
    sink_port_ = *tern::test::parse_listen_port(*line);
  }
  void TearDown() override {
    for (auto& c : collectors_) {
      if (c->running()) c->signal(SIGKILL);
    }
    if (sink_ && sink_->running()) sink_->signal(SIGKILL);
    fs::remove_all(dir_);
  }

  static const tern::test::TestCerts& certs() { return tern::test::test_certs(); }

  // The receivers' TLS: the gRPC one also requires a client certificate from the test CA.
  std::string tls_receivers(std::uint16_t http, std::uint16_t grpc) const {
    const auto& c = certs();
    return "receivers:\n  otlp:\n    protocols:\n"
           "      http:\n        endpoint: 127.0.0.1:" +
           std::to_string(http) + "\n        tls:\n          cert_file: " + c.server_cert +
           "\n          key_file: " + c.server_key +
           "\n      grpc:\n        endpoint: 127.0.0.1:" + std::to_string(grpc) +
           "\n        tls:\n          cert_file: " + c.server_cert + "\n          key_file: " + c.server_key +
           "\n          client_ca_file: " + c.ca_cert + "\n";
  }
  // `exporter_extra`: more keys of the Elasticsearch exporter (e.g. its tls), 4-space indented.
  std::string to_sink_pipelines(const std::string& scheme = "http",
                                const std::string& exporter_extra = "") const {
    return "exporters:\n  elasticsearch:\n    endpoints: [" + scheme +
           "://127.0.0.1:" + std::to_string(sink_port_) + "]\n    flush:\n      interval: 50ms\n" +
           exporter_extra +
           "service:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
           "    logs: {receivers: [otlp], exporters: [elasticsearch]}\n";
  }

  Process& start_collector(const std::string& name, const std::string& yaml) {
    const fs::path file = dir_ / (name + ".yaml");
    std::ofstream(file) << yaml;
    collectors_.push_back(
        std::make_unique<Process>(std::vector<std::string>{kTern, "run", "-c", file.string()}));
    Process& p = *collectors_.back();
    EXPECT_TRUE(p.wait_for_line("tern run: ready", std::chrono::seconds(20))) << p.output();
    return p;
  }

  // Runs `tern gen logs ARGS...`; returns its exit code.
  static int gen(std::vector<std::string> args, std::string* output = nullptr) {
    args.insert(args.begin(), {kTern, "gen", "logs"});
    Process g(args);
    const auto code = g.wait(std::chrono::seconds(60));
    EXPECT_TRUE(code) << g.output();
    if (output) *output = g.output();
    return code.value_or(-1);
  }

  // Stops the collectors in order (each drains) and the sink; counts indexed log
  // documents by their `transport` attribute.
  std::map<std::string, int> finish() {
    for (auto& c : collectors_) {
      c->signal(SIGTERM);
      EXPECT_EQ(c->wait(std::chrono::seconds(30)), 0) << c->output();
    }
    sink_->signal(SIGTERM);
    EXPECT_EQ(sink_->wait(std::chrono::seconds(30)), 0) << sink_->output();
    std::map<std::string, int> by_transport;
    simdjson::dom::parser parser;
    std::ifstream f(dir_ / "dump.ndjson");
    for (std::string line; std::getline(f, line);) {
      simdjson::dom::element doc;
      EXPECT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
      std::string_view transport;
      EXPECT_EQ(doc["_source"]["attributes"]["transport"].get_string().get(transport), simdjson::SUCCESS)
          << line;
      ++by_transport[std::string(transport)];
    }
    return by_transport;
  }

  fs::path dir_;
  std::unique_ptr<Process> sink_;
  std::vector<std::unique_ptr<Process>> collectors_;
  std::uint16_t sink_port_ = 0;
};

TEST_F(TlsEndToEnd, GenSendsOverTlsAndMutualTlsAndUntrustedClientsAreRefused) {
  start_sink();
  auto ports = tern::test::free_ports(2);
  ASSERT_EQ(ports.size(), 2u);
  const std::string http = "127.0.0.1:" + std::to_string(ports[0]);
  const std::string grpc = "127.0.0.1:" + std::to_string(ports[1]);
  start_collector("collector", tls_receivers(ports[0], ports[1]) + to_sink_pipelines());
  const auto& c = certs();

  // gRPC with the client certificate the receiver requires.
  EXPECT_EQ(gen({"--otlp-endpoint", grpc, "--ca-cert", c.ca_cert, "--mtls", "--client-cert", c.client_cert,
                 "--client-key", c.client_key, "--workers", "2", "--logs", "15", "--telemetry-attributes",
                 "transport=\"grpc\""}),
            0);
  // OTLP/HTTP over TLS (host:port without a scheme: https, as telemetrygen).
  EXPECT_EQ(gen({"--otlp-http", "--otlp-endpoint", http, "--ca-cert", c.ca_cert, "--logs", "20",
                 "--telemetry-attributes", "transport=\"http\""}),
            0);

  // Refused: no client certificate (mutual TLS), a CA that did not sign the server's
  // certificate, plaintext to a TLS port. None of them may get anything in.
  std::string out;
  EXPECT_EQ(gen({"--otlp-endpoint", grpc, "--ca-cert", c.ca_cert, "--logs", "5", "--telemetry-attributes",
                 "transport=\"refused\""},
                &out),
            1)
      << out;
  EXPECT_EQ(gen({"--otlp-http", "--otlp-endpoint", http, "--ca-cert", c.other_ca_cert, "--logs", "5",
                 "--telemetry-attributes", "transport=\"refused\""},
                &out),
            1)
      << out;
  EXPECT_EQ(gen({"--otlp-http", "--otlp-insecure", "--otlp-endpoint", http, "--logs", "5",
                 "--telemetry-attributes", "transport=\"refused\""},
                &out),
            1)
      << out;
  // Flags that contradict each other are a usage error, before anything is sent.
  EXPECT_EQ(gen({"--otlp-insecure", "--ca-cert", c.ca_cert, "--otlp-endpoint", grpc}, &out), 2) << out;
  EXPECT_EQ(gen({"--mtls", "--otlp-endpoint", grpc}, &out), 2) << out;

  const auto by_transport = finish();
  EXPECT_EQ(by_transport.count("refused"), 0u);
  // gRPC's own log goes through Tern's: the refused handshakes are debug lines, not gRPC's
  // raw stderr lines (which name ssl_transport_security.cc).
  EXPECT_EQ(collectors_[0]->output().find("ssl_transport_security"), std::string::npos)
      << collectors_[0]->output();
  EXPECT_EQ(by_transport.count("grpc") ? by_transport.at("grpc") : 0, 2 * 15);
  EXPECT_EQ(by_transport.count("http") ? by_transport.at("http") : 0, 20);
}

TEST_F(TlsEndToEnd, ACollectorForwardsToAnotherOverTlsWithBothOtlpExporters) {
  start_sink();
  auto ports = tern::test::free_ports(4);
  ASSERT_EQ(ports.size(), 4u);
  const auto& c = certs();
  // Second hop: TLS receivers (gRPC with mutual TLS) into the sink.
  start_collector("downstream", tls_receivers(ports[0], ports[1]) + to_sink_pipelines());
  // First hop: plaintext receivers, one pipeline per exporter.
  start_collector("upstream",
                  "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 127.0.0.1:" +
                      std::to_string(ports[2]) +
                      "\n      http:\n        endpoint: 127.0.0.1:" + std::to_string(ports[3]) +
                      "\nexporters:\n  otlp:\n    endpoint: 127.0.0.1:" + std::to_string(ports[1]) +
                      "\n    tls:\n      ca_file: " + c.ca_cert + "\n      cert_file: " + c.client_cert +
                      "\n      key_file: " + c.client_key +
                      "\n  otlphttp:\n    endpoint: https://localhost:" + std::to_string(ports[0]) +
                      "\n    tls:\n      ca_file: " + c.ca_cert +
                      "\nservice:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
                      "    logs/grpc:\n      receivers: [otlp]\n      exporters: [otlp]\n"
                      "    logs/http:\n      receivers: [otlp]\n      exporters: [otlphttp]\n");
  // Every record goes out through both exporters.
  EXPECT_EQ(gen({"--otlp-insecure", "--otlp-endpoint", "127.0.0.1:" + std::to_string(ports[2]), "--logs",
                 "30", "--telemetry-attributes", "transport=\"forwarded\""}),
            0);
  // Upstream first: it drains into the downstream collector before that one stops.
  std::swap(collectors_[0], collectors_[1]);
  const auto by_transport = finish();
  EXPECT_EQ(by_transport.count("forwarded") ? by_transport.at("forwarded") : 0, 2 * 30);
}

TEST_F(TlsEndToEnd, AReceiverCertificateThatCannotBeLoadedStopsTheCollectorNamingTheFile) {
  start_sink();
  auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  std::ofstream(dir_ / "bad.yaml")
      << "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 127.0.0.1:" << ports[0]
      << "\n        tls:\n          cert_file: /nonexistent/server.crt\n"
         "          key_file: /nonexistent/server.key\n"
      << to_sink_pipelines();
  Process p({kTern, "run", "-c", (dir_ / "bad.yaml").string()});
  const auto code = p.wait(std::chrono::seconds(30));
  ASSERT_TRUE(code) << p.output();
  EXPECT_NE(*code, 0);
  EXPECT_NE(p.output().find("/nonexistent/server."), std::string::npos) << p.output();
}

// Elasticsearch 8 serves https with its own CA: the exporter verifies the sink's certificate
// against tls.ca_file and presents a client certificate the sink requires.
TEST_F(TlsEndToEnd, TheElasticsearchExporterShipsToAnHttpsSinkWithMutualTls) {
  const auto& c = certs();
  start_sink({"--tls-cert", c.server_cert, "--tls-key", c.server_key, "--tls-client-ca", c.ca_cert});
  auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  start_collector("collector",
                  "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 127.0.0.1:" +
                      std::to_string(ports[0]) + "\n" +
                      to_sink_pipelines("https", "    tls:\n      ca_file: " + c.ca_cert +
                                                     "\n      cert_file: " + c.client_cert +
                                                     "\n      key_file: " + c.client_key + "\n"));
  EXPECT_EQ(gen({"--otlp-insecure", "--otlp-endpoint", "127.0.0.1:" + std::to_string(ports[0]), "--logs",
                 "25", "--workers", "2", "--telemetry-attributes", "transport=\"es-https\""}),
            0);
  const auto by_transport = finish();
  EXPECT_EQ(by_transport.count("es-https") ? by_transport.at("es-https") : 0, 2 * 25);
}

TEST_F(TlsEndToEnd, ASinkCertificateThatCannotBeLoadedIsAClearError) {
  Process p({kTern, "sink", "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/s.crt", "--tls-key",
             "/nonexistent/s.key"});
  EXPECT_EQ(p.wait(std::chrono::seconds(30)), 1) << p.output();
  EXPECT_NE(p.output().find("tern sink: cannot start: tls.cert_file /nonexistent/s.crt: cannot be read"),
            std::string::npos)
      << p.output();
}

}  // namespace
