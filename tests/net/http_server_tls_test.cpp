// net::HttpServer over TLS and mutual TLS, with a real Beast TLS client and certificates
// made by the openssl CLI at test time.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "net/http_server.h"
#include "net/tls_context.h"
#include "support/http_client.h"
#include "support/https_client.h"
#include "support/test_certs.h"

namespace tern::net {
namespace {

using test::HttpsClient;
using test::HttpsClientOptions;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

class HttpServerTls : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(test::test_certs().ca_cert.empty()); }
  // ca.crt, server.crt/.key, client.crt/.key (signed by ca), other-ca.crt/.key (unrelated).
  static std::string file(const std::string& name) { return test::test_certs().dir + "/" + name; }

  static HttpServerOptions tls_options(bool mutual) {
    HttpServerOptions o;
    o.threads = 2;
    o.body_limit = 1024;
    o.tls.cert_file = file("server.crt");
    o.tls.key_file = file("server.key");
    if (mutual) o.tls.client_ca_file = file("ca.crt");
    return o;
  }

  // Answers "<method> <target> <body size>"; 413 for a body over the limit.
  std::uint16_t start(HttpServerOptions o) {
    server_ = std::make_unique<HttpServer>(std::move(o), [this](HttpRequest& r) {
      ++handled_;
      HttpResponse res;
      res.content_type = "text/plain";
      if (r.body_too_large) {
        res.status = 413;
        res.body = "too large";
        return res;
      }
      res.body = std::string(r.method) + " " + std::string(r.target) + " " + std::to_string(r.body.size());
      return res;
    });
    return server_->start();
  }

  std::atomic<int> handled_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTls, ServesHttpsWithKeepAlive) {
  auto port = start(tls_options(false));
  HttpsClient c(port, test::trusting_test_ca());
  ASSERT_TRUE(c.connect()) << c.error();
  auto r1 = c.call("POST", "/v1/logs", "hello");
  EXPECT_EQ(r1.status, 200) << c.error();
  EXPECT_EQ(r1.body, "POST /v1/logs 5");
  ASSERT_TRUE(c.connected());  // kept alive: the second request goes on the same connection
  auto r2 = c.call("GET", "/again");
  EXPECT_EQ(r2.status, 200) << c.error();
  EXPECT_EQ(r2.body, "GET /again 0");
  EXPECT_TRUE(c.connected());
  EXPECT_EQ(handled_.load(), 2);

  // Connection: close is honoured, and the server ends the TLS session cleanly.
  auto r3 = c.call("GET", "/last", "", {{"Connection", "close"}});
  EXPECT_EQ(r3.status, 200) << c.error();
  EXPECT_FALSE(c.connected());
}

// Bodies of 16 KiB and more are read straight from the TLS stream into the request, on a
// kept-alive connection, one after the other.
TEST_F(HttpServerTls, LargeBodiesOnOneConnection) {
  HttpServerOptions o = tls_options(false);
  o.body_limit = 1 << 20;
  auto port = start(std::move(o));
  HttpsClient c(port, test::trusting_test_ca());
  ASSERT_TRUE(c.connect()) << c.error();
  for (const std::size_t n : {300'000u, 16'384u, 70'001u}) {
    auto r = c.call("POST", "/v1/logs", std::string(n, 'z'));
    EXPECT_EQ(r.status, 200) << c.error();
    EXPECT_EQ(r.body, "POST /v1/logs " + std::to_string(n));
    EXPECT_TRUE(c.connected());
  }
  EXPECT_EQ(handled_.load(), 3);
}

TEST_F(HttpServerTls, ExpectContinueAndTooLargeBody) {
  auto port = start(tls_options(false));
  HttpsClient c(port, test::trusting_test_ca());
  auto r = c.call("POST", "/v1/logs", std::string(600, 'x'), {{"Expect", "100-continue"}});
  EXPECT_EQ(r.status, 200) << c.error();
  EXPECT_EQ(r.body, "POST /v1/logs 600");
  // Over body_limit: answered from the header alone, then the connection ends (linger path).
  auto big = c.call("POST", "/v1/logs", std::string(200 * 1024, 'y'));
  EXPECT_EQ(big.status, 413) << c.error();
  EXPECT_EQ(big.header("connection"), "close");
  EXPECT_FALSE(c.connected());
  // The server is fine.
  HttpsClient c2(port, test::trusting_test_ca());
  EXPECT_EQ(c2.call("GET", "/").status, 200) << c2.error();
}

TEST_F(HttpServerTls, PlaintextClientGetsNoAnswerAndOthersAreServed) {
  auto port = start(tls_options(false));
  HttpsClient before(port, test::trusting_test_ca());
  ASSERT_EQ(before.call("GET", "/a").status, 200) << before.error();

  test::HttpClient plain(port);
  auto r = plain.call("POST", "/v1/logs", "hello");
  EXPECT_EQ(r.status, 0);  // a failed handshake: the connection is closed, no HTTP answer
  EXPECT_EQ(handled_.load(), 1);

  // The connection that was open before, and new ones, are served as usual.
  EXPECT_EQ(before.call("GET", "/b").status, 200) << before.error();
  HttpsClient after(port, test::trusting_test_ca());
  EXPECT_EQ(after.call("GET", "/c").status, 200) << after.error();
  EXPECT_EQ(handled_.load(), 3);
}

TEST_F(HttpServerTls, ClientThatTrustsAnotherCaFailsTheHandshake) {
  auto port = start(tls_options(false));
  HttpsClientOptions other;
  other.ca_file = file("other-ca.crt");  // not the CA that signed the server's certificate
  HttpsClient c(port, other);
  EXPECT_FALSE(c.connect());
  HttpsClient good(port, test::trusting_test_ca());
  EXPECT_EQ(good.call("GET", "/").status, 200) << good.error();
}

TEST_F(HttpServerTls, MutualTlsRequiresATrustedClientCertificate) {
  auto port = start(tls_options(true));
  {
    HttpsClient none(port, test::trusting_test_ca());
    EXPECT_EQ(none.call("GET", "/").status, 0);  // no client certificate
  }
  {
    HttpsClient rogue(port, test::trusting_test_ca("other-ca"));
    EXPECT_EQ(rogue.call("GET", "/").status, 0);  // a certificate the client CA did not sign
  }
  EXPECT_EQ(handled_.load(), 0);
  HttpsClient good(port, test::trusting_test_ca("client"));
  auto r = good.call("POST", "/v1/traces", "abc");
  EXPECT_EQ(r.status, 200) << good.error();
  EXPECT_EQ(r.body, "POST /v1/traces 3");
  EXPECT_EQ(good.call("GET", "/again").status, 200) << good.error();
  EXPECT_EQ(handled_.load(), 2);
}

TEST_F(HttpServerTls, StalledHandshakeIsClosedAfterTheTimeout) {
  auto o = tls_options(false);
  o.tls_handshake_timeout = 300ms;
  auto port = start(std::move(o));
  asio::io_context ioc;
  tcp::socket s(ioc);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  // Sends nothing: the server gives up on the handshake and closes.
  auto t0 = std::chrono::steady_clock::now();
  char byte = 0;
  boost::system::error_code ec;
  asio::read(s, asio::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  HttpsClient good(port, test::trusting_test_ca());
  EXPECT_EQ(good.call("GET", "/").status, 200) << good.error();
}

TEST_F(HttpServerTls, ShutdownClosesIdleAndHandshakingConnectionsAtOnce) {
  auto o = tls_options(false);
  o.shutdown_grace = 20s;
  auto port = start(std::move(o));
  HttpsClient idle(port, test::trusting_test_ca());
  ASSERT_EQ(idle.call("GET", "/").status, 200) << idle.error();  // kept alive, idle now
  asio::io_context ioc;
  tcp::socket handshaking(ioc);  // connected, never says hello
  handshaking.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  std::this_thread::sleep_for(50ms);  // let the server accept it
  auto t0 = std::chrono::steady_clock::now();
  server_->shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // far below the 20 s grace
}

// The negotiated protocol ("TLSv1.3") of a handshake made with Tern's own client context
// (what the Elasticsearch and OTLP/HTTP exporters use), or "" when the handshake fails.
std::string handshake_version(std::uint16_t port, const TlsClientOptions& o) {
  asio::io_context ioc;
  asio::ssl::context ctx = make_client_context(o);
  asio::ssl::stream<tcp::socket> s(ioc, ctx);
  boost::system::error_code ec;
  s.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return "";
  prepare_client_stream(s, "127.0.0.1", o);
  s.handshake(asio::ssl::stream_base::client, ec);
  if (ec) return "";
  return SSL_get_version(s.native_handle());
}

// min_version / max_version on both sides: a server or client bound to one version
// negotiates that one, and a client and server whose ranges do not meet fail the
// handshake (the server goes on serving others).
TEST_F(HttpServerTls, VersionBoundsOnServerAndClient) {
  TlsClientOptions client;
  client.ca_file = file("ca.crt");
  TlsClientOptions client12 = client, client13 = client;
  client12.max_version = TlsVersion::k1_2;
  client13.min_version = TlsVersion::k1_3;

  auto o = tls_options(false);
  auto port = start(o);
  EXPECT_EQ(handshake_version(port, client), "TLSv1.3");  // the highest both have
  EXPECT_EQ(handshake_version(port, client12), "TLSv1.2");
  EXPECT_EQ(handshake_version(port, client13), "TLSv1.3");
  server_.reset();

  o.tls.max_version = TlsVersion::k1_2;
  port = start(o);
  EXPECT_EQ(handshake_version(port, client), "TLSv1.2");
  EXPECT_EQ(handshake_version(port, client13), "");  // no version in common
  EXPECT_EQ(handshake_version(port, client12), "TLSv1.2");
  server_.reset();

  o = tls_options(false);
  o.tls.min_version = TlsVersion::k1_3;
  port = start(o);
  EXPECT_EQ(handshake_version(port, client12), "");
  EXPECT_EQ(handshake_version(port, client), "TLSv1.3");
  HttpsClient https(port, test::trusting_test_ca());
  EXPECT_EQ(https.call("GET", "/after").status, 200) << https.error();
}

TEST_F(HttpServerTls, FileThatCannotBeLoadedFailsStart) {
  auto expect_start_error = [this](HttpServerOptions o, const std::string& key, const std::string& path) {
    try {
      start(std::move(o));
      ADD_FAILURE() << "start() did not throw for " << key;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    server_.reset();
  };
  const std::string missing = file("missing.pem");
  auto o = tls_options(true);
  o.tls.cert_file = missing;
  expect_start_error(o, "tls.cert_file", missing);
  o = tls_options(true);
  o.tls.key_file = missing;
  expect_start_error(o, "tls.key_file", missing);
  o = tls_options(true);
  o.tls.client_ca_file = missing;
  expect_start_error(o, "tls.client_ca_file", missing);
  o = tls_options(false);
  o.tls.key_file = file("client.key");  // not the certificate's key
  expect_start_error(o, "tls.key_file", file("client.key"));
}

}  // namespace
}  // namespace tern::net
