// The OTLP/HTTP and OTLP/gRPC log exporters against recording in-test servers on
// loopback: what arrives is decoded with Tern's OTLP decoder and checked field by field.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "exporter/otlp/test_servers.h"
#include "otlp/proto_codec.h"
#include "sdk/exporter_test_util.h"
#include "sdk/test_util.h"
#include "support/process.h"
#include "support/silent_peer.h"
#include "support/test_certs.h"
#include "tern/sdk/logs/batch_processor.h"
#include "tern/sdk/logs/logger.h"
#include "tern/sdk/logs/otlp_log_exporter.h"

namespace tern::sdk::logs {
namespace {

using testing::BatchBuilder;

pdata::LogsData Decode(const std::string& body) {
  pdata::LogsData d;
  auto err = tern::otlp::decode_logs_proto(body, d);
  EXPECT_FALSE(err.has_value());
  return d;
}

std::size_t DecodedRecords(const tern::test::RecordingStore& store) {
  std::size_t n = 0;
  for (const auto& r : store.requests()) n += Decode(r.body).record_count();
  return n;
}

using Blackhole = tern::test::SilentPeer;  // tests/support/silent_peer.h

OtlpLogExporterOptions Options(const std::string& endpoint) {
  OtlpLogExporterOptions o;
  o.endpoint = endpoint;
  o.timeout = std::chrono::seconds(10);
  o.max_retries = 0;
  return o;
}

TEST(OtlpHttpLogExporterTest, OneRequestPerBatchWithEveryField) {
  tern::test::RecordingHttpServer server;
  auto o = Options(server.endpoint());
  o.headers = {{"X-Test", "sdk"}};
  OtlpHttpLogExporter exporter(o);
  BatchBuilder b;
  b.Add(4, "http", /*run=*/2);  // scopes a, a, b, b
  b.resource().schema_url = "https://opentelemetry.io/schemas/1.24.0";
  ASSERT_EQ(exporter.Export(b.View()), ExportResult::kSuccess);

  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/v1/logs");
  EXPECT_EQ(reqs[0].headers.at("content-type"), "application/x-protobuf");
  EXPECT_EQ(reqs[0].headers.at("x-test"), "sdk");
  pdata::LogsData d = Decode(reqs[0].body);
  ASSERT_EQ(d.resource_logs.size(), 1u);
  const auto& rl = d.resource_logs[0];
  EXPECT_EQ(rl.schema_url, "https://opentelemetry.io/schemas/1.24.0");
  EXPECT_EQ(pdata::find_attribute(rl.resource.attributes, "service.name")->string_value, "sdk-test");
  EXPECT_EQ(pdata::find_attribute(rl.resource.attributes, "host.id")->int_value, 7);
  ASSERT_EQ(rl.scope_logs.size(), 2u);
  EXPECT_EQ(rl.scope_logs[0].scope.name, "scope.a");
  EXPECT_EQ(rl.scope_logs[1].scope.name, "scope.b");
  EXPECT_EQ(rl.scope_logs[1].scope.version, "2.0");
  ASSERT_EQ(rl.scope_logs[0].log_records.size(), 2u);
  ASSERT_EQ(rl.scope_logs[1].log_records.size(), 2u);
  const auto& rec = rl.scope_logs[1].log_records[1];  // record 3
  EXPECT_EQ(rec.time_unix_nano, 1'700'000'000'000'000'003ULL);
  EXPECT_NE(rec.observed_time_unix_nano, 0u);
  EXPECT_EQ(rec.severity_number, 13);
  EXPECT_EQ(rec.severity_text, "WARN");
  EXPECT_EQ(rec.body.kind, pdata::ValueKind::String);
  EXPECT_EQ(rec.body.string_value, "record 3");
  EXPECT_EQ(rec.event_name, "sdk.test");
  EXPECT_EQ(rec.trace_id[15], 3);
  EXPECT_EQ(rec.span_id[7], 1);
  EXPECT_EQ(rec.flags, 1u);
  ASSERT_EQ(rec.attributes.size(), 4u);
  EXPECT_EQ(pdata::find_attribute(rec.attributes, "seq")->int_value, 3);
  EXPECT_EQ(pdata::find_attribute(rec.attributes, "tag")->string_value, "http");
  EXPECT_DOUBLE_EQ(pdata::find_attribute(rec.attributes, "ratio")->double_value, 0.5);
  EXPECT_TRUE(pdata::find_attribute(rec.attributes, "flag")->bool_value);
  EXPECT_EQ(exporter.stats().exported_records, 4u);
  EXPECT_EQ(exporter.stats().requests, 1u);
}

TEST(OtlpHttpLogExporterTest, AsyncEncodesBeforeReturningAndCompletesLater) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  std::future<ExportResult> f;
  {
    BatchBuilder b;
    b.Add(3);
    f = exporter.ExportFuture(b.View());
  }  // the batch and every string it points to are gone before the send completes
  EXPECT_EQ(f.get(), ExportResult::kSuccess);
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 1u);
  pdata::LogsData d = Decode(reqs[0].body);
  ASSERT_EQ(d.record_count(), 3u);
  EXPECT_EQ(d.resource_logs[0].scope_logs[0].log_records[2].body.string_value, "record 2");
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::seconds(10)));
}

TEST(OtlpHttpLogExporterTest, ConcurrentSyncAndAsyncExportsAllArrive) {
  tern::test::RecordingHttpServer server;
  auto o = Options(server.endpoint());
  o.max_connections = 2;         // fewer connections than threads: some use a one-off connection
  o.max_concurrent_exports = 2;  // and some async exports run on the caller
  OtlpHttpLogExporter exporter(o);
  constexpr int kThreads = 6, kExports = 20, kPerBatch = 5;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kExports; ++i) {
        BatchBuilder b;
        b.Add(kPerBatch);
        if ((t + i) % 2 == 0) {
          if (exporter.Export(b.View()) == ExportResult::kSuccess) ok.fetch_add(1);
        } else {
          exporter.ExportAsync(b.View(), [&](ExportResult r) {
            if (r == ExportResult::kSuccess) ok.fetch_add(1);
          });
        }
      }
    });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(exporter.ForceFlush(std::chrono::seconds(60)));
  EXPECT_EQ(ok.load(), kThreads * kExports);
  EXPECT_EQ(server.store().size(), static_cast<std::size_t>(kThreads * kExports));
  EXPECT_EQ(DecodedRecords(server.store()), static_cast<std::size_t>(kThreads * kExports * kPerBatch));
  EXPECT_EQ(exporter.stats().exported_records, static_cast<std::uint64_t>(kThreads * kExports * kPerBatch));
}

TEST(OtlpHttpLogExporterTest, ErrorStatusAndPartialSuccessAreFailures) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(5);
  server.script({{400, "", {}}});
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed_records, 5u);
  // ExportLogsServiceResponse{partial_success{rejected_log_records: 3, error_message: "bad"}}
  const std::string ps = std::string("\x08\x03\x12\x03", 4) + "bad";
  server.script({{200, std::string("\x0a") + static_cast<char>(ps.size()) + ps, {}}});
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().rejected_records, 3u);
  EXPECT_EQ(exporter.stats().exported_records, 2u);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kSuccess);  // the default answer: 200
}

TEST(OtlpHttpLogExporterTest, RefusedConnectionIsAFailureNotACrash) {
  const auto ports = tern::test::free_ports(1);
  ASSERT_EQ(ports.size(), 1u);
  auto o = Options("127.0.0.1:" + std::to_string(ports[0]));
  o.timeout = std::chrono::seconds(2);
  OtlpHttpLogExporter exporter(o);
  BatchBuilder b;
  b.Add(2);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.ExportFuture(b.View()).get(), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed_records, 4u);
}

TEST(OtlpHttpLogExporterTest, BadEndpointThrowsAtConstruction) {
  OtlpLogExporterOptions o;
  o.endpoint = "localhost:notaport";
  EXPECT_THROW(OtlpHttpLogExporter{o}, std::invalid_argument);
}

TEST(OtlpHttpLogExporterTest, ShutdownFailsLaterExports) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(1);
  auto pending = exporter.ExportFuture(b.View());
  EXPECT_TRUE(exporter.Shutdown(std::chrono::seconds(30)));  // waits for the one in flight
  EXPECT_EQ(pending.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(pending.get(), ExportResult::kSuccess);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.ExportFuture(b.View()).get(), ExportResult::kFailure);
  EXPECT_EQ(server.store().size(), 1u);
}

// milliseconds::max() is "no limit": ForceFlush and Shutdown wait for the export in
// flight instead of overflowing into a deadline in the past. An export is in flight until
// its callback has returned, so a slow callback keeps it there.
TEST(OtlpHttpLogExporterTest, NoTimeLimitWaitsForExportsInFlight) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(1);
  std::atomic<int> done{0};
  const auto slow_callback = [&](ExportResult r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (r == ExportResult::kSuccess) done.fetch_add(1);
  };
  exporter.ExportAsync(b.View(), slow_callback);
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::milliseconds::max()));
  EXPECT_EQ(done.load(), 1);
  exporter.ExportAsync(b.View(), slow_callback);
  EXPECT_TRUE(exporter.Shutdown(std::chrono::milliseconds::max()));
  EXPECT_EQ(done.load(), 2);
  EXPECT_EQ(server.store().size(), 2u);
}

TEST(OtlpHttpLogExporterTest, BatchProcessorFromManyThreadsDeliversEveryRecord) {
  tern::test::RecordingHttpServer server;
  auto exporter = std::make_shared<OtlpHttpLogExporter>(Options(server.endpoint()));
  BatchLogRecordProcessorOptions po;
  po.max_queue_size = 8192;  // above what the emitters produce: nothing is dropped
  po.max_export_batch_size = 100;
  auto processor = std::make_unique<BatchLogRecordProcessor>(exporter, po);
  const auto* proc = processor.get();
  LoggerProvider provider(Resource{{"service.name", "batch"}}, std::move(processor));
  Logger& logger = provider.GetLogger("emitter");
  constexpr int kThreads = 4, kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        LogRecord r;
        r.SetBody("hello").AddAttribute("i", i);
        logger.Emit(r);
      }
    });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(provider.Shutdown(std::chrono::seconds(60)));
  EXPECT_EQ(proc->dropped_count(), 0u);
  EXPECT_EQ(DecodedRecords(server.store()), static_cast<std::size_t>(kThreads * kPerThread));
}

TEST(OtlpGrpcLogExporterTest, SendsToTheLogsServiceWithMetadata) {
  tern::test::RecordingGrpcServer server;
  auto o = Options(server.endpoint());
  o.headers = {{"x-test", "grpc"}};
  OtlpGrpcLogExporter exporter(o);
  BatchBuilder b;
  b.Add(6, "grpc");
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kSuccess);
  EXPECT_EQ(exporter.ExportFuture(b.View()).get(), ExportResult::kSuccess);
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r.path, "/opentelemetry.proto.collector.logs.v1.LogsService/Export");
    EXPECT_EQ(r.headers.at("x-test"), "grpc");
    pdata::LogsData d = Decode(r.body);
    ASSERT_EQ(d.record_count(), 6u);
    const auto& rec = d.resource_logs[0].scope_logs[0].log_records[5];
    EXPECT_EQ(rec.body.string_value, "record 5");
    EXPECT_EQ(pdata::find_attribute(rec.attributes, "tag")->string_value, "grpc");
  }
  EXPECT_EQ(exporter.stats().exported_records, 12u);
}

TEST(OtlpGrpcLogExporterTest, ErrorStatusIsAFailure) {
  tern::test::RecordingGrpcServer server(grpc::StatusCode::INVALID_ARGUMENT);
  OtlpGrpcLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(2);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.ExportFuture(b.View()).get(), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed_records, 4u);
}

// TLS with the OpenTelemetry C++ SDK's option names: the server verified against the CA
// file, a client certificate for mutual TLS; the same options without use_ssl_credentials
// talk plaintext, which a TLS server refuses.
OtlpLogExporterOptions TlsOptions(const std::string& endpoint) {
  const auto& c = tern::test::test_certs();
  auto o = Options(endpoint);
  o.use_ssl_credentials = true;
  o.ssl_credentials_cacert_path = c.ca_cert;
  o.ssl_client_cert_path = c.client_cert;
  o.ssl_client_key_path = c.client_key;
  return o;
}

TEST(OtlpHttpLogExporterTest, MutualTls) {
  const auto& c = tern::test::test_certs();
  tern::test::RecordingHttpServer server(net::TlsServerOptions{c.server_cert, c.server_key, c.ca_cert});
  BatchBuilder b;
  b.Add(3);
  EXPECT_EQ(OtlpHttpLogExporter(TlsOptions(server.endpoint())).Export(b.View()), ExportResult::kSuccess);
  auto plain = TlsOptions(server.endpoint());
  plain.use_ssl_credentials = false;
  EXPECT_EQ(OtlpHttpLogExporter(plain).Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(DecodedRecords(server.store()), 3u);
}

TEST(OtlpGrpcLogExporterTest, MutualTls) {
  const auto& c = tern::test::test_certs();
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  grpc::SslServerCredentialsOptions so(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  so.pem_root_certs = read(c.ca_cert);
  so.pem_key_cert_pairs.push_back({read(c.server_key), read(c.server_cert)});
  tern::test::RecordingGrpcServer server(grpc::StatusCode::OK, grpc::SslServerCredentials(so));
  BatchBuilder b;
  b.Add(4);
  EXPECT_EQ(OtlpGrpcLogExporter(TlsOptions(server.endpoint())).Export(b.View()), ExportResult::kSuccess);
  auto no_cert = TlsOptions(server.endpoint());
  no_cert.ssl_client_cert_path.clear();
  no_cert.ssl_client_key_path.clear();
  EXPECT_EQ(OtlpGrpcLogExporter(no_cert).Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(DecodedRecords(server.store()), 4u);
}

// The endpoint's scheme decides, whatever use_ssl_credentials says: https:// is TLS with the
// given CA and client certificate (they used to be ignored without use_ssl_credentials, and
// the system's CAs refused the test CA), http:// is plaintext (gRPC used TLS with
// use_ssl_credentials set).
TEST(OtlpHttpLogExporterTest, HttpsEndpointUsesTlsWithTheGivenFiles) {
  const auto& c = tern::test::test_certs();
  tern::test::RecordingHttpServer server(net::TlsServerOptions{c.server_cert, c.server_key, c.ca_cert});
  BatchBuilder b;
  b.Add(2);
  auto o = TlsOptions("https://" + server.endpoint());
  o.use_ssl_credentials = false;
  EXPECT_EQ(OtlpHttpLogExporter(o).Export(b.View()), ExportResult::kSuccess);
  EXPECT_EQ(DecodedRecords(server.store()), 2u);
}

TEST(OtlpGrpcLogExporterTest, HttpsEndpointUsesTlsWithTheGivenFiles) {
  const auto& c = tern::test::test_certs();
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  grpc::SslServerCredentialsOptions so(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  so.pem_root_certs = read(c.ca_cert);
  so.pem_key_cert_pairs.push_back({read(c.server_key), read(c.server_cert)});
  tern::test::RecordingGrpcServer server(grpc::StatusCode::OK, grpc::SslServerCredentials(so));
  BatchBuilder b;
  b.Add(2);
  auto o = TlsOptions("https://" + server.endpoint());
  o.use_ssl_credentials = false;
  EXPECT_EQ(OtlpGrpcLogExporter(o).Export(b.View()), ExportResult::kSuccess);
  EXPECT_EQ(DecodedRecords(server.store()), 2u);
}

TEST(OtlpGrpcLogExporterTest, HttpEndpointIsPlaintextEvenWithSslCredentials) {
  tern::test::RecordingGrpcServer server;  // plaintext
  BatchBuilder b;
  b.Add(2);
  auto o = TlsOptions("http://" + server.endpoint());  // use_ssl_credentials set
  EXPECT_EQ(OtlpGrpcLogExporter(o).Export(b.View()), ExportResult::kSuccess);
  EXPECT_EQ(DecodedRecords(server.store()), 2u);
}

TEST(OtlpHttpLogExporterTest, HttpEndpointIsPlaintextEvenWithSslCredentials) {
  tern::test::RecordingHttpServer server;  // plaintext
  BatchBuilder b;
  b.Add(2);
  EXPECT_EQ(OtlpHttpLogExporter(TlsOptions("http://" + server.endpoint())).Export(b.View()),
            ExportResult::kSuccess);
  EXPECT_EQ(DecodedRecords(server.store()), 2u);
}

// ForceFlush covers the exports begun before it: with four threads exporting without a
// pause (the simple processor's pattern), waiting for no export at all in flight used to
// time out.
TEST(OtlpHttpLogExporterTest, ForceFlushEndsWhileOtherThreadsKeepExporting) {
  tern::test::RecordingHttpServer server;
  server.set_default({200, "", {}, std::chrono::milliseconds(50)});
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      BatchBuilder b;
      b.Add(1);
      while (!stop.load()) exporter.Export(b.View());
    });
  ASSERT_TRUE(testing::WaitFor([&] { return exporter.stats().exported_records > 0; }));
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::seconds(5)));
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::seconds(5)));  // again: a new epoch each time
  stop.store(true);
  for (auto& th : threads) th.join();
}

// ForceFlush still waits for an export begun before it (here: one whose callback is slow).
TEST(OtlpHttpLogExporterTest, ForceFlushWaitsForEarlierAsyncExports) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(1);
  std::atomic<int> done{0};
  exporter.ExportAsync(b.View(), [&](ExportResult) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    done.fetch_add(1);
  });
  EXPECT_TRUE(exporter.ForceFlush(std::chrono::seconds(20)));
  EXPECT_EQ(done.load(), 1);
}

TEST(OtlpGrpcLogExporterTest, BadEndpointsThrowAtConstruction) {
  for (const char* ep : {"127.0.0.1:99999", "127.0.0.1:abc", "127.0.0.1:0", "127.0.0.1", "[::1]:70000",
                         "http://127.0.0.1:99999"}) {
    OtlpLogExporterOptions o;
    o.endpoint = ep;
    EXPECT_THROW(OtlpGrpcLogExporter{o}, std::invalid_argument) << ep;
  }
  // gRPC targets the client takes are not refused (the check is the client's own).
  for (const char* ep : {"[::1]:4317", "unix:/tmp/otlp.sock", "unix-abstract:otlp", "vsock:2:4317"}) {
    OtlpLogExporterOptions o;
    o.endpoint = ep;
    EXPECT_NO_THROW(OtlpGrpcLogExporter{o}) << ep;
  }
}

// A URL without a port means its scheme's, as URLs do (and the OpenTelemetry C++ SDK's
// OTLP/HTTP exporter, whose endpoint is a URL): the client's error names the URL it used.
// (A bare host means 4318; not sent to here: a collector may be listening there.)
TEST(OtlpHttpLogExporterTest, BadPortsThrowAndAUrlWithoutPortUsesTheSchemes) {
  for (const char* ep : {"127.0.0.1:99999", "http://127.0.0.1:abc/v1/logs", "https://[::1]:0",
                         "http://::1:4318", "http://", "127.0.0.1:"}) {
    OtlpLogExporterOptions o;
    o.endpoint = ep;
    EXPECT_THROW(OtlpHttpLogExporter{o}, std::invalid_argument) << ep;
  }
  auto o = Options("http://127.0.0.1/v1/logs");
  o.timeout = std::chrono::seconds(5);
  OtlpHttpLogExporter exporter(o);
  EXPECT_EQ(exporter.last_error(), "");
  BatchBuilder b;
  b.Add(1);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);  // nothing (OTLP) listens there
  EXPECT_NE(exporter.last_error().find("http://127.0.0.1:80/v1/logs"), std::string::npos)
      << exporter.last_error();
}

// The error of the latest failed request is kept, the URL (port included) in it.
TEST(OtlpHttpLogExporterTest, LastErrorNamesTheUrlAndTheStatus) {
  tern::test::RecordingHttpServer server;
  server.set_default({500, "boom", {}});
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  BatchBuilder b;
  b.Add(1);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  const std::string e = exporter.last_error();
  EXPECT_NE(e.find("HTTP 500 from http://" + server.endpoint() + "/v1/logs"), std::string::npos) << e;
  EXPECT_NE(e.find("boom"), std::string::npos) << e;
}

TEST(OtlpHttpLogExporterTest, ExportsRefusedAfterShutdownCountAsFailed) {
  tern::test::RecordingHttpServer server;
  OtlpHttpLogExporter exporter(Options(server.endpoint()));
  ASSERT_TRUE(exporter.Shutdown(std::chrono::seconds(5)));
  BatchBuilder b;
  b.Add(3);
  EXPECT_EQ(exporter.Export(b.View()), ExportResult::kFailure);
  EXPECT_EQ(exporter.ExportFuture(b.View()).get(), ExportResult::kFailure);
  EXPECT_EQ(exporter.stats().failed_records, 6u);
  EXPECT_EQ(server.store().size(), 0u);
}

// A Shutdown whose wait runs out cancels the exports still sending (a peer that never
// answers, no attempt timeout): their callbacks run with kFailure and the destructor,
// which waits for them, returns. Shutdown(0) does it at once.
TEST(OtlpLogExporterTest, TimedOutShutdownCancelsExportsInFlight) {
  for (const bool grpc : {false, true}) {
    for (const auto wait : {std::chrono::milliseconds(100), std::chrono::milliseconds(0)}) {
      SCOPED_TRACE(std::string(grpc ? "grpc" : "http") + " shutdown " + std::to_string(wait.count()) + "ms");
      Blackhole peer;
      auto o = Options(peer.endpoint());
      o.timeout = std::chrono::milliseconds(0);  // none: only a cancel ends the export
      std::unique_ptr<OtlpLogExporter> exporter;
      if (grpc)
        exporter = std::make_unique<OtlpGrpcLogExporter>(o);
      else
        exporter = std::make_unique<OtlpHttpLogExporter>(o);
      BatchBuilder b;
      b.Add(2);
      auto pending = exporter->ExportFuture(b.View());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // most likely sending by now
      EXPECT_FALSE(exporter->Shutdown(wait));
      const bool ended = pending.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
      EXPECT_TRUE(ended) << "liveness bound: the export in flight was not cancelled";
      if (!ended) peer.close();  // ends it, so that the destructor below returns
      EXPECT_EQ(pending.get(), ExportResult::kFailure);
      exporter.reset();
    }
  }
}

// The batch processor's timed-out Shutdown aborts its export thread's blocked Export with
// the exporter's Shutdown(0): the processor (and the process) can then exit.
TEST(OtlpLogExporterTest, BatchProcessorShutdownTimeoutEndsABlockedExport) {
  Blackhole peer;
  auto o = Options(peer.endpoint());
  o.timeout = std::chrono::milliseconds(0);
  auto exporter = std::make_shared<OtlpHttpLogExporter>(o);
  auto processor = std::make_unique<BatchLogRecordProcessor>(exporter);
  std::atomic<bool> finished{false};
  std::thread closer([&] {  // only if the test fails: ends the export, so nothing hangs
    for (int i = 0; i < 1000 && !finished.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!finished.load()) peer.close();
  });
  const auto started = std::chrono::steady_clock::now();
  {
    LoggerProvider provider(Resource{{"service.name", "blocked"}}, std::move(processor));
    LogRecord r;
    r.SetBody("never answered");
    provider.GetLogger("l").Emit(r);
    EXPECT_FALSE(provider.ForceFlush(std::chrono::milliseconds(300)));  // the export is now sending
    EXPECT_FALSE(provider.Shutdown(std::chrono::milliseconds(100)));
  }  // joins the export thread
  finished.store(true);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << "liveness bound";
  closer.join();
  EXPECT_EQ(exporter->stats().failed_records, 1u);
}

// A ForceFlush that timed out leaves its export in flight; the next ForceFlush still
// waits for it (it began before that call too) instead of returning true at once.
TEST(OtlpHttpLogExporterTest, ForceFlushAfterATimedOutOneStillWaitsForTheEarlierExport) {
  Blackhole peer;
  auto o = Options(peer.endpoint());
  o.timeout = std::chrono::milliseconds(0);
  OtlpHttpLogExporter exporter(o);
  BatchBuilder b;
  b.Add(1);
  auto pending = exporter.ExportFuture(b.View());
  EXPECT_FALSE(exporter.ForceFlush(std::chrono::milliseconds(100)));
  EXPECT_FALSE(exporter.ForceFlush(std::chrono::milliseconds(100)));
  EXPECT_FALSE(exporter.ForceFlush(std::chrono::milliseconds(100)));
  EXPECT_EQ(pending.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  EXPECT_FALSE(exporter.Shutdown(std::chrono::milliseconds(0)));  // cancels it
  if (pending.wait_for(std::chrono::seconds(10)) != std::future_status::ready) peer.close();
  EXPECT_EQ(pending.get(), ExportResult::kFailure);
}

}  // namespace
}  // namespace tern::sdk::logs
