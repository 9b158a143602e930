#include <gtest/gtest.h>

#include "compression/gzip.h"

using namespace tern::compression;

TEST(Gzip, RoundTrip) {
  std::string in;
  for (int i = 0; i < 10000; ++i) in += "line " + std::to_string(i) + "\n";
  GzipCompressor c(1);
  std::string z;
  c.compress(in, z);
  EXPECT_TRUE(looks_gzipped(z));
  EXPECT_LT(z.size(), in.size());
  GzipDecompressor d;
  std::string out;
  ASSERT_TRUE(d.decompress(z, out, 1 << 20));
  EXPECT_EQ(out, in);
}

TEST(Gzip, ConcatenatedMembers) {
  GzipCompressor c(6);
  std::string a, b;
  c.compress("hello ", a);
  c.compress("world", b);
  GzipDecompressor d;
  std::string out;
  ASSERT_TRUE(d.decompress(a + b, out, 1024));
  EXPECT_EQ(out, "hello world");
}

TEST(Gzip, RejectsCorruptAndOversized) {
  GzipDecompressor d;
  std::string out, err;
  EXPECT_FALSE(d.decompress("not gzip at all, definitely not", out, 1024, &err));
  EXPECT_EQ(err, "corrupt gzip data");
  GzipCompressor c(1);
  std::string z;
  c.compress(std::string(100000, 'a'), z);
  EXPECT_FALSE(d.decompress(z, out, 1000, &err));
  EXPECT_NE(err.find("exceeds 1000 bytes"), std::string::npos);
  EXPECT_FALSE(d.decompress("", out, 1000, &err));
}
