#pragma once
// Range checks for numeric flags that say the range in words. CLI11 2.1's own
// (PositiveNumber, NonNegativeNumber, Range) print their bounds with std::to_string:
// `tern sink --threads 0` said "Value 0 not in range 0.000000 to 1797693134862315708...",
// the largest double written out in 300 digits.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace tern::cli {

// An integer in [min, max]: "must be an integer from 1 to 1024, got 0". CLI11 puts the
// flag's name in front ("--threads: must be ...").
inline CLI::Validator integer_range(std::int64_t min, std::int64_t max) {
  const std::string range = "from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& input) -> std::string {
        std::int64_t v = 0;
        if (!CLI::detail::lexical_cast(input, v) || v < min || v > max)
          return "must be an integer " + range + ", got " + input;
        return {};
      },
      "in [" + std::to_string(min) + ", " + std::to_string(max) + "]", "INTEGER_RANGE");
}

// A probability: a number in [0, 1].
inline CLI::Validator probability() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(input, v) || !(v >= 0 && v <= 1))
          return "must be a probability from 0 to 1, got " + input;
        return {};
      },
      "in [0, 1]", "PROBABILITY");
}

// A finite number greater than 0 (e.g. seconds).
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(input, v) || !std::isfinite(v) || !(v > 0))
          return "must be a number greater than 0, got " + input;
        return {};
      },
      "> 0", "POSITIVE");
}

}  // namespace tern::cli
