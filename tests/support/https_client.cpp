#include "support/https_client.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "support/beast_reply.h"
#include "support/test_certs.h"

namespace tern::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;

HttpsClientOptions trusting_test_ca(const std::string& cert) {
  const std::string& dir = test_certs().dir;
  HttpsClientOptions o;
  o.ca_file = dir + "/ca.crt";
  if (!cert.empty()) {
    o.cert_file = dir + "/" + cert + ".crt";
    o.key_file = dir + "/" + cert + ".key";
  }
  return o;
}

struct HttpsClient::Impl {
  std::uint16_t port = 0;
  asio::io_context ioc;
  ssl::context ctx{ssl::context::tls_client};
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> stream;
};

HttpsClient::HttpsClient(std::uint16_t port, HttpsClientOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->port = port;
  impl_->ctx.load_verify_file(options.ca_file);
  impl_->ctx.set_verify_mode(ssl::verify_peer);
  if (!options.cert_file.empty()) {
    impl_->ctx.use_certificate_chain_file(options.cert_file);
    impl_->ctx.use_private_key_file(options.key_file, ssl::context::pem);
  }
}

HttpsClient::~HttpsClient() = default;

bool HttpsClient::connected() const { return impl_->stream != nullptr; }

bool HttpsClient::connect() {
  auto& im = *impl_;
  im.stream = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(im.ioc, im.ctx);
  im.stream->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
  auto& tcp = beast::get_lowest_layer(*im.stream);
  tcp.expires_after(std::chrono::seconds(20));
  beast::error_code ec;
  tcp.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), im.port), ec);
  if (!ec) im.stream->handshake(ssl::stream_base::client, ec);
  if (ec) {
    error_ = ec.message();
    im.stream.reset();
    return false;
  }
  error_.clear();
  return true;
}

HttpReply HttpsClient::call(const std::string& method, const std::string& target, const std::string& body,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
  HttpReply reply;
  if (!impl_->stream && !connect()) return reply;
  auto& stream = *impl_->stream;
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [k, v] : headers) req.set(k, v);
  req.body() = body;
  req.prepare_payload();
  beast::error_code ec;
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(20));
  http::write(stream, req, ec);
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::string_body>> parser;
  // Read even after a failed write: the server may have answered (and closed) early.
  // Interim responses (100 Continue) are skipped.
  do {
    parser.emplace();
    parser->body_limit(1ull << 30);
    http::read(stream, buffer, *parser, ec);
  } while (!ec && parser->get().result_int() / 100 == 1);
  if (ec) {
    error_ = ec.message();
    impl_->stream.reset();
    return reply;
  }
  fill_reply(parser->get(), reply);
  if (!parser->get().keep_alive()) impl_->stream.reset();
  return reply;
}

}  // namespace tern::test
