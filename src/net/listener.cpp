#include "net/listener.h"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <stdexcept>

#include "net/http_server.h"

namespace tern::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
asio::ip::address listen_address(const asio::any_io_executor& executor, const std::string& host) {
  if (host.empty()) return asio::ip::address_v4::any();
  if (host == "localhost") return asio::ip::address_v4::loopback();
  boost::system::error_code ec;
  const asio::ip::address literal = asio::ip::make_address(host, ec);
  if (!ec) return literal;
  tcp::resolver resolver(executor);
  const auto results = resolver.resolve(host, "", tcp::resolver::passive | tcp::resolver::address_configured);
  return results.begin()->endpoint().address();  // resolve() throws when there is none
}
}  // namespace

void open_listener(tcp::acceptor& acceptor, const std::string& host, std::uint16_t port) {
  try {
    const tcp::endpoint ep(listen_address(acceptor.get_executor(), host), port);
    acceptor.open(ep.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const boost::system::system_error& e) {
    if (acceptor.is_open()) acceptor.close();
    throw std::runtime_error(fmt::format("cannot listen on {}: {}",
                                         join_host_port(host.empty() ? "0.0.0.0" : host, port),
                                         e.code().message()));
  }
}

}  // namespace tern::net
