#pragma once
// ASCII-only case folding and hex digits, for protocol tokens: header names, content types,
// flag and config keywords, units, percent-encoding. These are ASCII by definition, and
// std::tolower would consult the process's locale (tern sets C.UTF-8 for Unicode index
// names: lowercase.h). Text a user wrote for people, such as index names, goes through
// lowercase.h instead.
#include <string>
#include <string_view>

namespace tern::text {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

constexpr bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// The value of a hex digit in either case, or -1.
constexpr int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

}  // namespace tern::text
