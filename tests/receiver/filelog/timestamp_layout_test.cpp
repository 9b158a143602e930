// Timestamp layouts of the filelog operators: the Collector's strptime directives and its
// epoch layouts, against times computed independently (timegm of the same fields).
#include "receiver/filelog/timestamp_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <ctime>

namespace tern::receiver::filelog {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

std::int64_t utc(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<std::int64_t>(timegm(&tm)) * kSec;
}

std::optional<std::int64_t> parse(std::string_view layout, std::string_view text, bool in_utc = true) {
  std::string error;
  const auto l = TimestampLayout::compile(layout, error);
  EXPECT_TRUE(l) << layout << ": " << error;
  return l ? l->parse(text, in_utc) : std::nullopt;
}

TEST(TimestampLayout, IsoWithZonesAndFractions) {
  const std::int64_t base = utc(2022, 1, 2, 14, 24, 56);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S.%LZ", "2022-01-02T14:24:56.123Z"), base + 123'000'000);
  // The Collector's own example: a comma before 3 digits, under "%S.%f".
  EXPECT_EQ(parse("%Y-%m-%d %H:%M:%S.%f %z", "2022-01-02 07:24:56,123 -0700"), base + 123'000'000);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S.%s%j", "2022-01-02T16:24:56.123456789+02:00"), base + 123'456'789);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S%z", "2022-01-02T14:24:56Z"), base);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S%i", "2022-01-02T15:24:56+01"), base);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S%k", "2022-01-02T14:54:56+00:30:00"), base);
  EXPECT_EQ(parse("%F %T %Z", "2022-01-02 14:24:56 UTC"), base);
  // A fraction the layout leaves optional may be absent; one after %S is always accepted (Go).
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%S.%LZ", "2022-01-02T14:24:56Z"), base);
  EXPECT_EQ(parse("%Y-%m-%dT%H:%M:%SZ", "2022-01-02T14:24:56.5Z"), base + 500'000'000);
}

TEST(TimestampLayout, NamesTwelveHourClockAndComposites) {
  EXPECT_EQ(parse("%a %b %d %H:%M:%S %Y", "Sun Jan 02 14:24:56 2022"), utc(2022, 1, 2, 14, 24, 56));
  EXPECT_EQ(parse("%A, %B %e %Y %I:%M %p", "Sunday, January  2 2022 02:24 PM"), utc(2022, 1, 2, 14, 24, 0));
  EXPECT_EQ(parse("%D %r", "01/02/22  2:24:56 am"), utc(2022, 1, 2, 2, 24, 56));
  EXPECT_EQ(parse("%D %l:%M %P", "01/02/22 12:05 am"), utc(2022, 1, 2, 0, 5, 0));
  EXPECT_EQ(parse("%c", "Sun Jan 02 14:24:56 2022"), utc(2022, 1, 2, 14, 24, 56));
  EXPECT_EQ(parse("%q/%g/%Y %R", "1/2/2022 14:24"), utc(2022, 1, 2, 14, 24, 0));
  EXPECT_EQ(parse("%Y%%%m", "2022%01"), utc(2022, 1, 1, 0, 0, 0));
}

// Syslog's "Jan  2 15:04:05" has no year: the current one, as the Collector does.
TEST(TimestampLayout, NoYearMeansThisYear) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  EXPECT_EQ(parse("%b %e %H:%M:%S", "Mar  5 06:07:08"), utc(tm.tm_year + 1900, 3, 5, 6, 7, 8));
}

TEST(TimestampLayout, LocalZoneWhenTheTextHasNone) {
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "America/New_York", 1);
  tzset();
  // 2022-01-02 09:24:56 in New York (EST, UTC-5) is 14:24:56 UTC; in July EDT is UTC-4.
  EXPECT_EQ(parse("%F %T", "2022-01-02 09:24:56", /*in_utc=*/false), utc(2022, 1, 2, 14, 24, 56));
  EXPECT_EQ(parse("%F %T", "2022-07-02 10:24:56", /*in_utc=*/false), utc(2022, 7, 2, 14, 24, 56));
  EXPECT_EQ(parse("%F %T", "2022-07-02 10:24:56", /*in_utc=*/true), utc(2022, 7, 2, 10, 24, 56));
  EXPECT_EQ(parse("%F %T%z", "2022-07-02 10:24:56+0000", /*in_utc=*/false), utc(2022, 7, 2, 10, 24, 56));
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

TEST(TimestampLayout, TextThatDoesNotMatchIsNotATime) {
  for (const char* text : {"2022-01-02 14:24", "2022-01-02 14:24:56 trailing", "2022-13-02 14:24:56",
                           "2022-02-30 14:24:56", "2021-02-29 00:00:00", "22-01-02 14:24:56", "", "abc",
                           "2022-01-02 25:00:00", "2022-01-02 14:60:00", "1969-12-31 23:59:59"}) {
    EXPECT_FALSE(parse("%Y-%m-%d %H:%M:%S", text)) << text;
  }
  EXPECT_EQ(parse("%Y-%m-%d", "2024-02-29"), utc(2024, 2, 29, 0, 0, 0));  // a leap day
  EXPECT_FALSE(parse("%b %d %Y", "Foo 02 2022"));
  EXPECT_FALSE(parse("%Y-%m-%dT%H:%M:%S%z", "2022-01-02T14:24:56+2500"));
  EXPECT_FALSE(parse("%Y-%m-%dT%H:%M:%S.%L", "2022-01-02T14:24:56."));
}

TEST(TimestampLayout, BadLayoutsAreErrors) {
  std::string error;
  EXPECT_FALSE(TimestampLayout::compile("%Y-%Q", error));
  EXPECT_EQ(error, "unknown directive %Q");
  EXPECT_FALSE(TimestampLayout::compile("%Y %", error));
  EXPECT_EQ(error, "layout ends with a lone %");
  EXPECT_FALSE(TimestampLayout::compile("", error));
  EXPECT_EQ(error, "layout is empty");
}

TEST(EpochLayout, EveryUnitFromTextAndNumbers) {
  const std::int64_t t = 1136214245;
  EXPECT_EQ(parse_epoch("1136214245", "s"), t * kSec);
  EXPECT_EQ(parse_epoch("1136214245123", "ms"), t * kSec + 123'000'000);
  EXPECT_EQ(parse_epoch("1136214245123456", "us"), t * kSec + 123'456'000);
  EXPECT_EQ(parse_epoch("1136214245123456789", "ns"), t * kSec + 123'456'789);
  EXPECT_EQ(parse_epoch("1136214245.123", "s.ms"), t * kSec + 123'000'000);
  EXPECT_EQ(parse_epoch("1136214245.123456789", "s.ns"), t * kSec + 123'456'789);
  EXPECT_EQ(parse_epoch("1136214245.5", "s"), t * kSec + 500'000'000);
  EXPECT_EQ(epoch_from_integer(t, "s.us"), t * kSec);  // an integer is seconds under s.*
  EXPECT_EQ(epoch_from_integer(t * 1000, "ms"), t * kSec);
  EXPECT_EQ(epoch_from_number(1136214245.25, "s"), t * kSec + 250'000'000);
  for (const char* bad : {"", "-5", "12a", "1.", ".5", "99999999999999999999", "1e9"})
    EXPECT_FALSE(parse_epoch(bad, "s")) << bad;
  EXPECT_FALSE(epoch_from_integer(-1, "s"));
  EXPECT_FALSE(epoch_from_integer(INT64_MAX / 10, "s"));
  EXPECT_FALSE(epoch_from_number(std::nan(""), "s"));
  EXPECT_FALSE(epoch_from_number(1e300, "ms"));
  EXPECT_TRUE(valid_epoch_layout("s.us"));
  EXPECT_FALSE(valid_epoch_layout("min"));
}

}  // namespace
}  // namespace tern::receiver::filelog
