#pragma once
// Arena: the memory a decoded batch lives in.
//
// Decoded strings and bytes are views into the request buffer, which the arena
// keeps alive (zero-copy). Everything else (vectors of records, attributes,
// nested values) is bump-allocated from a monotonic resource and freed at once
// when the batch dies. Batches built by hand (generator, SDK, tests) copy their
// strings into the arena with `copy()` so they own their storage too.
#include <cstddef>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace tern::pdata {

template <class T>
using Vec = std::pmr::vector<T>;

class Arena {
public:
  explicit Arena(std::size_t initial_bytes = 4096)
      : resource_(std::make_unique<std::pmr::monotonic_buffer_resource>(initial_bytes)) {}
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) = delete;  // containers keep a pointer to our resource
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  std::pmr::memory_resource* resource() const { return resource_.get(); }
  std::pmr::polymorphic_allocator<std::byte> allocator() const { return {resource_.get()}; }

  template <class T>
  Vec<T> vec() const {
    return Vec<T>(std::pmr::polymorphic_allocator<T>(resource_.get()));
  }

  // Allocate one T in the arena (destructor never runs: T must not own heap memory
  // outside the arena, which holds for every pdata type).
  template <class T, class... Args>
  T* make(Args&&... args) const {
    void* p = resource_->allocate(sizeof(T), alignof(T));
    return new (p) T(std::forward<Args>(args)...);
  }

  // Copy bytes into the arena; the view stays valid for the arena's lifetime.
  std::string_view copy(std::string_view s) const {
    if (s.empty()) return {};
    char* p = static_cast<char*>(resource_->allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  // Keep a buffer alive as long as the batch (decoded views point into it).
  void hold(std::shared_ptr<const void> buffer) { held_.push_back(std::move(buffer)); }
  std::string_view hold(std::string buffer) {
    auto owned = std::make_shared<const std::string>(std::move(buffer));
    std::string_view view(*owned);
    held_.push_back(std::move(owned));
    return view;
  }

private:
  std::unique_ptr<std::pmr::monotonic_buffer_resource> resource_;
  std::vector<std::shared_ptr<const void>> held_;
};

}  // namespace tern::pdata
