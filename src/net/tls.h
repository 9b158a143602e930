#pragma once
// TLS settings shared by Tern's servers (OTLP receivers) and clients (Elasticsearch and
// OTLP exporters, tern gen). Plain data: no OpenSSL, Asio or gRPC headers here; the
// contexts are built in tls_context.h (Asio) and in the gRPC translation units.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tern::net {

// A bound of the TLS versions a side accepts (`min_version`, `max_version`, as in the
// Collector's configtls). Tern never speaks below TLS 1.2; kDefault leaves the bound to
// that floor (min) or to the highest the library has (max, TLS 1.3).
enum class TlsVersion : std::uint8_t { kDefault, k1_2, k1_3 };
// "1.2" and "1.3"; nullopt for anything else (including "1.0" and "1.1").
inline std::optional<TlsVersion> parse_tls_version(std::string_view text) {
  if (text == "1.2") return TlsVersion::k1_2;
  if (text == "1.3") return TlsVersion::k1_3;
  return std::nullopt;
}

// A client's side of TLS (the Collector's configtls.ClientConfig).
struct TlsClientOptions {
  std::string ca_file;                // PEM CA certificate(s) to verify the server; empty: the system's
  std::string cert_file;              // client certificate chain (PEM) for mutual TLS, optional
  std::string key_file;               // its private key (PEM)
  bool insecure_skip_verify = false;  // encrypt, but accept any server certificate
  // The name the server's certificate must carry (and SNI sends) when it is not the host
  // the endpoint dials, e.g. an IP address in front of a certificate for a DNS name.
  std::string server_name_override;
  TlsVersion min_version = TlsVersion::kDefault;
  TlsVersion max_version = TlsVersion::kDefault;
};

// A server's side of TLS (the Collector's configtls.ServerConfig). TLS is on when a
// certificate is set.
struct TlsServerOptions {
  std::string cert_file;       // server certificate chain (PEM)
  std::string key_file;        // its private key (PEM)
  std::string client_ca_file;  // set: clients must present a certificate signed by these CAs
  TlsVersion min_version = TlsVersion::kDefault;
  TlsVersion max_version = TlsVersion::kDefault;
  bool enabled() const { return !cert_file.empty(); }
};

// The whole file, for APIs that take PEM text (gRPC). Throws std::runtime_error naming
// `what` (e.g. "tls.ca_file") and the path when it cannot be read or is empty.
std::string read_pem_file(const std::string& path, const char* what);

}  // namespace tern::net
