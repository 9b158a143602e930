// src/text/base64.h: RFC 4648 test vectors, every length around the 3-byte groups,
// all byte values, and inputs larger than one OpenSSL piece (3 MiB) against a plain
// reference encoder.
#include "text/base64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace tern::text {
namespace {

std::string reference(std::string_view s) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  std::size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const std::uint32_t n = static_cast<std::uint8_t>(s[i]) << 16 | static_cast<std::uint8_t>(s[i + 1]) << 8 |
                            static_cast<std::uint8_t>(s[i + 2]);
    for (int shift : {18, 12, 6, 0}) o += kAlphabet[n >> shift & 63];
  }
  if (i < s.size()) {
    std::uint32_t n = static_cast<std::uint8_t>(s[i]) << 16;
    if (i + 1 < s.size()) n |= static_cast<std::uint8_t>(s[i + 1]) << 8;
    o += kAlphabet[n >> 18];
    o += kAlphabet[n >> 12 & 63];
    o += i + 1 < s.size() ? kAlphabet[n >> 6 & 63] : '=';
    o += '=';
  }
  return o;
}

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64("user:pa ss"), "dXNlcjpwYSBzcw==");
}

TEST(Base64, EveryLengthAndByteValue) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (std::size_t n = 0; n <= all.size(); ++n) {
    const std::string_view s(all.data(), n);
    const std::string text = base64(s);
    ASSERT_EQ(text, reference(s)) << n;
    ASSERT_EQ(text.size(), base64_size(n)) << n;
  }
}

TEST(Base64, PointerFormWritesOnlyItsRoom) {
  const std::string in = "\x00\xff\x10 bytes";
  std::string buf(base64_size(in.size()) + 1 + 8, '#');
  char* end = base64(buf.data(), in);
  EXPECT_EQ(std::string(buf.data(), end), reference(in));
  EXPECT_EQ(buf.substr(base64_size(in.size()) + 1), std::string(8, '#'));
}

// Past one 3 MiB piece, the pieces' texts must join into the text of the whole input.
TEST(Base64, InputsLargerThanOnePiece) {
  std::mt19937 rng(7);
  for (std::size_t n : {(std::size_t{3} << 20) - 1, std::size_t{3} << 20, (std::size_t{3} << 20) + 1,
                        (std::size_t{6} << 20) + 2}) {
    std::string in(n, '\0');
    for (auto& c : in) c = static_cast<char>(rng());
    ASSERT_EQ(base64(in), reference(in)) << n;
  }
}

}  // namespace
}  // namespace tern::text
