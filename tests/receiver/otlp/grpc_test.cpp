// OTLP/gRPC receiver tests with a real grpc++ client (generic stub sending raw bytes).
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "compression/zstd.h"
#include "otlp/proto_codec.h"
#include "receiver/otlp/otlp_receiver.h"
#include "receiver/otlp/test_util.h"

namespace tern::receiver::otlp::test {
namespace {

const std::string kLogs = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
const std::string kTraces = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const std::string kMetrics = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export";

struct GrpcReply {
  grpc::Status status;
  std::string body;
};

std::string to_string(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!b.Dump(&slices).ok()) return out;
  for (auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

class OtlpGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    receiver::otlp::OtlpReceiverConfig c;
    c.grpc.enabled = true;
    c.grpc.endpoint = "127.0.0.1:0";
    c.grpc.max_recv_msg_size_mib = 1;
    receiver_ =
        std::make_unique<OtlpReceiver>(c, consumer_, OtlpReceiverOptions{1, 2, std::chrono::seconds(10)});
    receiver_->start();
    ASSERT_NE(receiver_->grpc_port(), 0);
    EXPECT_EQ(receiver_->http_port(), 0);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(receiver_->grpc_port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = std::make_unique<grpc::GenericStub>(channel_);
  }

  GrpcReply call(const std::string& method, const std::string& bytes, bool gzip = false) {
    grpc::ClientContext ctx;
    // A safety net against a hung server, not a timing assertion.
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    if (gzip) ctx.set_compression_algorithm(GRPC_COMPRESS_GZIP);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub_->UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                     [&done](grpc::Status s) { done.set_value(std::move(s)); });
    GrpcReply r;
    r.status = done.get_future().get();
    r.body = to_string(response);
    return r;
  }

  RecordingConsumer consumer_;
  std::unique_ptr<OtlpReceiver> receiver_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

std::string logs_proto() {
  std::string out;
  tern::otlp::encode_logs_proto(*make_logs(), out);
  return out;
}

TEST_F(OtlpGrpcTest, AllSignals) {
  std::string traces, metrics;
  tern::otlp::encode_traces_proto(*make_traces(), traces);
  tern::otlp::encode_metrics_proto(*make_metrics(), metrics);
  for (auto& [method, bytes] : std::vector<std::pair<std::string, std::string>>{
           {kLogs, logs_proto()}, {kTraces, traces}, {kMetrics, metrics}}) {
    auto r = call(method, bytes);
    EXPECT_TRUE(r.status.ok()) << method << ": " << r.status.error_message();
    EXPECT_EQ(r.body, "");  // empty Export*ServiceResponse
  }
  ASSERT_EQ(consumer_.logs.size(), 1u);
  ASSERT_EQ(consumer_.traces.size(), 1u);
  ASSERT_EQ(consumer_.metrics.size(), 1u);
  const auto& rec = consumer_.logs[0]->resource_logs.at(0).scope_logs.at(0).log_records;
  ASSERT_EQ(rec.size(), 2u);
  EXPECT_EQ(rec[0].body.string_value, "hello");
  EXPECT_EQ(rec[1].body.string_value, "world");
  EXPECT_EQ(consumer_.traces[0]->resource_spans.at(0).scope_spans.at(0).spans.at(0).name, "GET /");
  const auto& m = consumer_.metrics[0]->resource_metrics.at(0).scope_metrics.at(0).metrics.at(0);
  EXPECT_EQ(m.name, "temperature");
  ASSERT_EQ(m.number_points.size(), 3u);
  EXPECT_EQ(m.number_points[2].as_int, 3);
  auto s = receiver_->stats();
  EXPECT_EQ(s.grpc_requests, 3u);
  EXPECT_EQ(s.logs.accepted, 2u);
  EXPECT_EQ(s.traces.accepted, 1u);
  EXPECT_EQ(s.metrics.accepted, 3u);
}

TEST_F(OtlpGrpcTest, HandWrittenRequest) {
  auto r = call(kLogs, hand_written_logs_proto());
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(consumer_.logs.size(), 1u);
  EXPECT_EQ(consumer_.logs[0]->resource_logs.at(0).scope_logs.at(0).log_records.at(0).body.string_value,
            "hand");
}

TEST_F(OtlpGrpcTest, GzipCompressedCall) {
  auto r = call(kLogs, logs_proto(), /*gzip=*/true);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(consumer_.logs.size(), 1u);
  EXPECT_EQ(consumer_.logs[0]->record_count(), 2u);
}

// gRPC 1.51 does not know `grpc-encoding: zstd` (the Collector's otlp exporter with
// `compression: zstd`): it drops the header and hands the service the message as it came,
// still compressed, which the decoder refused (INVALID_ARGUMENT, data lost). Sent here as the
// message's raw bytes, which is what the service gets; the receiver decompresses it, within
// max_recv_msg_size_mib (1 MiB here).
TEST_F(OtlpGrpcTest, ZstdCompressedMessage) {
  compression::ZstdCompressor zc;
  std::string z;
  zc.compress(logs_proto(), z);
  auto r = call(kLogs, z);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(consumer_.logs.size(), 1u);
  const auto& rec = consumer_.logs[0]->resource_logs.at(0).scope_logs.at(0).log_records;
  ASSERT_EQ(rec.size(), 2u);
  EXPECT_EQ(rec[0].body.string_value, "hello");
  EXPECT_EQ(rec[1].body.string_value, "world");
  zc.compress(std::string(2 * 1024 * 1024, '\0'), z);
  r = call(kLogs, z);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << r.status.error_message();
  r = call(kLogs, std::string("\x28\xb5\x2f\xfdgarbage", 11));
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(r.status.error_message().rfind("zstd: ", 0), 0u) << r.status.error_message();
  EXPECT_EQ(consumer_.logs.size(), 1u);
}

TEST_F(OtlpGrpcTest, BadPayloadIsInvalidArgument) {
  std::string bad = logs_proto();
  bad.resize(bad.size() - 3);
  pdata::LogsData scratch;
  auto expected = tern::otlp::decode_logs_proto(bad, scratch);
  ASSERT_TRUE(expected.has_value());
  auto r = call(kLogs, bad);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(r.status.error_message(), expected->to_string());
  EXPECT_TRUE(consumer_.logs.empty());
}

TEST_F(OtlpGrpcTest, BackPressureIsResourceExhaustedWithRetryInfo) {
  consumer_.mode = RecordingConsumer::Mode::kRetryLater;
  auto r = call(kLogs, logs_proto());
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(r.status.error_message(), "queue is full");
  // grpc-status-details-bin: google.rpc.Status {code, message, details: [Any(RetryInfo)]}
  auto status = parse_proto(r.status.error_details());
  ASSERT_TRUE(status);
  ASSERT_NE(find_field(*status, 1), nullptr);
  EXPECT_EQ(find_field(*status, 1)->varint, 8u);  // RESOURCE_EXHAUSTED
  auto* details = find_field(*status, 3);
  ASSERT_NE(details, nullptr);
  auto any = parse_proto(details->bytes);
  ASSERT_TRUE(any);
  ASSERT_NE(find_field(*any, 1), nullptr);
  EXPECT_EQ(find_field(*any, 1)->bytes, "type.googleapis.com/google.rpc.RetryInfo");
  auto retry_info = parse_proto(find_field(*any, 2)->bytes);
  ASSERT_TRUE(retry_info);
  auto duration = parse_proto(find_field(*retry_info, 1)->bytes);
  ASSERT_TRUE(duration);
  EXPECT_EQ(find_field(*duration, 1)->varint, 2u);          // seconds
  EXPECT_EQ(find_field(*duration, 2)->varint, 500000000u);  // nanos
  EXPECT_EQ(receiver_->stats().logs.refused, 2u);
}

TEST_F(OtlpGrpcTest, ConsumerInvalidIsInvalidArgument) {
  consumer_.mode = RecordingConsumer::Mode::kInvalid;
  auto r = call(kLogs, logs_proto());
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(r.status.error_message(), "no thanks");
}

TEST_F(OtlpGrpcTest, ConsumerTooLargeIsInvalidArgument) {
  consumer_.mode = RecordingConsumer::Mode::kTooLarge;
  auto r = call(kLogs, logs_proto());
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(r.status.error_message(), "can never fit");
}

TEST_F(OtlpGrpcTest, PartialSuccess) {
  consumer_.mode = RecordingConsumer::Mode::kPartial;
  std::string traces;
  tern::otlp::encode_traces_proto(*make_traces(), traces);
  auto r = call(kTraces, traces);
  ASSERT_TRUE(r.status.ok());
  auto fields = parse_proto(r.body);
  ASSERT_TRUE(fields);
  ASSERT_NE(find_field(*fields, 1), nullptr);
  auto inner = parse_proto(find_field(*fields, 1)->bytes);
  ASSERT_TRUE(inner);
  EXPECT_EQ(find_field(*inner, 1)->varint, 1u);  // rejected_spans
  EXPECT_EQ(find_field(*inner, 2)->bytes, "dropped some");
}

TEST_F(OtlpGrpcTest, OverMaxMessageSizeIsResourceExhausted) {
  auto d = make_logs();
  std::string big(1536 * 1024, 'x');  // max_recv_msg_size_mib is 1
  d->resource_logs[0].scope_logs[0].log_records[0].body = pdata::AnyValue::string(big);
  std::string bytes;
  tern::otlp::encode_logs_proto(*d, bytes);
  auto r = call(kLogs, bytes);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << r.status.error_message();
  EXPECT_TRUE(consumer_.logs.empty());
  // Still serving afterwards.
  EXPECT_TRUE(call(kLogs, logs_proto()).status.ok());
}

TEST_F(OtlpGrpcTest, OverMaxMessageSizeGzipped) {
  // Compresses to almost nothing; the limit applies to the decompressed message.
  auto d = make_logs();
  std::string big(1536 * 1024, 'x');
  d->resource_logs[0].scope_logs[0].log_records[0].body = pdata::AnyValue::string(big);
  std::string bytes;
  tern::otlp::encode_logs_proto(*d, bytes);
  auto r = call(kLogs, bytes, /*gzip=*/true);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << r.status.error_message();
  EXPECT_TRUE(consumer_.logs.empty());
}

TEST_F(OtlpGrpcTest, UnknownMethodIsUnimplemented) {
  auto r = call("/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export", "");
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(OtlpGrpcTest, ShutdownWhileIdle) {
  EXPECT_TRUE(call(kLogs, logs_proto()).status.ok());
  ASSERT_TRUE(this_process_listens_on(receiver_->grpc_port()));
  receiver_->shutdown();
  receiver_->shutdown();  // idempotent
  // Nothing of ours listens any more (under parallel ctest the freed port may already
  // belong to another test's server, so a call there proves nothing).
  EXPECT_FALSE(this_process_listens_on(receiver_->grpc_port()));
  EXPECT_EQ(consumer_.logs.size(), 1u);
}

// gRPC ends an over-size call itself; its last tag still comes out of the queue, possibly
// after shutdown closed the queue, when starting an operation on it aborts the process.
// Many such calls racing a shutdown: every one is answered, nothing aborts.
TEST_F(OtlpGrpcTest, OverSizeCallsRacingShutdown) {
  auto d = make_logs();
  const std::string big(1100 * 1024, 'x');  // max_recv_msg_size_mib is 1
  d->resource_logs[0].scope_logs[0].log_records[0].body = pdata::AnyValue::string(big);
  std::string bytes;
  tern::otlp::encode_logs_proto(*d, bytes);
  constexpr int kCalls = 32;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<grpc::ByteBuffer> responses(kCalls);
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  for (int i = 0; i < kCalls; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    stub_->UnaryCall(contexts.back().get(), kLogs, grpc::StubOptions(), &request, &responses[i],
                     [&](grpc::Status s) {
                       EXPECT_FALSE(s.ok());
                       std::lock_guard lk(mu);
                       ++done;
                       cv.notify_all();
                     });
  }
  receiver_->shutdown();
  std::unique_lock lk(mu);
  ASSERT_TRUE(cv.wait_for(lk, std::chrono::seconds(30), [&] { return done == kCalls; }));
  EXPECT_TRUE(consumer_.logs.empty());
}

TEST(OtlpGrpcShutdown, FinishesCallInFlight) {
  BlockingConsumer consumer;
  receiver::otlp::OtlpReceiverConfig c;
  c.grpc.enabled = true;
  c.grpc.endpoint = "127.0.0.1:0";
  OtlpReceiver receiver(c, consumer, {1, 2, std::chrono::seconds(20)});
  receiver.start();
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(receiver.grpc_port()),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  std::string bytes = logs_proto();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, kLogs, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  consumer.entered.get_future().wait();
  std::thread stopper([&] { receiver.shutdown(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let shutdown start; 200 either way
  consumer.release.set_value();
  auto status = done.get_future().get();
  stopper.join();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(consumer.consumed, 1);
}

TEST(OtlpGrpcStart, BindErrorThrows) {
  RecordingConsumer consumer;
  receiver::otlp::OtlpReceiverConfig c;
  c.grpc.enabled = true;
  c.grpc.endpoint = "127.0.0.1:0";
  OtlpReceiver first(c, consumer, {1, 1, std::chrono::seconds(1)});
  first.start();
  c.grpc.endpoint = "127.0.0.1:" + std::to_string(first.grpc_port());
  OtlpReceiver second(c, consumer, {1, 1, std::chrono::seconds(1)});
  EXPECT_ANY_THROW(second.start());
}

TEST(OtlpBothProtocols, StartAndShutdown) {
  RecordingConsumer consumer;
  receiver::otlp::OtlpReceiverConfig c;
  c.grpc.enabled = true;
  c.grpc.endpoint = "127.0.0.1:0";
  c.http.enabled = true;
  c.http.endpoint = "127.0.0.1:0";
  OtlpReceiver r(c, consumer, {1, 1, std::chrono::seconds(1)});
  r.start();
  EXPECT_NE(r.http_port(), 0);
  EXPECT_NE(r.grpc_port(), 0);
  r.shutdown();
}

}  // namespace
}  // namespace tern::receiver::otlp::test
