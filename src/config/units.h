#pragma once
// Value syntaxes shared by every config field: Go-style durations, byte sizes and
// `${env:VAR}` substitution. Each returns an error message instead of throwing so
// the loader can attach a file position to it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace tern::config {

using Duration = std::chrono::nanoseconds;

// On success holds the value, otherwise a human-readable reason.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;
  explicit operator bool() const { return value.has_value(); }
};

// Go's time.ParseDuration: "300ms", "1.5h", "1m30s", "0". Units ns, us (µs), ms, s, m, h.
// Negative durations are rejected: no config field has a use for them.
Parsed<Duration> parse_duration(std::string_view text);

// Byte size: a plain integer ("1048576") or a number with a unit, decimal (B, KB, MB,
// GB, TB) or binary (KiB, MiB, GiB, TiB), case-insensitive, e.g. "5MB", "1.5 GiB".
Parsed<std::uint64_t> parse_size(std::string_view text);

// "102_400" -> "102400": YAML 1.1 digit groups in an integer (the Collector's YAML reader
// accepts them; Elastic's own filelog examples use them). The text unchanged when it is not
// digits with single underscores between them.
std::string without_digit_groups(std::string_view text);

// Returns the value of an environment variable, or nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
EnvLookup process_env();

// Expands ${env:VAR}, ${VAR}, ${env:VAR:-default} and ${VAR:-default}; `$$` is a
// literal `$`; a `$` not followed by `{` or `$` is kept as is. An unset variable
// without a default is an error (the default applies when unset or empty, as in sh).
Parsed<std::string> substitute_env(std::string_view text, const EnvLookup& env);

}  // namespace tern::config
