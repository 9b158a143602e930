#include "support/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "support/beast_reply.h"

namespace tern::test {

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;

struct HttpClient::Impl {
  asio::io_context ioc;
  std::uint16_t port;
  std::unique_ptr<beast::tcp_stream> stream;

  bool connect() {
    stream = std::make_unique<beast::tcp_stream>(ioc);
    beast::error_code ec;
    stream->connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    if (ec) stream.reset();
    return !ec;
  }

  bool exchange(const http::request<http::string_body>& req, HttpReply& reply) {
    if (!stream && !connect()) return false;
    beast::error_code ec;
    stream->expires_after(std::chrono::seconds(60));
    http::write(*stream, req, ec);
    if (ec) return false;
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(1ull << 30);
    http::read(*stream, buffer, parser, ec);
    if (ec) return false;
    fill_reply(parser.get(), reply);
    if (!parser.get().keep_alive()) stream.reset();
    return true;
  }
};

HttpClient::HttpClient(std::uint16_t port) : impl_(std::make_unique<Impl>()) { impl_->port = port; }
HttpClient::~HttpClient() = default;

HttpReply HttpClient::call(const std::string& method, const std::string& target, const std::string& body,
                           const std::vector<std::pair<std::string, std::string>>& headers) {
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [k, v] : headers) req.set(k, v);
  req.body() = body;
  req.prepare_payload();
  HttpReply reply;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (impl_->exchange(req, reply)) return reply;
    impl_->stream.reset();  // stale keep-alive connection: one fresh try
    reply = {};
  }
  return reply;
}

}  // namespace tern::test
