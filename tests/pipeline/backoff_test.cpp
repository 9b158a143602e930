#include "pipeline/backoff.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace tern::pipeline {
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

}  // namespace
}  // namespace tern::pipeline
