// net::HttpServer over plain HTTP: bodies of known length read straight into the request
// (in pieces, with a pipelined request behind them, after 100-continue, cut short), and
// what its shutdown leaves behind.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "net/http_server.h"

namespace tern::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// A body no two bytes of which repeat at the same distance: a piece lost, doubled or moved
// shows up in the echo.
std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>('a' + (x >> 24) % 26);
  }
  return s;
}

// A server that answers each request with its method, target and body size, and keeps the
// bodies.
struct EchoServer {
  std::mutex mu;
  std::vector<std::string> bodies;
  std::atomic<int> calls{0};
  HttpServer server;
  std::uint16_t port;
  EchoServer()
      : server(options(),
               [this](HttpRequest& r) {
                 ++calls;
                 HttpResponse res;
                 res.content_type = "text/plain";
                 res.body = std::string(r.method) + " " + std::string(r.target) + " " +
                            std::to_string(r.body.size());
                 std::lock_guard lock(mu);
                 bodies.push_back(std::move(r.body));
                 return res;
               }),
        port(server.start()) {}
  tcp::socket connect(asio::io_context& ioc) const {
    tcp::socket s(ioc);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    return s;
  }
  // The bodies the handler got, in order, are exactly `want`.
  void expect_bodies(const std::vector<std::string>& want) {
    std::lock_guard lock(mu);
    ASSERT_EQ(bodies.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(bodies[i] == want[i]) << "body " << i;
  }
  static HttpServerOptions options() {
    HttpServerOptions o;
    o.threads = 2;
    o.body_limit = 1 << 20;
    o.request_timeout = std::chrono::milliseconds(5000);
    return o;
  }
};

std::string post(std::string_view target, std::size_t length, std::string_view extra_headers = "") {
  return "POST " + std::string(target) + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(length) +
         "\r\n" + std::string(extra_headers) + "\r\n";
}

// Reads one response whose body is text; returns "<status line>|<body>".
std::string read_response(tcp::socket& s, asio::streambuf& buf) {
  asio::read_until(s, buf, "\r\n\r\n");
  std::string all(asio::buffers_begin(buf.data()), asio::buffers_end(buf.data()));
  const auto head_end = all.find("\r\n\r\n") + 4;
  const std::string head = all.substr(0, head_end);
  const auto cl = head.find("Content-Length: ");
  const std::size_t length = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16));
  buf.consume(head_end);
  if (buf.size() < length) asio::read(s, buf, asio::transfer_exactly(length - buf.size()));
  std::string body(asio::buffers_begin(buf.data()), asio::buffers_begin(buf.data()) + length);
  buf.consume(length);
  return head.substr(0, head.find("\r\n")) + "|" + body;
}

// Bodies of 16 KiB and more are read from the socket straight into the request: whether
// they come with their header, in pieces with pauses between them, or with the next
// request's bytes right behind them on a kept-alive connection, each request gets exactly
// its own bytes.
TEST(HttpServerBody, KnownLengthBodiesInPiecesAndPipelined) {
  EchoServer echo;
  asio::io_context ioc;
  tcp::socket s = echo.connect(ioc);
  asio::streambuf buf;

  const std::string a = pattern(200'000, 1), b = pattern(40'000, 2), c = pattern(100, 3),
                    d = pattern(16 * 1024, 4);
  // a: header alone, then the body in three pieces with pauses.
  asio::write(s, asio::buffer(post("/a", a.size())));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  asio::write(s, asio::buffer(a.data(), 1000));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  asio::write(s, asio::buffer(a.data() + 1000, 150'000));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // ... its last piece in one write with the whole of b, c (small: the parser's path) and
  // d (exactly the threshold), pipelined.
  const std::string rest =
      a.substr(151'000) + post("/b", b.size()) + b + post("/c", c.size()) + c + post("/d", d.size()) + d;
  asio::write(s, asio::buffer(rest));
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /a 200000");
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /b 40000");
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /c 100");
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /d 16384");
  echo.expect_bodies({a, b, c, d});
}

// `Expect: 100-continue`: the client waits for the interim answer before it sends the body.
TEST(HttpServerBody, ExpectContinueThenALargeBody) {
  EchoServer echo;
  asio::io_context ioc;
  tcp::socket s = echo.connect(ioc);
  asio::streambuf buf;
  const std::string a = pattern(100'000, 5);
  asio::write(s, asio::buffer(post("/e", a.size(), "Expect: 100-continue\r\n")));
  asio::read_until(s, buf, "\r\n\r\n");
  const std::string interim(asio::buffers_begin(buf.data()), asio::buffers_end(buf.data()));
  EXPECT_EQ(interim.substr(0, interim.find("\r\n")), "HTTP/1.1 100 Continue");
  buf.consume(interim.find("\r\n\r\n") + 4);
  asio::write(s, asio::buffer(a));
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /e 100000");
  echo.expect_bodies({a});
}

// A client that promises more than it sends and closes: no request reaches the handler,
// the connection is closed, and the server goes on serving others.
TEST(HttpServerBody, BodyCutShortNeverReachesTheHandler) {
  EchoServer echo;
  asio::io_context ioc;
  {
    tcp::socket s = echo.connect(ioc);
    const std::string half = pattern(50'000, 6);
    asio::write(s, asio::buffer(post("/cut", 100'000) + half));
    s.shutdown(tcp::socket::shutdown_send);
    std::string rest;
    boost::system::error_code ec;
    asio::read(s, asio::dynamic_buffer(rest), ec);  // the server closes without an answer
    EXPECT_TRUE(rest.empty()) << rest;
  }
  tcp::socket s = echo.connect(ioc);
  asio::streambuf buf;
  const std::string a = pattern(30'000, 7);
  asio::write(s, asio::buffer(post("/ok", a.size()) + a));
  EXPECT_EQ(read_response(s, buf), "HTTP/1.1 200 OK|POST /ok 30000");
  EXPECT_EQ(echo.calls.load(), 1);
}

// A port nobody accepts on must refuse connections, not queue them: after shutdown() (with
// the server object still alive, as a receiver's is until the process ends) a client gets
// "connection refused" at once instead of hanging until its own timeout. Repeated, because
// the listening socket used to be closed by a handler the stopping io threads could skip.
TEST(HttpServerShutdown, TheListeningPortIsClosed) {
  for (int i = 0; i < 30; ++i) {
    HttpServerOptions o;
    o.threads = 2;
    HttpServer server(o, [](HttpRequest&) { return HttpResponse{}; });
    const std::uint16_t port = server.start();
    server.shutdown();
    asio::io_context ioc;
    tcp::socket s(ioc);
    boost::system::error_code ec;
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    ASSERT_EQ(ec, asio::error::connection_refused) << "round " << i << ": " << ec.message();
  }
}

// A listener that cannot bind says on which address (of a config's several listeners,
// "bind: Address already in use" alone did not say which).
TEST(HttpServerStart, AFailedBindNamesTheAddress) {
  HttpServerOptions o;
  o.threads = 1;
  HttpServer first(o, [](HttpRequest&) { return HttpResponse{}; });
  o.port = first.start();
  HttpServer second(o, [](HttpRequest&) { return HttpResponse{}; });
  try {
    second.start();
    FAIL() << "the second bind succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot listen on 127.0.0.1:" + std::to_string(o.port) + ": Address already in use");
  }
}

// A host name listens on its address, as the Collector's listeners do (it was "Invalid
// argument"). The name comes from /etc/hosts, so nothing is asked of a DNS server.
TEST(HttpServerStart, AHostNameIsResolved) {
  std::ifstream hosts("/etc/hosts");
  std::string line, name;
  while (name.empty() && std::getline(hosts, line)) {
    std::istringstream words(line);
    std::string address, alias;
    if (!(words >> address) || address != "127.0.0.1") continue;
    while (words >> alias)
      if (alias != "localhost" && alias[0] != '#') {
        name = alias;
        break;
      }
  }
  if (name.empty()) GTEST_SKIP() << "no name for 127.0.0.1 in /etc/hosts besides localhost";
  HttpServerOptions o;
  o.threads = 1;
  o.host = name;
  HttpServer server(o, [](HttpRequest&) { return HttpResponse{}; });
  const std::uint16_t port = server.start();
  asio::io_context ioc;
  tcp::socket s(ioc);
  boost::system::error_code ec;
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  EXPECT_FALSE(ec) << name << ": " << ec.message();
}

}  // namespace
}  // namespace tern::net
