// The OTLP receiver over TLS and mutual TLS: OTLP/HTTP with a Beast TLS client, OTLP/gRPC
// with grpc++ SSL credentials. Certificates are made by the openssl CLI at test time.
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>

#include "net/tls.h"
#include "otlp/proto_codec.h"
#include "receiver/otlp/otlp_receiver.h"
#include "receiver/otlp/test_util.h"
#include "support/https_client.h"
#include "support/test_certs.h"

namespace tern::receiver::otlp::test {
namespace {

using tern::test::HttpsClient;
using tern::test::HttpsClientOptions;

const std::string kLogsMethod = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";

std::string logs_proto() {
  std::string out;
  tern::otlp::encode_logs_proto(*make_logs(), out);
  return out;
}

class OtlpReceiverTls : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(tern::test::test_certs().ca_cert.empty()); }
  // ca.crt, server.crt/.key, client.crt/.key (signed by ca), other-ca.crt/.key (unrelated).
  static std::string file(const std::string& name) { return tern::test::test_certs().dir + "/" + name; }

  static config::TlsServerConfig server_tls(bool mutual) {
    config::TlsServerConfig t;
    t.cert_file = file("server.crt");
    t.key_file = file("server.key");
    if (mutual) t.client_ca_file = file("ca.crt");
    return t;
  }

  void start(const receiver::otlp::OtlpReceiverConfig& c) {
    receiver_ =
        std::make_unique<OtlpReceiver>(c, consumer_, OtlpReceiverOptions{1, 2, std::chrono::seconds(10)});
    receiver_->start();
  }

  static receiver::otlp::OtlpReceiverConfig both(bool mutual) {
    receiver::otlp::OtlpReceiverConfig c;
    c.http.enabled = true;
    c.http.endpoint = "127.0.0.1:0";
    c.http.tls = server_tls(mutual);
    c.grpc.enabled = true;
    c.grpc.endpoint = "127.0.0.1:0";
    c.grpc.tls = server_tls(mutual);
    return c;
  }

  // A client certificate for mutual TLS: "client" (trusted), "other-ca" (not) or "" (none).
  std::shared_ptr<grpc::ChannelCredentials> ssl_credentials(const std::string& cert = "") const {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = net::read_pem_file(file("ca.crt"), "ca");
    if (!cert.empty()) {
      o.pem_cert_chain = net::read_pem_file(file(cert + ".crt"), "cert");
      o.pem_private_key = net::read_pem_file(file(cert + ".key"), "key");
    }
    return grpc::SslCredentials(o);
  }

  grpc::Status grpc_export(const std::shared_ptr<grpc::ChannelCredentials>& creds) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");  // the certificate's DNS name; we dial 127.0.0.1
    auto channel =
        grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(receiver_->grpc_port()), creds, args);
    grpc::GenericStub stub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Slice slice(logs_proto());
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&ctx, kLogsMethod, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status s) { done.set_value(std::move(s)); });
    return done.get_future().get();
  }

  int http_export(HttpsClient& client) {
    return client.call("POST", "/v1/logs", logs_proto(), {{"Content-Type", "application/x-protobuf"}}).status;
  }

  RecordingConsumer consumer_;
  std::unique_ptr<OtlpReceiver> receiver_;
};

TEST_F(OtlpReceiverTls, HttpExportOverTls) {
  start(both(false));
  HttpsClient client(receiver_->http_port(), tern::test::trusting_test_ca());
  EXPECT_EQ(http_export(client), 200) << client.error();
  EXPECT_EQ(http_export(client), 200) << client.error();  // same connection
  EXPECT_TRUE(client.connected());
  std::lock_guard lock(consumer_.mu);
  ASSERT_EQ(consumer_.logs.size(), 2u);
  EXPECT_EQ(consumer_.logs[0]->record_count(), 2u);
}

TEST_F(OtlpReceiverTls, HttpPlaintextClientIsRefused) {
  start(both(false));
  tern::test::HttpClient plain(receiver_->http_port());
  EXPECT_EQ(plain.call("POST", "/v1/logs", logs_proto(), {{"Content-Type", "application/x-protobuf"}}).status,
            0);
  EXPECT_EQ(receiver_->stats().logs.accepted, 0u);
  HttpsClient client(receiver_->http_port(), tern::test::trusting_test_ca());
  EXPECT_EQ(http_export(client), 200) << client.error();
}

TEST_F(OtlpReceiverTls, HttpMutualTls) {
  start(both(true));
  HttpsClient anonymous(receiver_->http_port(), tern::test::trusting_test_ca());
  EXPECT_EQ(http_export(anonymous), 0);
  HttpsClient rogue(receiver_->http_port(), tern::test::trusting_test_ca("other-ca"));
  EXPECT_EQ(http_export(rogue), 0);
  HttpsClient client(receiver_->http_port(), tern::test::trusting_test_ca("client"));
  EXPECT_EQ(http_export(client), 200) << client.error();
  std::lock_guard lock(consumer_.mu);
  EXPECT_EQ(consumer_.logs.size(), 1u);
}

TEST_F(OtlpReceiverTls, GrpcExportOverTls) {
  start(both(false));
  auto s = grpc_export(ssl_credentials());
  EXPECT_TRUE(s.ok()) << s.error_code() << ": " << s.error_message();
  // A plaintext client cannot talk to the TLS port.
  auto insecure = grpc_export(grpc::InsecureChannelCredentials());
  EXPECT_FALSE(insecure.ok());
  EXPECT_EQ(insecure.error_code(), grpc::StatusCode::UNAVAILABLE) << insecure.error_message();
  std::lock_guard lock(consumer_.mu);
  ASSERT_EQ(consumer_.logs.size(), 1u);
  EXPECT_EQ(consumer_.logs[0]->record_count(), 2u);
}

TEST_F(OtlpReceiverTls, GrpcMutualTls) {
  start(both(true));
  auto anonymous = grpc_export(ssl_credentials());
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAVAILABLE) << anonymous.error_message();
  auto rogue = grpc_export(ssl_credentials("other-ca"));
  EXPECT_EQ(rogue.error_code(), grpc::StatusCode::UNAVAILABLE) << rogue.error_message();
  auto s = grpc_export(ssl_credentials("client"));
  EXPECT_TRUE(s.ok()) << s.error_code() << ": " << s.error_message();
  std::lock_guard lock(consumer_.mu);
  EXPECT_EQ(consumer_.logs.size(), 1u);
}

TEST_F(OtlpReceiverTls, FileThatCannotBeReadFailsStart) {
  const std::string missing = file("missing.pem");
  auto expect_error = [&](const receiver::otlp::OtlpReceiverConfig& c, const std::string& key) {
    try {
      start(c);
      ADD_FAILURE() << "start() did not throw for " << key;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(key + " " + missing), std::string::npos) << what;
    }
    receiver_.reset();
  };
  auto c = both(false);
  c.http.tls.cert_file = missing;
  expect_error(c, "protocols.http.tls.cert_file");
  c = both(true);
  c.http.tls.client_ca_file = missing;
  expect_error(c, "protocols.http.tls.client_ca_file");
  c = both(false);
  c.grpc.tls.key_file = missing;
  expect_error(c, "protocols.grpc.tls.key_file");
  c = both(true);
  c.grpc.tls.client_ca_file = missing;
  expect_error(c, "protocols.grpc.tls.client_ca_file");
}

TEST_F(OtlpReceiverTls, KeyThatDoesNotMatchTheCertificateFailsStart) {
  for (const char* protocol : {"http", "grpc"}) {
    auto c = both(false);
    (std::string(protocol) == "http" ? c.http.tls : c.grpc.tls).key_file = file("client.key");
    try {
      start(c);
      ADD_FAILURE() << protocol << ": start() did not throw";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("protocols." + std::string(protocol) + ".tls.key_file " +
                                           file("client.key") + ": not usable"),
                std::string::npos)
          << e.what();
    }
    receiver_.reset();
  }
}

}  // namespace
}  // namespace tern::receiver::otlp::test
