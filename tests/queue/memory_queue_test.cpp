// Memory queue: bounds (bytes, entries), order, batching budgets, linger, close/drain.
#include <gtest/gtest.h>

#include <thread>

#include "queue/memory_queue.h"

namespace tern::queue {
namespace {

Entry entry(std::uint64_t bytes, std::uint64_t items = 1, std::string tag = "") {
  Entry e;
  e.bytes = bytes;
  e.items = items;
  e.encoded.data = std::move(tag);
  return e;
}

TEST(MemoryQueue, RefusesWhatDoesNotFitByBytes) {
  MemoryQueue q({.max_bytes = 100, .max_items = 0, .max_entries = 0});
  auto a = entry(60), b = entry(50), c = entry(40);
  EXPECT_TRUE(q.try_push(a));
  EXPECT_FALSE(q.try_push(b));
  EXPECT_EQ(b.bytes, 50u) << "a refused entry is left untouched";
  EXPECT_TRUE(q.try_push(c));
  const auto s = q.stats();
  EXPECT_EQ(s.bytes, 100u);
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.refused_entries, 1u);
  EXPECT_EQ(s.peak_bytes, 100u);
}

TEST(MemoryQueue, AnOversizedEntryStillEntersAnEmptyQueue) {
  MemoryQueue q({.max_bytes = 10, .max_items = 0, .max_entries = 0});
  auto big = entry(1000);
  EXPECT_TRUE(q.try_push(big));
  auto small = entry(1);
  EXPECT_FALSE(q.try_push(small));
}

// may_fit answers what try_push would do for an entry of that size, without pushing, and
// counts no refusal (producers ask it before encoding).
TEST(MemoryQueue, MayFitPredictsTryPushWithoutSideEffects) {
  MemoryQueue q({.max_bytes = 100, .max_items = 10, .max_entries = 2});
  EXPECT_TRUE(q.may_fit(1000, 1000)) << "an empty queue takes anything";
  auto a = entry(60, 4);
  ASSERT_TRUE(q.try_push(a));
  EXPECT_TRUE(q.may_fit(6, 40));
  EXPECT_FALSE(q.may_fit(7, 1)) << "items";
  EXPECT_FALSE(q.may_fit(1, 41)) << "bytes";
  auto b = entry(10, 1);
  ASSERT_TRUE(q.try_push(b));
  EXPECT_FALSE(q.may_fit(1, 1)) << "entries";
  EXPECT_EQ(q.stats().refused_entries, 0u);
  EXPECT_EQ(q.stats().entries, 2u);
  q.close();
  EXPECT_FALSE(q.may_fit(0, 0)) << "closed";
}

TEST(MemoryQueue, BoundsEntriesAndItems) {
  MemoryQueue by_entries({.max_bytes = 1 << 20, .max_items = 0, .max_entries = 2});
  for (int i = 0; i < 2; ++i) {
    auto e = entry(1);
    ASSERT_TRUE(by_entries.try_push(e));
  }
  auto e = entry(1);
  EXPECT_FALSE(by_entries.try_push(e));

  MemoryQueue by_items({.max_bytes = 1 << 20, .max_items = 10, .max_entries = 0});
  auto seven = entry(1, 7), four = entry(1, 4), three = entry(1, 3);
  EXPECT_TRUE(by_items.try_push(seven));
  EXPECT_FALSE(by_items.try_push(four));
  EXPECT_TRUE(by_items.try_push(three));
}

TEST(MemoryQueue, PopsInOrderWithinTheBudget) {
  MemoryQueue q({.max_bytes = 1000, .max_items = 0, .max_entries = 0});
  for (int i = 0; i < 5; ++i) {
    auto e = entry(10, 2, std::to_string(i));
    ASSERT_TRUE(q.try_push(e));
  }
  std::vector<Entry> out;
  ASSERT_TRUE(q.pop_batch(out, 25, 0, std::chrono::milliseconds(0)));
  ASSERT_EQ(out.size(), 2u);  // a third would pass 25 bytes
  EXPECT_EQ(out[0].encoded.data, "0");
  EXPECT_EQ(out[1].encoded.data, "1");
  out.clear();
  ASSERT_TRUE(q.pop_batch(out, 0, 4, std::chrono::milliseconds(0)));
  ASSERT_EQ(out.size(), 2u);  // 4 items
  EXPECT_EQ(out[0].encoded.data, "2");
  EXPECT_EQ(q.stats().bytes, 10u);
}

TEST(MemoryQueue, LingerCollectsEntriesPushedWhileWaiting) {
  MemoryQueue q({.max_bytes = 1000, .max_items = 0, .max_entries = 0});
  auto first = entry(10, 1, "a");
  ASSERT_TRUE(q.try_push(first));
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto e = entry(10, 1, "b");
    q.try_push(e);
  });
  std::vector<Entry> out;
  // The item budget (2) ends the wait as soon as "b" arrives; the long linger is a bound.
  ASSERT_TRUE(q.pop_batch(out, 0, 2, std::chrono::seconds(30)));
  producer.join();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].encoded.data, "b");
}

TEST(MemoryQueue, CloseDrainsThenEnds) {
  MemoryQueue q({.max_bytes = 1000, .max_items = 0, .max_entries = 0});
  auto e = entry(10);
  ASSERT_TRUE(q.try_push(e));
  q.close();
  auto late = entry(1);
  EXPECT_FALSE(q.try_push(late));
  std::vector<Entry> out;
  EXPECT_TRUE(q.pop_batch(out, 0, 0, std::chrono::seconds(30)));  // closed: no lingering
  EXPECT_EQ(out.size(), 1u);
  out.clear();
  EXPECT_FALSE(q.pop_batch(out, 0, 0, std::chrono::seconds(30)));
}

TEST(MemoryQueue, CloseWakesABlockedConsumer) {
  MemoryQueue q({.max_bytes = 1000, .max_items = 0, .max_entries = 0});
  std::vector<Entry> out;
  bool result = true;
  std::thread consumer([&] { result = q.pop_batch(out, 0, 0, std::chrono::milliseconds(0)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  q.close();
  consumer.join();
  EXPECT_FALSE(result);
}

TEST(MemoryQueue, ConcurrentProducersAndConsumersLoseNothing) {
  MemoryQueue q({.max_bytes = 64, .max_items = 0, .max_entries = 0});
  constexpr int kProducers = 4, kPerProducer = 2000;
  std::atomic<std::uint64_t> consumed{0};
  std::vector<std::thread> consumers;
  for (int i = 0; i < 2; ++i)
    consumers.emplace_back([&] {
      std::vector<Entry> out;
      while (q.pop_batch(out, 32, 0, std::chrono::milliseconds(0))) {
        for (auto& e : out) consumed += e.items;
        out.clear();
      }
    });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&] {
      for (int i = 0; i < kPerProducer; ++i) {
        auto e = entry(8, 1);
        while (!q.try_push(e)) std::this_thread::yield();  // back-pressure: retry
      }
    });
  for (auto& t : producers) t.join();
  q.close();
  for (auto& t : consumers) t.join();
  EXPECT_EQ(consumed.load(), std::uint64_t{kProducers} * kPerProducer);
  EXPECT_EQ(q.stats().bytes, 0u);
}

}  // namespace
}  // namespace tern::queue
