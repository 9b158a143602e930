#include "text/json_writer.h"

#include <algorithm>
#include <array>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <tmmintrin.h>  // SSSE3 pshufb, used only inside a target("ssse3") function
#endif

#include "text/string_growth.h"

namespace tern::text {
namespace {

// Input bytes escaped per reservation (worst case 6 output bytes each).
constexpr std::size_t kEscapeBlock = 4096;

// 0: copy as is, 1: escape, 2: start of a multi-byte UTF-8 sequence (validate).
constexpr std::array<std::uint8_t, 256> kEscape = [] {
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 0x20; ++i) t[i] = 1;
  t['"'] = 1;
  t['\\'] = 1;
  for (int i = 0x80; i < 0x100; ++i) t[i] = 2;
  return t;
}();

#if defined(__SSE2__)
// Quote expansion for 8 input bytes whose only special bytes are '"' and '\\':
// kExpand[m] is the pshufb control that spreads the bytes apart, 0x80 (a zero
// from pshufb, then a backslash) in front of each byte whose bit is set in m;
// kExpandLen[m] = 8 + popcount(m) bytes come out.
struct ExpandTables {
  alignas(16) std::uint8_t shuffle[256][16];
  std::uint8_t len[256];
};
constexpr ExpandTables kExpand = [] {
  ExpandTables t{};
  for (int m = 0; m < 256; ++m) {
    int j = 0;
    for (int k = 0; k < 8; ++k) {
      if (m >> k & 1) t.shuffle[m][j++] = 0x80;
      t.shuffle[m][j++] = static_cast<std::uint8_t>(k);
    }
    t.len[m] = static_cast<std::uint8_t>(j);
    while (j < 16) t.shuffle[m][j++] = 0x80;
  }
  return t;
}();
#endif

constexpr char kHexDigits[] = "0123456789abcdef";

// "00".."ff": one table load writes both hex digits of a byte.
constexpr std::array<char, 512> kHexPairs = [] {
  std::array<char, 512> t{};
  for (int i = 0; i < 256; ++i) {
    t[2 * i] = kHexDigits[i >> 4];
    t[2 * i + 1] = kHexDigits[i & 15];
  }
  return t;
}();

using json::kDigitPairs;

// Length of the valid UTF-8 sequence at p (n bytes left), or 0 if invalid
// (overlong, surrogate, > U+10FFFF, truncated).
inline std::size_t utf8_len(const unsigned char* p, std::size_t n) {
  const unsigned c = p[0];
  auto cont = [&](std::size_t i) { return i < n && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || !cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] > 0x8F) return 0;
    return 4;
  }
  return 0;
}

// Writes the escape of control/quote/backslash byte `c`; returns the end.
inline char* escape_byte(char* d, unsigned char c) {
  d[0] = '\\';
  switch (c) {
    case '"':
      d[1] = '"';
      return d + 2;
    case '\\':
      d[1] = '\\';
      return d + 2;
    case '\n':
      d[1] = 'n';
      return d + 2;
    case '\r':
      d[1] = 'r';
      return d + 2;
    case '\t':
      d[1] = 't';
      return d + 2;
    case '\b':
      d[1] = 'b';
      return d + 2;
    case '\f':
      d[1] = 'f';
      return d + 2;
    default:
      std::memcpy(d + 1, "u00", 3);
      d[4] = kHexDigits[c >> 4];
      d[5] = kHexDigits[c & 15];
      return d + 6;
  }
}

}  // namespace

void JsonWriter::grow(std::size_t n) {
  // Grow by a chunk of a few KiB within the capacity; beyond it, by what is needed
  // (the string reallocates geometrically). The new bytes are about to be written:
  // skipping resize()'s zero fill saved 7 % of encoding time.
  const std::size_t pos = size();
  const std::size_t spare = out_.capacity() - pos;
  text::grow_for_overwrite(out_, pos + std::max(n, std::min(chunk_, spare)));
  rebase(pos);
}

void JsonWriter::escaped(std::string_view s) {
  if (s.size() <= json::kInlineString) {
    done(json::escaped(at(json::escaped_room(s.size())), s));
    return;
  }
  // Long strings in blocks: the reservation stays a few times the block size.
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t stop = std::min(s.size(), i + kEscapeBlock);
    done(json::escape_span(at(json::escaped_room(stop - i)), p, i, stop, s.size()));
  }
}

namespace json {

namespace {

// s[i] needs work: an escape, or a multi-byte UTF-8 sequence to validate.
[[gnu::always_inline]] inline char* special_at(char* out, const unsigned char* s, std::size_t& i,
                                               std::size_t n) {
  const unsigned char c = s[i];
  if (kEscape[c] == 1) {
    ++i;
    return escape_byte(out, c);
  }
  const std::size_t len = utf8_len(s + i, n - i);
  if (len == 0) {
    std::memcpy(out, "\xEF\xBF\xBD", 3);  // U+FFFD for each invalid byte
    ++i;
    return out + 3;
  }
  std::memcpy(out, s + i, len);
  i += len;
  return out + len;
}

// Eight bytes at a time: the last bytes of a string (fewer than 16) after the
// SIMD loop, or every byte on a CPU without SSSE3.
[[gnu::always_inline]] inline char* escape_words(char* d, const unsigned char* s, std::size_t& i,
                                                 std::size_t stop, std::size_t n) {
  while (i < stop) {
    while (i < stop && i + 8 <= n) {
      std::uint64_t x;
      std::memcpy(&x, s + i, 8);
      if (!clean8(x)) break;
      std::memcpy(d, &x, 8);
      i += 8;
      d += 8;
    }
    while (i < stop && kEscape[s[i]] == 0) *d++ = static_cast<char>(s[i++]);
    if (i >= stop) break;
    d = special_at(d, s, i, n);
  }
  return d;
}

#if defined(__SSE2__)
// 16 bytes at a time (SSSE3 for pshufb; escape_span checks the CPU once, so the
// build itself stays baseline x86-64). A clean block is one load and one store.
// A block whose only special bytes are quotes and backslashes (a JSON line shipped
// as a string: one `"` every ~8 bytes) is expanded with two shuffles, without a
// branch per quote. Any other block with special bytes is worked off from its one
// mask: each clean run is a 16-byte copy of which only the run's length counts,
// each special byte its escape or its validated UTF-8 sequence.
[[gnu::target("ssse3")]] char* escape_span_ssse3(char* d, const unsigned char* s, std::size_t& i,
                                                 std::size_t stop, std::size_t n) {
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  alignas(16) unsigned char tail[32] = {};  // a block near the end of s, copied with slack
  while (i < stop && i + 16 <= n) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i escape = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash));
    // Signed compare: bytes < 0x20 and >= 0x80 (negative) both count as special.
    const auto other = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(x, space)));
    const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(escape));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), x);
    unsigned mask = quotes | other;
    if (mask == 0) [[likely]] {
      i += 16;
      d += 16;
      continue;
    }
    if (i + 16 > stop) {
      // The block crosses `stop`: the room covers only up to stop, so take just the
      // clean prefix and at most the first special byte.
      i += __builtin_ctz(mask);
      d += __builtin_ctz(mask);
      if (i >= stop) break;
      d = special_at(d, s, i, n);
      continue;
    }
    if (other == 0) {
      // Each half grows to at most 16 bytes; room: 6 * 16 + 16 >= 32.
      const __m128i zero = _mm_setzero_si128();
      const unsigned lo = quotes & 0xFF, hi = quotes >> 8;
      const __m128i sl = _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[lo]));
      const __m128i sh = _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[hi]));
      const __m128i el =
          _mm_or_si128(_mm_shuffle_epi8(x, sl), _mm_and_si128(_mm_cmplt_epi8(sl, zero), bslash));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), el);
      d += kExpand.len[lo];
      const __m128i xh = _mm_srli_si128(x, 8);
      const __m128i eh =
          _mm_or_si128(_mm_shuffle_epi8(xh, sh), _mm_and_si128(_mm_cmplt_epi8(sh, zero), bslash));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), eh);
      d += kExpand.len[hi];
      i += 16;
      continue;
    }
    // Runs are copied 16 bytes at a time from `src`, which has 16 readable bytes past
    // the block: the input itself, or a copy of the block at the end of the input.
    const std::size_t base = i;
    const unsigned char* src = s + base;
    if (base + 32 > n) {
      _mm_store_si128(reinterpret_cast<__m128i*>(tail), x);
      src = tail;
    }
    unsigned prev = 0;  // block offset of the first byte not yet written
    while (mask) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
      std::memcpy(d, src + prev, 16);
      d += k - prev;
      const unsigned char c = src[k];
      if (kEscape[c] == 1) {
        d = escape_byte(d, c);
        prev = k + 1;
        mask &= mask - 1;
        continue;
      }
      // A multi-byte UTF-8 sequence, validated against the input (it may run past
      // the block).
      i = base + k;
      d = special_at(d, s, i, n);
      prev = static_cast<unsigned>(i - base);
      if (prev >= 16) break;
      mask &= ~((1u << prev) - 1);
    }
    if (prev >= 16) {
      i = base + prev;
      continue;
    }
    std::memcpy(d, src + prev, 16);
    d += 16 - prev;
    i = base + 16;
  }
  return escape_words(d, s, i, stop, n);
}
#endif

}  // namespace

char* escape_span(char* d, const unsigned char* s, std::size_t& i, std::size_t stop, std::size_t n) {
  // Output never exceeds 6 bytes per input byte consumed, so while i < stop at
  // least 6 * (stop - i) + 16 bytes of room remain: enough for a 16-byte store.
#if defined(__SSE2__)
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
  if (ssse3) return escape_span_ssse3(d, s, i, stop, n);
#endif
  return escape_words(d, s, i, stop, n);
}

namespace {
// x < 10^4 without leading zeros: one or two digit pairs.
inline char* up_to_four_digits(char* d, std::uint32_t x) {
  if (x < 100) {
    if (x < 10) {
      *d = static_cast<char>('0' + x);
      return d + 1;
    }
    std::memcpy(d, &kDigitPairs[2 * x], 2);
    return d + 2;
  }
  const std::uint32_t high = x / 100;
  if (high < 10)
    *d++ = static_cast<char>('0' + high);
  else {
    std::memcpy(d, &kDigitPairs[2 * high], 2);
    d += 2;
  }
  std::memcpy(d, &kDigitPairs[2 * (x - high * 100)], 2);
  return d + 2;
}
}  // namespace

// Below 10^8 (durations under 0.1 s in ns, counts, sequence numbers) as two groups of at
// most four digits, pairs from a table; std::to_chars (which first counts the digits, then
// divides by 100 per pair) for the rest.
char* integer_general(char* d, std::uint64_t v) {
  if (v >= 100000000) return std::to_chars(d, d + kIntegerRoom, v).ptr;
  const auto u = static_cast<std::uint32_t>(v);
  if (u < 10000) return up_to_four_digits(d, u);
  const std::uint32_t high = u / 10000, low = u - high * 10000;
  d = up_to_four_digits(d, high);
  std::memcpy(d, &kDigitPairs[2 * (low / 100)], 2);
  std::memcpy(d + 2, &kDigitPairs[2 * (low % 100)], 2);
  return d + 4;
}
char* integer_general(char* d, std::int64_t v) {
  if (v >= 0) return integer_general(d, static_cast<std::uint64_t>(v));
  *d = '-';
  return integer_general(d + 1, std::uint64_t{0} - static_cast<std::uint64_t>(v));  // INT64_MIN too
}

char* dbl_general(char* d, double v) {
  if (!std::isfinite(v)) return lit(d, "null");
  char* e = std::to_chars(d, d + 40, v).ptr;
  // Elasticsearch must map the field as double: keep a radix point or exponent.
  for (const char* q = d; q < e; ++q)
    if (*q == '.' || *q == 'e') return e;
  std::memcpy(e, ".0", 2);
  return e + 2;
}

char* hex_bytes(char* d, const std::uint8_t* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) std::memcpy(d + 2 * i, &kHexPairs[2 * b[i]], 2);
  return d + 2 * n;
}

}  // namespace json

namespace {
// The six decimal digits of x < 10^6, zero-padded. One multiply by ceil(2^32 / 10^4) puts
// x / 10^4 in the high half and the rest as a 32-bit binary fraction; each next pair of
// digits is that fraction times 100 (jeaiii's itoa method). Exact for every x < 10^6 (the
// rounding error stays under 0.63 of the last digit; a test checks them all), and no
// divisions: the pairwise `/ 10000`, `/ 100 % 100`, `% 100` cost twice as much.
inline void six_digits(char* d, std::uint32_t x) {
  std::uint64_t y = static_cast<std::uint64_t>(x) * 429497u;
  std::memcpy(d, &kDigitPairs[2 * (y >> 32)], 2);
  y = static_cast<std::uint32_t>(y) * std::uint64_t{100};
  std::memcpy(d + 2, &kDigitPairs[2 * (y >> 32)], 2);
  y = static_cast<std::uint32_t>(y) * std::uint64_t{100};
  std::memcpy(d + 4, &kDigitPairs[2 * (y >> 32)], 2);
}
}  // namespace

char* json::six_digits_for_test(char* d, std::uint32_t x) {
  six_digits(d, x);
  return d + 6;
}

char* JsonWriter::format_timestamp(char* d, std::uint64_t ns, int slot) {
  TimestampCache& c = ts_[slot];
  const std::uint64_t ms = ns / 1000000;
  const auto rem = static_cast<std::uint32_t>(ns - ms * 1000000);
  // The text is kept whole and rewritten in place: `"<epoch_ms>.` changes only with the
  // millisecond, and then mostly in its last six digits.
  if (ms != c.ms) {
    // The timestamps of a batch are close (spans a second apart, records of one minute):
    // while the leading digits stay, only the last six (a quarter of an hour) are written.
    // A high part of 0 has no digits before the six, which would then be zero-padded.
    const std::uint64_t high = ms / kMsLow;
    if (high == c.ms_high && high != 0) {
      six_digits(c.text + 1 + c.len - 6, static_cast<std::uint32_t>(ms - high * kMsLow));
    } else {
      char* digits = c.text + 1;
      c.len = static_cast<std::size_t>(std::to_chars(digits, digits + 20, ms).ptr - digits);
      digits[c.len] = '.';
      digits[c.len + 7] = '"';
      c.text_len = c.len + 9;  // <= 1 + 20 + 8 < sizeof c.text
      c.ms_high = high;
    }
    c.ms = ms;
  }
  six_digits(c.text + c.text_len - 7, rem);
  c.ns = ns;
  std::memcpy(d, c.text, sizeof c.text);  // fixed size, no call; room: kTimestampRoom
  return d + c.text_len;
}

}  // namespace tern::text
