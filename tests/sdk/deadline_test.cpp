#include "tern/sdk/logs/deadline.h"

#include <gtest/gtest.h>

#include <thread>

namespace tern::sdk::logs {
namespace {

using std::chrono::milliseconds;
using namespace std::chrono_literals;

TEST(DeadlineTest, DeadlineAfterSaturatesInsteadOfOverflowing) {
  const auto now = SteadyClock::now();
  EXPECT_EQ(DeadlineAfter(1500ms, now), now + 1500ms);
  EXPECT_EQ(DeadlineAfter(0ms, now), now);
  EXPECT_EQ(DeadlineAfter(-5s, now), now);
  EXPECT_EQ(DeadlineAfter(milliseconds::min(), now), now);
  EXPECT_EQ(DeadlineAfter(milliseconds::max(), now), SteadyClock::time_point::max());
  EXPECT_EQ(DeadlineAfter(std::chrono::hours(24 * 365 * 1000), now), SteadyClock::time_point::max());
  // Just inside the clock's range is still a real deadline.
  const auto room = std::chrono::duration_cast<milliseconds>(SteadyClock::time_point::max() - now);
  EXPECT_EQ(DeadlineAfter(room - 1ms, now), now + (room - 1ms));
  EXPECT_EQ(DeadlineAfter(room, now), SteadyClock::time_point::max());
}

TEST(DeadlineTest, TimeLeftKeepsNoLimitAndNeverGoesNegative) {
  const auto now = SteadyClock::now();
  EXPECT_EQ(TimeLeft(SteadyClock::time_point::max(), now), milliseconds::max());
  EXPECT_EQ(TimeLeft(now + 1500ms, now), 1500ms);
  EXPECT_EQ(TimeLeft(now + 1500us, now), 2ms);  // rounded up: time left is never reported as none
  EXPECT_EQ(TimeLeft(now, now), 0ms);
  EXPECT_EQ(TimeLeft(now - 1s, now), 0ms);
  EXPECT_EQ(TimeLeft(DeadlineAfter(milliseconds::max())), milliseconds::max());
}

TEST(DeadlineTest, WaitUntilWithoutDeadlineWaitsForThePredicate) {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    {
      const std::lock_guard lock(mu);
      ready = true;
    }
    cv.notify_all();
  });
  std::unique_lock lock(mu);
  EXPECT_TRUE(WaitUntil(cv, lock, DeadlineAfter(milliseconds::max()), [&] { return ready; }));
  EXPECT_TRUE(ready);
  lock.unlock();
  setter.join();
}

TEST(DeadlineTest, WaitUntilAPassedDeadlineReportsTheTimeout) {
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock lock(mu);
  EXPECT_FALSE(WaitUntil(cv, lock, SteadyClock::now() - 1s, [] { return false; }));
  EXPECT_TRUE(WaitUntil(cv, lock, SteadyClock::now() - 1s, [] { return true; }));
}

// Later callers get the first call's result once it is published, false before that.
TEST(FirstCallResultTest, LaterCallersWaitForTheFirstResult) {
  for (const bool ok : {true, false}) {
    FirstCallResult r;
    EXPECT_FALSE(r.Wait(SteadyClock::now()));  // not published yet: times out
    std::thread first([&] {
      bool result = false;
      const FirstCallResult::Publishing publish{r, result};
      std::this_thread::sleep_for(50ms);
      result = ok;
    });
    EXPECT_EQ(r.Wait(DeadlineAfter(milliseconds::max())), ok);
    EXPECT_EQ(r.Wait(SteadyClock::now()), ok);  // and again, at once
    first.join();
  }
}

}  // namespace
}  // namespace tern::sdk::logs
