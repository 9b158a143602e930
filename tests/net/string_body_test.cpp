// AppendStringBody: the body Tern's HTTP readers use. It must read exactly what Beast's
// string_body reads (Content-Length, chunked, split across many reads, limits).
#include "net/string_body.h"

#include <gtest/gtest.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <string>

namespace tern::net {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// Feeds `wire` to a request parser `step` bytes at a time (a body arriving in many reads).
template <class Body>
beast::error_code parse(const std::string& wire, std::size_t step, http::request_parser<Body>& p) {
  p.eager(true);
  std::size_t at = 0;
  beast::error_code ec;
  while (at < wire.size() && !p.is_done()) {
    const std::size_t n = std::min(step, wire.size() - at);
    const std::size_t used = p.put(boost::asio::buffer(wire.data() + at, n), ec);
    if (ec == http::error::need_more) {
      ec = {};
      if (used == 0 && n == wire.size() - at) break;
    }
    if (ec) return ec;
    at += used;
    if (used == 0) step *= 2;  // the parser wants a larger piece (a whole chunk header)
  }
  if (!p.is_done()) p.put_eof(ec);
  return ec;
}

std::string body_text(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) s += "line " + std::to_string(i) + "\n";
  s.resize(n);
  return s;
}

TEST(AppendStringBody, ReadsWhatStringBodyReads) {
  const std::string body = body_text(100000);
  std::string chunked;
  for (std::size_t i = 0; i < body.size(); i += 7000) {
    const std::string piece = body.substr(i, 7000);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    chunked += size + piece + "\r\n";
  }
  chunked += "0\r\n\r\n";
  const std::string wires[] = {
      "POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
          body,
      "POST /v1/logs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
      "POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
  };
  for (const auto& wire : wires) {
    for (std::size_t step : {1u << 20, 4096u, 333u}) {
      http::request_parser<AppendStringBody> ours;
      http::request_parser<http::string_body> beasts;
      ours.body_limit(1 << 20);
      beasts.body_limit(1 << 20);
      ASSERT_FALSE(parse(wire, step, ours)) << step;
      ASSERT_FALSE(parse(wire, step, beasts)) << step;
      EXPECT_EQ(ours.get().body(), beasts.get().body()) << step;
      EXPECT_EQ(ours.get().body().size(),
                wire.find("Content-Length: 0") != std::string::npos ? 0 : body.size());
    }
  }
}

TEST(AppendStringBody, BodyLimitIsEnforcedAsWithStringBody) {
  const std::string body = body_text(5000);
  const std::string wire = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + body;
  http::request_parser<AppendStringBody> p;
  p.body_limit(4096);
  EXPECT_EQ(parse(wire, 1024, p), http::error::body_limit);
  std::string chunked = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 5; ++i) chunked += "3e8\r\n" + body.substr(0, 1000) + "\r\n";
  chunked += "0\r\n\r\n";
  http::request_parser<AppendStringBody> c;
  c.body_limit(4096);
  EXPECT_EQ(parse(chunked, 1024, c), http::error::body_limit);
}

}  // namespace
}  // namespace tern::net
