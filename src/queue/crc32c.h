#pragma once
// CRC32C (Castagnoli), the checksum of the disk queue's frames and state file, on ISA-L's
// crc32_iscsi (carry-less multiply folding: tens of GB/s, versus ~8 GB/s for a plain loop
// of the SSE4.2 crc32 instruction). Debian 12 has no other CRC32C library: zlib and
// libdeflate only do the IEEE polynomial.
#include <cstddef>
#include <cstdint>

namespace tern::queue {

// Extends `crc` (0 for a fresh checksum) over `n` bytes; crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t n);

}  // namespace tern::queue
