#include "compression/gzip.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace tern::compression {

GzipCompressor::GzipCompressor(int level) : c_(libdeflate_alloc_compressor(std::clamp(level, 0, 12))), level_(level) {
  if (!c_) throw std::bad_alloc();
}
GzipCompressor::~GzipCompressor() { libdeflate_free_compressor(c_); }

void GzipCompressor::compress(std::string_view in, std::string& out) {
  const std::size_t bound = libdeflate_gzip_compress_bound(c_, in.size());
  out.resize(bound);
  const std::size_t n = libdeflate_gzip_compress(c_, in.data(), in.size(), out.data(), bound);
  out.resize(n);
}

GzipDecompressor::GzipDecompressor() : d_(libdeflate_alloc_decompressor()) {
  if (!d_) throw std::bad_alloc();
}
GzipDecompressor::~GzipDecompressor() { libdeflate_free_decompressor(d_); }

bool GzipDecompressor::decompress(std::string_view in, std::string& out, std::size_t max_size, std::string* error) {
  if (in.size() < 18) {
    if (error) *error = "gzip body too short";
    return false;
  }
  // The trailer's ISIZE (size mod 2^32) is a good first guess for single-member streams.
  std::uint32_t isize;
  std::memcpy(&isize, in.data() + in.size() - 4, 4);
  std::size_t guess = std::max<std::size_t>(isize, in.size() * 4);
  guess = std::min(guess, max_size);
  for (;;) {
    out.resize(guess);
    std::size_t actual_in = 0, actual_out = 0;
    auto r = libdeflate_gzip_decompress_ex(d_, in.data(), in.size(), out.data(), out.size(), &actual_in, &actual_out);
    if (r == LIBDEFLATE_SUCCESS) {
      out.resize(actual_out);
      if (actual_in == in.size()) return true;
      // Concatenated gzip members: decode the rest and append.
      std::string rest;
      if (!decompress(in.substr(actual_in), rest, max_size - actual_out, error)) return false;
      out.append(rest);
      return true;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (error) *error = "corrupt gzip data";
      return false;
    }
    if (guess >= max_size) {
      if (error) *error = "decompressed body exceeds " + std::to_string(max_size) + " bytes";
      return false;
    }
    guess = std::min(max_size, guess * 2);
  }
}

}  // namespace tern::compression
