#pragma once
// CRC32C (Castagnoli), the checksum of the disk queue's frames and state file.
//
// Hand-written because Debian 12 packages no CRC32C library (no libcrc32c-dev; zlib and
// libdeflate only do the IEEE polynomial). Uses the SSE4.2 crc32 instruction when the CPU
// has it (checked once at run time) and a byte table otherwise.
#include <cstddef>
#include <cstdint>

namespace tern::queue {

// Extends `crc` (0 for a fresh checksum) over `n` bytes; crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t n);

}  // namespace tern::queue
