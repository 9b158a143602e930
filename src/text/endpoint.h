#pragma once
// Checks of the OTLP exporters' endpoints, shared by the config loader (`tern validate`
// reports them with file:line:column) and the clients (which refuse them too, for callers
// that do not go through the loader: `tern gen`, the SDK). Header-only: both link tern_text.
#include <optional>
#include <string>
#include <string_view>

#include "text/numbers.h"

namespace tern::text {

// Empty when `port` is a decimal number 1-65535, else why not.
inline std::string port_error(std::string_view port) {
  if (port.empty()) return "no port";
  const std::optional<unsigned> p = port.size() <= 5 ? parse_whole<unsigned>(port) : std::nullopt;
  if (!p || *p == 0 || *p > 65535 || port.find_first_not_of("0123456789") != std::string_view::npos)
    return "port \"" + std::string(port) + "\" is not a number 1-65535";
  return {};
}

// An OTLP/gRPC endpoint: "host:port", "[v6]:port" (an http:// or https:// prefix tolerated),
// or a gRPC target URI with a scheme of its own ("dns:", "unix:", "ipv4:", ...), passed on
// as written. Empty when usable, else why not. gRPC took "127.0.0.1" (no port) or
// "127.0.0.1:abc" as port 0 and retried forever.
inline std::string grpc_endpoint_error(std::string_view ep) {
  if (ep.starts_with("http://"))
    ep.remove_prefix(7);
  else if (ep.starts_with("https://"))
    ep.remove_prefix(8);
  if (ep.empty()) return "empty endpoint";
  for (std::string_view scheme : {"dns:", "unix:", "unix-abstract:", "ipv4:", "ipv6:", "vsock:"})
    if (ep.starts_with(scheme)) return {};
  std::string_view host, port;
  if (ep.front() == '[') {
    const auto close = ep.find(']');
    if (close == std::string_view::npos) return "an IPv6 address without its closing ']'";
    host = ep.substr(1, close - 1);
    if (close + 1 >= ep.size() || ep[close + 1] != ':') return "no port";
    port = ep.substr(close + 2);
  } else {
    const auto colon = ep.rfind(':');
    if (colon == std::string_view::npos) return "no port";
    host = ep.substr(0, colon);
    port = ep.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return "an IPv6 address is written in brackets ([::1]:4317)";
  }
  if (host.empty()) return "no host";
  return port_error(port);
}

// An OTLP/HTTP endpoint: "http://host[:port][/path]" or "https://host[:port][/path]" or,
// unless `require_scheme`, a bare "host[:port][/path]" (as telemetrygen's and the SDK's
// endpoint take it). The port may be left out: the scheme's (80, 443), or 4318 without a
// scheme (see the HTTP client). The authority ends at '/', '?' or '#'. Empty when usable,
// else why not.
inline std::string http_endpoint_error(std::string_view url, bool require_scheme) {
  const std::size_t scheme = url.starts_with("https://") ? 8 : url.starts_with("http://") ? 7 : 0;
  if (require_scheme && (scheme == 0 || url.size() == scheme))
    return "expected a URL (e.g. \"http://127.0.0.1:4318\")";
  std::string_view authority = url.substr(scheme);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  std::string_view host = authority;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return "an IPv6 address without its closing ']'";
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return "expected [address]:port";
      if (std::string why = port_error(authority.substr(close + 2)); !why.empty()) return why;
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    if (host.find(':') != std::string_view::npos)
      return "an IPv6 address is written in brackets (http://[::1]:4318)";
    if (std::string why = port_error(authority.substr(colon + 1)); !why.empty()) return why;
  }
  if (host.empty()) return "no host";
  return {};
}

// An OTLP exporter's header (HTTP header, or gRPC metadata with `grpc`): empty when it can
// be sent, else why not. gRPC aborted the process on a metadata key it refuses (API misuse,
// an assertion), and HTTP sent a CR LF in a value as a second header line.
inline std::string header_error(std::string_view key, std::string_view value, bool grpc) {
  const std::string where = "header \"" + std::string(key) + "\"";
  if (key.empty()) return "a header needs a name";
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    // gRPC: lowercase-able metadata keys; HTTP: RFC 9110 token characters.
    const bool ok = grpc ? alnum || c == '-' || c == '_' || c == '.'
                         : alnum || std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
    if (!ok) return where + ": a header name cannot hold '" + std::string(1, ch) + "'";
  }
  if (grpc && key.size() > 4 && key.ends_with("-bin")) return {};  // gRPC base64-encodes these itself
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    // gRPC: printable ASCII only; HTTP: no control characters but tab.
    const bool ok = grpc ? (c >= 0x20 && c < 0x7f) : (c >= 0x20 || c == '\t') && c != 0x7f;
    if (!ok) return where + ": its value cannot hold the byte " + std::to_string(c);
  }
  return {};
}

}  // namespace tern::text
