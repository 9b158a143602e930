// Durations, sizes and ${env:VAR} substitution: the value syntaxes every config field uses.
#include <gtest/gtest.h>

#include <map>

#include "config/units.h"

namespace tern::config {
namespace {

using namespace std::chrono_literals;

Duration dur(std::string_view s) {
  auto d = parse_duration(s);
  EXPECT_TRUE(d) << s << ": " << d.error;
  return d.value.value_or(Duration{-1});
}

std::string dur_error(std::string_view s) {
  auto d = parse_duration(s);
  EXPECT_FALSE(d) << s;
  return d.error;
}

TEST(Duration, GoSyntax) {
  EXPECT_EQ(dur("0"), 0ns);
  EXPECT_EQ(dur("0s"), 0ns);
  EXPECT_EQ(dur("300ms"), 300ms);
  EXPECT_EQ(dur("1s"), 1s);
  EXPECT_EQ(dur("1.5h"), 90min);
  EXPECT_EQ(dur("1m30s"), 90s);
  EXPECT_EQ(dur("2h45m"), 165min);
  EXPECT_EQ(dur("10ns"), 10ns);
  EXPECT_EQ(dur("10us"), 10us);
  EXPECT_EQ(dur("10\xC2\xB5s"), 10us);  // micro sign
  EXPECT_EQ(dur("10\xCE\xBCs"), 10us);  // Greek mu
  EXPECT_EQ(dur(".5s"), 500ms);
  EXPECT_EQ(dur("+1s"), 1s);
  EXPECT_EQ(dur(" 5s "), 5s);
}

TEST(Duration, Errors) {
  EXPECT_EQ(dur_error(""), "invalid duration \"\": empty");
  EXPECT_EQ(dur_error("-1s"), "invalid duration \"-1s\": must not be negative");
  EXPECT_EQ(dur_error("5"), "invalid duration \"5\": missing unit (one of ns, us, ms, s, m, h)");
  EXPECT_EQ(dur_error("5x"), "invalid duration \"5x\": unknown unit \"x\" (one of ns, us, ms, s, m, h)");
  EXPECT_EQ(dur_error("5sec"),
            "invalid duration \"5sec\": unknown unit \"sec\" (one of ns, us, ms, s, m, h)");
  EXPECT_EQ(dur_error("ms"),
            "invalid duration \"ms\": expected a number (e.g. \"200ms\", \"1s\", \"1m30s\")");
  EXPECT_EQ(dur_error("99999999999h"), "invalid duration \"99999999999h\": too large");
}

std::uint64_t size(std::string_view s) {
  auto v = parse_size(s);
  EXPECT_TRUE(v) << s << ": " << v.error;
  return v.value.value_or(0);
}

TEST(Size, PlainAndUnits) {
  EXPECT_EQ(size("0"), 0u);
  EXPECT_EQ(size("1048576"), 1048576u);
  EXPECT_EQ(size("5MB"), 5000000u);
  EXPECT_EQ(size("5mb"), 5000000u);
  EXPECT_EQ(size("5MiB"), 5u * 1024 * 1024);
  EXPECT_EQ(size("1.5 GiB"), 1536u * 1024 * 1024);
  EXPECT_EQ(size("2KB"), 2000u);
  EXPECT_EQ(size("2KiB"), 2048u);
  EXPECT_EQ(size("1k"), 1000u);
  EXPECT_EQ(size("1Ki"), 1024u);
  EXPECT_EQ(size("3GB"), 3000000000u);
  EXPECT_EQ(size("1TiB"), 1024ull * 1024 * 1024 * 1024);
  EXPECT_EQ(size("10B"), 10u);
  // Plain integers are exact even beyond a double's 53-bit mantissa.
  EXPECT_EQ(size("9007199254740993"), 9007199254740993ull);
  EXPECT_EQ(size("18446744073709551615"), 18446744073709551615ull);
  // YAML 1.1 digit groups, as in Elastic's filelog examples (max_log_size: 102_400).
  EXPECT_EQ(size("102_400"), 102400u);
  EXPECT_EQ(size("1_048_576"), 1048576u);
}

// A size counts bytes: a fraction is fine only where the unit makes it whole bytes (it was
// rounded: `send_batch_max_bytes: 1.5` became 2).
TEST(Size, FractionsMustMakeWholeBytes) {
  EXPECT_EQ(size("1.0"), 1u);
  EXPECT_EQ(size("2.000"), 2u);
  EXPECT_EQ(size(".5KB"), 500u);
  EXPECT_EQ(size("0.5KB"), 500u);
  EXPECT_EQ(size("1.1MB"), 1100000u);
  EXPECT_EQ(size("1.25KiB"), 1280u);
  EXPECT_EQ(size("0.5KiB"), 512u);
  for (const char* fraction : {"1.5", "0.5", "2.5B", "1.1KiB", "0.0001KB", "1.0000000001GB"})
    EXPECT_EQ(parse_size(fraction).error,
              "invalid size \"" + std::string(fraction) + "\": not a whole number of bytes");
}

TEST(Size, DigitGroupsOnlyBetweenDigits) {
  EXPECT_EQ(without_digit_groups("1_000"), "1000");
  for (const char* kept : {"_1000", "1000_", "1__000", "1_MB", "abc", "", "5MiB"})
    EXPECT_EQ(without_digit_groups(kept), kept);
  EXPECT_FALSE(parse_size("1__000").value);
  EXPECT_FALSE(parse_size("_5").value);
}

TEST(Size, Errors) {
  EXPECT_EQ(parse_size("").error, "invalid size \"\": empty");
  EXPECT_EQ(parse_size("-5MB").error, "invalid size \"-5MB\": must not be negative");
  EXPECT_EQ(parse_size("5XB").error,
            "invalid size \"5XB\": unknown unit \"XB\" (one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  EXPECT_EQ(
      parse_size("MB").error,
      "invalid size \"MB\": expected a number of bytes, optionally with a unit (e.g. \"5MB\", \"5MiB\")");
  EXPECT_EQ(parse_size("18446744073709551616").error, "invalid size \"18446744073709551616\": too large");
  EXPECT_EQ(parse_size("100TB").value, 100000000000000ull);
  EXPECT_EQ(parse_size("100000000TB").error, "invalid size \"100000000TB\": too large");
}

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(SubstituteEnv, Forms) {
  auto env = fake_env({{"HOST", "es.local"}, {"PORT", "9200"}, {"EMPTY", ""}});
  EXPECT_EQ(substitute_env("http://${env:HOST}:${env:PORT}", env).value, "http://es.local:9200");
  EXPECT_EQ(substitute_env("${HOST}", env).value, "es.local");
  EXPECT_EQ(substitute_env("${env:MISSING:-fallback}", env).value, "fallback");
  EXPECT_EQ(substitute_env("${MISSING:-a:b}", env).value, "a:b");
  // As in sh, the default also applies to a set but empty variable.
  EXPECT_EQ(substitute_env("${env:EMPTY:-d}", env).value, "d");
  EXPECT_EQ(substitute_env("${env:EMPTY}", env).value, "");
  EXPECT_EQ(substitute_env("${env:HOST:-unused}", env).value, "es.local");
  EXPECT_EQ(substitute_env("${MISSING:-}", env).value, "");
  EXPECT_EQ(substitute_env("price $$5 and $HOME", env).value, "price $5 and $HOME");
  EXPECT_EQ(substitute_env("$${env:HOST}", env).value, "${env:HOST}");
  EXPECT_EQ(substitute_env("trailing $", env).value, "trailing $");
  EXPECT_EQ(substitute_env("no refs", env).value, "no refs");
  // A default may hold references of its own (the Collector's resolver expands them too).
  EXPECT_EQ(substitute_env("${env:MISSING:-${env:HOST}}", env).value, "es.local");
  EXPECT_EQ(substitute_env("${MISSING:-http://${HOST}:${PORT}}/x", env).value, "http://es.local:9200/x");
  EXPECT_EQ(substitute_env("${env:HOST:-${env:NOPE}}", env).value, "es.local");  // default unused
  EXPECT_EQ(substitute_env("${env:MISSING:-${env:NOPE}}", env).error,
            "environment variable \"NOPE\" is not set (write ${NOPE:-default} to give a default)");
  EXPECT_EQ(substitute_env("${env:MISSING:-${env:HOST}", env).error,
            "unterminated \"${\" in \"${env:MISSING:-${env:HOST}\"");
}

TEST(SubstituteEnv, Errors) {
  auto env = fake_env({});
  EXPECT_EQ(substitute_env("${env:NOPE}", env).error,
            "environment variable \"NOPE\" is not set (write ${NOPE:-default} to give a default)");
  EXPECT_EQ(substitute_env("${NOPE}", env).error,
            "environment variable \"NOPE\" is not set (write ${NOPE:-default} to give a default)");
  EXPECT_EQ(substitute_env("${env:A", env).error, "unterminated \"${\" in \"${env:A\"");
  EXPECT_EQ(substitute_env("${file:/etc/x}", env).error,
            "unsupported config source \"file\" in \"${file:/etc/x}\" (only env is supported)");
  EXPECT_EQ(substitute_env("${env:1X}", env).error,
            "invalid environment variable name \"1X\" in \"${env:1X}\"");
  EXPECT_EQ(substitute_env("${}", env).error, "invalid environment variable name \"\" in \"${}\"");
  EXPECT_EQ(substitute_env("${A-B}", env).error, "invalid environment variable name \"A-B\" in \"${A-B}\"");
}

TEST(SubstituteEnv, ProcessEnv) {
  ::setenv("TERN_CONFIG_TEST_VAR", "from-process", 1);
  EXPECT_EQ(substitute_env("${env:TERN_CONFIG_TEST_VAR}", process_env()).value, "from-process");
  ::unsetenv("TERN_CONFIG_TEST_VAR");
  EXPECT_FALSE(substitute_env("${env:TERN_CONFIG_TEST_VAR}", process_env()));
}

}  // namespace
}  // namespace tern::config
