// OTLP/HTTP receiver tests against a real server on 127.0.0.1 (ephemeral port), with a
// Beast client.
#include <gtest/gtest.h>
#include <libdeflate.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "compression/gzip.h"
#include "compression/zstd.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "receiver/otlp/export_core.h"
#include "receiver/otlp/otlp_receiver.h"
#include "receiver/otlp/test_util.h"

namespace tern::receiver::otlp::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr const char* kProto = "application/x-protobuf";
constexpr const char* kJson = "application/json";

struct Reply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }

  Reply call(http::verb method, const std::string& target, std::string body, const Headers& headers = {}) {
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, "127.0.0.1");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = std::move(body);
    req.prepare_payload();
    http::write(stream_, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    parser.skip(method == http::verb::head);  // the answer to HEAD has no body, whatever its length
    http::read(stream_, buffer, parser);
    auto& res = parser.get();
    Reply r;
    r.status = static_cast<int>(res.result_int());
    r.body = res.body();
    for (const auto& f : res) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = std::string(f.value());
    }
    return r;
  }

  // True once the server has closed the connection (reads EOF).
  bool closed_by_server() {
    beast::error_code ec;
    char c;
    stream_.socket().read_some(asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

 private:
  asio::io_context ioc_;
  beast::tcp_stream stream_;
};

class OtlpHttpTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> cors_origins, std::size_t max_body = 256 * 1024,
             std::uint64_t cors_max_age = 7200) {
    receiver::otlp::OtlpReceiverConfig c;
    c.http.enabled = true;
    c.http.endpoint = "127.0.0.1:0";
    c.http.max_request_body_size = max_body;
    c.http.cors_allowed_origins = std::move(cors_origins);
    c.http.cors_allowed_headers = {"X-Custom"};
    c.http.cors_max_age = cors_max_age;
    receiver_.reset();
    receiver_ =
        std::make_unique<OtlpReceiver>(c, consumer_, OtlpReceiverOptions{2, 1, std::chrono::seconds(10)});
    receiver_->start();
    ASSERT_NE(receiver_->http_port(), 0);
    EXPECT_EQ(receiver_->grpc_port(), 0);
  }

  Reply post(const std::string& path, std::string body, const std::string& content_type, Headers extra = {}) {
    extra.emplace_back("Content-Type", content_type);
    HttpClient client(receiver_->http_port());
    return client.call(http::verb::post, path, std::move(body), extra);
  }

  RecordingConsumer consumer_;
  std::unique_ptr<OtlpReceiver> receiver_;
};

std::string logs_proto() {
  std::string out;
  tern::otlp::encode_logs_proto(*make_logs(), out);
  return out;
}
std::string logs_json() {
  std::string out;
  tern::otlp::encode_logs_json(*make_logs(), out);
  return out;
}

void expect_logs_content(const pdata::LogsData& d) {
  ASSERT_EQ(d.record_count(), 2u);
  const auto& rl = d.resource_logs.at(0);
  auto* svc = pdata::find_attribute(rl.resource.attributes, "service.name");
  ASSERT_NE(svc, nullptr);
  EXPECT_EQ(svc->string_value, "svc");
  const auto& sl = rl.scope_logs.at(0);
  EXPECT_EQ(sl.scope.name, "scope");
  EXPECT_EQ(sl.log_records[0].body.string_value, "hello");
  EXPECT_EQ(sl.log_records[1].body.string_value, "world");
  EXPECT_EQ(sl.log_records[0].severity_number, 9);
  EXPECT_EQ(sl.log_records[0].severity_text, "INFO");
  EXPECT_EQ(sl.log_records[0].time_unix_nano, 1700000000000000000ull);
  EXPECT_EQ(sl.log_records[0].trace_id[0], 0xab);
  EXPECT_EQ(sl.log_records[0].trace_id[15], 0x01);
  auto* n = pdata::find_attribute(sl.log_records[1].attributes, "n");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->int_value, 42);
}

void expect_traces_content(const pdata::TracesData& d) {
  ASSERT_EQ(d.span_count(), 1u);
  const auto& s = d.resource_spans.at(0).scope_spans.at(0).spans.at(0);
  EXPECT_EQ(s.name, "GET /");
  EXPECT_EQ(s.kind, pdata::SpanKind::Server);
  EXPECT_EQ(s.trace_id[7], 0x11);
  EXPECT_EQ(s.span_id[7], 0x22);
  EXPECT_EQ(s.parent_span_id[0], 0x33);
  EXPECT_EQ(s.start_time_unix_nano, 1000u);
  EXPECT_EQ(s.end_time_unix_nano, 2000u);
  auto* m = pdata::find_attribute(s.attributes, "http.method");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->string_value, "GET");
}

void expect_metrics_content(const pdata::MetricsData& d) {
  ASSERT_EQ(d.data_point_count(), 3u);
  const auto& m = d.resource_metrics.at(0).scope_metrics.at(0).metrics.at(0);
  EXPECT_EQ(m.name, "temperature");
  EXPECT_EQ(m.unit, "Cel");
  EXPECT_EQ(m.type, pdata::MetricType::Gauge);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m.number_points[i].value_type, pdata::NumberType::Int);
    EXPECT_EQ(m.number_points[i].as_int, i + 1);
    EXPECT_EQ(m.number_points[i].time_unix_nano, 5001u + i);
  }
}

// Decodes a google.rpc.Status response body (proto).
std::pair<std::uint64_t, std::string> status_of(const std::string& body) {
  auto fields = parse_proto(body);
  EXPECT_TRUE(fields.has_value());
  if (!fields) return {};
  auto* code = find_field(*fields, 1);
  auto* msg = find_field(*fields, 2);
  return {code ? code->varint : 0, msg ? msg->bytes : ""};
}

TEST_F(OtlpHttpTest, LogsProto) {
  auto r = post("/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), kProto);
  EXPECT_EQ(r.body, "");  // ExportLogsServiceResponse without partial_success
  ASSERT_EQ(consumer_.logs.size(), 1u);
  expect_logs_content(*consumer_.logs[0]);
  auto s = receiver_->stats();
  EXPECT_EQ(s.logs.requests, 1u);
  EXPECT_EQ(s.logs.accepted, 2u);
  EXPECT_EQ(s.logs.refused, 0u);
  EXPECT_EQ(s.http_requests, 1u);
  EXPECT_GT(s.bytes_received, 0u);
}

TEST_F(OtlpHttpTest, LogsHandWrittenProto) {
  auto r = post("/v1/logs", hand_written_logs_proto(), "application/x-protobuf; charset=binary");
  EXPECT_EQ(r.status, 200);
  ASSERT_EQ(consumer_.logs.size(), 1u);
  ASSERT_EQ(consumer_.logs[0]->record_count(), 1u);
  const auto& rec = consumer_.logs[0]->resource_logs[0].scope_logs[0].log_records[0];
  EXPECT_EQ(rec.time_unix_nano, 7u);
  EXPECT_EQ(rec.body.kind, pdata::ValueKind::String);
  EXPECT_EQ(rec.body.string_value, "hand");
}

TEST_F(OtlpHttpTest, TracesAndMetricsProto) {
  std::string traces, metrics;
  tern::otlp::encode_traces_proto(*make_traces(), traces);
  tern::otlp::encode_metrics_proto(*make_metrics(), metrics);
  EXPECT_EQ(post("/v1/traces", traces, kProto).status, 200);
  EXPECT_EQ(post("/v1/metrics", metrics, kProto).status, 200);
  ASSERT_EQ(consumer_.traces.size(), 1u);
  ASSERT_EQ(consumer_.metrics.size(), 1u);
  expect_traces_content(*consumer_.traces[0]);
  expect_metrics_content(*consumer_.metrics[0]);
  auto s = receiver_->stats();
  EXPECT_EQ(s.traces.accepted, 1u);
  EXPECT_EQ(s.metrics.accepted, 3u);
}

TEST_F(OtlpHttpTest, AllSignalsJson) {
  std::string traces, metrics;
  tern::otlp::encode_traces_json(*make_traces(), traces);
  tern::otlp::encode_metrics_json(*make_metrics(), metrics);
  auto r = post("/v1/logs", logs_json(), "application/json; charset=utf-8");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), kJson);
  EXPECT_EQ(nlohmann::json::parse(r.body), nlohmann::json::object());
  EXPECT_EQ(post("/v1/traces", traces, kJson).status, 200);
  EXPECT_EQ(post("/v1/metrics", metrics, kJson).status, 200);
  ASSERT_EQ(consumer_.logs.size(), 1u);
  ASSERT_EQ(consumer_.traces.size(), 1u);
  ASSERT_EQ(consumer_.metrics.size(), 1u);
  expect_logs_content(*consumer_.logs[0]);
  expect_traces_content(*consumer_.traces[0]);
  expect_metrics_content(*consumer_.metrics[0]);
}

TEST_F(OtlpHttpTest, GzipBodies) {
  compression::GzipCompressor gz;
  std::string zproto, zjson;
  gz.compress(logs_proto(), zproto);
  gz.compress(logs_json(), zjson);
  EXPECT_EQ(post("/v1/logs", zproto, kProto, {{"Content-Encoding", "gzip"}}).status, 200);
  EXPECT_EQ(post("/v1/logs", zjson, kJson, {{"Content-Encoding", "gzip"}}).status, 200);
  ASSERT_EQ(consumer_.logs.size(), 2u);
  expect_logs_content(*consumer_.logs[0]);
  expect_logs_content(*consumer_.logs[1]);
  EXPECT_EQ(receiver_->stats().bytes_received, zproto.size() + zjson.size());
}

// zstd, as the Collector's otlphttp exporter sends it with `compression: zstd`: decoded,
// bounded by max_request_body_size like gzip, corrupt data a 400.
TEST_F(OtlpHttpTest, ZstdBodies) {
  compression::ZstdCompressor zc;
  std::string zproto, zjson, bomb;
  zc.compress(logs_proto(), zproto);
  zc.compress(logs_json(), zjson);
  EXPECT_EQ(post("/v1/logs", zproto, kProto, {{"Content-Encoding", "zstd"}}).status, 200);
  EXPECT_EQ(post("/v1/logs", zjson, kJson, {{"Content-Encoding", "ZSTD"}}).status, 200);
  ASSERT_EQ(consumer_.logs.size(), 2u);
  expect_logs_content(*consumer_.logs[0]);
  expect_logs_content(*consumer_.logs[1]);
  zc.compress(std::string(1024 * 1024, '\0'), bomb);  // over the 256 KiB limit once decoded
  auto r = post("/v1/logs", bomb, kJson, {{"Content-Encoding", "zstd"}});
  EXPECT_EQ(r.status, 413);
  r = post("/v1/logs", std::string("\x28\xb5\x2f\xfdgarbage", 11), kProto, {{"Content-Encoding", "zstd"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_of(r.body).first, 3u);
  EXPECT_NE(status_of(r.body).second.find("zstd: "), std::string::npos) << status_of(r.body).second;
  EXPECT_EQ(consumer_.logs.size(), 2u);
}

// zlib streams, as the Collector's otlphttp exporter sends them with `compression: deflate`
// (Content-Encoding: deflate, RFC 9110's name for the zlib format) or `zlib`, and as its
// receiver takes them. They were refused with 415, which OTLP clients do not retry: data lost.
std::string zlib_of(std::string_view plain) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_zlib_compress_bound(c, plain.size()), '\0');
  out.resize(libdeflate_zlib_compress(c, plain.data(), plain.size(), out.data(), out.size()));
  libdeflate_free_compressor(c);
  return out;
}

TEST_F(OtlpHttpTest, DeflateAndZlibBodies) {
  EXPECT_EQ(post("/v1/logs", zlib_of(logs_proto()), kProto, {{"Content-Encoding", "deflate"}}).status, 200);
  EXPECT_EQ(post("/v1/logs", zlib_of(logs_json()), kJson, {{"Content-Encoding", "zlib"}}).status, 200);
  ASSERT_EQ(consumer_.logs.size(), 2u);
  expect_logs_content(*consumer_.logs[0]);
  expect_logs_content(*consumer_.logs[1]);
  // Over the 256 KiB limit once decoded: 413, as for gzip.
  auto r =
      post("/v1/logs", zlib_of(std::string(1024 * 1024, '\0')), kJson, {{"Content-Encoding", "deflate"}});
  EXPECT_EQ(r.status, 413);
  // Corrupt after the zlib header, or trailing bytes after the stream: 400 naming the coding.
  r = post("/v1/logs", std::string("\x78\x9cgarbage", 9), kProto, {{"Content-Encoding", "deflate"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_of(r.body).first, 3u);
  EXPECT_NE(status_of(r.body).second.find("deflate: "), std::string::npos) << status_of(r.body).second;
  std::string trailing = zlib_of(logs_proto()) + "x";
  EXPECT_EQ(post("/v1/logs", trailing, kProto, {{"Content-Encoding", "deflate"}}).status, 400);
  EXPECT_EQ(consumer_.logs.size(), 2u);
}

TEST_F(OtlpHttpTest, BadProtoIs400WithDecoderMessage) {
  std::string bad = logs_proto();
  bad.resize(bad.size() - 3);  // truncated
  pdata::LogsData scratch;
  auto expected = tern::otlp::decode_logs_proto(bad, scratch);
  ASSERT_TRUE(expected.has_value());
  auto r = post("/v1/logs", bad, kProto);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.header("content-type"), kProto);
  auto [code, message] = status_of(r.body);
  EXPECT_EQ(code, 3u);  // INVALID_ARGUMENT
  EXPECT_EQ(message, expected->to_string());
  EXPECT_TRUE(consumer_.logs.empty());
  EXPECT_EQ(receiver_->stats().bad_requests, 1u);
}

TEST_F(OtlpHttpTest, BadJsonIs400WithDecoderMessage) {
  std::string bad = R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"x"}]}]}]})";
  pdata::LogsData scratch;
  auto expected = tern::otlp::decode_logs_json(bad, scratch);
  ASSERT_TRUE(expected.has_value());
  auto r = post("/v1/logs", bad, kJson);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.header("content-type"), kJson);
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["code"], 3);
  EXPECT_EQ(j["message"], expected->to_string());
}

TEST_F(OtlpHttpTest, CorruptGzipIs400) {
  auto r =
      post("/v1/logs", std::string("\x1f\x8b\x08\x00garbage", 11), kProto, {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_of(r.body).first, 3u);
}

TEST_F(OtlpHttpTest, OverMaxBodySizeIs413) {
  std::string big(300 * 1024, 'x');  // limit is 256 KiB
  auto r = post("/v1/logs", big, kProto);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(status_of(r.body).first, 3u);
  EXPECT_TRUE(consumer_.logs.empty());
}

TEST_F(OtlpHttpTest, OverMaxBodySizeIs413WhenContentLengthComesFirst) {
  // Beast stops parsing the header at an oversized Content-Length: the fields after it
  // (here Content-Type) are not known, the answer must still be 413.
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), receiver_->http_port()));
  std::string body(300 * 1024, 'x');
  std::string raw = "POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nContent-Type: application/x-protobuf\r\n\r\n" + body;
  asio::write(stream, asio::buffer(raw));
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_FALSE(res.keep_alive());
}

TEST_F(OtlpHttpTest, GzipOverMaxBodySizeIs413) {
  // Small on the wire, over the limit once decompressed (a zip bomb, mildly).
  compression::GzipCompressor gz;
  std::string z;
  gz.compress(std::string(1024 * 1024, '\0'), z);
  ASSERT_LT(z.size(), 256u * 1024);
  auto r = post("/v1/logs", z, kJson, {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.header("content-type"), kJson);
}

TEST_F(OtlpHttpTest, UnsupportedContentTypeIs415) {
  auto r = post("/v1/logs", "hello", "text/plain");
  EXPECT_EQ(r.status, 415);
  auto r2 = post("/v1/logs", logs_proto(), kProto, {{"Content-Encoding", "br"}});
  EXPECT_EQ(r2.status, 415);
}

TEST_F(OtlpHttpTest, UnknownPathIs404AndOtherMethodIs405) {
  EXPECT_EQ(post("/v1/profiles", logs_proto(), kProto).status, 404);
  EXPECT_EQ(post("/", "", kProto).status, 404);
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::get, "/v1/logs", "");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST");
}

// The Collector's traces_url_path and friends: each signal on its own configured path, the
// default paths then unknown.
TEST_F(OtlpHttpTest, ConfiguredUrlPathsRouteEachSignal) {
  receiver::otlp::OtlpReceiverConfig c;
  c.http.enabled = true;
  c.http.endpoint = "127.0.0.1:0";
  c.http.logs_url_path = "/ingest/l";
  c.http.traces_url_path = "/ingest/t";
  c.http.metrics_url_path = "/v1/logs";  // another signal's default path is just a path
  receiver_.reset();
  receiver_ =
      std::make_unique<OtlpReceiver>(c, consumer_, OtlpReceiverOptions{2, 1, std::chrono::seconds(10)});
  receiver_->start();
  std::string traces, metrics;
  tern::otlp::encode_traces_proto(*make_traces(), traces);
  tern::otlp::encode_metrics_proto(*make_metrics(), metrics);
  EXPECT_EQ(post("/ingest/l?x=1", logs_proto(), kProto).status, 200);
  EXPECT_EQ(post("/ingest/t", traces, kProto).status, 200);
  EXPECT_EQ(post("/v1/logs", metrics, kProto).status, 200);
  EXPECT_EQ(post("/v1/traces", traces, kProto).status, 404);
  EXPECT_EQ(post("/ingest/l/", logs_proto(), kProto).status, 404);  // exact paths, as ServeMux
  EXPECT_EQ(consumer_.logs.size(), 1u);
  EXPECT_EQ(consumer_.traces.size(), 1u);
  EXPECT_EQ(consumer_.metrics.size(), 1u);
}

// HEAD is refused like GET (405), with the would-be Content-Length and no body: the body
// bytes it used to carry broke the next response on the kept-alive connection.
TEST_F(OtlpHttpTest, HeadIs405WithoutABody) {
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::head, "/v1/logs", "");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST");
  EXPECT_NE(r.header("content-length"), "0");
  auto next = client.call(http::verb::post, "/v1/logs", logs_proto(), {{"Content-Type", kProto}});
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(consumer_.logs.size(), 1u);
}

// Absolute-form targets are routed on their path (RFC 9112 §3.2.2: a server MUST accept
// them); they were 404 "unknown path http://...".
TEST_F(OtlpHttpTest, AbsoluteFormTargetIsRoutedOnItsPath) {
  const std::string base = "http://127.0.0.1:" + std::to_string(receiver_->http_port());
  auto r = post(base + "/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(consumer_.logs.size(), 1u);
  EXPECT_EQ(post(base + "/v1/nope", logs_proto(), kProto).status, 404);
}

// A header block over 64 KiB: 431, then the connection closes (it closed without an answer).
TEST_F(OtlpHttpTest, OversizedHeaderIs431) {
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::post, "/v1/logs", logs_proto(),
                       {{"Content-Type", kProto},
                        {"X-Big-1", std::string(35 * 1024, 'b')},
                        {"X-Big-2", std::string(35 * 1024, 'b')}});
  EXPECT_EQ(r.status, 431);
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_TRUE(consumer_.logs.empty());
}

TEST_F(OtlpHttpTest, BackPressureIs429WithRetryAfter) {
  consumer_.mode = RecordingConsumer::Mode::kRetryLater;
  auto r = post("/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "3");  // 2500 ms, rounded up
  auto [code, message] = status_of(r.body);
  EXPECT_EQ(code, 8u);  // RESOURCE_EXHAUSTED
  EXPECT_EQ(message, "queue is full");
  auto rj = post(
      "/v1/traces",
      [] {
        std::string s;
        tern::otlp::encode_traces_json(*make_traces(), s);
        return s;
      }(),
      kJson);
  EXPECT_EQ(rj.status, 429);
  EXPECT_EQ(nlohmann::json::parse(rj.body)["code"], 8);
  auto s = receiver_->stats();
  EXPECT_EQ(s.logs.refused, 2u);
  EXPECT_EQ(s.logs.accepted, 0u);
  EXPECT_EQ(s.traces.refused, 1u);
}

TEST_F(OtlpHttpTest, ConsumerInvalidIs400) {
  consumer_.mode = RecordingConsumer::Mode::kInvalid;
  auto r = post("/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_of(r.body).second, "no thanks");
}

// Data larger than the disk queue can ever hold: 413, which OTLP clients do not retry (503 was
// retried for ever).
TEST_F(OtlpHttpTest, ConsumerTooLargeIs413) {
  consumer_.mode = RecordingConsumer::Mode::kTooLarge;
  auto r = post("/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(status_of(r.body).first, 3u);  // INVALID_ARGUMENT
  EXPECT_EQ(status_of(r.body).second, "can never fit");
}

TEST_F(OtlpHttpTest, PartialSuccess) {
  consumer_.mode = RecordingConsumer::Mode::kPartial;
  auto r = post("/v1/logs", logs_proto(), kProto);
  EXPECT_EQ(r.status, 200);
  auto fields = parse_proto(r.body);
  ASSERT_TRUE(fields);
  auto* partial = find_field(*fields, 1);
  ASSERT_NE(partial, nullptr);
  auto inner = parse_proto(partial->bytes);
  ASSERT_TRUE(inner);
  ASSERT_NE(find_field(*inner, 1), nullptr);
  EXPECT_EQ(find_field(*inner, 1)->varint, 1u);  // rejected_log_records
  ASSERT_NE(find_field(*inner, 2), nullptr);
  EXPECT_EQ(find_field(*inner, 2)->bytes, "dropped some");

  std::string metrics;
  tern::otlp::encode_metrics_json(*make_metrics(), metrics);
  auto rj = post("/v1/metrics", metrics, kJson);
  EXPECT_EQ(rj.status, 200);
  auto j = nlohmann::json::parse(rj.body);
  EXPECT_EQ(j["partialSuccess"]["rejectedDataPoints"], "1");
  EXPECT_EQ(j["partialSuccess"]["errorMessage"], "dropped some");
  auto s = receiver_->stats();
  EXPECT_EQ(s.logs.accepted, 1u);
  EXPECT_EQ(s.logs.refused, 1u);
  EXPECT_EQ(s.metrics.accepted, 2u);
}

TEST_F(OtlpHttpTest, KeepAlive) {
  HttpClient client(receiver_->http_port());
  for (int i = 0; i < 3; ++i) {
    auto r = client.call(http::verb::post, "/v1/logs", logs_proto(), {{"Content-Type", kProto}});
    EXPECT_EQ(r.status, 200);
  }
  auto r = client.call(http::verb::post, "/nope", "", {{"Content-Type", kProto}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(consumer_.logs.size(), 3u);
}

TEST_F(OtlpHttpTest, CorsDisabledRefusesOptions) {
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::options, "/v1/logs", "",
                       {{"Origin", "https://app.example.com"}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("access-control-allow-origin"), "");
}

TEST_F(OtlpHttpTest, CorsPreflightAndActualRequest) {
  start({"https://*.example.com", "http://localhost:3000"});
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::options, "/v1/traces", "",
                       {{"Origin", "https://app.example.com"},
                        {"Access-Control-Request-Method", "POST"},
                        {"Access-Control-Request-Headers", "content-type, x-custom"}});
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://app.example.com");
  EXPECT_EQ(r.header("access-control-allow-methods"), "POST");
  EXPECT_EQ(r.header("access-control-allow-headers"), "content-type, x-custom");
  EXPECT_EQ(r.header("access-control-max-age"), "7200");

  auto refused = client.call(http::verb::options, "/v1/traces", "",
                             {{"Origin", "https://evil.test"}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(refused.status, 204);
  EXPECT_EQ(refused.header("access-control-allow-origin"), "");

  auto bad_header = client.call(http::verb::options, "/v1/traces", "",
                                {{"Origin", "http://localhost:3000"},
                                 {"Access-Control-Request-Method", "POST"},
                                 {"Access-Control-Request-Headers", "x-other"}});
  EXPECT_EQ(bad_header.header("access-control-allow-origin"), "");

  auto actual = client.call(http::verb::post, "/v1/logs", logs_proto(),
                            {{"Content-Type", kProto}, {"Origin", "http://localhost:3000"}});
  EXPECT_EQ(actual.status, 200);
  EXPECT_EQ(actual.header("access-control-allow-origin"), "http://localhost:3000");
}

// cors.max_age, the Collector's key: the preflight answer's Access-Control-Max-Age; 0 sends
// none (browsers then cache the answer for 5 s).
TEST_F(OtlpHttpTest, CorsMaxAge) {
  const Headers preflight = {{"Origin", "https://a.test"}, {"Access-Control-Request-Method", "POST"}};
  start({"https://a.test"}, 256 * 1024, 600);
  auto r = HttpClient(receiver_->http_port()).call(http::verb::options, "/v1/logs", "", preflight);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://a.test");
  EXPECT_EQ(r.header("access-control-max-age"), "600");
  start({"https://a.test"}, 256 * 1024, 0);
  r = HttpClient(receiver_->http_port()).call(http::verb::options, "/v1/logs", "", preflight);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://a.test");
  EXPECT_FALSE(r.headers.count("access-control-max-age"));
}

TEST_F(OtlpHttpTest, CorsWildcardOrigin) {
  start({"*"});
  HttpClient client(receiver_->http_port());
  auto r = client.call(http::verb::options, "/v1/logs", "",
                       {{"Origin", "https://anything.test"}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://anything.test");
}

TEST_F(OtlpHttpTest, ShutdownWhileIdleClosesKeepAliveConnections) {
  HttpClient client(receiver_->http_port());
  EXPECT_EQ(client.call(http::verb::post, "/v1/logs", logs_proto(), {{"Content-Type", kProto}}).status, 200);
  ASSERT_TRUE(this_process_listens_on(receiver_->http_port()));
  receiver_->shutdown();  // the connection is idle: closed, not waited for
  EXPECT_TRUE(client.closed_by_server());
  receiver_->shutdown();  // idempotent
  // Nothing of ours listens any more (the port itself may already serve another test).
  EXPECT_FALSE(this_process_listens_on(receiver_->http_port()));
}

TEST(OtlpHttpShutdown, FinishesRequestInFlight) {
  BlockingConsumer consumer;
  receiver::otlp::OtlpReceiverConfig c;
  c.http.enabled = true;
  c.http.endpoint = "127.0.0.1:0";
  OtlpReceiver receiver(c, consumer, {2, 1, std::chrono::seconds(20)});
  receiver.start();
  std::promise<Reply> reply;
  std::thread client([&] {
    HttpClient cl(receiver.http_port());
    reply.set_value(cl.call(http::verb::post, "/v1/logs", logs_proto(), {{"Content-Type", kProto}}));
  });
  consumer.entered.get_future().wait();  // the request is being handled
  std::thread stopper([&] { receiver.shutdown(); });
  // Releasing a little later lets shutdown start first (the result must be 200 either way).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  consumer.release.set_value();
  auto r = reply.get_future().get();
  stopper.join();
  client.join();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(consumer.consumed, 1);
}

TEST(OtlpHttpStart, BindErrorThrows) {
  RecordingConsumer consumer;
  receiver::otlp::OtlpReceiverConfig c;
  c.http.enabled = true;
  c.http.endpoint = "127.0.0.1:0";
  OtlpReceiver first(c, consumer, {1, 1, std::chrono::seconds(1)});
  first.start();
  c.http.endpoint = "127.0.0.1:" + std::to_string(first.http_port());
  OtlpReceiver second(c, consumer, {1, 1, std::chrono::seconds(1)});
  EXPECT_ANY_THROW(second.start());
  c.http.endpoint = "127.0.0.1";  // no port
  OtlpReceiver third(c, consumer, {1, 1, std::chrono::seconds(1)});
  EXPECT_ANY_THROW(third.start());
}

// A body of a million empty log records (2 MB) would decode into ~170 MB: more than 32x
// its size and the 64 MiB floor, so the receiver refuses it as bad data; a real request
// of the same size is accepted.
TEST(OtlpExportCore, ARequestThatDecodesIntoFarMoreThanItsSizeIsRefused) {
  RecordingConsumer consumer;
  OtlpReceiverCounters counters;
  ExportCore core(consumer, counters);
  std::string records;
  for (int i = 0; i < 1000000; ++i) records += std::string("\x12\x00", 2);
  std::string body = "\x0a";
  const auto varint = [](std::string& out, std::size_t v) {
    while (v >= 0x80) {
      out += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  };
  std::string scope_logs = "\x12";
  varint(scope_logs, records.size());
  scope_logs += records;
  varint(body, scope_logs.size());
  body += scope_logs;
  auto out = core.export_request(Signal::Logs, Encoding::kProto, body);
  EXPECT_EQ(out.kind, ExportOutcome::Kind::kBadData);
  EXPECT_NE(out.message.find("the decoded request would take more than"), std::string::npos) << out.message;
  EXPECT_TRUE(consumer.logs.empty());

  pdata::LogsData d;
  auto& sl = d.resource_logs.emplace_back(d.arena).scope_logs.emplace_back(d.arena);
  for (int i = 0; i < 20000; ++i) {
    auto& r = sl.log_records.emplace_back(d.arena);
    r.time_unix_nano = 1;
    r.body = pdata::AnyValue::string("a log line of some ordinary length, as services write them");
    r.attributes.push_back({"service.name", pdata::AnyValue::string("checkout")});
  }
  std::string real;
  tern::otlp::encode_logs_proto(d, real);
  ASSERT_GT(real.size(), 1u << 20);
  EXPECT_EQ(core.export_request(Signal::Logs, Encoding::kProto, real).kind, ExportOutcome::Kind::kOk);
  EXPECT_EQ(consumer.logs.size(), 1u);
}

}  // namespace
}  // namespace tern::receiver::otlp::test
