#pragma once
// Opens a listening TCP socket for every server of Tern (receivers, extensions, tern sink).
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>

namespace tern::net {

// Binds `acceptor` to host:port and listens. `host`: an IP literal; empty = every IPv4
// interface; "localhost" = 127.0.0.1; any other name through the resolver (its first
// address), as the Collector's listeners take host names. Throws std::runtime_error
// "cannot listen on <host>:<port>: <reason>", an IPv6 host in brackets (a bare "bind:
// Address already in use" did not say which of a config's listeners failed).
void open_listener(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port);

}  // namespace tern::net
