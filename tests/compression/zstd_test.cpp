// compression::ZstdCompressor / ZstdDecompressor: round trips, frames without a content
// size (streamed), concatenated frames, corrupt and cut-short data, and the output bound.
#include "compression/zstd.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <string>

using namespace tern::compression;

namespace {

std::string sample(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i)
    s += "{\"i\":" + std::to_string(i) + ",\"msg\":\"hello zstd\"}\n";
  s.resize(n);
  return s;
}

// A frame written by the streaming API, which records no content size.
std::string streamed_frame(const std::string& in) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  std::string out(ZSTD_compressBound(in.size()) + 64, '\0');
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  ZSTD_outBuffer dst{out.data(), out.size(), 0};
  while (ZSTD_compressStream2(c, &dst, &src, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(c);
  out.resize(dst.pos);
  return out;
}

TEST(Zstd, RoundTripAndReuse) {
  ZstdCompressor zc;
  ZstdDecompressor zd;
  std::string z, back;
  for (std::size_t n : {0u, 1u, 100u, 70'000u, 3'000'000u}) {
    const std::string in = sample(n);
    zc.compress(in, z);
    ASSERT_TRUE(zd.decompress(z, back, 16u << 20)) << n;
    EXPECT_EQ(back, in) << n;
  }
}

TEST(Zstd, FramesWithoutAContentSizeAndConcatenatedFramesDecode) {
  ZstdDecompressor zd;
  const std::string a = sample(200'000), b = sample(5'000);
  std::string back;
  ASSERT_TRUE(zd.decompress(streamed_frame(a), back, 1u << 20));
  EXPECT_EQ(back, a);
  ZstdCompressor zc;
  std::string zb;
  zc.compress(b, zb);
  ASSERT_TRUE(zd.decompress(streamed_frame(a) + zb, back, 1u << 20));
  EXPECT_EQ(back, a + b);
}

TEST(Zstd, CorruptCutShortAndOversizedAreErrors) {
  ZstdCompressor zc;
  ZstdDecompressor zd;
  std::string z, out, error;
  zc.compress(sample(100'000), z);
  EXPECT_FALSE(zd.decompress("not zstd at all", out, 1u << 20, &error));
  EXPECT_NE(error.find("corrupt zstd data"), std::string::npos) << error;
  EXPECT_FALSE(zd.decompress(std::string_view(z).substr(0, z.size() / 2), out, 1u << 20, &error));
  EXPECT_NE(error.find("corrupt zstd data"), std::string::npos) << error;
  EXPECT_FALSE(zd.decompress("", out, 1u << 20, &error));
  // A bomb: 64 MiB of zeros is a few KB; the bound stops it, also when the frame does not
  // declare its size (the output grows only as it is produced).
  const std::string zeros(64u << 20, '\0');
  zc.compress(zeros, z);
  ASSERT_LT(z.size(), 64u << 10);
  EXPECT_FALSE(zd.decompress(z, out, 1u << 20, &error));
  EXPECT_EQ(error, "decompressed body exceeds 1048576 bytes");
  EXPECT_FALSE(zd.decompress(streamed_frame(zeros), out, 1u << 20, &error));
  EXPECT_EQ(error, "decompressed body exceeds 1048576 bytes");
  // The decompressor is still good after errors.
  zc.compress(sample(1000), z);
  ASSERT_TRUE(zd.decompress(z, out, 1u << 20));
  EXPECT_EQ(out, sample(1000));
}

}  // namespace
