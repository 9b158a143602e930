#include "sink/strings.h"

#include "text/ascii.h"

namespace tern::sink {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    size_t p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  const auto hex = tern::text::hex_digit;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    size_t eq = kv.find('=');
    if (kv.substr(0, eq) == name)
      return eq == std::string_view::npos ? std::string() : percent_decode(kv.substr(eq + 1), true);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

bool has_query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    if (kv.substr(0, kv.find('=')) == name) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

std::optional<bool> parse_es_bool(std::string_view v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

}  // namespace tern::sink
