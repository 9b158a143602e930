// The lock-free object pool of the network exporters (header-only, so it is tested here,
// in the core test binary that also runs under TSan).
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sdk/logs/exporters/src/slot_pool.h"

namespace tern::sdk::logs::detail {
namespace {

struct Tracked {
  std::atomic<bool> in_use{false};
  int uses = 0;  // plain int: a data race here is what TSan would report
};

TEST(SlotPoolTest, ReusesPooledObjectsAndBuildsThemLazily) {
  std::atomic<int> built{0};
  SlotPool<Tracked> pool(2, [&] {
    built.fetch_add(1);
    return std::make_unique<Tracked>();
  });
  EXPECT_EQ(built.load(), 0);
  Tracked* first = nullptr;
  {
    auto a = pool.Acquire();
    EXPECT_TRUE(a.pooled());
    first = &*a;
  }
  {
    auto a = pool.Acquire();
    EXPECT_EQ(&*a, first);  // released, then claimed again: same object, no rebuild
  }
  EXPECT_EQ(built.load(), 1);
}

TEST(SlotPoolTest, HandsOutATemporaryWhenEverySlotIsBusy) {
  SlotPool<Tracked> pool(1, [] { return std::make_unique<Tracked>(); });
  auto a = pool.Acquire();
  auto b = pool.Acquire();
  EXPECT_TRUE(a.pooled());
  EXPECT_FALSE(b.pooled());
  EXPECT_NE(&*a, &*b);
}

TEST(SlotPoolTest, FactoryFailureReleasesTheSlot) {
  bool fail = true;
  SlotPool<Tracked> pool(1, [&]() -> std::unique_ptr<Tracked> {
    if (fail) throw std::runtime_error("no");
    return std::make_unique<Tracked>();
  });
  EXPECT_THROW(pool.Acquire(), std::runtime_error);
  fail = false;
  auto a = pool.Acquire();
  EXPECT_TRUE(a.pooled());  // the slot was not left claimed by the failed attempt
}

TEST(SlotPoolTest, NeverHandsOneObjectToTwoThreads) {
  SlotPool<Tracked> pool(3, [] { return std::make_unique<Tracked>(); });
  std::atomic<int> overlaps{0}, total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        auto lease = pool.Acquire();
        if (lease->in_use.exchange(true)) overlaps.fetch_add(1);
        ++lease->uses;
        lease->in_use.store(false);
        total.fetch_add(1);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(total.load(), 6 * 20000);
}

}  // namespace
}  // namespace tern::sdk::logs::detail
