#pragma once
// JSON output: pointer-based primitives (namespace json) plus JsonWriter, which owns the
// growth of the output std::string. The Elasticsearch encoder's hot path is built on them;
// anything else that writes JSON text (error bodies, the sink's answers) uses them too.
//
// Why pointers: a document is ~30 small pieces. Appending each with
// std::string::append (or a writer whose cursor lives in memory) makes every
// piece reload and store the cursor, because char stores may alias it. Hot
// code instead asks the writer once for room (at(n): a pointer with at least
// n writable bytes), writes through a local char* with the json:: functions
// below, and hands the pointer back (done()). Each json:: function states the
// room it needs; callers reserve the sum first, so nothing can overflow.
//
// The string is grown in chunks of a few KiB without zero-filling them
// (text::grow_for_overwrite) and trimmed to the written size by finish()
// or the destructor; in between, out.size() is meaningless.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tern::text {

namespace json {

// Strings longer than this take the writer's chunked path (JsonWriter::string)
// so that reserving their worst case (6 bytes per input byte) stays small.
constexpr std::size_t kInlineString = 256;

// Room needed by escaped(n bytes) / string(n bytes).
constexpr std::size_t escaped_room(std::size_t n) { return 6 * n + 16; }
constexpr std::size_t string_room(std::size_t n) { return escaped_room(n) + 2; }
constexpr std::size_t kIntegerRoom = 24;
constexpr std::size_t kDoubleRoom = 48;
constexpr std::size_t kTimestampRoom = 48;

template <std::size_t N>
inline char* lit(char* d, const char (&s)[N]) {
  std::memcpy(d, s, N - 1);  // compile-time size: a few moves
  return d + N - 1;
}
inline char* raw(char* d, std::string_view s) {
  std::memcpy(d, s.data(), s.size());
  return d + s.size();
}

// Fragments copied into every document (action line, data_stream, resource
// and scope) are kept padded: readable bytes past their end up to at least
// kPaddedMin, and at least kPad of them, so that a copy moves whole 16-byte
// blocks inline instead of calling memcpy for a 20-200 byte piece. Up to
// kPaddedMin bytes (most fragments) are four fixed moves with no loop. pad()
// after (re)building one; padded_copy() needs padded_room(s) bytes of room and
// may write garbage past s.size() within it.
constexpr std::size_t kPad = 16;
constexpr std::size_t kPaddedMin = 64;
inline std::size_t padded_room(std::size_t n) { return std::max(n + kPad, kPaddedMin); }
inline std::size_t padded_room(const std::string& s) { return padded_room(s.size()); }
inline void pad(std::string& s) { s.reserve(padded_room(s)); }
// n bytes at src, readable up to padded_room(n) (a kept fragment, or a scratch writer's
// output with that room behind its start: JsonWriter::padded_view). Always inlined: as a
// call (GCC's choice varies with what else a file holds) it cost a span 12 instructions.
[[gnu::always_inline]] inline char* padded_copy(char* d, const char* src, std::size_t n) {
  std::memcpy(d, src, kPaddedMin);  // compile-time size: four 16-byte moves
  for (std::size_t i = kPaddedMin; i < n; i += kPad) std::memcpy(d + i, src + i, kPad);
  return d + n;
}
[[gnu::always_inline]] inline char* padded_copy(char* d, const std::string& s) {
  return padded_copy(d, s.data(), s.size());  // size read once: the stores may alias s
}

// True when none of the 8 bytes needs escaping or UTF-8 validation (< 0x20,
// '"', '\\', >= 0x80). The borrow trick can only misfire next to a real hit,
// so the any-byte answer is exact.
inline bool clean8(std::uint64_t x) {
  constexpr std::uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  const std::uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
  return (((((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x) | x) & high) == 0;
}

// Escapes s[i, stop) into d and advances i (a UTF-8 sequence that starts
// before `stop` is read whole, up to n). Room: escaped_room(stop - i).
char* escape_span(char* d, const unsigned char* s, std::size_t& i, std::size_t stop, std::size_t n);

#if defined(__SSE2__)
// Bit i set when byte i needs escaping or UTF-8 validation. One signed
// compare catches < 0x20, '"' and >= 0x80: x ^ 2 maps '"' (0x22) to 0x20 and
// keeps 0x00-0x1f among themselves, so (x ^ 2) < 0x21 holds exactly for those
// and for the bytes >= 0x80 (negative as int8). Backslash takes its own compare.
inline unsigned special16(__m128i x) {
  // (x ^ 2) < 0x21 is the sign of the saturating (x ^ 2) - 0x21, which movemask reads as it
  // is; written as a compare, GCC compared the other way round and inverted (two more ops).
  const __m128i special =
      _mm_or_si128(_mm_subs_epi8(_mm_xor_si128(x, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x21)),
                   _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  return static_cast<unsigned>(_mm_movemask_epi8(special));
}
inline bool clean16(__m128i x) { return special16(x) == 0; }
#endif

// Strings shorter than 16 bytes (most keys and many values) are checked with
// one 16-byte load that can read past their end but never past their 4 KiB
// page, so it cannot fault; the bytes beyond the string are masked out and
// never decide anything. AddressSanitizer and MemorySanitizer would report
// those reads, so sanitized builds read exactly the string's bytes.
#if defined(__SANITIZE_ADDRESS__)
#define TERN_EXACT_READS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define TERN_EXACT_READS 1
#endif
#endif
#if defined(__SSE2__) && !defined(TERN_EXACT_READS)
#define TERN_JSON_PAGE_READS 1
constexpr std::size_t kPage = 4096;
// True when the 16 bytes from p lie on p's page.
inline bool page_holds16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & (kPage - 1)) <= kPage - 16;
}
// page_holds16(a) && page_holds16(b) in one test (x + 15 does not carry into bit 12).
inline bool pages_hold16(const void* a, const void* b) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return (((x ^ (x + 15)) | (y ^ (y + 15))) & kPage) == 0;
}
// True when none of the first n (<= 16) bytes of x needs escaping: the lowest special bit
// (bit 16 when none) is at n or beyond. Unsigned all the way: an int from ctz was
// sign-extended before the compare.
inline bool clean_prefix16(__m128i x, std::size_t n) {
  return static_cast<unsigned>(__builtin_ctz(special16(x) | 0x10000u)) >= static_cast<unsigned>(n);
}
#endif

// `s` escaped for the inside of a JSON string; invalid UTF-8 -> U+FFFD.
// Room: escaped_room(s.size()).
[[gnu::always_inline]] inline char* escaped(char* d, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
#if defined(TERN_JSON_PAGE_READS)
  // n == 0 stays out: an empty view may point just past its buffer, even into an unmapped page.
  if (n - 1 < 15 && page_holds16(p)) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (clean_prefix16(x, n)) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), x);  // room: escaped_room(n) >= 16
      return d + n;
    }
    std::size_t i = 0;
    return escape_span(d, p, i, n, n);
  }
#endif
  // Short clean strings (keys, most values) need no loop: overlapping loads
  // that stay inside the string decide, overlapping stores copy. Only the
  // bytes of the string are read here.
  if (n >= 8 && n <= 32) {
#if defined(__SSE2__)
    __m128i x, y;
    if (n >= 16) {
      x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
      if (clean16(x) && clean16(y)) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d), x);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + n - 16), y);
        return d + n;
      }
    } else {
      std::uint64_t a, b;
      std::memcpy(&a, p, 8);
      std::memcpy(&b, p + n - 8, 8);
      if (clean16(_mm_set_epi64x(static_cast<long long>(b), static_cast<long long>(a)))) {
        std::memcpy(d, &a, 8);
        std::memcpy(d + n - 8, &b, 8);
        return d + n;
      }
    }
#else
    if (n <= 16) {
      std::uint64_t a, b;
      std::memcpy(&a, p, 8);
      std::memcpy(&b, p + n - 8, 8);
      if (clean8(a) && clean8(b)) {
        std::memcpy(d, &a, 8);
        std::memcpy(d + n - 8, &b, 8);
        return d + n;
      }
    }
#endif
  } else if (n >= 4 && n < 8) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    if (clean8(a | static_cast<std::uint64_t>(b) << 32)) {
      std::memcpy(d, &a, 4);
      std::memcpy(d + n - 4, &b, 4);
      return d + n;
    }
  } else if (n == 0) {
    return d;
  } else if (n == 1 && p[0] >= 0x20 && p[0] < 0x80 && p[0] != '"' && p[0] != '\\') {
    *d = static_cast<char>(p[0]);
    return d + 1;
  }
  std::size_t i = 0;
  return escape_span(d, p, i, n, n);
}
// Room: string_room(s.size()).
[[gnu::always_inline]] inline char* string(char* d, std::string_view s) {
  *d++ = '"';
  d = escaped(d, s);
  *d++ = '"';
  return d;
}
// "00".."99": two decimal digits per table load.
inline constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[2 * i] = static_cast<char>('0' + i / 10);
    t[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// The six zero-padded digits of x < 10^6 that timestamps use (exposed for its test).
char* six_digits_for_test(char* d, std::uint32_t x);
// integer() for the values its inline path leaves: std::to_chars, out of line (inlined
// at every call site it made the loops around it bigger and slower).
char* integer_general(char* d, std::int64_t v);
char* integer_general(char* d, std::uint64_t v);
// Room: kIntegerRoom. Values below 100 (severity numbers, small counts and
// codes, integral doubles like 5.0) are written inline, without the call.
template <class Int>
[[gnu::always_inline]] inline char* integer(char* d, Int v) {
  if (static_cast<std::make_unsigned_t<Int>>(v) < 100) {  // negative values are huge here
    const auto u = static_cast<unsigned>(v);
    if (u < 10) {
      *d = static_cast<char>('0' + u);
      return d + 1;
    }
    std::memcpy(d, &kDigitPairs[2 * u], 2);
    return d + 2;
  }
  if constexpr (std::is_signed_v<Int>)
    return integer_general(d, static_cast<std::int64_t>(v));
  else
    return integer_general(d, static_cast<std::uint64_t>(v));
}
// dbl() for the values its inline path leaves: non-finite -> null, else
// std::to_chars with ".0" added when it wrote neither '.' nor an exponent.
char* dbl_general(char* d, double v);
// Shortest round-trip form, always with '.' or exponent; non-finite -> null.
// Small integral values (5.0, 100.0) inline: the integer's digits and ".0"
// (below 1e5 the shortest form is fixed notation, as to_chars writes it;
// -0.0 keeps its sign and NaN its null through the general path). Room: kDoubleRoom.
[[gnu::always_inline]] inline char* dbl(char* d, double v) {
#if defined(__SSE2__)
  // cvttsd2si truncates, and gives INT32_MIN for NaN and whatever is out of range (a cast
  // would be undefined there). v is integral exactly when converting back gives its very
  // bits: -0.0 (0 gives +0.0) and NaN fail that test, and the range is tested on the
  // integer. Through fabs, a compare with i and a test for 0 it took 8 instructions more.
  const std::int32_t i = _mm_cvttsd_si32(_mm_set_sd(v));
  if (std::bit_cast<std::uint64_t>(static_cast<double>(i)) == std::bit_cast<std::uint64_t>(v) &&
      static_cast<std::uint32_t>(i) + 99999u <= 2 * 99999u) {  // |i| < 1e5
    d = integer(d, i);
    std::memcpy(d, ".0", 2);
    return d + 2;
  }
#else
  if (std::fabs(v) < 1e5) {  // NaN fails too
    const auto i = static_cast<std::int32_t>(v);
    if (static_cast<double>(i) == v && i != 0) {  // zeros keep their sign through the general path
      d = integer(d, i);
      std::memcpy(d, ".0", 2);
      return d + 2;
    }
  }
#endif
  return dbl_general(d, v);
}
// Lowercase hex of n bytes, a table lookup per byte (hex() takes the ones SSE2 leaves).
char* hex_bytes(char* d, const std::uint8_t* b, std::size_t n);
#if defined(__SSE2__)
// Sixteen nibbles (0-15) as their lowercase hex digits: '0' + x, and 'a' - '0' - 10 more
// above 9.
inline __m128i hex_digits(__m128i nibbles) {
  const __m128i above9 = _mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9));
  return _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')),
                      _mm_and_si128(above9, _mm_set1_epi8('a' - '0' - 10)));
}
#endif
// Lowercase hex of n bytes. Room: 2 * n. Trace and span ids (16 and 8 bytes) go through
// one or two SSE2 blocks: a table lookup per byte was 8 instructions a byte, and every
// span and most log records carry 24 bytes of ids.
inline char* hex(char* d, const std::uint8_t* b, std::size_t n) {
#if defined(__SSE2__)
  const __m128i low4 = _mm_set1_epi8(0x0f);
  for (; n >= 8; n -= 8, b += 8, d += 16) {  // reads exactly the 8 bytes it writes out
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b));
    const __m128i high = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
    const __m128i pairs = _mm_unpacklo_epi8(high, _mm_and_si128(v, low4));  // high digit first
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), hex_digits(pairs));
  }
  if (n == 0) return d;
#endif
  return hex_bytes(d, b, n);
}

}  // namespace json

class JsonWriter {
 public:
  // `chunk`: how far to grow the string beyond what a write needs, within its
  // capacity. 0 grows exactly (for one-off appends to a long-lived string).
  explicit JsonWriter(std::string& out, std::size_t chunk = 16 * 1024) : out_(out), chunk_(chunk) {
    rebase(out.size());
  }
  ~JsonWriter() { finish(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // Bytes written so far, counting what the string held before.
  std::size_t size() const { return static_cast<std::size_t>(p_ - out_.data()); }
  // Trims the string to what was written. The writer stays usable.
  void finish() {
    out_.resize(size());
    rebase(out_.size());
  }
  // What was written, while writing (for scratch writers reused with truncate).
  std::string_view view() const { return {out_.data(), size()}; }
  // view(), with room reserved behind it so that it can be read as a padded fragment
  // (json::padded_copy(d, v.data(), v.size()), within json::padded_room(v.size())). The
  // room's bytes are allocated, not initialized: they are copied, never looked at.
  std::string_view padded_view() {
    at(json::kPaddedMin);
    return view();
  }
  // Drops everything written after absolute position `pos` (pos <= size()).
  void truncate(std::size_t pos) { p_ = out_.data() + pos; }

  // The cursor, with at least `n` writable bytes behind it. Write through the
  // returned pointer with json::*, then pass the end to done(). No other
  // writer call may come in between.
  char* at(std::size_t n) {
    if (n > static_cast<std::size_t>(end_ - p_)) grow(n);
    return p_;
  }
  void done(char* p) { p_ = p; }
  // The writable limit of the current reservation (at least at()'s n bytes past the cursor).
  char* limit() const { return end_; }
  // Absolute position of a pointer obtained from at().
  std::size_t pos(const char* p) const { return static_cast<std::size_t>(p - out_.data()); }

  // Checked writes, one piece at a time (cold paths).
  template <std::size_t N>
  void lit(const char (&s)[N]) {
    done(json::lit(at(N - 1), s));
  }
  void raw(std::string_view s) { done(json::raw(at(s.size()), s)); }
  // A fragment kept with json::pad().
  void padded(const std::string& s) { done(json::padded_copy(at(json::padded_room(s)), s)); }
  void put(char c) {
    char* d = at(1);
    *d = c;
    done(d + 1);
  }
  template <class Int>
  void integer(Int v) {
    done(json::integer(at(json::kIntegerRoom), v));
  }
  void dbl(double d) { done(json::dbl(at(json::kDoubleRoom), d)); }
  void hex(const std::uint8_t* b, std::size_t n) { done(json::hex(at(2 * n), b, n)); }
  // `s` as a JSON string, quotes included; any length.
  void string(std::string_view s) {
    put('"');
    escaped(s);
    put('"');
  }
  // `s` escaped, no quotes; any length (long strings are escaped in blocks).
  void escaped(std::string_view s);

  // "<epoch_ms>.<ns remainder, 6 digits>" with its quotes (spec section 1).
  // Room: json::kTimestampRoom. Each of kTimestampSlots keeps the text of the last timestamp
  // written through it, rewritten in place by the next (format_timestamp): the records of a
  // batch mostly share their millisecond. A document's two timestamp fields take a slot each (a log record's
  // @timestamp 0, observed_timestamp 1; a span 0, its events 1): through one cache they
  // alternated, and a batch whose records each carry their own times formatted both
  // timestamps of every record in full.
  static constexpr int kTimestampSlots = 2;
  char* timestamp(char* d, std::uint64_t ns, int slot = 0) {
    TimestampCache& c = ts_[slot];
    if (ns == c.ns) {
      std::memcpy(d, c.text, sizeof c.text);  // fixed size: a few moves; room covers it
      return d + c.text_len;
    }
    return format_timestamp(d, ns, slot);  // the slot, not c: its address is only made there
  }
  void timestamp(std::uint64_t ns, int slot = 0) { done(timestamp(at(json::kTimestampRoom), ns, slot)); }
  // ns / 1e6 as a JSON integer (metrics timestamps), the last one cached.
  // Room: json::kIntegerRoom.
  char* millis(char* d, std::uint64_t ns) {
    const std::uint64_t ms = ns / 1000000;
    if (ms != ms_value_) {
      ms_len_ = static_cast<std::size_t>(json::integer(ms_text_, ms) - ms_text_);
      ms_value_ = ms;
    }
    std::memcpy(d, ms_text_, sizeof ms_text_);  // fixed size; room covers it
    return d + ms_len_;
  }

 private:
  // One timestamp cache. It starts as the text of 0, not as a sentinel value: every uint64
  // is a timestamp the caches may be asked for (UINT64_MAX came out empty once).
  struct TimestampCache {
    std::uint64_t ns = 0, ms = 0, ms_high = 0;  // ms_high: ms / kMsLow
    char text[32] = "\"0.000000\"";             // the last timestamp, whole, quotes included
    std::size_t text_len = 10;
    std::size_t len = 1;  // of its epoch_ms digits, from text[1]
  };
  static constexpr std::uint64_t kMsLow = 1000000;  // the last six digits of epoch_ms

  void grow(std::size_t n);
  char* format_timestamp(char* d, std::uint64_t ns, int slot);
  void rebase(std::size_t pos) {
    p_ = out_.data() + pos;
    end_ = out_.data() + out_.size();
  }

  std::string& out_;
  std::size_t chunk_;
  char* p_ = nullptr;
  char* end_ = nullptr;  // out_.data() + out_.size(): the writable limit
  TimestampCache ts_[kTimestampSlots];
  std::uint64_t ms_value_ = 0;
  char ms_text_[json::kIntegerRoom] = "0";
  std::size_t ms_len_ = 1;
};

// A JsonWriter's cursor kept in registers for a run of small writes (the
// attributes of a record): every char store may alias the writer's own
// cursor, so writing through at()/done() reloads and stores it each time and
// chains each write to the previous store. room(n) is at(n) without that;
// sync() hands the cursor back before any other use of the writer. Every member is
// inlined: a cursor whose address reaches a call lives in memory, and the chain through
// memory it was made to avoid comes back (a call to an out-of-line room() cost the encoder 12 %).
class JsonCursor {
 public:
  explicit JsonCursor(JsonWriter& w) : w_(w), d_(w.at(0)), end_(w.limit()) {}
  [[gnu::always_inline]] char* room(std::size_t n) {
    if (n > static_cast<std::size_t>(end_ - d_)) {
      w_.done(d_);
      d_ = w_.at(n);
      end_ = w_.limit();
    }
    return d_;
  }
  void done(char* d) { d_ = d; }
  // The cursor without room behind it, to rewrite bytes already written.
  char* ptr() const { return d_; }
  void sync() { w_.done(d_); }
  // Takes the cursor back after other writes went through the writer.
  void reload() {
    d_ = w_.at(0);
    end_ = w_.limit();
  }

 private:
  JsonWriter& w_;
  char* d_;
  char* end_;
};

}  // namespace tern::text
