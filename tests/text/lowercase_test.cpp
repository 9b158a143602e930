#include "text/lowercase.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::text {
namespace {

std::string lower(std::string_view in) {
  std::string out = "kept:";
  append_lowercase(in, out);
  return out;
}

TEST(Lowercase, AsciiAndUnicodeLetters) {
  ASSERT_TRUE(unicode_lowercase()) << "the C.UTF-8 locale (libc-bin) is missing";
  EXPECT_EQ(lower(""), "kept:");
  EXPECT_EQ(lower("Hello, World-42_@Z"), "kept:hello, world-42_@z");
  EXPECT_EQ(lower("\xC3\x84\xC3\x96\xC3\x9C\xC3\x9F"), "kept:\xC3\xA4\xC3\xB6\xC3\xBC\xC3\x9F");  // ÄÖÜß
  EXPECT_EQ(lower("\xCE\xA9\xD0\xAF"), "kept:\xCF\x89\xD1\x8F");  // ΩЯ -> ωя
  EXPECT_EQ(lower("\xF0\x90\x90\x80"), "kept:\xF0\x90\x90\xA8");  // Deseret 𐐀 -> 𐐨 (4 bytes)
  EXPECT_EQ(lower("\xE6\x97\xA5\xE6\x9C\xAC"), "kept:\xE6\x97\xA5\xE6\x9C\xAC");  // 日本: no case
}

TEST(Lowercase, LengthCanChange) {
  EXPECT_EQ(lower("\xE2\x84\xAA"), "kept:k");         // the Kelvin sign (3 bytes) -> k
  EXPECT_EQ(lower("\xC8\xBA"), "kept:\xE2\xB1\xA5");  // Ⱥ (2 bytes) -> ⱥ (3 bytes)
}

TEST(Lowercase, InvalidBytesPassAsTheyAre) {
  EXPECT_EQ(lower("A\xFF"
                  "B"),
            "kept:a\xFF"
            "b");
  EXPECT_EQ(lower("\xC3"), "kept:\xC3");  // cut short
  EXPECT_EQ(lower("\xC3"
                  "A"),
            "kept:\xC3"
            "a");  // no continuation byte
  EXPECT_EQ(lower("\xC0\x81"
                  "C"),
            "kept:\xC0\x81"
            "c");                                                 // overlong
  EXPECT_EQ(lower("\xED\xA0\x80"), "kept:\xED\xA0\x80");          // a surrogate
  EXPECT_EQ(lower("\xF4\x90\x80\x80"), "kept:\xF4\x90\x80\x80");  // above U+10FFFF
}

}  // namespace
}  // namespace tern::text
