#include "exporter/helper/backoff.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace tern::exporter::helper {
namespace {

using std::chrono::milliseconds;

TEST(RandomizeInterval, FactorZeroKeepsTheInterval) {
  std::minstd_rand rng(1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(randomize_interval(milliseconds(250), 0.0, rng), milliseconds(250));
}

// Every draw lies in [interval × (1 - f), interval × (1 + f)], and the draws spread over it
// (senders that failed together do not retry together).
TEST(RandomizeInterval, DrawsSpreadOverTheRange) {
  std::minstd_rand rng(7);
  std::set<long> seen;
  long lo = 1'000'000, hi = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto d = randomize_interval(milliseconds(1000), 0.5, rng).count();
    ASSERT_GE(d, 500);
    ASSERT_LE(d, 1500);
    lo = std::min<long>(lo, d);
    hi = std::max<long>(hi, d);
    seen.insert(d);
  }
  EXPECT_LT(lo, 550);
  EXPECT_GT(hi, 1450);
  EXPECT_GT(seen.size(), 500u);
}

TEST(RandomizeInterval, FullFactorNeverGoesNegative) {
  std::minstd_rand rng(3);
  for (int i = 0; i < 1000; ++i) {
    const auto d = randomize_interval(milliseconds(10), 1.0, rng).count();
    EXPECT_GE(d, 0);
    EXPECT_LE(d, 20);
  }
  EXPECT_EQ(randomize_interval(milliseconds(0), 1.0, rng), milliseconds(0));
}

// The Collector's default multiplier from a 1 ms start: whole milliseconds truncated 1.5 ms
// back to 1 ms, and the back-off stayed at 1 ms for ever.
TEST(GrowInterval, SmallIntervalsGrow) {
  BackoffInterval b = milliseconds(1);
  std::vector<long> waits;
  for (int i = 0; i < 6; ++i) {
    waits.push_back(wait_for(b).count());
    b = grow_interval(b, 1.5, milliseconds(30'000));
  }
  EXPECT_EQ(waits, (std::vector<long>{1, 2, 3, 4, 6, 8}));  // 1, 1.5, 2.25, 3.375, 5.06, 7.59 rounded up
}

TEST(GrowInterval, CappedAtTheMaximum) {
  BackoffInterval b = milliseconds(100);
  for (int i = 0; i < 20; ++i) b = grow_interval(b, 2.0, milliseconds(1000));
  EXPECT_EQ(wait_for(b), milliseconds(1000));
  EXPECT_EQ(wait_for(grow_interval(milliseconds(5), 1.0, milliseconds(1000))), milliseconds(5));
}

}  // namespace
}  // namespace tern::exporter::helper
