#pragma once
// Protobuf wire-format primitives shared by the hand-written OTLP codec (internal).
#include <cstdint>
#include <cstring>

namespace tern::otlp::wire {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

constexpr std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

constexpr std::uint32_t zigzag32(std::int32_t v) {
  return (static_cast<std::uint32_t>(v) << 1) ^ static_cast<std::uint32_t>(v >> 31);
}
constexpr std::int32_t unzigzag32(std::uint32_t u) {
  return static_cast<std::int32_t>((u >> 1) ^ (~(u & 1) + 1));
}

inline std::uint64_t load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);  // OTLP targets are little-endian, as is the wire format
  return v;
}
inline std::uint32_t load32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace tern::otlp::wire
