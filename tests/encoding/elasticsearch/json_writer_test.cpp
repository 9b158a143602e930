// Edge cases of the encoder's fast paths (src/text/json_writer.h):
// the block-wise escape scan against a byte-at-a-time reference at every
// position of 16/32-byte blocks, short strings read with a 16-byte load (what
// follows them, and the end of a page), invalid UTF-8 straddling block boundaries,
// long strings crossing the writer's escape blocks, number formatting at
// digit-count boundaries, the double fast path against std::to_chars, and the
// timestamp/millisecond caches when consecutive values change.
#include "text/json_writer.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "text/json_string.h"

namespace tern::encoding::es::test {
namespace {

// Reference: one byte at a time, straight from the spec (section 1).
std::string reference_escape(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string o = "\"";
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = p[i];
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      switch (c) {
        case '\n':
          o += "\\n";
          break;
        case '\r':
          o += "\\r";
          break;
        case '\t':
          o += "\\t";
          break;
        case '\b':
          o += "\\b";
          break;
        case '\f':
          o += "\\f";
          break;
        default:
          o += "\\u00";
          o += hex[c >> 4];
          o += hex[c & 15];
      }
      ++i;
    } else if (c < 0x80) {
      o += static_cast<char>(c);
      ++i;
    } else {
      // Decode one scalar value; anything malformed is one U+FFFD per byte.
      std::size_t len = 0;
      std::uint32_t cp = 0;
      if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
      else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
      else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
      bool ok = len != 0 && i + len <= n;
      for (std::size_t k = 1; ok && k < len; ++k) {
        ok = (p[i + k] & 0xC0) == 0x80;
        cp = cp << 6 | (p[i + k] & 0x3F);
      }
      if (ok && len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
      if (ok && len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ok = false;
      if (ok) {
        o.append(s.substr(i, len));
        i += len;
      } else {
        o += "\xEF\xBF\xBD";
        ++i;
      }
    }
  }
  return o + "\"";
}

std::string escape(std::string_view s) {
  std::string out;
  text::append_json_string(out, s);
  return out;
}

// Every special byte class at every position of strings 0..70 bytes long:
// covers the 1/4/8/16/32-byte fast paths, their overlapping halves, and the
// 16-byte scan with its 8-byte and scalar tails.
TEST(EsJsonWriter, EscapeAtEveryBlockPosition) {
  const std::string specials[] = {"\"",
                                  "\\",
                                  "\n",
                                  std::string(1, '\0'),
                                  "\x1f",
                                  "\x7f",
                                  "\xC3\xA9",
                                  "\xE2\x82\xAC",
                                  "\xF0\x9F\x98\x80",
                                  "\x80",
                                  "\xC0",
                                  "\xED\xA0\x80",
                                  "\xF4\x90\x80\x80"};
  for (std::size_t n = 0; n <= 70; ++n) {
    const std::string clean(n, 'k');
    ASSERT_EQ(escape(clean), reference_escape(clean)) << n;
    for (const auto& sp : specials)
      for (std::size_t pos = 0; pos <= n; ++pos) {
        std::string s = clean;
        s.insert(pos, sp);
        ASSERT_EQ(escape(s), reference_escape(s)) << "len " << s.size() << " pos " << pos;
      }
  }
}

// Every byte value at every position of short strings: the one-compare class
// test ((x ^ 2) < 0x21 signed, plus backslash) must single out exactly the
// bytes below 0x20, '"', '\\' and those from 0x80, and nothing next to them
// (' ', '!', '#', '[', ']', 0x7f).
TEST(EsJsonWriter, EveryByteValueAtEveryShortPosition) {
  for (int b = 0; b < 256; ++b)
    for (std::size_t n = 1; n <= 33; ++n)
      for (std::size_t pos = 0; pos < n; ++pos) {
        std::string s(n, 'k');
        s[pos] = static_cast<char>(b);
        ASSERT_EQ(escape(s), reference_escape(s)) << "byte " << b << " len " << n << " pos " << pos;
      }
}

// Padded fragments are copied in fixed 64-byte moves, then 16-byte blocks: every
// size around those steps comes out exact, and nothing is written past the room.
TEST(EsJsonWriter, PaddedCopyAtEverySize) {
  for (std::size_t n = 0; n <= 200; ++n) {
    std::string frag;
    for (std::size_t i = 0; i < n; ++i) frag += static_cast<char>('a' + i % 26);
    json::pad(frag);
    ASSERT_GE(frag.capacity(), json::padded_room(frag));
    std::string out(json::padded_room(frag) + 8, '#');
    char* end = json::padded_copy(out.data() + 1, frag);
    ASSERT_EQ(static_cast<std::size_t>(end - out.data()), n + 1);
    EXPECT_EQ(out.substr(1, n), frag) << n;
    EXPECT_EQ(out[0], '#');
    EXPECT_EQ(out.substr(1 + json::padded_room(frag)), std::string(7, '#')) << n;
  }
}

// Strings shorter than 16 bytes are checked with one 16-byte load that may
// read past their end: whatever follows them (quotes, control bytes, broken
// UTF-8) must not change their escape.
TEST(EsJsonWriter, ShortStringsIgnoreTheBytesAfterThem) {
  const std::string tails[] = {std::string(16, '"'), std::string(16, '\\'), std::string(16, '\0'),
                               std::string(16, '\x80'), std::string(16, 'k')};
  const std::string heads[] = {"k", "\"", "\xC3\xA9", "\n"};
  for (const auto& tail : tails)
    for (const auto& head : heads)
      for (std::size_t n = 0; n < 16; ++n) {
        std::string body;
        while (body.size() < n) body += head;
        body.resize(n);  // may cut a multi-byte sequence: that is a case too
        const std::string buf = body + tail;
        const std::string_view s(buf.data(), n);
        ASSERT_EQ(escape(s), reference_escape(s)) << "n " << n;
      }
}

// ... and that load never crosses into the next page: strings ending at the
// very end of a page followed by an unmapped one escape without a fault.
TEST(EsJsonWriter, ShortStringsEndingAtAPageEnd) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  char* base = static_cast<char*>(m);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  for (std::size_t n = 0; n <= 40; ++n)
    for (const char fill : {'k', '"', '\x01', '\xE9'}) {
      char* s = base + page - n;
      std::memset(s, fill, n);
      const std::string_view v(s, n);
      ASSERT_EQ(escape(v), reference_escape(v)) << "n " << n << " fill " << int(fill);
    }
  munmap(m, 2 * page);
}

// A multi-byte sequence (valid or cut short) placed across each 16-byte block edge.
TEST(EsJsonWriter, Utf8AcrossBlockBoundaries) {
  const std::string seqs[] = {"\xF0\x9F\x98\x80", "\xE2\x82\xAC", "\xC3\xA9",
                              "\xF0\x9F\x98",     "\xE2\x82",     "\xC3"};
  for (const auto& seq : seqs)
    for (std::size_t edge : {8u, 16u, 32u, 48u, 4096u})
      for (std::size_t back = 0; back <= seq.size(); ++back) {
        std::string s(edge - back, 'a');
        s += seq;
        s += std::string(20, 'b');
        ASSERT_EQ(escape(s), reference_escape(s)) << "edge " << edge << " back " << back;
        s += seq;  // and at the very end of the string
        ASSERT_EQ(escape(s), reference_escape(s)) << "edge " << edge << " back " << back;
      }
}

// Long strings take the writer's block path (kInlineString, 4096-byte blocks):
// specials and sequences right at and around those boundaries.
TEST(EsJsonWriter, LongStringsAcrossWriterBlocks) {
  std::mt19937_64 rng(42);
  const char* pieces[] = {"a",    "\"",      "\n", "\x01", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                          "\x80", "\xE2\x82"};
  for (std::size_t n : {255u, 256u, 257u, 4095u, 4096u, 4097u, 8191u, 8193u, 20000u}) {
    for (int round = 0; round < 4; ++round) {
      std::string s;
      while (s.size() < n) s += round == 0 ? "x" : pieces[rng() % std::size(pieces)];
      ASSERT_EQ(escape(s), reference_escape(s)) << n;
    }
  }
  // All control characters: the worst case (6 bytes per input byte) in one string.
  const std::string worst(10000, '\x01');
  EXPECT_EQ(escape(worst), reference_escape(worst));
  EXPECT_EQ(escape(worst).size(), 6 * worst.size() + 2);
}

TEST(EsJsonWriter, RandomStringsMatchReference) {
  std::mt19937_64 rng(7);
  for (int it = 0; it < 20000; ++it) {
    std::string s(rng() % 100, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 4 ? 'a' + rng() % 26 : rng() & 0xFF);
    ASSERT_EQ(escape(s), reference_escape(s)) << it;
  }
}

// Blocks with several special bytes each (quote-dense JSON lines, escapes next to
// UTF-8 sequences that start inside a block and end in the next one): the scan works
// a block off from one mask, so every mix and position must still match the reference.
TEST(EsJsonWriter, DenseSpecialsMatchReference) {
  std::mt19937_64 rng(11);
  const char* pieces[] = {"\"",          "\\",           "\n",       "\x01",
                          "a",           "bc",           "def",      "\xC3",
                          "\xC3\xA9",    "\xE2\x82\xAC", "\xE2\x82", "\xF0\x9F\x98\x80",
                          "\x80",        "\xFF",         "\x7f",     ":",
                          "\"k\":\"v\","};
  for (int it = 0; it < 20000; ++it) {
    const std::size_t n = it % 100 == 0 ? 4000 + rng() % 5000 : rng() % 300;
    std::string s;
    while (s.size() < n) s += pieces[rng() % std::size(pieces)];
    ASSERT_EQ(escape(s), reference_escape(s)) << it;
  }
  // The race's line shape: a JSON object shipped as a string.
  const std::string line =
      R"({"ts":"2025-12-03T08:00:00.000Z","level":"info","msg":"PUT /api/v1/items/32098 200 143ms","seq":0})";
  for (std::size_t cut = 0; cut <= line.size(); ++cut) {
    ASSERT_EQ(escape(line.substr(cut)), reference_escape(line.substr(cut))) << cut;
  }
}

TEST(EsJsonWriter, IntegersAtDigitBoundaries) {
  std::string out;
  JsonWriter w(out);
  std::string expect;
  std::uint64_t p = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (std::uint64_t v : {p - 1, p, p + 1}) {
      w.integer(v);
      w.put(',');
      expect += std::to_string(v) + ",";
    }
    if (digits < 20) p *= 10;
  }
  for (std::int64_t v : {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1}, std::int64_t{0},
                         std::numeric_limits<std::int64_t>::max()}) {
    w.integer(v);
    w.put(',');
    expect += std::to_string(v) + ",";
  }
  w.finish();
  EXPECT_EQ(out, expect);
}

// integer()'s own digits (below 10^8) against std::to_chars: every value below 10^6, every
// power-of-ten neighbourhood to 10^8, random values and their negatives.
TEST(EsJsonWriter, IntegersBelowAHundredMillionMatchToChars) {
  auto check = [](std::int64_t v) {
    char got[json::kIntegerRoom], want[json::kIntegerRoom];
    const char* g = json::integer(got, v);
    const char* e = std::to_chars(want, want + sizeof want, v).ptr;
    ASSERT_EQ(std::string_view(got, static_cast<std::size_t>(g - got)),
              std::string_view(want, static_cast<std::size_t>(e - want)));
  };
  for (std::int64_t v = 0; v < 1000000; ++v) check(v);
  for (std::int64_t p = 10; p <= 1000000000; p *= 10)
    for (std::int64_t d = -3; d <= 3; ++d) check(p + d);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const auto v = static_cast<std::int64_t>(rng() % 200000000);
    check(v);
    check(-v);
  }
}

// The double fast path (small integral values) must write what to_chars + ".0" writes.
TEST(EsJsonWriter, DoubleFastPathMatchesToChars) {
  auto slow = [](double d) {
    char buf[64];
    char* e = std::to_chars(buf, buf + sizeof buf, d).ptr;
    std::string s(buf, e);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  };
  auto fast = [](double d) {
    std::string o;
    text::append_json_double(o, d);
    return o;
  };
  for (int i = -110000; i <= 110000; ++i) ASSERT_EQ(fast(i), slow(i)) << i;
  for (double d : {-0.0, 0.0, 0.5, -0.5, 99999.5, 1e5, -1e5, 1e15, 1e16, 1e21, 1e22, 5e-324,
                   1.7976931348623157e308, 123456.0, 9007199254740993.0})
    EXPECT_EQ(fast(d), slow(d)) << d;
  EXPECT_EQ(fast(std::nan("")), "null");
  EXPECT_EQ(fast(-std::numeric_limits<double>::infinity()), "null");
}

std::string ts(JsonWriter& w, std::uint64_t ns, int slot = 0) {
  const std::size_t before = w.size();
  w.timestamp(ns, slot);
  return std::string(w.view().substr(before));
}

// What the writer must produce for `ns`, by printf: "<epoch_ms>.<six digits>", quoted.
std::string printf_timestamp(std::uint64_t ns) {
  char b[48];
  std::snprintf(b, sizeof b, "\"%llu.%06llu\"", static_cast<unsigned long long>(ns / 1000000),
                static_cast<unsigned long long>(ns % 1000000));
  return b;
}

// Consecutive timestamps: same value, same millisecond, next millisecond and
// second, a far jump and back: the caches must never serve a stale prefix.
TEST(EsJsonWriter, TimestampCacheAcrossChanges) {
  std::string out;
  JsonWriter w(out);
  EXPECT_EQ(ts(w, 1721314113467654123ull), "\"1721314113467.654123\"");
  EXPECT_EQ(ts(w, 1721314113467654123ull), "\"1721314113467.654123\"");
  EXPECT_EQ(ts(w, 1721314113467000005ull), "\"1721314113467.000005\"");
  EXPECT_EQ(ts(w, 1721314113467999999ull), "\"1721314113467.999999\"");
  EXPECT_EQ(ts(w, 1721314113468000000ull), "\"1721314113468.000000\"");
  EXPECT_EQ(ts(w, 1721314114468000000ull), "\"1721314114468.000000\"");
  EXPECT_EQ(ts(w, 999999ull), "\"0.999999\"");
  EXPECT_EQ(ts(w, 0), "\"0.000000\"");
  EXPECT_EQ(ts(w, 1000000ull), "\"1.000000\"");
  EXPECT_EQ(ts(w, 1721314113467654123ull), "\"1721314113467.654123\"");
  EXPECT_EQ(ts(w, ~std::uint64_t{0}), "\"18446744073709.551615\"");
  EXPECT_EQ(ts(w, ~std::uint64_t{0} - 1), "\"18446744073709.551614\"");
  // The millisecond cache of metrics timestamps.
  auto ms = [&](std::uint64_t ns) {
    char buf[json::kIntegerRoom];
    return std::string(buf, w.millis(buf, ns));
  };
  EXPECT_EQ(ms(3600000999999ull), "3600000");
  EXPECT_EQ(ms(3600000000000ull), "3600000");
  EXPECT_EQ(ms(3600001000000ull), "3600001");
  EXPECT_EQ(ms(0), "0");
  EXPECT_EQ(ms(~std::uint64_t{0}), "18446744073709");
}

// A fresh writer's caches hold no sentinel that a real value could hit: its
// first timestamp is written whatever it is (UINT64_MAX used to come out empty).
TEST(EsJsonWriter, FirstTimestampOfAFreshWriter) {
  for (std::uint64_t ns :
       {~std::uint64_t{0}, std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1721314113467654123}}) {
    std::string out;
    JsonWriter w(out);
    EXPECT_EQ(ts(w, ns), printf_timestamp(ns)) << ns;
    char buf[json::kIntegerRoom];
    JsonWriter w2(out);
    EXPECT_EQ(std::string(buf, w2.millis(buf, ns)), std::to_string(ns / 1000000)) << ns;
  }
  // Through the encoder: a span and a log record at UINT64_MAX, each first in its batch.
  LogsData logs;
  logs.resource_logs.emplace_back(logs.arena)
      .scope_logs.emplace_back(logs.arena)
      .log_records.emplace_back(logs.arena)
      .time_unix_nano = ~std::uint64_t{0};
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_logs(logs, b);
  expect_valid(b);
  EXPECT_EQ(doc(b, 0)["@timestamp"], "18446744073709.551615");
  TracesData traces;
  auto& span = traces.resource_spans.emplace_back(traces.arena)
                   .scope_spans.emplace_back(traces.arena)
                   .spans.emplace_back(traces.arena);
  span.start_time_unix_nano = ~std::uint64_t{0};
  EncodedBatch t;
  Encoder(EncoderConfig{}).encode_traces(traces, t);
  expect_valid(t);
  EXPECT_EQ(doc(t, 0)["@timestamp"], "18446744073709.551615");
}

// Log records whose timestamps change record to record, through the encoder.
TEST(EsJsonWriter, EncoderTimestampsChangeBetweenRecords) {
  LogsData d;
  auto& sl = d.resource_logs.emplace_back(d.arena).scope_logs.emplace_back(d.arena);
  const std::uint64_t times[] = {5, 5, 1000005, 999999999, 1000000000, 1000000000, 0};
  for (auto t : times) {
    auto& r = sl.log_records.emplace_back(d.arena);
    r.time_unix_nano = t;
    r.observed_time_unix_nano = 7000000007;
  }
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_logs(d, b);
  expect_valid(b);
  const char* want[] = {"0.000005",    "0.000005",    "1.000005",   "999.999999",
                        "1000.000000", "1000.000000", "7000.000007"};
  for (std::size_t i = 0; i < std::size(times); ++i) {
    EXPECT_EQ(doc(b, i)["@timestamp"], want[i]) << i;
    EXPECT_EQ(doc(b, i)["observed_timestamp"], "7000.000007") << i;
  }
}

// Records whose @timestamp and observed_timestamp both change, through the encoder.
TEST(EsJsonWriter, EncoderRecordTimestampsBothChange) {
  LogsData d;
  auto& sl = d.resource_logs.emplace_back(d.arena).scope_logs.emplace_back(d.arena);
  for (std::uint64_t i = 0; i < 50; ++i) {
    auto& r = sl.log_records.emplace_back(d.arena);
    r.time_unix_nano = 1721314113467654123ull + i * 100000;
    r.observed_time_unix_nano = r.time_unix_nano + (i % 7 == 0 ? 0 : 1300000 + i);
  }
  EncodedBatch b;
  Encoder(EncoderConfig{}).encode_logs(d, b);
  expect_valid(b);
  auto text = [](std::uint64_t ns) {  // the JSON string's value, without its quotes
    const std::string quoted = printf_timestamp(ns);
    return quoted.substr(1, quoted.size() - 2);
  };
  for (std::size_t i = 0; i < 50; ++i) {
    const auto& r = sl.log_records[i];
    EXPECT_EQ(doc(b, i)["@timestamp"], text(r.time_unix_nano)) << i;
    EXPECT_EQ(doc(b, i)["observed_timestamp"], text(r.observed_time_unix_nano)) << i;
  }
}

// Timestamps that move by seconds, minutes and days, back and forth, across the window of
// six epoch_ms digits the writer rewrites in place (and below it: no leading digits to
// keep), each compared with printf's.
TEST(EsJsonWriter, TimestampDigitsAcrossTheSixDigitWindow) {
  std::string out;
  JsonWriter w(out);
  std::vector<std::uint64_t> times;
  const std::uint64_t base = 1721314999000000000ull;  // epoch_ms ...999000: a high-part change ahead
  for (int i = 0; i < 2000; ++i) times.push_back(base + static_cast<std::uint64_t>(i) * 1000000000ull / 7);
  const std::uint64_t edges[] = {0,
                                 999999999999,
                                 1000000000000,
                                 999999000000,
                                 1000000000000000,
                                 1000000999999999,
                                 base,
                                 base - 1,
                                 base + 1000000000000ull,
                                 ~std::uint64_t{0},
                                 ~std::uint64_t{0} - 1000000,
                                 5};
  for (std::uint64_t t : edges) times.push_back(t);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t step = std::uint64_t{1} << (rng() % 50);
    times.push_back(rng() % 2 ? times.back() + rng() % step : times.back() - rng() % step);
  }
  for (std::uint64_t t : times) ASSERT_EQ(ts(w, t), printf_timestamp(t)) << t;
}

// The two timestamp slots interleaved, as a log record's @timestamp (slot 0) and
// observed_timestamp (slot 1) are: each keeps its own cache, and neither serves the
// other's digits, whether their milliseconds, their leading digits or nothing differ.
TEST(EsJsonWriter, TimestampSlotsKeepTheirOwnCaches) {
  std::string out;
  JsonWriter w(out);
  std::mt19937_64 rng(11);
  std::uint64_t t = 1721314999000000000ull;
  for (int i = 0; i < 5000; ++i) {
    // Records 100 µs apart, observed 1.3 ms later; now and then a jump, or both equal.
    t += i % 97 == 0 ? rng() % (std::uint64_t{1} << 45) : 100000;
    const std::uint64_t observed = i % 13 == 0 ? t : t + 1300000;
    ASSERT_EQ(ts(w, t, 0), printf_timestamp(t)) << i;
    ASSERT_EQ(ts(w, observed, 1), printf_timestamp(observed)) << i;
  }
  // One slot's value written through the other, and a fresh slot's zero.
  EXPECT_EQ(ts(w, t, 1), printf_timestamp(t));
  std::string fresh_out;
  JsonWriter fresh(fresh_out);
  EXPECT_EQ(ts(fresh, 0, 1), "\"0.000000\"");
}

// The multiply-only six-digit conversion of timestamps, for every value it can get.
TEST(EsJsonWriter, SixDigitsForEveryValue) {
  char buf[8], want[8];
  for (std::uint32_t x = 0; x < 1000000; ++x) {
    ASSERT_EQ(json::six_digits_for_test(buf, x), buf + 6);
    std::snprintf(want, sizeof want, "%06u", x);
    ASSERT_EQ(std::string_view(buf, 6), std::string_view(want, 6)) << x;
  }
}

// Ids in hex (SSE2 blocks of 8 bytes, a table for the rest) against a byte-at-a-time
// reference, at every length up to 40 and every byte value.
TEST(EsJsonWriter, HexAtEveryLengthAndByteValue) {
  auto reference = [](const std::uint8_t* b, std::size_t n) {
    std::string o;
    for (std::size_t i = 0; i < n; ++i) {
      o += "0123456789abcdef"[b[i] >> 4];
      o += "0123456789abcdef"[b[i] & 15];
    }
    return o;
  };
  std::vector<std::uint8_t> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<std::uint8_t>(i * 97 + 13);  // all 256, mixed
  for (std::size_t at = 0; at + 40 <= bytes.size(); at += 9)
    for (std::size_t n = 0; n <= 40; ++n) {
      std::string buf(2 * n + 16, '#');
      char* end = json::hex(buf.data(), bytes.data() + at, n);
      ASSERT_EQ(end - buf.data(), static_cast<std::ptrdiff_t>(2 * n));
      ASSERT_EQ(buf.substr(0, 2 * n), reference(bytes.data() + at, n)) << at << " " << n;
      ASSERT_EQ(buf.substr(2 * n), std::string(16, '#')) << "wrote past 2n: " << n;
    }
}

// The writer grows the string in chunks and trims it; appending to a batch that
// already holds data keeps that data and the item offsets.
TEST(EsJsonWriter, GrowsTrimsAndAppends) {
  std::string out = "prefix";
  {
    JsonWriter w(out);
    for (int i = 0; i < 100000; ++i) w.lit("0123456789");
    EXPECT_EQ(w.size(), 6u + 1000000u);
    w.truncate(10);
    w.put('!');
  }
  EXPECT_EQ(out, "prefix0123!");
  std::string small = "s";
  text::append_json_string(small, "x");
  EXPECT_EQ(small, "s\"x\"");
  EXPECT_EQ(small.size(), 4u);

  LogsData d;
  auto& sl = d.resource_logs.emplace_back(d.arena).scope_logs.emplace_back(d.arena);
  sl.log_records.emplace_back(d.arena).body = s(d.arena, "one");
  EncodedBatch b;
  Encoder enc(EncoderConfig{});
  enc.encode_logs(d, b);
  const std::string first = b.data;
  enc.encode_logs(d, b);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.data, first + first);
  EXPECT_EQ(b.items[1].offset, first.size());
  expect_valid(b);
}

}  // namespace
}  // namespace tern::encoding::es::test
