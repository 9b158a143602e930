#pragma once
// Arena: the memory a decoded batch lives in.
//
// Decoded strings and bytes are views into the request buffer, which the arena
// keeps alive (zero-copy). Everything else (vectors of records, attributes,
// nested values) is bump-allocated from a monotonic resource and freed at once
// when the batch dies. Batches built by hand (generator, SDK, tests) copy their
// strings into the arena with `copy()` so they own their storage too.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace tern::pdata {

template <class T>
using Vec = std::pmr::vector<T>;

// Thrown by an arena's allocation past its limit (Arena::Limit): the decoders catch it
// and report the request as too large when decoded.
struct ArenaLimitExceeded : std::exception {
  const char* what() const noexcept override { return "arena limit exceeded"; }
};

class Arena {
  // Counts the chunks the monotonic resource takes from the heap (one call per chunk,
  // not per object), so queues can bound batches by the memory they really hold.
  class CountingUpstream final : public std::pmr::memory_resource {
  public:
    std::size_t bytes = 0;
    std::size_t limit = 0;  // 0: none

   private:
    void* do_allocate(std::size_t n, std::size_t align) override {
      if (limit && n > limit - std::min(bytes, limit)) throw ArenaLimitExceeded();
      bytes += n;
      return std::pmr::new_delete_resource()->allocate(n, align);
    }
    void do_deallocate(void* p, std::size_t n, std::size_t align) override {
      std::pmr::new_delete_resource()->deallocate(p, n, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
  };
  struct Resources {
    explicit Resources(std::size_t initial_bytes) : monotonic(initial_bytes, &upstream) {}
    CountingUpstream upstream;
    std::pmr::monotonic_buffer_resource monotonic;
  };

public:
  explicit Arena(std::size_t initial_bytes = 4096) : resources_(std::make_unique<Resources>(initial_bytes)) {}
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) = delete;  // containers keep a pointer to our resource
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  std::pmr::memory_resource* resource() const { return &resources_->monotonic; }
  std::pmr::polymorphic_allocator<std::byte> allocator() const { return {resource()}; }

  // Heap bytes this batch holds: arena chunks plus the buffers it keeps alive.
  std::size_t bytes_held() const { return resources_->upstream.bytes + held_bytes_; }

  // While a Limit lives (non-zero bytes), an allocation that would take the arena's
  // chunks past `bytes` throws ArenaLimitExceeded instead. The decoders hold one from
  // DecodeOptions::max_decoded_bytes for the time of one decode (what the pipeline adds
  // later is not theirs to bound). Chunks grow geometrically, so the arena holds at most
  // about `bytes` when it throws.
  class Limit {
   public:
    Limit(const Arena& a, std::size_t bytes) : upstream_(a.resources_->upstream) { upstream_.limit = bytes; }
    ~Limit() { upstream_.limit = 0; }
    Limit(const Limit&) = delete;
    Limit& operator=(const Limit&) = delete;

   private:
    CountingUpstream& upstream_;
  };

  template <class T>
  Vec<T> vec() const {
    return Vec<T>(std::pmr::polymorphic_allocator<T>(resource()));
  }

  // Allocate one T in the arena (destructor never runs: T must not own heap memory
  // outside the arena, which holds for every pdata type).
  template <class T, class... Args>
  T* make(Args&&... args) const {
    void* p = resources_->monotonic.allocate(sizeof(T), alignof(T));
    return new (p) T(std::forward<Args>(args)...);
  }

  // Copy bytes into the arena; the view stays valid for the arena's lifetime.
  std::string_view copy(std::string_view s) const {
    if (s.empty()) return {};
    char* p = static_cast<char*>(resources_->monotonic.allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  // Keep a buffer alive as long as the batch (decoded views point into it).
  void hold(std::shared_ptr<const void> buffer, std::size_t bytes = 0) {
    held_.push_back(std::move(buffer));
    held_bytes_ += bytes;
  }
  std::string_view hold(std::string buffer) {
    held_bytes_ += buffer.capacity();
    auto owned = std::make_shared<const std::string>(std::move(buffer));
    std::string_view view(*owned);
    held_.push_back(std::move(owned));
    return view;
  }

private:
  std::unique_ptr<Resources> resources_;
  std::vector<std::shared_ptr<const void>> held_;
  std::size_t held_bytes_ = 0;
};

}  // namespace tern::pdata
