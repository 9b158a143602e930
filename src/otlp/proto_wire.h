#pragma once
// Protobuf wire-format primitives shared by the hand-written OTLP codec, and a field reader
// for the cold paths that read or re-cut small messages (export responses, google.rpc.Status,
// batches split for the disk queue). The decoder has its own, faster reader.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

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

// Reads a varint at the front of `in` and removes it; false when truncated or over 10 bytes.
inline bool read_varint(std::string_view& in, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in.empty()) return false;
    const auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// One field of a message: its number and wire type, the value of a varint, the payload of a
// length-delimited field (fixed-width values are skipped).
struct Field {
  std::uint64_t number = 0;
  std::uint32_t type = 0;
  std::uint64_t varint = 0;
  std::string_view bytes;
};

// Reads the field at the front of `in` and removes it; false when it is malformed or a group
// (OTLP has none).
inline bool next_field(std::string_view& in, Field& f) {
  std::uint64_t tag = 0;
  if (!read_varint(in, tag)) return false;
  f.number = tag >> 3;
  f.type = static_cast<std::uint32_t>(tag & 7);
  switch (f.type) {
    case kVarint:
      return read_varint(in, f.varint);
    case kFixed64:
    case kFixed32: {
      const std::size_t n = f.type == kFixed64 ? 8 : 4;
      if (in.size() < n) return false;
      in.remove_prefix(n);
      return true;
    }
    case kLen: {
      std::uint64_t len = 0;
      if (!read_varint(in, len) || len > in.size()) return false;
      f.bytes = in.substr(0, len);
      in.remove_prefix(len);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace tern::otlp::wire
