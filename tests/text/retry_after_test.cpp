#include "text/retry_after.h"

#include <gtest/gtest.h>

namespace tern::text {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

// 1994-11-06T08:49:37Z, RFC 9110's example date.
const system_clock::time_point kExampleDate{seconds(784111777)};

TEST(RetryAfter, DelaySeconds) {
  EXPECT_EQ(retry_after_wait("120", kExampleDate), seconds(120));
  EXPECT_EQ(retry_after_wait(" 7 ", kExampleDate), seconds(7));
  EXPECT_EQ(retry_after_wait("0", kExampleDate), seconds(0));
}

TEST(RetryAfter, HugeDelaysWaitADay) {
  EXPECT_EQ(retry_after_wait("86401", kExampleDate), kMaxRetryAfter);
  EXPECT_EQ(retry_after_wait("99999999999999999999999999", kExampleDate), kMaxRetryAfter);
}

TEST(RetryAfter, HttpDateInEachFormARecipientMustRead) {
  const auto now = kExampleDate - seconds(90);
  EXPECT_EQ(retry_after_wait("Sun, 06 Nov 1994 08:49:37 GMT", now), seconds(90));
  EXPECT_EQ(retry_after_wait("Sunday, 06-Nov-94 08:49:37 GMT", now), seconds(90));
  EXPECT_EQ(retry_after_wait("Sun Nov  6 08:49:37 1994", now), seconds(90));
}

TEST(RetryAfter, DateInThePastOrFarFuture) {
  EXPECT_EQ(retry_after_wait("Sun, 06 Nov 1994 08:49:37 GMT", kExampleDate + seconds(1)), seconds(0));
  EXPECT_EQ(retry_after_wait("Sun, 06 Nov 1994 08:49:37 GMT", kExampleDate), seconds(0));
  EXPECT_EQ(retry_after_wait("Fri, 31 Dec 2094 23:59:59 GMT", kExampleDate), kMaxRetryAfter);
}

TEST(RetryAfter, HttpDates) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kExampleDate);
  EXPECT_EQ(parse_http_date(" Sun Nov  6 08:49:37 1994 "), kExampleDate);
  EXPECT_FALSE(parse_http_date("yesterday"));
  EXPECT_FALSE(parse_http_date(""));
}

TEST(RetryAfter, AnythingElseIsNoHint) {
  for (const char* v : {"", "  ", "-5", "1.5", "+3", "soon", "Sun, 06 Nov 1994 08:49:37",
                        "Sun, 06 Nov 1994 08:49:37 GMT junk", "Sun, 32 Nov 1994 08:49:37 GMT", "12abc"})
    EXPECT_EQ(retry_after_wait(v, kExampleDate), seconds(0)) << '"' << v << '"';
}

}  // namespace
}  // namespace tern::text
