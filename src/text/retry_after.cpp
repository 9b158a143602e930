#include "text/retry_after.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "text/numbers.h"

namespace tern::text {
namespace {

// `value` read as a UTC date by strptime(3) with `format`, the whole of it: the C library's
// parser (its English day and month names are the C locale's, which Tern never changes).
bool parse_date(const std::string& value, const char* format, std::int64_t& unix_seconds) {
  struct tm tm {};
  const char* end = strptime(value.c_str(), format, &tm);
  if (!end || *end != '\0') return false;
  unix_seconds = static_cast<std::int64_t>(timegm(&tm));
  return true;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  const std::string text(value);
  std::int64_t at = 0;
  if (!parse_date(text, "%a, %d %b %Y %H:%M:%S GMT", at) &&
      !parse_date(text, "%A, %d-%b-%y %H:%M:%S GMT", at) && !parse_date(text, "%a %b %e %H:%M:%S %Y", at))
    return std::nullopt;
  return std::chrono::system_clock::time_point(std::chrono::seconds(at));
}

std::chrono::seconds retry_after_wait(std::string_view value, std::chrono::system_clock::time_point now) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return {};
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    // All digits: delay-seconds. Too many digits for a uint64 is still a (very long) wait.
    const auto secs = parse_whole<std::uint64_t>(value);
    if (!secs) return kMaxRetryAfter;
    return std::chrono::seconds(std::min<std::uint64_t>(*secs, kMaxRetryAfter.count()));
  }
  const std::optional<std::chrono::system_clock::time_point> at = parse_http_date(value);
  if (!at || *at <= now) return {};
  return std::min(std::chrono::duration_cast<std::chrono::seconds>(*at - now), kMaxRetryAfter);
}

}  // namespace tern::text
