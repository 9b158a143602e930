#include "text/numbers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace tern::text {
namespace {

TEST(ParseWhole, IntegersThatAreTheWholeText) {
  EXPECT_EQ(parse_whole<std::int64_t>("0"), 0);
  EXPECT_EQ(parse_whole<std::int64_t>("-42"), -42);
  EXPECT_EQ(parse_whole<std::int64_t>("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_whole<std::uint64_t>("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_whole<unsigned>("65535"), 65535u);
}

TEST(ParseWhole, RejectsTextAroundTheNumber) {
  EXPECT_FALSE(parse_whole<std::int64_t>("12abc"));
  EXPECT_FALSE(parse_whole<std::int64_t>("12 "));
  EXPECT_FALSE(parse_whole<std::int64_t>(" 12"));
  EXPECT_FALSE(parse_whole<std::int64_t>("+12"));
  EXPECT_FALSE(parse_whole<std::int64_t>("1.5"));
  EXPECT_FALSE(parse_whole<double>("1.5s"));
  EXPECT_FALSE(parse_whole<double>("1.2.3"));
}

TEST(ParseWhole, RejectsEmptyNonNumbersAndOverflow) {
  EXPECT_FALSE(parse_whole<std::int64_t>(""));
  EXPECT_FALSE(parse_whole<double>(""));
  EXPECT_FALSE(parse_whole<std::int64_t>("-"));
  EXPECT_FALSE(parse_whole<std::int64_t>("abc"));
  EXPECT_FALSE(parse_whole<std::int64_t>("9223372036854775808"));  // one past INT64_MAX
  EXPECT_FALSE(parse_whole<std::uint64_t>("-1"));                  // unsigned: no sign
  EXPECT_FALSE(parse_whole<double>("1e400"));                      // out of double's range
}

TEST(ParseWhole, Doubles) {
  EXPECT_EQ(parse_whole<double>("5"), 5.0);
  EXPECT_EQ(parse_whole<double>("-0.25"), -0.25);
  EXPECT_EQ(parse_whole<double>("1e3"), 1000.0);
  // A string view that is part of a longer buffer: only its own bytes are read.
  const std::string_view longer = "2.5xyz";
  EXPECT_EQ(parse_whole<double>(longer.substr(0, 3)), 2.5);
}

}  // namespace
}  // namespace tern::text
