#pragma once
// Numbers read from text that must be the whole text: config values, OTTL literals, flag
// values, attribute strings the attributes processor converts. std::from_chars stops at the
// first byte that is not part of the number ("12abc" reads as 12), so every caller needs the
// same end check; it lives here once.
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace tern::text {

// `s` as a T (an integer type or double) when the number is all of `s`: nothing when `s` is
// empty, is not a number, is out of T's range, or has anything before or after the number
// (spaces and a leading '+' included, as from_chars reads them).
template <class T>
std::optional<T> parse_whole(std::string_view s) {
  T x{};
  const char* const end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, x);
  if (ec != std::errc() || p != end) return std::nullopt;
  return x;
}

}  // namespace tern::text
