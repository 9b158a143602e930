#pragma once
// gzip for every wire (exporter bodies, receiver and sink request bodies, generator
// requests), on libdeflate. Compressors and decompressors are reusable objects:
// one per thread/worker, no shared state.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct libdeflate_compressor;
struct libdeflate_decompressor;

namespace tern::compression {

class GzipCompressor {
public:
  explicit GzipCompressor(int level = 1);
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;
  // Replaces `out` with the gzip of `in` (reuses out's capacity).
  void compress(std::string_view in, std::string& out);
  int level() const { return level_; }

private:
  libdeflate_compressor* c_;
  int level_;
};

class GzipDecompressor {
public:
  GzipDecompressor();
  ~GzipDecompressor();
  GzipDecompressor(const GzipDecompressor&) = delete;
  GzipDecompressor& operator=(const GzipDecompressor&) = delete;
  // Replaces `out` with the decompressed bytes. Returns false (and sets `error`)
  // for corrupt input or when the output would exceed `max_size` (zip bombs).
  bool decompress(std::string_view in, std::string& out, std::size_t max_size, std::string* error = nullptr);

private:
  libdeflate_decompressor* d_;
};

// True if `data` starts with the gzip magic bytes.
inline bool looks_gzipped(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

}  // namespace tern::compression
