// TLS, authentication and request shape, against a small in-test Beast server (plain
// or TLS) that records what it received, headers included, which `tern sink` does not
// expose (the exporter into an https `tern sink` with real processes: tests/e2e/tls).
#include <gtest/gtest.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>
#include <map>
#include <thread>

#include "compression/gzip.h"
#include "exporter/elasticsearch/bulk_exporter.h"
#include "exporter/elasticsearch/test_support.h"

namespace tern::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using exporter::es::BulkExporter;

struct Seen {
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::size_t items = 0;
};

class RecordingServer {
 public:
  explicit RecordingServer(std::shared_ptr<ssl::context> tls = nullptr) : tls_(std::move(tls)) {}
  ~RecordingServer() { stop(); }

  std::uint16_t start() {
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(ep.protocol());
    if (early_413_above_) acceptor_.set_option(asio::socket_base::receive_buffer_size(4096));
    acceptor_.bind(ep);
    acceptor_.listen();
    asio::co_spawn(ioc_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { ioc_.run(); });
    return acceptor_.local_endpoint().port();
  }
  void stop() {
    ioc_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<Seen> seen() {
    std::lock_guard lk(mu_);
    return seen_;
  }
  std::size_t items() {
    std::size_t n = 0;
    for (auto& s : seen()) n += s.items;
    return n;
  }
  int connections() const { return connections_.load(); }
  int handshake_failures() const { return handshake_failures_.load(); }
  // The first `n` bulk requests are answered with `status` and an Elasticsearch error.
  void fail_first(int n, int status) {
    fail_left_ = n;
    fail_status_ = status;
  }
  // Requests whose Content-Length is above `bytes` are answered 413 from their header, and the
  // connection closed without reading the body (as Elasticsearch over http.max_content_length
  // and proxies over their body limit do). The server's receive buffer is kept small, so
  // that the client is still writing when the connection closes.
  void early_413_above(std::size_t bytes) { early_413_above_ = bytes; }
  int early_413s() const { return early_413s_.load(); }

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto sock = co_await acceptor_.async_accept(asio::use_awaitable);
      ++connections_;
      asio::co_spawn(ioc_, session(std::move(sock)), asio::detached);
    }
  }
  asio::awaitable<void> session(tcp::socket sock) {
    try {
      if (tls_) {
        ssl::stream<tcp::socket> s(std::move(sock), *tls_);
        try {
          co_await s.async_handshake(ssl::stream_base::server, asio::use_awaitable);
        } catch (const std::exception&) {
          ++handshake_failures_;
          co_return;
        }
        co_await serve(s);
      } else {
        co_await serve(sock);
      }
    } catch (const std::exception&) {
      // The client closed the connection.
    }
  }
  template <class Stream>
  asio::awaitable<void> serve(Stream& s) {
    beast::flat_buffer buf;
    compression::GzipDecompressor gunzip;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(1ull << 30);
      co_await http::async_read_header(s, buf, parser, asio::use_awaitable);
      if (early_413_above_ && parser.content_length() && *parser.content_length() > early_413_above_) {
        ++early_413s_;
        http::response<http::string_body> res{http::status::payload_too_large, 11};
        res.set(http::field::content_type, "text/html");
        res.body() = "<html><head><title>413 Request Entity Too Large</title></head></html>";
        res.keep_alive(false);
        res.prepare_payload();
        co_await http::async_write(s, res, asio::use_awaitable);
        co_return;  // closes with the body unread: a reset for the client still writing it
      }
      co_await http::async_read(s, buf, parser, asio::use_awaitable);
      http::request<http::string_body> req = parser.release();
      http::response<http::string_body> res{http::status::ok, req.version()};
      res.set(http::field::content_type, "application/json");
      if (fail_left_ > 0) {
        --fail_left_;
        res.result(static_cast<http::status>(fail_status_));
        res.body() =
            R"({"error":{"type":"security_exception","reason":"missing authentication credentials"},"status":)" +
            std::to_string(fail_status_) + "}";
      } else {
        Seen seen;
        seen.target = std::string(req.target());
        for (const auto& f : req) {
          std::string name(f.name_string());
          for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          seen.headers[name] = std::string(f.value());
        }
        std::string plain;
        if (req[http::field::content_encoding] == "gzip") {
          gunzip.decompress(req.body(), plain, 1u << 30);
        } else {
          plain = req.body();
        }
        for (char ch : plain) seen.items += ch == '\n';
        seen.items /= 2;
        res.body() = "{\"items\":[";
        for (std::size_t i = 0; i < seen.items; ++i) {
          if (i) res.body() += ',';
          res.body() += R"({"create":{"_index":"logs-x","status":201}})";
        }
        res.body() += "]}";
        std::lock_guard lk(mu_);
        seen_.push_back(std::move(seen));
      }
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      co_await http::async_write(s, res, asio::use_awaitable);
      if (!req.keep_alive()) co_return;
    }
  }

  asio::io_context ioc_;
  tcp::acceptor acceptor_{ioc_};
  std::thread thread_;
  std::shared_ptr<ssl::context> tls_;
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::atomic<int> connections_{0}, handshake_failures_{0};
  std::atomic<int> fail_left_{0};
  int fail_status_ = 401;
  std::size_t early_413_above_ = 0;
  std::atomic<int> early_413s_{0};
};

std::string url(std::uint16_t port, const char* scheme = "http") {
  return std::string(scheme) + "://127.0.0.1:" + std::to_string(port);
}

TEST(ExporterRequest, HeadersTargetAuthAndKeepAlive) {
  RecordingServer server;
  auto port = server.start();
  auto o = fast_options({url(port) + "/es/"});
  o.num_workers = 1;
  o.flush_bytes = 2048;
  o.user = "user";
  o.password = "pass";
  o.headers = {{"X-Tenant", "t1"}};
  o.pipeline = "my pipe";
  o.require_data_stream = true;
  o.include_source_on_error = false;
  o.query = "refresh=false&timeout=30s";  // the first endpoint's URL query (config loader)
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, 400, 100);
  ASSERT_TRUE(ex.flush());
  EXPECT_EQ(c.total.indexed, 400u);
  auto seen = server.seen();
  ASSERT_GT(seen.size(), 3u);
  EXPECT_EQ(server.items(), 400u);
  EXPECT_EQ(server.connections(), 1);  // one worker, one kept-alive connection
  for (const auto& s : seen) {
    EXPECT_EQ(s.target,
              "/es/_bulk?filter_path=items.*._index,items.*.status,items.*.error.type,items.*.error.reason"
              "&require_data_stream=true&pipeline=my%20pipe&include_source_on_error=false"
              "&refresh=false&timeout=30s");
    EXPECT_EQ(s.headers.at("authorization"), "Basic dXNlcjpwYXNz");  // base64("user:pass")
    EXPECT_EQ(s.headers.at("content-type"), "application/x-ndjson");
    EXPECT_EQ(s.headers.at("content-encoding"), "gzip");
    EXPECT_EQ(s.headers.at("x-tenant"), "t1");
    EXPECT_EQ(s.headers.at("user-agent").rfind("Tern/", 0), 0u);
  }
}

TEST(ExporterRequest, ApiKeyAndHeaderOverride) {
  RecordingServer server;
  auto port = server.start();
  auto o = fast_options({url(port)});
  o.api_key = "Zm9vOmJhcg==";
  o.user = "ignored";  // api_key wins
  o.headers = {{"User-Agent", "custom-agent"}};
  o.gzip = false;
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, 50, 50);
  ASSERT_TRUE(ex.flush());
  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].headers.at("authorization"), "ApiKey Zm9vOmJhcg==");
  EXPECT_EQ(seen[0].headers.at("user-agent"), "custom-agent");
  EXPECT_EQ(seen[0].headers.count("content-encoding"), 0u);
  EXPECT_EQ(seen[0].target.find("require_data_stream"), std::string::npos);
  EXPECT_EQ(seen[0].items, 50u);
}

// A server that answers 413 before reading the body and closes: the write fails (broken pipe
// or reset) but the 413 is read, and the request is split until its halves fit. It was a
// connection error: the same request sent again whole, forever.
TEST(ExporterRequest, An413AnsweredBeforeTheBodyIsReadSplitsTheRequest) {
  RecordingServer server;
  server.early_413_above(1u << 20);
  auto port = server.start();
  auto o = fast_options({url(port)});
  o.num_workers = 1;
  o.gzip = false;
  o.flush_bytes = 64u << 20;  // one request of everything: ~16 MB
  Collector c;
  BulkExporter ex(o);
  ex.start();
  constexpr std::size_t kDocs = 4000;
  for (std::size_t b = 0; b < kDocs; b += 500) {
    encoding::EncodedBatch batch;
    for (std::size_t i = b; i < b + 500; ++i) append_doc(batch, i, {}, 4000);
    ASSERT_TRUE(ex.submit(std::move(batch), c.done()));
  }
  EXPECT_TRUE(ex.flush(exporter::es::Clock::now() + std::chrono::seconds(30)));
  auto k = ex.counters();
  EXPECT_EQ(c.total.indexed, kDocs);
  EXPECT_EQ(server.items(), kDocs);
  EXPECT_GT(server.early_413s(), 0);
  EXPECT_GT(k.splits_413, 0u);
  EXPECT_GT(k.requests_by_status[413], 0u);
  EXPECT_EQ(k.docs_failed, 0u);
  ex.shutdown(std::chrono::milliseconds(0));
}

// A whole-request 400, 401, 403 or 404 is a configuration problem (bulk-delivery.md): the
// data stays queued (beyond max_retries; a 400 is not split into failed documents either)
// and is delivered once the cluster accepts the requests.
TEST(ExporterRequest, ConfigurationErrorsKeepDataQueued) {
  for (const int status : {400, 401, 403, 404}) {
    SCOPED_TRACE(status);
    RecordingServer server;
    server.fail_first(3, status);
    auto port = server.start();
    auto o = fast_options({url(port)});
    o.max_retries = 1;
    Collector c;
    BulkExporter ex(o);
    ex.start();
    send_docs(ex, c, 0, 100, 100);
    ASSERT_TRUE(ex.flush());
    auto k = ex.counters();
    EXPECT_EQ(k.requests_by_status[status], 3u);
    EXPECT_EQ(k.docs_failed, 0u);
    EXPECT_EQ(c.total.indexed, 100u);
    EXPECT_EQ(c.total.dropped, 0u);
    EXPECT_EQ(server.items(), 100u);
  }
}

class Tls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(temp_dir("tls"));
    auto d = dir_->string();
    for (const char* name : {"server", "client", "wrong"}) {
      std::string n = name;
      std::string san = n == "server"  ? " -addext subjectAltName=IP:127.0.0.1,DNS:localhost"
                        : n == "wrong" ? " -addext subjectAltName=DNS:other.example"
                                       : "";
      std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=" + std::string(name) +
                        san + " -keyout " + d + "/" + name + ".key -out " + d + "/" + name +
                        ".crt >/dev/null 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string file(const char* name) { return (*dir_ / name).string(); }
  static std::shared_ptr<ssl::context> server_context(bool require_client_cert) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    ctx->use_certificate_chain_file(file("server.crt"));
    ctx->use_private_key_file(file("server.key"), ssl::context::pem);
    if (require_client_cert) {
      ctx->load_verify_file(file("client.crt"));
      ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    return ctx;
  }
  // Sends 200 documents; returns what the callbacks reported.
  static exporter::es::BulkResult send(exporter::es::BulkExporterOptions o) {
    o.max_retries = 1;  // a TLS failure is retried once, then dropped
    Collector c;
    BulkExporter ex(o);
    ex.start();
    send_docs(ex, c, 0, 200, 100);
    EXPECT_TRUE(ex.flush());
    return c.total;
  }
  static std::filesystem::path* dir_;
};
std::filesystem::path* Tls::dir_ = nullptr;

TEST_F(Tls, VerifiedWithCaFile) {
  RecordingServer server(server_context(false));
  auto port = server.start();
  auto o = fast_options({url(port, "https")});
  o.tls.ca_file = file("server.crt");
  auto r = send(o);
  EXPECT_EQ(r.indexed, 200u);
  EXPECT_EQ(server.items(), 200u);
}

TEST_F(Tls, UnknownIssuerIsRejected) {
  RecordingServer server(server_context(false));
  auto port = server.start();
  auto r = send(fast_options({url(port, "https")}));  // system CAs do not know the test CA
  EXPECT_EQ(r.dropped, 200u);
  EXPECT_EQ(r.indexed, 0u);
  EXPECT_EQ(server.items(), 0u);
  EXPECT_GT(server.handshake_failures(), 0);
}

TEST_F(Tls, HostNameMustMatch) {
  {
    RecordingServer server(server_context(false));
    auto port = server.start();
    auto o = fast_options({"https://localhost:" + std::to_string(port)});
    o.tls.ca_file = file("server.crt");
    EXPECT_EQ(send(o).indexed, 200u);  // SAN DNS:localhost matches
  }
  // A trusted certificate for another name (SAN DNS:other.example only).
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->use_certificate_chain_file(file("wrong.crt"));
  ctx->use_private_key_file(file("wrong.key"), ssl::context::pem);
  RecordingServer server(ctx);
  auto port = server.start();
  auto o = fast_options({url(port, "https")});
  o.tls.ca_file = file("wrong.crt");
  auto r = send(o);
  EXPECT_EQ(r.dropped, 200u);
  EXPECT_EQ(server.items(), 0u);
  // Told which name to expect (tls.server_name_override), the same server is trusted.
  o.tls.server_name_override = "other.example";
  EXPECT_EQ(send(o).indexed, 200u);
  EXPECT_EQ(server.items(), 200u);
}

TEST_F(Tls, InsecureSkipVerify) {
  RecordingServer server(server_context(false));
  auto port = server.start();
  auto o = fast_options({url(port, "https")});
  o.tls.insecure_skip_verify = true;
  EXPECT_EQ(send(o).indexed, 200u);
  EXPECT_EQ(server.items(), 200u);
}

TEST_F(Tls, ClientCertificate) {
  RecordingServer server(server_context(true));
  auto port = server.start();
  auto o = fast_options({url(port, "https")});
  o.tls.ca_file = file("server.crt");
  EXPECT_EQ(send(o).dropped, 200u);  // no client certificate: the server refuses
  EXPECT_EQ(server.items(), 0u);
  o.tls.cert_file = file("client.crt");
  o.tls.key_file = file("client.key");
  EXPECT_EQ(send(o).indexed, 200u);
  EXPECT_EQ(server.items(), 200u);
}

TEST(ExporterTlsConfig, MissingFilesThrow) {
  auto o = fast_options({"https://127.0.0.1:1"});
  o.tls.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(BulkExporter{o}, std::runtime_error);
}

}  // namespace
}  // namespace tern::test
