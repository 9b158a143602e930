#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

#include "compression/gzip.h"

using namespace tern::compression;

namespace {
// zlib's inflate with gzip framing (windowBits 16 + 15), as most HTTP peers decode.
std::string zlib_gunzip(const std::string& z, std::size_t expect) {
  z_stream s{};
  if (inflateInit2(&s, 16 + 15) != Z_OK) return "<init failed>";
  std::string out(expect + 16, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  s.avail_in = static_cast<uInt>(z.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  const int r = inflate(&s, Z_FINISH);
  out.resize(s.total_out);
  inflateEnd(&s);
  return r == Z_STREAM_END ? out : "<inflate failed>";
}
}  // namespace

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

// RFC 1952 allows any number of members. Each used to be decoded one recursion level deeper
// with a buffer of its own: 200,000 empty members (a 4 MB body) exhausted the memory.
TEST(Gzip, ManyConcatenatedMembersDecodeInALoop) {
  GzipCompressor c(6);
  std::string empty, ab;
  c.compress("", empty);
  c.compress("ab", ab);
  std::string body;
  for (int i = 0; i < 200000; ++i) body += empty;
  GzipDecompressor d;
  std::string out, err;
  ASSERT_TRUE(d.decompress(body, out, 20u << 20, &err)) << err;
  EXPECT_EQ(out, "");
  EXPECT_LE(out.capacity(), body.size() * 8);  // one buffer, sized by the input

  body.clear();
  for (int i = 0; i < 50000; ++i) body += ab;
  ASSERT_TRUE(d.decompress(body, out, 20u << 20, &err)) << err;
  ASSERT_EQ(out.size(), 100000u);
  EXPECT_EQ(out.find_first_not_of("ab"), std::string::npos);
  EXPECT_EQ(out.substr(0, 6), "ababab");

  // The limit counts all members together.
  EXPECT_FALSE(d.decompress(body, out, 99999, &err));
  EXPECT_NE(err.find("exceeds 99999 bytes"), std::string::npos) << err;
  // Bytes after the last member that are not a member.
  EXPECT_FALSE(d.decompress(ab + ab + "xyz", out, 1024, &err));
  EXPECT_NE(err.find("trailing bytes"), std::string::npos) << err;
  EXPECT_FALSE(d.decompress(ab + std::string(30, '\0'), out, 1024, &err));
  EXPECT_EQ(err, "corrupt gzip data");
}

// The trailer's ISIZE is the sender's claim: a tiny body claiming 4 GiB must not make the
// decompressor allocate up to the request limit before it finds out.
TEST(Gzip, AForgedSizeInTheTrailerDoesNotSizeTheBuffer) {
  GzipCompressor c(6);
  std::string z;
  c.compress("hello", z);
  const std::uint32_t forged = 0xfffffff0u;
  std::memcpy(z.data() + z.size() - 4, &forged, 4);  // ISIZE is not checked by the decoder's CRC
  GzipDecompressor d;
  std::string out, err;
  // libdeflate checks ISIZE against what it decoded: the forged stream is corrupt, but it
  // is found out with a buffer sized by the input, not by the 20 MiB limit.
  EXPECT_FALSE(d.decompress(z, out, 20u << 20, &err));
  EXPECT_LE(out.capacity(), z.size() * 1032 * 2) << err;
  // A real stream near the deflate ratio still decodes whole (the guess grows).
  std::string zeros(4u << 20, '\0'), big;
  c.compress(zeros, big);
  ASSERT_TRUE(d.decompress(big, out, 20u << 20, &err)) << err;
  EXPECT_EQ(out, zeros);
}

// Every level, with inputs that stress the igzip path (level 1) and libdeflate (the
// others): empty, tiny, incompressible (the output outgrows its first guess), and a
// compressor reused across calls with shrinking and growing inputs. zlib decodes the
// result too, so the stream is standard gzip, not just something libdeflate accepts.
TEST(Gzip, EveryLevelRoundTripsAndReuses) {
  std::string random(300000, '\0');
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (auto& ch : random) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ch = static_cast<char>(x);
  }
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += R"({"create":{}})"
            "\n"
            R"({"body":{"text":"line )" +
            std::to_string(i) + "\"}}\n";
  const std::string inputs[] = {"", "a", random, text, "short again", std::string(1 << 20, 'z')};
  GzipDecompressor d;
  for (int level : {0, 1, 2, 6, 9, 12}) {
    GzipCompressor c(level);
    EXPECT_EQ(c.level(), level);
    std::string z, out;
    for (const auto& in : inputs) {
      c.compress(in, z);
      ASSERT_TRUE(looks_gzipped(z)) << "level " << level << " size " << in.size();
      std::string err;
      ASSERT_TRUE(d.decompress(z, out, in.size() + 1, &err)) << "level " << level << ": " << err;
      EXPECT_EQ(out, in) << "level " << level << " size " << in.size();
      EXPECT_TRUE(zlib_gunzip(z, in.size()) == in) << "zlib, level " << level << " size " << in.size();
      if (level > 0 && in.size() == text.size()) {
        EXPECT_LT(z.size(), in.size() / 4) << "level " << level;
      }
    }
  }
}

// A body given in parts (empty ones included) is the gzip of their concatenation.
// compress_into reuses a scratch string that stays larger than its result: a big body then
// smaller ones (and an empty one) each decode to exactly their input.
TEST(Gzip, CompressIntoReusesItsScratch) {
  GzipDecompressor d;
  for (int level : {1, 6}) {
    GzipCompressor c(level);
    std::string scratch, out;
    for (std::size_t n : {300000u, 5000u, 0u, 120000u, 17u}) {
      std::string text;
      for (std::size_t i = 0; text.size() < n; ++i) text += "{\"seq\":" + std::to_string(i) + "}\n";
      text.resize(n);
      const std::string_view half[] = {std::string_view(text).substr(0, n / 2),
                                       std::string_view(text).substr(n / 2)};
      const std::string_view z = c.compress_into(half, scratch);
      EXPECT_GE(scratch.size(), z.size());
      ASSERT_TRUE(d.decompress(z, out, n + 1)) << level << " " << n;
      EXPECT_EQ(out, text) << level << " " << n;
      std::string whole;
      c.compress(text, whole);
      EXPECT_EQ(z, whole) << "same bytes as compress(): " << level << " " << n;
    }
  }
}

TEST(Gzip, PartsCompressLikeTheirConcatenation) {
  std::vector<std::string> owned;
  for (int i = 0; i < 40; ++i)
    owned.push_back(i % 7 == 3 ? "" : std::string(static_cast<std::size_t>(i) * 997, 'a' + i % 26) + "\n");
  std::vector<std::string_view> parts(owned.begin(), owned.end());
  std::string joined;
  for (auto p : parts) joined.append(p);
  GzipDecompressor d;
  for (int level : {1, 6}) {
    GzipCompressor c(level);
    std::string z, out;
    c.compress(parts, z);
    ASSERT_TRUE(d.decompress(z, out, joined.size() + 1));
    EXPECT_EQ(out, joined) << level;
    EXPECT_EQ(zlib_gunzip(z, joined.size()), joined) << level;
    const std::vector<std::string_view> none, empties{"", ""};
    c.compress(none, z);
    ASSERT_TRUE(d.decompress(z, out, 16));
    EXPECT_EQ(out, "");
    c.compress(empties, z);
    ASSERT_TRUE(d.decompress(z, out, 16));
    EXPECT_EQ(out, "");
  }
}

// Bulk bodies whose documents share action lines are thousands of small pieces (gathered
// into blocks before deflate), sometimes between long runs; the stream must not care.
TEST(Gzip, ManySmallPiecesCompressLikeTheirConcatenation) {
  std::uint64_t x = 42;
  auto noise = [&](std::size_t n) {  // incompressible: the output room has to grow
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 56);
    return s;
  };
  const std::string action = "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n";
  const std::string big_run = noise(300000);
  std::vector<std::string> docs;
  for (int i = 0; i < 5000; ++i)
    docs.push_back(i % 5 == 0 ? noise(700)
                              : "{\"n\":" + std::to_string(i) + ",\"body\":\"Load Generator\"}\n");
  GzipDecompressor d;
  for (const bool ends_with_run : {false, true}) {
    std::vector<std::string_view> parts;
    for (std::size_t i = 0; i < docs.size(); ++i) {
      if (i == 2500) parts.emplace_back(big_run);  // a long run in the middle
      parts.emplace_back(action);
      parts.emplace_back(docs[i]);
    }
    if (ends_with_run) parts.emplace_back(big_run);
    std::string joined;
    for (auto p : parts) joined.append(p);
    GzipCompressor c(1);
    std::string z, out;
    c.compress(parts, z);
    ASSERT_TRUE(d.decompress(z, out, joined.size() + 1));
    EXPECT_EQ(out, joined) << ends_with_run;
    EXPECT_EQ(zlib_gunzip(z, joined.size()), joined) << ends_with_run;
  }
}
