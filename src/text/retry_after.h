#pragma once
// A `Retry-After` header's value (RFC 9110 10.2.3) as a wait: delay-seconds or an HTTP-date,
// for the clients that honour a server's hint (the OTLP/HTTP exporter).
#include <chrono>
#include <optional>
#include <string_view>

namespace tern::text {

// A server may ask for long waits; a day is the most any client here waits for one hint (a
// gRPC RetryInfo is capped the same). A bigger value, or one out of range, waits a day.
inline constexpr std::chrono::seconds kMaxRetryAfter{86'400};

// The wait `value` asks for, counted from `now` for an HTTP-date: delay-seconds ("120") or
// an HTTP-date in any of the three forms a recipient must read ("Sun, 06 Nov 1994 08:49:37
// GMT", the obsolete "Sunday, 06-Nov-94 08:49:37 GMT" and asctime's "Sun Nov  6 08:49:37
// 1994"), capped at kMaxRetryAfter. Zero, no hint, for anything else and for a date that
// has passed. `now`: the server's time (its Date header) when known, else the local clock.
std::chrono::seconds retry_after_wait(std::string_view value, std::chrono::system_clock::time_point now);

// An HTTP-date in any of those three forms (a `Date` header), or nothing.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view value);

}  // namespace tern::text
