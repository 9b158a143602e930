#pragma once
// Timestamp layouts of the Collector's stanza operators (`timestamp` blocks and
// `time_parser`), for the file receiver's `operators`: the `strptime` layout type (its
// directive set, which is not C's strptime: %L/%f/%s fractions, %i/%j/%k offsets, %q/%g
// unpadded numbers) and the `epoch` layouts. Hand-written because C's strptime has
// neither fractions nor these offsets, and glibc's depends on the locale.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tern::receiver::filelog {

class TimestampLayout {
 public:
  // A strptime-style layout; nullopt with `error` set for an unknown or dangling directive.
  static std::optional<TimestampLayout> compile(std::string_view layout, std::string& error);

  // Unix nanoseconds of `text`, or nullopt when it does not match the layout (or names an
  // impossible date). Without a zone in the text, the time is in UTC when `utc`, else in
  // the local zone; without a year, it is in the current year (as the Collector does).
  std::optional<std::int64_t> parse(std::string_view text, bool utc) const;

 private:
  struct Step {
    char directive = 0;   // 0: a literal
    std::string literal;  // for literals
  };
  std::vector<Step> steps_;
  bool has_year_ = false;
};

// The `epoch` layout type: "s", "ms", "us", "ns", "s.ms", "s.us" or "s.ns".
bool valid_epoch_layout(std::string_view layout);
// Unix nanoseconds of a decimal number in `layout`'s unit (text from a string attribute).
std::optional<std::int64_t> parse_epoch(std::string_view text, std::string_view layout);
// The same for a number already typed (an integer or double attribute).
std::optional<std::int64_t> epoch_from_number(double value, std::string_view layout);
std::optional<std::int64_t> epoch_from_integer(std::int64_t value, std::string_view layout);

}  // namespace tern::receiver::filelog
