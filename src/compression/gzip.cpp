#include "compression/gzip.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

namespace tern::compression {

namespace {
constexpr int kIgzipLevel = 1;
constexpr std::size_t kIgzipLevelBuf = ISAL_DEF_LVL1_DEFAULT;
}  // namespace

GzipCompressor::GzipCompressor(int level) : level_(std::clamp(level, 0, 12)) {
  if (level_ == kIgzipLevel) {
    igzip_ = std::make_unique<isal_zstream>();
    igzip_level_buf_ = std::make_unique<unsigned char[]>(kIgzipLevelBuf);
    return;
  }
  c_ = libdeflate_alloc_compressor(level_);
  if (!c_) throw std::bad_alloc();
}
GzipCompressor::~GzipCompressor() {
  if (c_) libdeflate_free_compressor(c_);
}

// Compresses into out[0, returned size); out's size is room, grown as needed, never shrunk.
std::size_t GzipCompressor::compress_igzip(std::span<const std::string_view> parts, std::string& out) {
  isal_zstream& s = *igzip_;
  isal_deflate_init(&s);
  s.gzip_flag = IGZIP_GZIP;
  s.level = kIgzipLevel;
  s.level_buf = igzip_level_buf_.get();
  s.level_buf_size = static_cast<std::uint32_t>(kIgzipLevelBuf);
  s.flush = NO_FLUSH;
  std::size_t total = 0;
  for (auto p : parts) total += p.size();
  // First guess: telemetry JSON and protobuf compress 5-10x. Incompressible input (it
  // grows by 5 bytes per stored 64 KiB block plus header and trailer) makes the loop
  // below double the buffer and go on where it stopped.
  std::size_t written = 0;
  if (out.size() < total / 4 + 1024) out.resize(total / 4 + 1024);
  // avail_in/avail_out are 32-bit: at most 1 GiB per call (bodies are far smaller).
  constexpr std::size_t kMaxChunk = std::size_t{1} << 30;
  // Feeds `in` to the stream; `last` ends it (and returns only once the trailer is out).
  auto deflate = [&](std::string_view in, bool last) {
    for (;;) {
      if (written == out.size()) out.resize(out.size() * 2);
      const std::size_t chunk = std::min(in.size(), kMaxChunk);
      s.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in.data()));
      s.avail_in = static_cast<std::uint32_t>(chunk);
      s.end_of_stream = (last && chunk == in.size()) ? 1 : 0;
      s.next_out = reinterpret_cast<std::uint8_t*>(out.data()) + written;
      s.avail_out = static_cast<std::uint32_t>(std::min(out.size() - written, kMaxChunk));
      const std::uint32_t out_before = s.avail_out;
      if (isal_deflate(&s) != COMP_OK) throw std::runtime_error("igzip: deflate failed");
      const std::size_t produced = out_before - s.avail_out, consumed = chunk - s.avail_in;
      written += produced;
      in.remove_prefix(consumed);
      if (s.internal_state.state == ZSTATE_END) return;
      if (!last && in.empty()) return;
      if (s.avail_out != 0 && produced == 0 && consumed == 0 && s.end_of_stream)
        throw std::runtime_error("igzip: deflate made no progress");
    }
  };
  // Small pieces (documents apart from their shared action lines) are gathered into a
  // block first: a deflate call per piece of a few hundred bytes costs more than a copy.
  // Long runs go to the stream as they are.
  constexpr std::size_t kSmallPiece = 4096, kStageBlock = 64 * 1024;
  stage_.clear();
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const bool last = k + 1 == parts.size();
    const std::string_view p = parts[k];
    if (p.size() < kSmallPiece) {
      stage_.append(p);
      if (last || stage_.size() >= kStageBlock) {
        deflate(stage_, last);
        stage_.clear();
      }
      continue;
    }
    if (!stage_.empty()) {
      deflate(stage_, false);
      stage_.clear();
    }
    deflate(p, last);
  }
  if (parts.empty()) deflate({}, true);
  return written;
}

void GzipCompressor::compress(std::string_view in, std::string& out) { compress(std::span(&in, 1), out); }

void GzipCompressor::compress(std::span<const std::string_view> parts, std::string& out) {
  if (igzip_) {
    out.resize(compress_igzip(parts, out));  // out's old bytes are room, not zero-filled again
    return;
  }
  if (parts.size() == 1) return compress_deflate(parts[0], out);
  joined_.clear();
  for (auto p : parts) joined_.append(p);
  compress_deflate(joined_, out);
}

std::string_view GzipCompressor::compress_into(std::span<const std::string_view> parts,
                                               std::string& scratch) {
  if (igzip_) {
    const std::size_t n = compress_igzip(parts, scratch);  // may reallocate: data() after
    return {scratch.data(), n};
  }
  compress(parts, scratch);
  return scratch;
}

void GzipCompressor::compress_deflate(std::string_view in, std::string& out) {
  const std::size_t bound = libdeflate_gzip_compress_bound(c_, in.size());
  out.resize(bound);
  const std::size_t n = libdeflate_gzip_compress(c_, in.data(), in.size(), out.data(), bound);
  out.resize(n);
}

GzipDecompressor::GzipDecompressor() : d_(libdeflate_alloc_decompressor()) {
  if (!d_) throw std::bad_alloc();
}
GzipDecompressor::~GzipDecompressor() { libdeflate_free_decompressor(d_); }

bool GzipDecompressor::decompress(std::string_view in, std::string& out, std::size_t max_size,
                                  std::string* error) {
  const auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (in.size() < 18) return fail("gzip body too short");
  // The trailer's ISIZE (size mod 2^32) is a good first guess for single-member streams.
  // It is the sender's word, though: deflate expands at most 1032:1, so a claim beyond
  // that is a lie (a 30-byte body "of" 20 MiB would otherwise cost a 20 MiB zero-filled
  // buffer per request) and the guess stays at what the input can really hold; a real
  // larger output still grows below, up to max_size.
  constexpr std::size_t kMaxDeflateRatio = 1032;
  std::uint32_t isize;
  std::memcpy(&isize, in.data() + in.size() - 4, 4);
  std::size_t room = std::max<std::size_t>(isize, in.size() * 4);
  room = std::min({room, in.size() * kMaxDeflateRatio, max_size});
  // Members (RFC 1952 allows any number, concatenated) are decoded one after the other
  // into the same string, in a loop: a body of 200,000 empty members must cost 200,000
  // small calls, not that deep a recursion with a buffer per level (which ran out of
  // memory on a 4 MB body). `out` only grows (it may be longer than `room` asks, from this
  // call or an earlier one), so each byte is zero-filled once; `room` is what a member may
  // fill, and written + room never passes max_size.
  std::size_t written = 0;
  for (;;) {
    if (out.size() < written + room) out.resize(written + room);
    std::size_t used_in = 0, produced = 0;
    const auto r = libdeflate_gzip_decompress_ex(d_, in.data(), in.size(), out.data() + written, room,
                                                 &used_in, &produced);
    if (r == LIBDEFLATE_SUCCESS) {
      written += produced;
      in.remove_prefix(used_in);
      if (in.empty()) break;
      if (in.size() < 18) return fail("corrupt gzip data (trailing bytes after the last member)");
      room = std::min(in.size() * 4, max_size - written);
      continue;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) return fail("corrupt gzip data");
    if (written + room >= max_size)
      return fail("decompressed body exceeds " + std::to_string(max_size) + " bytes");
    room = std::min(max_size - written, 2 * room + 4096);
  }
  out.resize(written);
  return true;
}

bool GzipDecompressor::decompress_zlib(std::string_view in, std::string& out, std::size_t max_size,
                                       std::string* error) {
  const auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (in.size() < 6) return fail("zlib body too short");  // 2-byte header, 4-byte Adler-32
  // No size in the stream: start at 4 times the input (never more than deflate's 1032:1
  // can produce) and grow, as for gzip, up to max_size.
  constexpr std::size_t kMaxDeflateRatio = 1032;
  std::size_t room = std::min({in.size() * 4 + 4096, in.size() * kMaxDeflateRatio, max_size});
  for (;;) {
    if (out.size() < room) out.resize(room);
    std::size_t used_in = 0, produced = 0;
    const auto r =
        libdeflate_zlib_decompress_ex(d_, in.data(), in.size(), out.data(), room, &used_in, &produced);
    if (r == LIBDEFLATE_SUCCESS) {
      if (used_in != in.size()) return fail("corrupt zlib data (trailing bytes after the stream)");
      out.resize(produced);
      return true;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) return fail("corrupt zlib data");
    if (room >= max_size) return fail("decompressed body exceeds " + std::to_string(max_size) + " bytes");
    room = std::min(max_size, 2 * room + 4096);
  }
}

}  // namespace tern::compression
