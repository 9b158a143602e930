// logging::LogLimit: the first occurrence is logged, then one per period with the count held
// back, and the owner can take the count still unreported when it stops.
#include "logging/log_limit.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace tern::logging {
namespace {

TEST(LogLimit, LogsTheFirstThenOncePerPeriodWithTheCountHeldBack) {
  LogLimit limit(std::chrono::milliseconds(50));
  std::uint64_t suppressed = 99;
  ASSERT_TRUE(limit.allow(suppressed));
  EXPECT_EQ(suppressed, 0u);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(limit.allow(suppressed));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  ASSERT_TRUE(limit.allow(suppressed));
  EXPECT_EQ(suppressed, 5u);
}

// A burst that ends inside a period: its tail is reported by the owner's last word, once.
TEST(LogLimit, TakeSuppressedGivesTheUnreportedCountOnce) {
  LogLimit limit(std::chrono::hours(1));
  std::uint64_t suppressed = 0;
  EXPECT_EQ(limit.take_suppressed(), 0u);
  ASSERT_TRUE(limit.allow(suppressed));
  EXPECT_EQ(limit.take_suppressed(), 0u) << "the only occurrence was logged";
  for (int i = 0; i < 7; ++i) EXPECT_FALSE(limit.allow(suppressed));
  EXPECT_EQ(limit.take_suppressed(), 7u);
  EXPECT_EQ(limit.take_suppressed(), 0u);
}

}  // namespace
}  // namespace tern::logging
