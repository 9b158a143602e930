#pragma once
// The disk queue's on-disk format and frame reading, shared by disk_queue.cpp (push, read)
// and disk_queue_recovery.cpp (the scan at open). Frame reading is inline: the reader runs
// it per frame.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <system_error>

#include "queue/crc32c.h"
#include "queue/disk_queue.h"

namespace tern::queue::disk_format {

// On-disk layout (little-endian), documented in docs/queues.md:
//   segment header: "TERNDQSG" | u32 format version | u32 reserved (0)
//   frame: u32 len | u32 flags | len bytes | u32 crc32c(len, flags, bytes) | u32 len
// The length at both ends lets a reader validate a frame from either side and, with the CRC,
// find the next frame boundary again after a corrupt region.
constexpr char kSegmentMagic[8] = {'T', 'E', 'R', 'N', 'D', 'Q', 'S', 'G'};
constexpr char kStateMagic[8] = {'T', 'E', 'R', 'N', 'D', 'Q', 'S', 'T'};
constexpr std::uint64_t kHeaderSize = 16;
constexpr std::uint64_t kFrameOverhead = 16;
constexpr std::uint32_t kFlagZstd = 1;
constexpr std::uint32_t kKnownFlags = kFlagZstd;
constexpr std::uint32_t kMaxPayload = 1u << 30;
constexpr std::size_t kReadAhead = 1 << 20;
// state file: magic | u32 version | u32 0 | u64 segment | u64 offset | u64 seq | u32 crc32c
constexpr std::size_t kStateSize = 44;

inline void put32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline std::uint32_t get32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline std::uint64_t get64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline std::string errno_text(int e) { return std::error_code(e, std::generic_category()).message(); }

struct FrameView {
  const unsigned char* payload = nullptr;
  std::uint32_t len = 0, flags = 0;
};

// True when a whole valid frame starts at `off` and ends by `limit`.
template <class Window>
bool frame_at(Window& w, std::uint64_t off, std::uint64_t limit, FrameView& f) {
  if (limit < off + kFrameOverhead) return false;
  const unsigned char* h = w.get(off, 8, limit);
  if (!h) return false;
  const std::uint32_t len = get32(h), flags = get32(h + 4);
  if (len > kMaxPayload || (flags & ~kKnownFlags) || len > limit - off - kFrameOverhead) return false;
  std::uint32_t len2 = 0;
  if (!w.peek32(off + 12 + len, len2) || len2 != len) return false;
  const unsigned char* all = w.get(off, kFrameOverhead + len, limit);
  if (!all || crc32c(0, all, 8 + len) != get32(all + 8 + len)) return false;
  f = {all + 8, len, flags};
  return true;
}

// The first offset in [from, limit) where a valid frame starts, or `limit`.
template <class Window>
std::uint64_t resync(Window& w, std::uint64_t from, std::uint64_t limit) {
  FrameView f;
  for (std::uint64_t p = from; p + kFrameOverhead <= limit; ++p) {
    if (frame_at(w, p, limit, f)) return p;
  }
  return limit;
}

}  // namespace tern::queue::disk_format

namespace tern::queue {

// A read-ahead buffer over one segment file: frames are read with few syscalls, and the
// resynchronizing scan looks at every byte offset without a syscall each.
class DiskQueue::Window {
 public:
  // Full size at once: growing with the data available would allocate now and then.
  Window() { buf_.reserve(disk_format::kReadAhead); }
  void reset(int fd) {
    fd_ = fd;
    start_ = 0;
    len_ = 0;
  }
  // Bytes [off, off+n), off + n <= limit. Never reads past `limit`: bytes past the published
  // end of the segment being written may still change. Null on an I/O error or a short file.
  const unsigned char* get(std::uint64_t off, std::size_t n, std::uint64_t limit) {
    if (off >= start_ && off + n <= start_ + len_) return data() + (off - start_);
    const std::size_t want =
        std::max<std::uint64_t>(n, std::min<std::uint64_t>(disk_format::kReadAhead, limit - off));
    if (buf_.size() < want) buf_.resize(want);
    std::size_t got = 0;
    while (got < want) {
      const ssize_t r = ::pread(fd_, buf_.data() + got, want - got, static_cast<off_t>(off + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    start_ = off;
    len_ = got;
    return got >= n ? data() : nullptr;
  }
  // A u32 at `off` without moving the window (the resync scan probes far ahead).
  bool peek32(std::uint64_t off, std::uint32_t& v) {
    if (off >= start_ && off + 4 <= start_ + len_) {
      v = disk_format::get32(data() + (off - start_));
      return true;
    }
    unsigned char b[4];
    if (::pread(fd_, b, 4, static_cast<off_t>(off)) != 4) return false;
    v = disk_format::get32(b);
    return true;
  }

 private:
  const unsigned char* data() const { return reinterpret_cast<const unsigned char*>(buf_.data()); }
  int fd_ = -1;
  std::string buf_;
  std::uint64_t start_ = 0;
  std::size_t len_ = 0;
};

}  // namespace tern::queue
