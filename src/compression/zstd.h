#pragma once
// zstd for HTTP bodies: the otlphttp exporter's `compression: zstd` and the OTLP/HTTP
// receiver's `Content-Encoding: zstd` (as the OpenTelemetry Collector's confighttp takes
// it). Reusable objects, one per thread/worker, no shared state. (The disk queue keeps its
// own contexts: it compresses frames into a buffer it already owns.)
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace tern::compression {

class ZstdCompressor {
 public:
  explicit ZstdCompressor(int level = 3);  // zstd's default level
  ~ZstdCompressor();
  ZstdCompressor(const ZstdCompressor&) = delete;
  ZstdCompressor& operator=(const ZstdCompressor&) = delete;
  // Replaces `out` with one zstd frame of `in` (reuses out's capacity; the frame records
  // its content size).
  void compress(std::string_view in, std::string& out);

 private:
  ZSTD_CCtx_s* c_;
  int level_;
};

class ZstdDecompressor {
 public:
  ZstdDecompressor();
  ~ZstdDecompressor();
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;
  // Replaces `out` with the decompressed bytes of one or more concatenated frames. Returns
  // false (and sets `error`) for corrupt input or when the output would exceed `max_size`
  // (a frame's declared content size is not trusted: the output grows as it is produced).
  bool decompress(std::string_view in, std::string& out, std::size_t max_size, std::string* error = nullptr);

 private:
  ZSTD_DCtx_s* d_;
};

}  // namespace tern::compression
