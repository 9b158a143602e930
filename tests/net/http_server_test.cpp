// net::HttpServer over plain HTTP: what its shutdown leaves behind.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "net/http_server.h"

namespace tern::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

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

}  // namespace
}  // namespace tern::net
