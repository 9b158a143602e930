// The OTLP clients against recording in-test servers on loopback.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <ctime>
#include <thread>

#include "exporter/otlp/otlp_client.h"
#include "exporter/otlp/test_servers.h"
#include "gen/workload.h"
#include "otlp/proto_codec.h"
#include "support/silent_peer.h"

namespace tern::exporter::otlp {
namespace {

using test::decoded_logs;
using test::logs_request;

// An ExportLogsServiceResponse with partial_success {rejected_log_records: 3, error_message: "bad"}.
std::string partial_success_response() {
  std::string ps = std::string("\x08\x03\x12\x03", 4) + "bad";
  return std::string("\x0a") + static_cast<char>(ps.size()) + ps;
}

TEST(OtlpHttpClient, SendsProtobufWithHeadersOnOneConnection) {
  test::RecordingHttpServer server;
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  o.headers = {{"X-Test", "yes"}};
  auto client = make_otlp_client(o);
  const std::string body = logs_request(5);
  for (int i = 0; i < 3; ++i) {
    auto st = client->export_request(pdata::Signal::Logs, body);
    ASSERT_TRUE(st.ok) << st.message;
    EXPECT_EQ(st.code, 200);
    EXPECT_EQ(st.attempts, 1);
  }
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 3u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r.path, "/v1/logs");
    EXPECT_EQ(r.headers.at("content-type"), "application/x-protobuf");
    EXPECT_EQ(r.headers.at("x-test"), "yes");
    EXPECT_EQ(r.headers.at("user-agent").rfind("Tern/", 0), 0u) << r.headers.at("user-agent");
    EXPECT_FALSE(r.was_gzip);
    EXPECT_EQ(decoded_logs(r.body), 5u);
  }
}

TEST(OtlpHttpClient, GzipAndPathPerSignal) {
  test::RecordingHttpServer server;
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = "http://" + server.endpoint();
  o.gzip = true;
  auto client = make_otlp_client(o);
  ASSERT_TRUE(client->export_request(pdata::Signal::Logs, logs_request(2)).ok);
  ASSERT_TRUE(client->export_request(pdata::Signal::Traces, "").ok);
  ASSERT_TRUE(client->export_request(pdata::Signal::Metrics, "").ok);
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_TRUE(reqs[0].was_gzip);
  EXPECT_EQ(reqs[0].headers.at("content-encoding"), "gzip");
  EXPECT_EQ(decoded_logs(reqs[0].body), 2u);
  EXPECT_EQ(reqs[1].path, "/v1/traces");
  EXPECT_EQ(reqs[2].path, "/v1/metrics");
}

TEST(OtlpHttpClient, PartialSuccessIsReported) {
  test::RecordingHttpServer server;
  server.set_default({200, partial_success_response(), {}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(4));
  ASSERT_TRUE(st.ok);
  EXPECT_EQ(st.rejected, 3);
  EXPECT_EQ(st.message, "bad");
}

TEST(OtlpHttpClient, RetriesRetryableStatusHonouringRetryAfter) {
  test::RecordingHttpServer server;
  server.script({{503, "", {{"Retry-After", "0"}}}, {429, "", {}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  o.max_retries = 2;
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(st.attempts, 3);
  EXPECT_EQ(server.store().size(), 3u);
}

TEST(OtlpHttpClient, ErrorStatusAndRefusedConnectionAreErrors) {
  test::RecordingHttpServer server;
  server.set_default({500, "boom", {}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, 500);
  EXPECT_NE(st.message.find("HTTP 500"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("boom"), std::string::npos) << st.message;

  o.endpoint = "127.0.0.1:1";  // nothing listens on port 1
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, -1);
  EXPECT_NE(st.message.find("refused"), std::string::npos) << st.message;
}

// OTLP answers an error with a google.rpc.Status in the request's encoding: the message is
// what the user reads, not the Status's raw bytes.
TEST(OtlpHttpClient, ErrorsReadTheStatusMessage) {
  test::RecordingHttpServer server;
  // google.rpc.Status {code: 8, message: "sending queue is full"}
  const std::string status = std::string("\x08\x08\x12\x15", 4) + "sending queue is full";
  server.set_default({400, status, {{"Content-Type", "application/x-protobuf"}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message, "HTTP 400 from http://" + server.endpoint() + "/v1/logs: sending queue is full");

  server.set_default({400, R"({"code":3,"message":"bad \"data\""})", {{"Content-Type", "application/json"}}});
  o.encoding = Encoding::Json;
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_EQ(st.message, "HTTP 400 from http://" + server.endpoint() + "/v1/logs: bad \"data\"");

  server.set_default({400, std::string("\x01oops\n", 6), {{"Content-Type", "text/plain"}}});
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_EQ(st.message, "HTTP 400 from http://" + server.endpoint() + "/v1/logs: \\x01oops\\x0a");
}

TEST(ParseJsonExportResponse, ReadsPartialSuccess) {
  std::int64_t rejected = -1;
  std::string msg = "x";
  EXPECT_TRUE(parse_json_export_response("", rejected, msg));
  EXPECT_EQ(rejected, 0);
  EXPECT_EQ(msg, "");
  EXPECT_TRUE(parse_json_export_response(
      R"({"partialSuccess":{"errorMessage":"3 \"bad\" records","rejectedLogRecords":"3"}})", rejected, msg));
  EXPECT_EQ(rejected, 3);
  EXPECT_EQ(msg, "3 \"bad\" records");
  EXPECT_TRUE(parse_json_export_response(R"({"partial_success":{"rejected_spans":7}})", rejected, msg));
  EXPECT_EQ(rejected, 7);
  EXPECT_EQ(msg, "");
  EXPECT_TRUE(parse_json_export_response(R"({"partialSuccess":{}})", rejected, msg));
  EXPECT_EQ(rejected, 0);
  EXPECT_FALSE(parse_json_export_response("not json", rejected, msg));
}

TEST(OtlpHttpClient, BadEndpointThrows) {
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = "localhost:notaport";
  EXPECT_THROW(make_otlp_client(o), std::invalid_argument);
}

// compression: zstd (otlphttp, as the Collector's): Content-Encoding zstd, the body one zstd
// frame of the request.
TEST(OtlpHttpClient, ZstdCompression) {
  test::RecordingHttpServer server;
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  o.zstd = true;
  const std::string body = logs_request(50);
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, body);
  ASSERT_TRUE(st.ok) << st.message;
  const auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].headers.at("content-encoding"), "zstd");
  std::string plain(body.size() + 1, '\0');
  const std::size_t n = ZSTD_decompress(plain.data(), plain.size(), reqs[0].body.data(), reqs[0].body.size());
  ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  plain.resize(n);
  EXPECT_EQ(plain, body);
  EXPECT_LT(reqs[0].body.size(), body.size());
}

// A Retry-After beyond any sense is a day, as a gRPC RetryInfo is: seconds * 1000 overflowed
// (into an immediate retry loop in the stage), and a value past 64 bits was ignored.
TEST(OtlpHttpClient, RetryAfterIsCappedAtADay) {
  test::RecordingHttpServer server;
  server.script({{503, "", {{"Retry-After", "99999999999999999"}}},
                 {503, "", {{"Retry-After", "999999999999999999999999999"}}},
                 {503, "", {{"Retry-After", "7"}}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto client = make_otlp_client(o);
  for (const auto expected : {86'400'000, 86'400'000, 7'000}) {
    auto st = client->export_request(pdata::Signal::Logs, logs_request(1));
    EXPECT_FALSE(st.ok);
    EXPECT_EQ(st.code, 503);
    EXPECT_EQ(st.retry_after, std::chrono::milliseconds(expected));
  }
}

// An HTTP-date is a hint too (RFC 9110 10.2.3): it was read as no hint, and the retry came
// at the exporter's own back-off instead of when the server asked.
TEST(OtlpHttpClient, RetryAfterAsAnHttpDate) {
  const std::time_t at = std::time(nullptr) + 60;
  std::tm tm{};
  gmtime_r(&at, &tm);
  char date[64];
  ASSERT_GT(std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm), 0u);
  test::RecordingHttpServer server;
  server.script({{503, "", {{"Retry-After", date}}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, 503);
  // 60 s from when the date was written, less the second it may have turned since.
  EXPECT_GE(st.retry_after, std::chrono::seconds(55)) << date;
  EXPECT_LE(st.retry_after, std::chrono::seconds(60)) << date;
}

// The date counts from the server's clock when it says what it is (its Date header): a server
// whose clock is an hour ahead asks for 5 s, not an hour and 5 s.
TEST(OtlpHttpClient, RetryAfterDateCountsFromTheServersDate) {
  const auto http_date = [](std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    return std::string(buf, std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm));
  };
  const std::time_t server_now = std::time(nullptr) + 3600;
  test::RecordingHttpServer server;
  server.script({{503, "", {{"Retry-After", http_date(server_now + 5)}, {"Date", http_date(server_now)}}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_EQ(st.code, 503);
  EXPECT_EQ(st.retry_after, std::chrono::seconds(5));
}

// A URL without a port has its scheme's (80, 443), as in the Collector's Go client; it was
// 4318. Nothing is expected to listen on 80 or 443 here: the message names the address.
TEST(OtlpHttpClient, UrlWithoutAPortHasItsSchemesPort) {
  for (const auto& [endpoint, url] : {std::pair{"http://127.0.0.1", "http://127.0.0.1:80/v1/logs"},
                                      std::pair{"https://127.0.0.1", "https://127.0.0.1:443/v1/logs"},
                                      std::pair{"http://127.0.0.1/base", "http://127.0.0.1:80/base"}}) {
    OtlpClientOptions o;
    o.protocol = Protocol::Http;
    o.endpoint = endpoint;
    o.timeout = std::chrono::seconds(5);
    auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
    if (st.ok) continue;  // something answers there after all
    EXPECT_NE(st.message.find(url), std::string::npos) << st.message;
  }
}

// An IPv6 address is bracketed in the Host header and in messages (RFC 9110 / 3986): it
// was "Host: ::1:4318", which no server can read as host and port.
TEST(OtlpHttpClient, IPv6AddressIsBracketed) {
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = "http://[::1]:1";  // nothing listens on port 1
  o.timeout = std::chrono::seconds(5);
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("http://[::1]:1/v1/logs"), std::string::npos) << st.message;

  std::unique_ptr<test::RecordingHttpServer> server;
  try {
    server = std::make_unique<test::RecordingHttpServer>(net::TlsServerOptions{}, "::1");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  o.endpoint = "http://[::1]:" + std::to_string(server->port());
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_EQ(server->store().size(), 1u);
  EXPECT_EQ(server->store().requests()[0].headers["host"], "[::1]:" + std::to_string(server->port()));
}

// 307 / 308 are followed for the POST, with the same body, as Go's client does: they were
// dropped as permanent errors. Only on the same server, and at most 10 hops.
TEST(OtlpHttpClient, FollowsTemporaryAndPermanentRedirectsOnTheSameServer) {
  test::RecordingHttpServer server;
  server.script({{307, "", {{"Location", "/moved/logs"}}},
                 {308, "", {{"Location", "http://" + server.endpoint() + "/final"}}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  const std::string body = logs_request(2);
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, body);
  ASSERT_TRUE(st.ok) << st.message;
  const auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].path, "/v1/logs");
  EXPECT_EQ(reqs[1].path, "/moved/logs");
  EXPECT_EQ(reqs[2].path, "/final");
  for (const auto& r : reqs) EXPECT_EQ(r.body, body);

  // Elsewhere: not followed, a clear error. And a loop ends.
  server.script({{307, "", {{"Location", "http://elsewhere.invalid/v1/logs"}}}});
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, body);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, 307);
  EXPECT_NE(st.message.find("not followed"), std::string::npos) << st.message;
  server.set_default({307, "", {{"Location", "/again"}}});
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, body);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, 307);
}

// gRPC endpoints are host:port with a port 1-65535 (or a gRPC target URI): "127.0.0.1" and
// "127.0.0.1:abc" became ipv4:127.0.0.1:0, retried forever.
TEST(OtlpGrpcClient, EndpointNeedsAValidPort) {
  for (const char* bad : {"127.0.0.1", "127.0.0.1:abc", "127.0.0.1:0", "127.0.0.1:65536",
                          "127.0.0.1:", ":4317", "::1:4317", "[::1]", "http://127.0.0.1"}) {
    SCOPED_TRACE(bad);
    OtlpClientOptions o;
    o.endpoint = bad;
    EXPECT_THROW(make_otlp_client(o), std::invalid_argument);
  }
  for (const char* good : {"127.0.0.1:4317", "localhost:65535", "[::1]:4317", "http://127.0.0.1:4317",
                           "dns:///localhost:4317", "unix:///tmp/otlp.sock"}) {
    SCOPED_TRACE(good);
    OtlpClientOptions o;
    o.endpoint = good;
    EXPECT_NO_THROW(make_otlp_client(o));
  }
}

// cancel() from another thread ends a request that a peer never answers, even without a
// timeout, and every later one at once (shutdown's deadline relies on it). The peer: a
// socket listening on 127.0.0.1 that nobody accepts from (the kernel completes the
// handshake and buffers the request; gRPC's HTTP/2 handshake never completes).
TEST(OtlpClients, CancelEndsARequestInFlight) {
  tern::test::SilentPeer peer;
  const std::string endpoint = peer.endpoint();
  for (const auto protocol : {Protocol::Http, Protocol::Grpc}) {
    SCOPED_TRACE(protocol == Protocol::Http ? "http" : "grpc");
    OtlpClientOptions o;
    o.protocol = protocol;
    o.endpoint = endpoint;
    o.timeout = std::chrono::milliseconds(0);  // none: only cancel() can end it
    auto client = make_otlp_client(o);
    ExportStatus st;
    std::thread t([&] { st = client->export_request(pdata::Signal::Logs, logs_request(1)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // most likely in flight by now
    const auto started = std::chrono::steady_clock::now();
    client->cancel();
    t.join();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << "liveness bound";
    EXPECT_FALSE(st.ok);
    EXPECT_EQ(st.code, protocol == Protocol::Http ? -1 : 1);  // 1: CANCELLED
    const auto again = client->export_request(pdata::Signal::Logs, logs_request(1));
    EXPECT_FALSE(again.ok);
  }
}

// cancel() also ends a retry's back-off: a shutdown does not wait out a Retry-After.
TEST(OtlpHttpClient, CancelEndsARetryBackOff) {
  test::RecordingHttpServer server;
  server.script({{503, "", {{"Retry-After", "30"}}}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  o.max_retries = 1;
  o.max_retry_wait = std::chrono::seconds(30);
  auto client = make_otlp_client(o);
  ExportStatus st;
  std::thread t([&] { st = client->export_request(pdata::Signal::Logs, logs_request(1)); });
  for (int i = 0; i < 1000 && server.store().size() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(server.store().size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // most likely backing off by now
  const auto started = std::chrono::steady_clock::now();
  client->cancel();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << "liveness bound";
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, -1);
  EXPECT_EQ(st.attempts, 1) << st.message;
  EXPECT_EQ(server.store().size(), 1u);  // not sent again
}

TEST(OtlpGrpcClient, SendsToTheServiceMethodWithMetadata) {
  test::RecordingGrpcServer server;
  OtlpClientOptions o;
  o.protocol = Protocol::Grpc;
  o.endpoint = server.endpoint();
  o.headers = {{"X-Test", "yes"}};
  o.gzip = true;
  auto client = make_otlp_client(o);
  const std::string body = logs_request(7);
  for (int i = 0; i < 2; ++i) {
    auto st = client->export_request(pdata::Signal::Logs, body);
    ASSERT_TRUE(st.ok) << st.message;
  }
  ASSERT_TRUE(client->export_request(pdata::Signal::Traces, "").ok);
  ASSERT_TRUE(client->export_request(pdata::Signal::Metrics, "").ok);
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[0].path, "/opentelemetry.proto.collector.logs.v1.LogsService/Export");
  EXPECT_EQ(reqs[0].headers.at("x-test"), "yes");
  EXPECT_EQ(decoded_logs(reqs[0].body), 7u);
  EXPECT_EQ(reqs[2].path, "/opentelemetry.proto.collector.trace.v1.TraceService/Export");
  EXPECT_EQ(reqs[3].path, "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export");
}

TEST(OtlpGrpcClient, ErrorsCarryTheStatus) {
  test::RecordingGrpcServer server(grpc::StatusCode::INVALID_ARGUMENT);
  OtlpClientOptions o;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_NE(st.message.find("scripted failure"), std::string::npos) << st.message;

  o.endpoint = "127.0.0.1:1";
  o.timeout = std::chrono::milliseconds(2000);
  st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, static_cast<int>(grpc::StatusCode::UNAVAILABLE));
}

// A timeout of 0 is none, as in the Collector: before, every request failed at once (and
// the stage's retries sent it again and again).
TEST(OtlpClients, ZeroTimeoutMeansNone) {
  test::RecordingHttpServer http;
  test::RecordingGrpcServer grpc;
  for (const auto& [protocol, endpoint] :
       {std::pair{Protocol::Http, http.endpoint()}, std::pair{Protocol::Grpc, grpc.endpoint()}}) {
    OtlpClientOptions o;
    o.protocol = protocol;
    o.endpoint = endpoint;
    o.timeout = std::chrono::milliseconds(0);
    auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(3));
    ASSERT_TRUE(st.ok) << st.message;
    EXPECT_EQ(st.attempts, 1);
  }
  EXPECT_EQ(http.store().size(), 1u);
  EXPECT_EQ(grpc.store().size(), 1u);
}

// A google.rpc.Status holding a RetryInfo; `delay_field`: its retry_delay's bytes (a
// Duration), absent when empty.
std::string status_with_retry_info(const std::string& delay_field) {
  const auto len = [](const std::string& b) { return std::string(1, static_cast<char>(b.size())); };
  const std::string retry_info = delay_field.empty() ? "" : "\x0a" + len(delay_field) + delay_field;
  const std::string type = "type.googleapis.com/google.rpc.RetryInfo";
  const std::string any = "\x0a" + len(type) + type + "\x12" + len(retry_info) + retry_info;
  return "\x08\x08" + std::string("\x1a") + len(any) + any;  // code 8, details
}

// It is the presence of a RetryInfo that makes RESOURCE_EXHAUSTED retryable (the OTLP
// spec), whatever its delay: a zero or missing one made the stage drop the data.
TEST(ParseRetryInfo, PresenceAndDelay) {
  EXPECT_EQ(parse_retry_info(status_with_retry_info("\x08\x02")), std::chrono::milliseconds(2000));  // 2 s
  EXPECT_EQ(parse_retry_info(status_with_retry_info("\x10\x80\x84\xaf\x5f")),
            std::chrono::milliseconds(200));  // 0.2 s
  EXPECT_EQ(parse_retry_info(status_with_retry_info("\x08\x00")), std::chrono::milliseconds(0));
  EXPECT_EQ(parse_retry_info(status_with_retry_info("")), std::chrono::milliseconds(0));
  EXPECT_EQ(parse_retry_info(status_with_retry_info("\x08\xa0\x8d\x06")),
            std::chrono::milliseconds(86'400'000));       // 100,000 s: a day
  EXPECT_EQ(parse_retry_info("\x08\x08"), std::nullopt);  // a Status without details
  EXPECT_EQ(parse_retry_info(""), std::nullopt);
}

TEST(OtlpGrpcClient, RetryInfoWithoutDelayIsReported) {
  test::RecordingGrpcServer server(grpc::StatusCode::RESOURCE_EXHAUSTED, nullptr, status_with_retry_info(""));
  OtlpClientOptions o;
  o.endpoint = server.endpoint();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));
  EXPECT_TRUE(st.retry_info);
  EXPECT_EQ(st.retry_after, std::chrono::milliseconds(0));
  test::RecordingGrpcServer plain(grpc::StatusCode::RESOURCE_EXHAUSTED);
  o.endpoint = plain.endpoint();
  EXPECT_FALSE(make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1)).retry_info);
}

// The client's own retries wait a RetryInfo's delay (it retried after its 100 ms back-off),
// and cancel() ends that wait: a shutdown does not wait it out (it slept through it).
TEST(OtlpGrpcClient, RetryWaitsRetryInfoAndCancelEndsIt) {
  test::RecordingGrpcServer server(grpc::StatusCode::UNAVAILABLE, nullptr,
                                   status_with_retry_info("\x08\x1e"));  // 30 s
  OtlpClientOptions o;
  o.endpoint = server.endpoint();
  o.max_retries = 1;
  o.max_retry_wait = std::chrono::seconds(30);
  auto client = make_otlp_client(o);
  ExportStatus st;
  std::thread t([&] { st = client->export_request(pdata::Signal::Logs, logs_request(1)); });
  for (int i = 0; i < 1000 && server.store().size() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(server.store().size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // past the old 100 ms back-off
  EXPECT_EQ(server.store().size(), 1u) << "retried before the server's RetryInfo delay";
  const auto started = std::chrono::steady_clock::now();
  client->cancel();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << "liveness bound";
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, static_cast<int>(grpc::StatusCode::CANCELLED));
  EXPECT_EQ(st.attempts, 1) << st.message;
  EXPECT_EQ(server.store().size(), 1u);  // not sent again
}

// A timeout on a reused keep-alive connection is an answer that did not come, not a
// connection the server had closed: it is the caller's to retry (counted, with back-off),
// not sent again at once and silently (the server had it, and ingested it twice).
TEST(OtlpHttpClient, ATimeoutOnAReusedConnectionIsNotResent) {
  test::RecordingHttpServer server;
  server.script({{200, "", {}, {}}, {200, "", {}, std::chrono::milliseconds(1500)}});
  OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = server.endpoint();
  o.timeout = std::chrono::milliseconds(300);
  auto client = make_otlp_client(o);
  ASSERT_TRUE(client->export_request(pdata::Signal::Logs, logs_request(1)).ok);
  const auto st = client->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.attempts, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1700));  // the slow answer is done
  EXPECT_EQ(server.store().size(), 2u);
}

TEST(ParseExportResponse, ReadsPartialSuccess) {
  std::int64_t rejected = -1;
  std::string msg;
  EXPECT_TRUE(parse_export_response("", rejected, msg));
  EXPECT_EQ(rejected, 0);
  EXPECT_TRUE(parse_export_response(partial_success_response(), rejected, msg));
  EXPECT_EQ(rejected, 3);
  EXPECT_EQ(msg, "bad");
  EXPECT_FALSE(parse_export_response("\x0a\x05", rejected, msg));
}

}  // namespace
}  // namespace tern::exporter::otlp
