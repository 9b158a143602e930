#include "net/tls_context.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tern::net {
namespace ssl = boost::asio::ssl;

namespace {
// OpenSSL's reason for a file it could not open is often just "system lib"; say which.
[[noreturn]] void fail(const char* what, const std::string& path, const boost::system::error_code& ec) {
  const bool readable = static_cast<bool>(std::ifstream(path));
  throw std::runtime_error(std::string(what) + " " + path + ": " +
                           (readable ? "not usable (" + ec.message() + ")" : std::string("cannot be read")));
}
constexpr auto kNoOldProtocols = ssl::context::default_workarounds | ssl::context::no_sslv2 |
                                 ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1;

// The configured bounds on top of the TLS 1.2 floor that kNoOldProtocols sets.
void set_versions(ssl::context& ctx, TlsVersion min, TlsVersion max) {
  if (min == TlsVersion::k1_3) SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_3_VERSION);
  if (max == TlsVersion::k1_2) SSL_CTX_set_max_proto_version(ctx.native_handle(), TLS1_2_VERSION);
}
}  // namespace

std::string read_pem_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string(what) + " " + path + ": cannot be read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("-----BEGIN ") == std::string::npos)
    throw std::runtime_error(std::string(what) + " " + path + ": not a PEM file");
  return text;
}

ssl::context make_client_context(const TlsClientOptions& o) {
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_options(kNoOldProtocols);
  set_versions(ctx, o.min_version, o.max_version);
  boost::system::error_code ec;
  if (!o.ca_file.empty()) {
    ctx.load_verify_file(o.ca_file, ec);
    if (ec) fail("tls.ca_file", o.ca_file, ec);
  } else {
    ctx.set_default_verify_paths(ec);
  }
  if (!o.cert_file.empty()) {
    ctx.use_certificate_chain_file(o.cert_file, ec);
    if (ec) fail("tls.cert_file", o.cert_file, ec);
    const std::string& key = o.key_file.empty() ? o.cert_file : o.key_file;
    ctx.use_private_key_file(key, ssl::context::pem, ec);
    if (ec) fail("tls.key_file", key, ec);
  }
  ctx.set_verify_mode(o.insecure_skip_verify ? ssl::verify_none : ssl::verify_peer);
  return ctx;
}

ssl::context make_server_context(const TlsServerOptions& o) {
  ssl::context ctx(ssl::context::tls_server);
  ctx.set_options(kNoOldProtocols | ssl::context::single_dh_use);
  set_versions(ctx, o.min_version, o.max_version);
  boost::system::error_code ec;
  ctx.use_certificate_chain_file(o.cert_file, ec);
  if (ec) fail("tls.cert_file", o.cert_file, ec);
  ctx.use_private_key_file(o.key_file, ssl::context::pem, ec);
  if (ec) fail("tls.key_file", o.key_file, ec);
  if (!o.client_ca_file.empty()) {
    ctx.load_verify_file(o.client_ca_file, ec);
    if (ec) fail("tls.client_ca_file", o.client_ca_file, ec);
    ctx.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return ctx;
}

}  // namespace tern::net
