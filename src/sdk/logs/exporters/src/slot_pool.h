#pragma once
// A small lock-free pool of objects that must not be used by two threads at once (an
// OTLP client owns one connection; an Elasticsearch encoder owns scratch buffers).
// Acquire claims a free slot with one CAS on its flag and builds the object there on
// first use, so connections are kept across exports; when every slot is busy it hands
// out a temporary object instead of waiting, so exports never block on each other.
#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace tern::sdk::logs::detail {

template <class T, std::size_t kMaxSlots = 16>
class SlotPool {
  struct Slot;

 public:
  using Factory = std::function<std::unique_ptr<T>()>;

  // `slots` (at most kMaxSlots) objects are kept; the factory may throw, which Acquire passes on.
  SlotPool(std::size_t slots, Factory factory)
      : slots_(slots == 0 ? 1 : (slots > kMaxSlots ? kMaxSlots : slots)), factory_(std::move(factory)) {}

  class Lease {
   public:
    Lease(Lease&& o) noexcept : slot_(std::exchange(o.slot_, nullptr)), temp_(std::move(o.temp_)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (slot_ != nullptr) slot_->busy.store(false, std::memory_order_release);
    }
    T& operator*() const { return slot_ != nullptr ? *slot_->object : *temp_; }
    T* operator->() const { return &**this; }
    bool pooled() const { return slot_ != nullptr; }

   private:
    friend class SlotPool;
    Lease(Slot* slot, std::unique_ptr<T> temp) : slot_(slot), temp_(std::move(temp)) {}
    Slot* slot_;
    std::unique_ptr<T> temp_;
  };

  Lease Acquire() {
    for (std::size_t i = 0; i < slots_; ++i) {
      Slot& s = slots_array_[i];
      if (s.busy.load(std::memory_order_relaxed)) continue;
      bool expected = false;
      if (!s.busy.compare_exchange_strong(expected, true, std::memory_order_acquire,
                                          std::memory_order_relaxed))
        continue;
      // The acquire above pairs with the release in ~Lease: the previous holder's writes
      // to the object (and its construction) are visible here.
      if (!s.object) {
        try {
          s.object = factory_();
        } catch (...) {
          s.busy.store(false, std::memory_order_release);
          throw;
        }
      }
      return Lease(&s, nullptr);
    }
    return Lease(nullptr, factory_());
  }

 private:
  struct alignas(64) Slot {  // one cache line per flag: claimers do not contend on neighbours
    std::atomic<bool> busy{false};
    std::unique_ptr<T> object;
  };
  const std::size_t slots_;
  const Factory factory_;
  std::array<Slot, kMaxSlots> slots_array_;
};

}  // namespace tern::sdk::logs::detail
