#pragma once
// Asio/OpenSSL contexts for net::TlsClientOptions and net::TlsServerOptions. Include only
// from translation units that already use Beast/Asio (these headers are heavy).
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl.hpp>
#include <string>

#include "net/tls.h"

namespace tern::net {

// Throw std::runtime_error naming the setting and the file when one cannot be loaded.
boost::asio::ssl::context make_client_context(const TlsClientOptions& options);
boost::asio::ssl::context make_server_context(const TlsServerOptions& options);

// Before the handshake of a client stream dialling `host`: SNI (for names; RFC 6066 keeps IP
// literals out of it) and, unless options.insecure_skip_verify, the check that the
// certificate is for the expected name: options.server_name_override, else `host`.
template <class SslStream>
void prepare_client_stream(SslStream& stream, const std::string& host, const TlsClientOptions& options) {
  const std::string& name = options.server_name_override.empty() ? host : options.server_name_override;
  boost::system::error_code ip_ec;
  boost::asio::ip::make_address(name, ip_ec);
  if (ip_ec) SSL_set_tlsext_host_name(stream.native_handle(), name.c_str());
  if (!options.insecure_skip_verify)
    stream.set_verify_callback(boost::asio::ssl::host_name_verification(name));
}

}  // namespace tern::net
