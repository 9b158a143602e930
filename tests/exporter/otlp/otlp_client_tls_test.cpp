// The OTLP clients over TLS: verified against a CA file, refused by a trust store that
// does not know the server, mutual TLS, verification switched off, plaintext against a
// TLS server, and files that cannot be loaded. Certificates: tests/support/test_certs.h.
#include <grpcpp/security/server_credentials.h>
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "exporter/otlp/otlp_client.h"
#include "exporter/otlp/test_servers.h"
#include "gen/workload.h"
#include "otlp/proto_codec.h"
#include "support/test_certs.h"

namespace tern::exporter::otlp {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using test::decoded_logs;
using test::logs_request;

// Client settings: trust `ca`; optionally present a certificate; optionally verify nothing.
net::TlsClientOptions trust(const std::string& ca, const std::string& cert = "", const std::string& key = "",
                            bool skip_verify = false) {
  net::TlsClientOptions t;
  t.ca_file = ca;
  t.cert_file = cert;
  t.key_file = key;
  t.insecure_skip_verify = skip_verify;
  return t;
}

std::shared_ptr<grpc::ServerCredentials> server_tls(bool require_client_cert) {
  const auto& c = test::test_certs();
  grpc::SslServerCredentialsOptions o(require_client_cert
                                          ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                          : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  o.pem_key_cert_pairs.push_back({read(c.server_key), read(c.server_cert)});
  if (require_client_cert) o.pem_root_certs = read(c.ca_cert);
  return grpc::SslServerCredentials(o);
}

OtlpClientOptions options(Protocol protocol, const std::string& endpoint,
                          std::optional<net::TlsClientOptions> tls) {
  OtlpClientOptions o;
  o.protocol = protocol;
  o.endpoint = endpoint;
  o.timeout = std::chrono::milliseconds(5000);
  o.tls = std::move(tls);
  return o;
}
OtlpClientOptions grpc_options(const std::string& endpoint, std::optional<net::TlsClientOptions> tls) {
  return options(Protocol::Grpc, endpoint, std::move(tls));
}
OtlpClientOptions http_options(const std::string& endpoint, std::optional<net::TlsClientOptions> tls) {
  return options(Protocol::Http, endpoint, std::move(tls));
}

TEST(OtlpGrpcClientTls, VerifiedAgainstTheCaFile) {
  test::RecordingGrpcServer server(grpc::StatusCode::OK, server_tls(false));
  auto client = make_otlp_client(grpc_options(server.endpoint(), trust(test::test_certs().ca_cert)));
  auto st = client->export_request(pdata::Signal::Logs, logs_request(3));
  ASSERT_TRUE(st.ok) << st.message;
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(decoded_logs(reqs[0].body), 3u);
}

TEST(OtlpGrpcClientTls, AServerTheTrustStoreDoesNotKnowIsRefused) {
  test::RecordingGrpcServer server(grpc::StatusCode::OK, server_tls(false));
  auto st = make_otlp_client(grpc_options(server.endpoint(), trust(test::test_certs().other_ca_cert)))
                ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, static_cast<int>(grpc::StatusCode::UNAVAILABLE)) << st.message;
  EXPECT_EQ(server.store().size(), 0u);
}

TEST(OtlpGrpcClientTls, SkipVerifyAcceptsAnyCertificate) {
  test::RecordingGrpcServer server(grpc::StatusCode::OK, server_tls(false));
  auto st = make_otlp_client(grpc_options(server.endpoint(), trust("", "", "", true)))
                ->export_request(pdata::Signal::Logs, logs_request(2));
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(server.store().size(), 1u);
}

TEST(OtlpGrpcClientTls, MutualTlsNeedsTheClientCertificate) {
  const auto& c = test::test_certs();
  test::RecordingGrpcServer server(grpc::StatusCode::OK, server_tls(true));
  auto without = make_otlp_client(grpc_options(server.endpoint(), trust(c.ca_cert)))
                     ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(without.ok);
  EXPECT_EQ(server.store().size(), 0u);
  auto with = make_otlp_client(grpc_options(server.endpoint(), trust(c.ca_cert, c.client_cert, c.client_key)))
                  ->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(with.ok) << with.message;
  EXPECT_EQ(server.store().size(), 1u);
}

TEST(OtlpGrpcClientTls, PlaintextAgainstATlsServerFails) {
  test::RecordingGrpcServer server(grpc::StatusCode::OK, server_tls(false));
  OtlpClientOptions o = grpc_options(server.endpoint(), {});
  o.tls.reset();
  auto st = make_otlp_client(o)->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(server.store().size(), 0u);
}

TEST(OtlpClientTls, FilesThatCannotBeLoadedFailWhenTheClientIsMade) {
  for (Protocol p : {Protocol::Grpc, Protocol::Http}) {
    OtlpClientOptions o = grpc_options("127.0.0.1:4317", trust("/nonexistent/ca.pem"));
    o.protocol = p;
    try {
      make_otlp_client(o);
      ADD_FAILURE() << "no error for a missing CA file";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("/nonexistent/ca.pem"), std::string::npos) << e.what();
    }
  }
  // A file that is not PEM (gRPC reads the text itself).
  OtlpClientOptions o = grpc_options("127.0.0.1:4317", trust(test::test_certs().dir + "/server.ext"));
  EXPECT_THROW(make_otlp_client(o), std::runtime_error);
}

net::TlsServerOptions http_server_tls(bool require_client_cert) {
  const auto& c = test::test_certs();
  return {c.server_cert, c.server_key, require_client_cert ? c.ca_cert : std::string()};
}

TEST(OtlpHttpClientTls, HttpsVerifiedAgainstTheCaFile) {
  test::RecordingHttpServer server(http_server_tls(false));
  // No scheme: TLS because options are set (telemetrygen's host:port form).
  auto client = make_otlp_client(http_options(server.endpoint(), trust(test::test_certs().ca_cert)));
  for (int i = 0; i < 3; ++i) {
    auto st = client->export_request(pdata::Signal::Logs, logs_request(4));
    ASSERT_TRUE(st.ok) << st.message;
    EXPECT_EQ(st.attempts, 1);
  }
  auto reqs = server.store().requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].path, "/v1/logs");
  EXPECT_EQ(decoded_logs(reqs[0].body), 4u);
}

TEST(OtlpHttpClientTls, TheUrlSchemeDecides) {
  const auto& c = test::test_certs();
  test::RecordingHttpServer tls_server(http_server_tls(false));
  // https:// with the CA: TLS.
  auto st = make_otlp_client(
                http_options("https://localhost:" + std::to_string(tls_server.port()), trust(c.ca_cert)))
                ->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(st.ok) << st.message;
  // https:// without options: the system's CAs, which do not know the test CA.
  st = make_otlp_client(http_options("https://" + tls_server.endpoint(), std::nullopt))
           ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, -1);
  EXPECT_NE(st.message.find("https://"), std::string::npos) << st.message;
  // http:// with options: plaintext, which a TLS server does not answer.
  st = make_otlp_client(http_options("http://" + tls_server.endpoint(), trust(c.ca_cert)))
           ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(tls_server.store().size(), 1u);
}

TEST(OtlpHttpClientTls, HostNameMustMatchTheCertificate) {
  const auto& c = test::test_certs();
  // Signed by the trusted CA, but for other.example, not 127.0.0.1.
  test::RecordingHttpServer server(net::TlsServerOptions{c.other_host_cert, c.other_host_key, ""});
  auto st = make_otlp_client(http_options(server.endpoint(), trust(c.ca_cert)))
                ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(server.store().size(), 0u);
  st = make_otlp_client(http_options(server.endpoint(), trust(c.ca_cert, "", "", true)))
           ->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(st.ok) << st.message;
}

// Dialling 127.0.0.1 in front of a certificate for other.example: trusted once the client is
// told which name to expect (tls.server_name_override).
TEST(OtlpHttpClientTls, ServerNameOverrideNamesTheCertificate) {
  const auto& c = test::test_certs();
  test::RecordingHttpServer server(net::TlsServerOptions{c.other_host_cert, c.other_host_key, ""});
  auto tls = trust(c.ca_cert);
  tls.server_name_override = "other.example";
  auto st = make_otlp_client(http_options(server.endpoint(), tls))
                ->export_request(pdata::Signal::Logs, logs_request(2));
  ASSERT_TRUE(st.ok) << st.message;
  tls.server_name_override = "third.example";  // a name the certificate does not carry
  st = make_otlp_client(http_options(server.endpoint(), tls))
           ->export_request(pdata::Signal::Logs, logs_request(2));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(server.store().size(), 1u);
}

TEST(OtlpGrpcClientTls, ServerNameOverrideNamesTheCertificate) {
  const auto& c = test::test_certs();
  grpc::SslServerCredentialsOptions so;
  so.pem_key_cert_pairs.push_back({read(c.other_host_key), read(c.other_host_cert)});
  test::RecordingGrpcServer server(grpc::StatusCode::OK, grpc::SslServerCredentials(so));
  auto tls = trust(c.ca_cert);
  tls.server_name_override = "other.example";
  auto st = make_otlp_client(grpc_options(server.endpoint(), tls))
                ->export_request(pdata::Signal::Logs, logs_request(2));
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(server.store().size(), 1u);
}

TEST(OtlpGrpcClientTls, HostNameMustMatchTheCertificate) {
  const auto& c = test::test_certs();
  grpc::SslServerCredentialsOptions so;
  so.pem_key_cert_pairs.push_back({read(c.other_host_key), read(c.other_host_cert)});
  test::RecordingGrpcServer server(grpc::StatusCode::OK, grpc::SslServerCredentials(so));
  auto st = make_otlp_client(grpc_options(server.endpoint(), trust(c.ca_cert)))
                ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(server.store().size(), 0u);
}

TEST(OtlpHttpClientTls, MutualTls) {
  const auto& c = test::test_certs();
  test::RecordingHttpServer server(http_server_tls(true));
  auto st = make_otlp_client(http_options(server.endpoint(), trust(c.ca_cert)))
                ->export_request(pdata::Signal::Logs, logs_request(1));
  EXPECT_FALSE(st.ok);
  st = make_otlp_client(http_options(server.endpoint(), trust(c.ca_cert, c.client_cert, c.client_key)))
           ->export_request(pdata::Signal::Logs, logs_request(1));
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(server.store().size(), 1u);
}

}  // namespace
}  // namespace tern::exporter::otlp
