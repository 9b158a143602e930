// Numeric flag checks (src/cli/flag_checks.h) and the messages `tern` prints with them: the
// range in words, never CLI11's bounds written out ("Value 0 not in range 0.000000 to
// 1797693134862315708...", 300 digits, for `tern sink --threads 0`).
#include "cli/flag_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/process.h"

namespace tern::cli {
namespace {

std::string check(const CLI::Validator& v, std::string input) { return v(input); }

TEST(FlagChecks, IntegerRange) {
  const auto v = integer_range(1, 1024);
  EXPECT_EQ(check(v, "1"), "");
  EXPECT_EQ(check(v, "1024"), "");
  EXPECT_EQ(check(v, "0"), "must be an integer from 1 to 1024, got 0");
  EXPECT_EQ(check(v, "1025"), "must be an integer from 1 to 1024, got 1025");
  EXPECT_EQ(check(v, "-3"), "must be an integer from 1 to 1024, got -3");
  EXPECT_EQ(check(v, "2.5"), "must be an integer from 1 to 1024, got 2.5");
  EXPECT_EQ(check(v, "x"), "must be an integer from 1 to 1024, got x");
}

TEST(FlagChecks, ProbabilityAndPositiveNumber) {
  const auto p = probability();
  for (const char* ok : {"0", "1", "0.25"}) EXPECT_EQ(check(p, ok), "") << ok;
  for (const char* bad : {"-0.1", "1.5", "nan", "x"})
    EXPECT_EQ(check(p, bad), std::string("must be a probability from 0 to 1, got ") + bad);
  const auto n = positive_number();
  for (const char* ok : {"0.5", "5", "1e3"}) EXPECT_EQ(check(n, ok), "") << ok;
  for (const char* bad : {"0", "-1", "inf", "nan", "x"})
    EXPECT_EQ(check(n, bad), std::string("must be a number greater than 0, got ") + bad);
}

// The flags that used CLI11's checks, through the real binary: a usage error (exit 2) that
// names the flag and its range.
TEST(FlagChecks, TernFlagsSayTheirRange) {
  const std::string tern = TERN_BIN_DIR "/tern";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"sink", "--threads", "0"}, "--threads: must be an integer from 1 to 1024, got 0"},
      {{"sink", "--latency-ms", "-5"}, "--latency-ms: must be an integer from 0 to 3600000, got -5"},
      {{"sink", "--item-429-rate", "2"}, "--item-429-rate: must be a probability from 0 to 1, got 2"},
      {{"sink", "--request-429-rate", "-1"}, "--request-429-rate: must be a probability from 0 to 1, got -1"},
      {{"sink", "--request-503-rate", "1.5"},
       "--request-503-rate: must be a probability from 0 to 1, got 1.5"},
      {{"sink", "--drop-connection-rate", "x"},
       "--drop-connection-rate: must be a probability from 0 to 1, got x"},
      {{"demo", "--duration", "0"}, "--duration: must be a number greater than 0, got 0"},
      {{"demo", "--workers", "0"}, "--workers: must be an integer from 1 to 4096, got 0"},
      {{"demo", "--batch-size", "0"}, "--batch-size: must be an integer from 1 to 1000000, got 0"},
      {{"gen", "logs", "--severity-number", "30"},
       "--severity-number: must be an integer from 1 to 24, got 30"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {tern};
    argv.insert(argv.end(), args.begin(), args.end());
    test::Process p(argv);
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 2) << args[1] << ": " << p.output();
    const std::string out = p.output();
    EXPECT_NE(out.find(message), std::string::npos) << out;
    EXPECT_EQ(out.find("0.000000"), std::string::npos) << out;
    EXPECT_EQ(out.find("179769"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace tern::cli
