#include "compression/zstd.h"

#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace tern::compression {

ZstdCompressor::ZstdCompressor(int level) : c_(ZSTD_createCCtx()), level_(level) {
  if (!c_) throw std::bad_alloc();
}
ZstdCompressor::~ZstdCompressor() { ZSTD_freeCCtx(c_); }

void ZstdCompressor::compress(std::string_view in, std::string& out) {
  out.resize(ZSTD_compressBound(in.size()));
  const std::size_t n = ZSTD_compressCCtx(c_, out.data(), out.size(), in.data(), in.size(), level_);
  // With ZSTD_compressBound's room only an allocation failure inside zstd can fail.
  if (ZSTD_isError(n)) throw std::bad_alloc();
  out.resize(n);
}

ZstdDecompressor::ZstdDecompressor() : d_(ZSTD_createDCtx()) {
  if (!d_) throw std::bad_alloc();
}
ZstdDecompressor::~ZstdDecompressor() { ZSTD_freeDCtx(d_); }

bool ZstdDecompressor::decompress(std::string_view in, std::string& out, std::size_t max_size,
                                  std::string* error) {
  const auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (in.empty()) return fail("empty zstd body");
  // Streaming, so that neither a frame without a content size nor one that lies about it
  // costs more than what it really produces (at most max_size). zstd expands a frame at
  // most ~32000:1 in practice; the first guess is 4x the input, grown by doubling.
  ZSTD_DCtx_reset(d_, ZSTD_reset_session_only);
  // One byte of room past max_size tells "exactly max_size" from "more" (zstd stops at a
  // full output buffer before it looks at what follows).
  const std::size_t cap = max_size == SIZE_MAX ? max_size : max_size + 1;
  std::size_t written = 0;
  std::size_t room = std::min(cap, std::max<std::size_t>(in.size() * 4, 4096));
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  std::size_t last = 0;  // 0 once a frame is complete (ZSTD_decompressStream's hint)
  for (;;) {
    if (out.size() < room) out.resize(room);
    ZSTD_outBuffer dst{out.data(), room, written};
    last = ZSTD_decompressStream(d_, &dst, &src);
    if (ZSTD_isError(last)) return fail(std::string("corrupt zstd data: ") + ZSTD_getErrorName(last));
    written = dst.pos;
    if (written > max_size) return fail("decompressed body exceeds " + std::to_string(max_size) + " bytes");
    if (src.pos == src.size && (last == 0 || written < room)) break;  // all input used
    if (written == room) room = std::min(cap, 2 * room);              // room < cap here: written <= max_size
  }
  if (last != 0) return fail("corrupt zstd data: the last frame is cut short");
  out.resize(written);
  return true;
}

}  // namespace tern::compression
