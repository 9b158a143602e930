#include "queue/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>

namespace tern::queue {

std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t n) {
  // crc32_iscsi works on the raw register (no pre/post inversion, Ceph's convention)
  // and takes an int length.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  std::uint32_t reg = ~crc;
  constexpr std::size_t kMaxChunk = std::size_t{1} << 30;
  while (n > 0) {
    const std::size_t chunk = std::min(n, kMaxChunk);
    reg = crc32_iscsi(p, static_cast<int>(chunk), reg);
    p += chunk;
    n -= chunk;
  }
  return ~reg;
}

}  // namespace tern::queue
