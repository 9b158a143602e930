#pragma once
// The request target as the handlers route on it: origin-form ("/v1/logs?x=1"), whichever
// of the forms of RFC 9112 §3.2 the client sent. Free of Beast.
#include <string_view>

namespace tern::net {

// "http://host:4318/v1/logs?x" -> "/v1/logs?x": absolute-form, which a server MUST accept
// (RFC 9112 §3.2.2; proxies and some clients send it), loses its scheme and authority. An
// absolute-form target without a path is "/" (its query, if any, is dropped with the empty
// path). Anything else (origin-form, "*", authority-form, junk) is returned as sent: the
// handler answers it as an unknown path.
inline std::string_view origin_form_target(std::string_view target) {
  if (target.empty() || target.front() == '/') return target;  // the usual case: one compare
  const auto sep = target.find("://");
  if (sep == std::string_view::npos || sep == 0) return target;
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 §3.1)
  for (std::size_t i = 0; i < sep; ++i) {
    const char c = target[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) return target;
  }
  const std::string_view rest = target.substr(sep + 3);
  const auto path = rest.find_first_of("/?#");
  if (path == std::string_view::npos || rest[path] != '/') return "/";
  return rest.substr(path);
}

}  // namespace tern::net
