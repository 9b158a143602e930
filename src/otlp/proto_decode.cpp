// Hand-written zero-copy OTLP/protobuf decoder (hot path). Field numbers follow the public
// opentelemetry-proto definitions (common, resource, logs, trace, metrics v1). Every loop
// consumes at least one byte per iteration and every length is checked against the end of
// its enclosing message, so bad input can only produce a DecodeError.
//
// Error paths cost nothing on the happy path: a failing parser records offset and message,
// then each enclosing parser appends its field name while unwinding (reversed at the end).
#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "otlp/proto_codec.h"
#include "otlp/proto_wire.h"

namespace tern::otlp {
namespace {

static_assert(std::endian::native == std::endian::little, "the decoder loads fixed-width fields directly");

using namespace tern::otlp::wire;
using pdata::Arena;

// Hot primitives are forced inline (a call per tag or varint was a third of the time);
// everything that builds an error message lives in cold, out-of-line functions so the
// inlined fast paths stay small.
#define TERN_INLINE inline __attribute__((always_inline))
#define TERN_COLD __attribute__((cold, noinline))

struct Ctx {
  const char* base;
  const DecodeOptions& opt;
  const Arena& arena;
  DecodeError err;
  std::vector<const char*> path;  // innermost first; filled only on error
  // Attributes of the previous log record, span and data point: the items of a batch
  // mostly carry the same set, so this sizes the next item's vector without counting its
  // fields first (a second pass over every item's bytes). 0: count.
  std::size_t log_attrs_hint = 0;
  std::size_t span_attrs_hint = 0;
  std::size_t point_attrs_hint = 0;

  TERN_COLD bool fail(const char* at, std::string msg) {
    err.offset = static_cast<std::size_t>(at - base);
    err.message = std::move(msg);
    return false;
  }
  TERN_COLD bool in(const char* field) {
    path.push_back(field);
    return false;
  }
};

// A cursor over one message's bytes.
struct Cur {
  const char* p = nullptr;
  const char* end = nullptr;
  bool more() const { return p < end; }
  std::size_t left() const { return static_cast<std::size_t>(end - p); }
};

#define TRY(expr)             \
  do {                        \
    if (!(expr)) [[unlikely]] \
      return false;           \
  } while (0)
#define TRY_IN(name, expr)    \
  do {                        \
    if (!(expr)) [[unlikely]] \
      return c.in(name);      \
  } while (0)

// Varints of three bytes and more (and every error): byte by byte, bounds-checked.
TERN_COLD bool read_varint_slow(Ctx& c, Cur& r, std::uint64_t& v) {
  const char* start = r.p;
  std::uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (r.p >= r.end) return c.fail(start, "truncated varint");
    const auto b = static_cast<unsigned char>(*r.p++);
    result |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      v = result;
      return true;
    }
  }
  return c.fail(start, "varint longer than 10 bytes");
}

// One- and two-byte varints (tags, lengths, small integers: nearly all of them) inline.
TERN_INLINE bool read_varint(Ctx& c, Cur& r, std::uint64_t& v) {
  if (r.end - r.p >= 2) [[likely]] {
    const auto b0 = static_cast<unsigned char>(r.p[0]);
    if (b0 < 0x80) {
      v = b0;
      r.p += 1;
      return true;
    }
    const auto b1 = static_cast<unsigned char>(r.p[1]);
    if (b1 < 0x80) {
      v = (b0 & 0x7fu) | (std::uint64_t{b1} << 7);
      r.p += 2;
      return true;
    }
  } else if (r.p < r.end && static_cast<unsigned char>(*r.p) < 0x80) {
    v = static_cast<unsigned char>(*r.p++);
    return true;
  }
  return read_varint_slow(c, r, v);
}

TERN_COLD bool bad_tag(Ctx& c, const char* start, std::uint64_t tag) {
  if (tag > 0xffffffffu) return c.fail(start, "tag does not fit in 32 bits");
  if ((tag >> 3) == 0) return c.fail(start, "invalid field number 0");
  return c.fail(start, "invalid wire type " + std::to_string(tag & 7));
}

// One-byte tags that are valid: field 1..15, wire type 0..5.
constexpr std::array<bool, 128> kValidOneByteTag = [] {
  std::array<bool, 128> t{};
  for (unsigned b = 8; b < 128; ++b) t[b] = (b & 7) <= 5;
  return t;
}();

TERN_INLINE bool read_tag(Ctx& c, Cur& r, std::uint32_t& field, std::uint32_t& wt) {
  const char* start = r.p;
  // Fast path: a one-byte tag (fields 1..15, all of OTLP's but a few), checked for field 0
  // and wire types 6 and 7 by one table lookup (the three compares of the general check
  // were 8 instructions a tag, 12 tags a log record).
  const auto b0 = static_cast<unsigned char>(*r.p);  // the caller checked r.more()
  if (b0 < 0x80) [[likely]] {
    ++r.p;
    if (!kValidOneByteTag[b0]) [[unlikely]]
      return bad_tag(c, start, b0);
    field = b0 >> 3;
    wt = b0 & 7u;
    return true;
  }
  std::uint64_t tag = 0;
  TRY(read_varint(c, r, tag));
  if (tag < 8 || (tag & 7) > 5 || tag > 0xffffffffu) [[unlikely]]
    return bad_tag(c, start, tag);
  field = static_cast<std::uint32_t>(tag >> 3);
  wt = static_cast<std::uint32_t>(tag & 7);
  return true;
}

TERN_COLD bool len_past_end(Ctx& c, const char* start, std::uint64_t len, std::size_t left) {
  return c.fail(start, "length " + std::to_string(len) + " past end of message (" + std::to_string(left) +
                           " bytes left)");
}

TERN_INLINE bool read_len(Ctx& c, Cur& r, Cur& sub) {
  const char* start = r.p;
  std::uint64_t len = 0;
  TRY(read_varint(c, r, len));
  if (len > r.left()) [[unlikely]]
    return len_past_end(c, start, len, r.left());
  sub = {r.p, r.p + len};
  r.p += len;
  return true;
}

TERN_COLD bool truncated_fixed(Ctx& c, Cur& r, const char* what) {
  return c.fail(r.p, std::string("truncated ") + what + " (" + std::to_string(r.left()) + " bytes left)");
}

TERN_INLINE bool read_fixed64(Ctx& c, Cur& r, std::uint64_t& v) {
  if (r.left() < 8) [[unlikely]]
    return truncated_fixed(c, r, "fixed64");
  v = load64(r.p);
  r.p += 8;
  return true;
}

TERN_INLINE bool read_fixed32(Ctx& c, Cur& r, std::uint32_t& v) {
  if (r.left() < 4) [[unlikely]]
    return truncated_fixed(c, r, "fixed32");
  v = load32(r.p);
  r.p += 4;
  return true;
}

const char* wire_name(std::uint32_t wt) {
  static constexpr const char* names[] = {"varint", "fixed64", "length-delimited", "start-group", "end-group",
                                          "fixed32"};
  return wt < 6 ? names[wt] : "invalid";
}

// `tag_at` is where the field's tag began (the error points there).
TERN_COLD bool wrong_type(Ctx& c, const char* tag_at, const char* field, std::uint32_t want,
                          std::uint32_t got) {
  c.fail(tag_at, std::string("wrong wire type: expected ") + wire_name(want) + ", got " + wire_name(got));
  return c.in(field);
}

// Skips one unknown field's value. Groups (deprecated, but legal on the wire) are skipped
// through their matching end-group tag, with nesting bounded by max_depth.
bool skip(Ctx& c, Cur& r, std::uint32_t field, std::uint32_t wt, int depth) {
  switch (wt) {
    case kVarint: {
      std::uint64_t v = 0;
      return read_varint(c, r, v);
    }
    case kFixed64: {
      std::uint64_t v = 0;
      return read_fixed64(c, r, v);
    }
    case kFixed32: {
      std::uint32_t v = 0;
      return read_fixed32(c, r, v);
    }
    case kLen: {
      Cur sub;
      return read_len(c, r, sub);
    }
    case kStartGroup: {
      const char* start = r.p;
      if (depth >= c.opt.max_depth) return c.fail(start, "group nesting exceeds max_depth " + std::to_string(c.opt.max_depth));
      while (true) {
        if (!r.more()) return c.fail(start, "unterminated group (field " + std::to_string(field) + ")");
        const char* tag_at = r.p;
        std::uint32_t f = 0, w = 0;
        TRY(read_tag(c, r, f, w));
        if (w == kEndGroup) {
          if (f != field) return c.fail(tag_at, "end-group tag for field " + std::to_string(f) + " inside group " + std::to_string(field));
          return true;
        }
        TRY(skip(c, r, f, w, depth + 1));
      }
    }
    default:
      return c.fail(r.p, "unexpected end-group tag (field " + std::to_string(field) + ")");
  }
}

// A varint without error reporting (the counting pre-pass): false when truncated or too long.
TERN_INLINE bool quick_varint(Cur& r, std::uint64_t& v) {
  if (r.p < r.end && static_cast<unsigned char>(*r.p) < 0x80) [[likely]] {
    v = static_cast<unsigned char>(*r.p++);
    return true;
  }
  std::uint64_t result = 0;
  for (int shift = 0; shift < 70 && r.p < r.end; shift += 7) {
    const auto b = static_cast<unsigned char>(*r.p++);
    result |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      v = result;
      return true;
    }
  }
  return false;
}

// Counts length-delimited occurrences of `field` in a message, so a repeated field can be
// reserved at once (no regrowth: the arena never gets the abandoned buffers back). Stops
// quietly at malformed input: the real parse reports it.
TERN_INLINE std::size_t count_field(Cur r, std::uint32_t field) {
  std::size_t count = 0;
  while (r.more()) {
    std::uint64_t tag, v;
    if (!quick_varint(r, tag)) break;
    switch (tag & 7) {
      case kVarint:
        if (!quick_varint(r, v)) return count;
        break;
      case kFixed64:
        if (r.left() < 8) return count;
        r.p += 8;
        break;
      case kFixed32:
        if (r.left() < 4) return count;
        r.p += 4;
        break;
      case kLen:
        if (!quick_varint(r, v) || v > r.left()) return count;
        r.p += v;
        count += (tag >> 3) == field;
        break;
      default:
        return count;  // groups: rare; the count is only a reservation hint
    }
  }
  return count;
}

// Reserves the attributes of a log record, span or data point (`field`: its attributes'
// field number): as many as the item before had (`hint`, the items of a batch mostly carry
// the same set; the caller sets it from this item when done), or, after an item without
// any, as many as this one's fields count.
TERN_INLINE void reserve_attributes(pdata::Attributes& attrs, std::size_t hint, Cur r, std::uint32_t field) {
  attrs.reserve(hint ? hint : count_field(r, field));
}

// After an element of repeated field `field` (length-delimited): whether the next element
// follows at once, its tag then taken. Repeated fields are written one element after the
// other, so decode_attr and REPEATED read such runs without going back through the
// message's field loop (its end test, tag read, switch and wire-type test).
TERN_INLINE bool take_same_field(Cur& r, std::uint32_t field) {
  if (field > 15 || !r.more() || static_cast<unsigned char>(*r.p) != (field << 3 | kLen)) return false;
  ++r.p;  // fields 1..15: a one-byte tag
  return true;
}

// A repeated field most items do not have (span events and links, exemplars, quantiles) is counted
// when it first appears, from its first tag to the message's end: items without it pay no
// counting pass. Expects the field loop's `c`, `r`, `f` and `tag_at`.
#define RESERVE_AT_FIRST(vec)                                             \
  do {                                                                    \
    if ((vec).empty()) (vec).reserve(count_field(Cur{tag_at, r.end}, f)); \
  } while (0)

// UTF-8 validation (RFC 3629: no overlongs, no surrogates, max U+10FFFF), ASCII fast path.
const char* find_invalid_utf8(const char* p, const char* end) {
  while (p < end) {
    if (end - p >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    const auto b = static_cast<unsigned char>(*p);
    if (b < 0x80) {
      ++p;
      continue;
    }
    int n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      n = 1;
    } else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b == 0xe0) lo = 0xa0;
      if (b == 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b == 0xf0) lo = 0x90;
      if (b == 0xf4) hi = 0x8f;
    } else {
      return p;
    }
    if (end - p <= n) return p;
    const auto b1 = static_cast<unsigned char>(p[1]);
    if (b1 < lo || b1 > hi) return p;
    for (int i = 2; i <= n; ++i)
      if ((static_cast<unsigned char>(p[i]) & 0xc0) != 0x80) return p;
    p += n + 1;
  }
  return nullptr;
}

// Reads a string field (UTF-8 checked if asked).
TERN_INLINE bool read_str(Ctx& c, Cur& r, std::string_view& out) {
  Cur sub;
  TRY(read_len(c, r, sub));
  if (c.opt.validate_utf8) {
    if (const char* bad = find_invalid_utf8(sub.p, sub.end)) return c.fail(bad, "invalid UTF-8 in string");
  }
  out = {sub.p, sub.left()};
  return true;
}

TERN_INLINE bool read_bytes(Ctx& c, Cur& r, std::string_view& out) {
  Cur sub;
  TRY(read_len(c, r, sub));
  out = {sub.p, sub.left()};
  return true;
}

TERN_COLD bool bad_id_length(Ctx& c, const char* at, const char* what, std::size_t want, std::size_t got) {
  return c.fail(at, std::string(what) + " must be " + std::to_string(want) + " bytes or empty, got " +
                        std::to_string(got));
}

template <std::size_t N>
TERN_INLINE bool read_id(Ctx& c, Cur& r, std::array<std::uint8_t, N>& id, const char* what) {
  const char* at = r.p;
  Cur sub;
  TRY(read_len(c, r, sub));
  if (sub.left() == 0) {
    id = {};
    return true;
  }
  if (sub.left() != N) [[unlikely]]
    return bad_id_length(c, at, what, N, sub.left());
  std::memcpy(id.data(), sub.p, N);
  return true;
}

// Field-reading shorthands: check the wire type, then read. They expect `c`, `r`, `f`,
// `wt` and `tag_at` in scope (the message loop below).
#define FIELD_LOOP               \
  while (r.more()) {             \
    const char* tag_at = r.p;    \
    std::uint32_t f = 0, wt = 0; \
    TRY(read_tag(c, r, f, wt));  \
    (void)tag_at;                \
    switch (f)
#define FIELD_LOOP_END }
#define EXPECT(name, want) \
  if (wt != (want)) return wrong_type(c, tag_at, name, want, wt)
#define SKIP_DEFAULT \
  default:           \
    TRY(skip(c, r, f, wt, 0))

#define STR(name, dst)                      \
  {                                         \
    EXPECT(name, kLen);                     \
    TRY_IN(name, read_str(c, r, dst));      \
    break;                                  \
  }
#define BYTES(name, dst)                    \
  {                                         \
    EXPECT(name, kLen);                     \
    TRY_IN(name, read_bytes(c, r, dst));    \
    break;                                  \
  }
#define VARINT(name, dst, T)             \
  {                                      \
    EXPECT(name, kVarint);               \
    std::uint64_t v_ = 0;                \
    TRY_IN(name, read_varint(c, r, v_)); \
    dst = static_cast<T>(v_);            \
    break;                               \
  }
#define FIXED64(name, dst)                  \
  {                                         \
    EXPECT(name, kFixed64);                 \
    TRY_IN(name, read_fixed64(c, r, dst));  \
    break;                                  \
  }
#define FIXED32(name, dst)                  \
  {                                         \
    EXPECT(name, kFixed32);                 \
    TRY_IN(name, read_fixed32(c, r, dst));  \
    break;                                  \
  }
#define DOUBLE(name, dst)                 \
  {                                       \
    EXPECT(name, kFixed64);               \
    std::uint64_t v_ = 0;                 \
    TRY_IN(name, read_fixed64(c, r, v_)); \
    dst = std::bit_cast<double>(v_);      \
    break;                                \
  }
#define SFIXED64(name, dst)               \
  {                                       \
    EXPECT(name, kFixed64);               \
    std::uint64_t v_ = 0;                 \
    TRY_IN(name, read_fixed64(c, r, v_)); \
    dst = static_cast<std::int64_t>(v_);  \
    break;                                \
  }
// int32/enum: a varint whose low 32 bits are the two's-complement value.
#define INT32(name, dst, T)                                                          \
  {                                                                                  \
    EXPECT(name, kVarint);                                                           \
    std::uint64_t v_ = 0;                                                            \
    TRY_IN(name, read_varint(c, r, v_));                                             \
    dst = static_cast<T>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v_))); \
    break;                                                                           \
  }
#define SINT32(name, dst)                             \
  {                                                   \
    EXPECT(name, kVarint);                            \
    std::uint64_t v_ = 0;                             \
    TRY_IN(name, read_varint(c, r, v_));              \
    dst = unzigzag32(static_cast<std::uint32_t>(v_)); \
    break;                                            \
  }
#define MSG(name, call)                     \
  {                                         \
    EXPECT(name, kLen);                     \
    Cur sub;                                \
    TRY_IN(name, read_len(c, r, sub));      \
    TRY_IN(name, call);                     \
    break;                                  \
  }

bool decode_kv(Ctx& c, Cur r, pdata::KeyValue& kv, int depth);

bool decode_any(Ctx& c, Cur r, pdata::AnyValue& v, int depth) {
  using pdata::ValueKind;
  FIELD_LOOP {
    case 1:
      v = {};
      v.kind = ValueKind::String;
      STR("string_value", v.string_value)
    case 2: {
      EXPECT("bool_value", kVarint);
      std::uint64_t b = 0;
      TRY_IN("bool_value", read_varint(c, r, b));
      v = pdata::AnyValue::boolean(b != 0);
      break;
    }
    case 3: {
      EXPECT("int_value", kVarint);
      std::uint64_t i = 0;
      TRY_IN("int_value", read_varint(c, r, i));
      v = pdata::AnyValue::integer(static_cast<std::int64_t>(i));
      break;
    }
    case 4: {
      EXPECT("double_value", kFixed64);
      std::uint64_t d = 0;
      TRY_IN("double_value", read_fixed64(c, r, d));
      v = pdata::AnyValue::dbl(std::bit_cast<double>(d));
      break;
    }
    case 5:
    case 6: {
      const bool is_array = f == 5;
      const char* name = is_array ? "array_value" : "kvlist_value";
      EXPECT(name, kLen);
      if (depth + 1 > c.opt.max_depth) {
        c.fail(tag_at, "AnyValue nesting exceeds max_depth " + std::to_string(c.opt.max_depth));
        return c.in(name);
      }
      Cur sub;
      TRY_IN(name, read_len(c, r, sub));
      // Repeated occurrences of the same oneof member merge (protobuf semantics).
      if (is_array) {
        if (v.kind != ValueKind::Array) v = pdata::AnyValue::make_array(c.arena.make<pdata::Vec<pdata::AnyValue>>(c.arena.vec<pdata::AnyValue>()));
        auto& vals = *v.array;
        vals.reserve(vals.size() + count_field(sub, 1));
        Cur ar = sub;
        Cur& rr = ar;
        while (rr.more()) {
          const char* at = rr.p;
          std::uint32_t ff = 0, ww = 0;
          TRY_IN(name, read_tag(c, rr, ff, ww));
          if (ff != 1) {
            TRY_IN(name, skip(c, rr, ff, ww, 0));
            continue;
          }
          if (ww != kLen) {
            wrong_type(c, at, "values", kLen, ww);
            return c.in(name);
          }
          Cur el;
          if (!read_len(c, rr, el)) return c.in("values"), c.in(name);
          auto& item = vals.emplace_back();
          if (!decode_any(c, el, item, depth + 1)) return c.in("values"), c.in(name);
        }
      } else {
        if (v.kind != ValueKind::KvList) v = pdata::AnyValue::make_kvlist(c.arena.make<pdata::Vec<pdata::KeyValue>>(c.arena.vec<pdata::KeyValue>()));
        auto& vals = *v.kvlist;
        vals.reserve(vals.size() + count_field(sub, 1));
        Cur rr = sub;
        while (rr.more()) {
          const char* at = rr.p;
          std::uint32_t ff = 0, ww = 0;
          TRY_IN(name, read_tag(c, rr, ff, ww));
          if (ff != 1) {
            TRY_IN(name, skip(c, rr, ff, ww, 0));
            continue;
          }
          if (ww != kLen) {
            wrong_type(c, at, "values", kLen, ww);
            return c.in(name);
          }
          Cur el;
          if (!read_len(c, rr, el)) return c.in("values"), c.in(name);
          auto& item = vals.emplace_back();
          if (!decode_kv(c, el, item, depth + 1)) return c.in("values"), c.in(name);
        }
      }
      break;
    }
    case 7:
      v = {};
      v.kind = ValueKind::Bytes;
      BYTES("bytes_value", v.string_value)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// The usual attribute value or log body, one scalar field filling the whole AnyValue
// (string with a one- or two-byte length, bool, small int, double), decoded without the
// generic loop. Gives the same result as decode_any would; false (nothing touched) for
// anything else.
TERN_INLINE bool decode_scalar_any(const Ctx& c, Cur sub, pdata::AnyValue& v) {
  const std::size_t n = sub.left();
  if (n < 2) return false;
  const auto* u = reinterpret_cast<const unsigned char*>(sub.p);
  switch (u[0]) {
    case (1 << 3) | kLen:  // string_value
      if (c.opt.validate_utf8) return false;
      if (u[1] < 0x80) {
        if (u[1] != n - 2) return false;
        v = pdata::AnyValue::string({sub.p + 2, n - 2});
        return true;
      }
      // Up to 16 KiB (log bodies): a two-byte length.
      if (n < 3 || u[2] >= 0x80 || ((u[1] & 0x7fu) | std::size_t{u[2]} << 7) != n - 3) return false;
      v = pdata::AnyValue::string({sub.p + 3, n - 3});
      return true;
    case (2 << 3) | kVarint:  // bool_value
      if (n != 2 || u[1] >= 0x80) return false;
      v = pdata::AnyValue::boolean(u[1] != 0);
      return true;
    case (3 << 3) | kVarint:  // int_value
      if (n == 2 && u[1] < 0x80) {
        v = pdata::AnyValue::integer(u[1]);
        return true;
      }
      if (n == 3 && u[1] >= 0x80 && u[2] < 0x80) {
        v = pdata::AnyValue::integer((u[1] & 0x7f) | (static_cast<std::int64_t>(u[2]) << 7));
        return true;
      }
      return false;
    case (4 << 3) | kFixed64:  // double_value
      if (n != 9) return false;
      v = pdata::AnyValue::dbl(std::bit_cast<double>(load64(sub.p + 1)));
      return true;
    default:
      return false;
  }
}

bool decode_kv(Ctx& c, Cur r, pdata::KeyValue& kv, int depth) {
  FIELD_LOOP {
    case 1: STR("key", kv.key)
    case 2: {
      EXPECT("value", kLen);
      Cur sub;
      TRY_IN("value", read_len(c, r, sub));
      if (decode_scalar_any(c, sub, kv.value)) break;
      TRY_IN("value", decode_any(c, sub, kv.value, depth));
      break;
    }
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// One element of a repeated KeyValue field.
// The usual attribute on the wire, key = 1 then value = 2, both with one-byte lengths and
// a scalar value, read with no loop at all and appended to `attrs` whole (constructed once:
// a default element assigned field by field cost 9 instructions an attribute more). False,
// nothing appended, for anything else.
TERN_INLINE bool decode_kv_fast(const Ctx& c, Cur sub, pdata::Attributes& attrs) {
  const std::size_t n = sub.left();
  const auto* u = reinterpret_cast<const unsigned char*>(sub.p);
  if (n < 4 || u[0] != ((1 << 3) | kLen) || u[1] >= 0x80 || c.opt.validate_utf8) return false;
  const std::size_t key_len = u[1];
  if (key_len + 4 > n) return false;
  const unsigned char* value = u + 2 + key_len;
  if (value[0] != ((2 << 3) | kLen) || value[1] >= 0x80 || value[1] != n - key_len - 4) return false;
  pdata::AnyValue v;
  if (!decode_scalar_any(c, Cur{sub.p + key_len + 4, sub.end}, v)) return false;
  attrs.push_back({{sub.p + 2, key_len}, v});
  return true;
}

// Inlined into each message's field loop: a call per attribute (its prologue, epilogue and
// the loop's registers spilled around it) was an eighth of a log record's decoding
// (Decode/logs/proto/xlarge: 1,433 -> 1,257 instructions per record, 13.1M -> 16.0M records/s;
// the object grew by 14 KB).
// A run of attributes is read on without the message's field loop (take_same_field: 1,078
// -> 1,006 instructions per log record).
TERN_INLINE bool decode_attr(Ctx& c, Cur& r, const char* tag_at, std::uint32_t field, std::uint32_t wt,
                             const char* name, pdata::Attributes& attrs) {
  EXPECT(name, kLen);
  do {
    Cur sub;
    TRY_IN(name, read_len(c, r, sub));
    if (!decode_kv_fast(c, sub, attrs)) TRY_IN(name, decode_kv(c, sub, attrs.emplace_back(), 0));
  } while (take_same_field(r, field));
  return true;
}
#define ATTR(name, attrs)                               \
  {                                                     \
    TRY(decode_attr(c, r, tag_at, f, wt, name, attrs)); \
    break;                                              \
  }

bool decode_resource(Ctx& c, Cur r, pdata::Resource& res) {
  res.attributes.reserve(count_field(r, 1));
  FIELD_LOOP {
    case 1: ATTR("attributes", res.attributes)
    case 2: VARINT("dropped_attributes_count", res.dropped_attributes_count, std::uint32_t)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_scope(Ctx& c, Cur r, pdata::InstrumentationScope& s) {
  s.attributes.reserve(count_field(r, 3));
  FIELD_LOOP {
    case 1: STR("name", s.name)
    case 2: STR("version", s.version)
    case 3: ATTR("attributes", s.attributes)
    case 4: VARINT("dropped_attributes_count", s.dropped_attributes_count, std::uint32_t)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// A repeated message field: emplace one element and decode it, and the rest of its run
// (take_same_field).
#define REPEATED(name, vec, decode_fn)                            \
  {                                                               \
    EXPECT(name, kLen);                                           \
    do {                                                          \
      Cur sub;                                                    \
      TRY_IN(name, read_len(c, r, sub));                          \
      TRY_IN(name, decode_fn(c, sub, vec.emplace_back(c.arena))); \
    } while (take_same_field(r, f));                              \
    break;                                                        \
  }

// ---- logs ----

bool decode_log_record(Ctx& c, Cur r, pdata::LogRecord& lr) {
  reserve_attributes(lr.attributes, c.log_attrs_hint, r, 6);
  FIELD_LOOP {
    case 1: FIXED64("time_unix_nano", lr.time_unix_nano)
    case 2: INT32("severity_number", lr.severity_number, std::int32_t)
    case 3: STR("severity_text", lr.severity_text)
    // A scalar body (a string in nearly every log) is read as an attribute value is, without
    // the generic loop, whose call was 89 of a record's 1,257 instructions.
    case 5:
      MSG("body", decode_scalar_any(c, sub, lr.body) || decode_any(c, sub, lr.body, 0))
    case 6: ATTR("attributes", lr.attributes)
    case 7: VARINT("dropped_attributes_count", lr.dropped_attributes_count, std::uint32_t)
    case 8: FIXED32("flags", lr.flags)
    case 9: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, lr.trace_id, "trace_id"));
      break;
    }
    case 10: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, lr.span_id, "span_id"));
      break;
    }
    case 11: FIXED64("observed_time_unix_nano", lr.observed_time_unix_nano)
    case 12: STR("event_name", lr.event_name)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.log_attrs_hint = lr.attributes.size();
  return true;
}

bool decode_scope_logs(Ctx& c, Cur r, pdata::ScopeLogs& sl) {
  sl.log_records.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("scope", decode_scope(c, sub, sl.scope))
    case 2: REPEATED("log_records", sl.log_records, decode_log_record)
    case 3: STR("schema_url", sl.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_resource_logs(Ctx& c, Cur r, pdata::ResourceLogs& rl) {
  rl.scope_logs.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("resource", decode_resource(c, sub, rl.resource))
    case 2: REPEATED("scope_logs", rl.scope_logs, decode_scope_logs)
    case 3: STR("schema_url", rl.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_logs(Ctx& c, Cur r, pdata::LogsData& d) {
  d.resource_logs.reserve(d.resource_logs.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1: REPEATED("resource_logs", d.resource_logs, decode_resource_logs)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// ---- traces ----

bool decode_event(Ctx& c, Cur r, pdata::SpanEvent& e) {
  e.attributes.reserve(count_field(r, 3));
  FIELD_LOOP {
    case 1: FIXED64("time_unix_nano", e.time_unix_nano)
    case 2: STR("name", e.name)
    case 3: ATTR("attributes", e.attributes)
    case 4: VARINT("dropped_attributes_count", e.dropped_attributes_count, std::uint32_t)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_link(Ctx& c, Cur r, pdata::SpanLink& l) {
  l.attributes.reserve(count_field(r, 4));
  FIELD_LOOP {
    case 1: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, l.trace_id, "trace_id"));
      break;
    }
    case 2: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, l.span_id, "span_id"));
      break;
    }
    case 3: STR("trace_state", l.trace_state)
    case 4: ATTR("attributes", l.attributes)
    case 5: VARINT("dropped_attributes_count", l.dropped_attributes_count, std::uint32_t)
    case 6: FIXED32("flags", l.flags)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_status(Ctx& c, Cur r, pdata::Status& s) {
  FIELD_LOOP {
    case 2: STR("message", s.message)
    case 3: INT32("code", s.code, pdata::StatusCode)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_span(Ctx& c, Cur r, pdata::Span& s) {
  reserve_attributes(s.attributes, c.span_attrs_hint, r, 9);
  FIELD_LOOP {
    case 1: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, s.trace_id, "trace_id"));
      break;
    }
    case 2: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, s.span_id, "span_id"));
      break;
    }
    case 3: STR("trace_state", s.trace_state)
    case 4: {
      EXPECT("parent_span_id", kLen);
      TRY_IN("parent_span_id", read_id(c, r, s.parent_span_id, "parent_span_id"));
      break;
    }
    case 5: STR("name", s.name)
    case 6: INT32("kind", s.kind, pdata::SpanKind)
    case 7: FIXED64("start_time_unix_nano", s.start_time_unix_nano)
    case 8: FIXED64("end_time_unix_nano", s.end_time_unix_nano)
    case 9: ATTR("attributes", s.attributes)
    case 10: VARINT("dropped_attributes_count", s.dropped_attributes_count, std::uint32_t)
    case 11:
      RESERVE_AT_FIRST(s.events);
      REPEATED("events", s.events, decode_event)
    case 12: VARINT("dropped_events_count", s.dropped_events_count, std::uint32_t)
    case 13:
      RESERVE_AT_FIRST(s.links);
      REPEATED("links", s.links, decode_link)
    case 14: VARINT("dropped_links_count", s.dropped_links_count, std::uint32_t)
    case 15: MSG("status", decode_status(c, sub, s.status))
    case 16: FIXED32("flags", s.flags)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.span_attrs_hint = s.attributes.size();
  return true;
}

bool decode_scope_spans(Ctx& c, Cur r, pdata::ScopeSpans& ss) {
  ss.spans.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("scope", decode_scope(c, sub, ss.scope))
    case 2: REPEATED("spans", ss.spans, decode_span)
    case 3: STR("schema_url", ss.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_resource_spans(Ctx& c, Cur r, pdata::ResourceSpans& rs) {
  rs.scope_spans.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("resource", decode_resource(c, sub, rs.resource))
    case 2: REPEATED("scope_spans", rs.scope_spans, decode_scope_spans)
    case 3: STR("schema_url", rs.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_traces(Ctx& c, Cur r, pdata::TracesData& d) {
  d.resource_spans.reserve(d.resource_spans.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1: REPEATED("resource_spans", d.resource_spans, decode_resource_spans)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// ---- metrics ----

// Packed (one length-delimited run) or unpacked (one element per tag) repeated scalars.
bool read_repeated_fixed64(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                           pdata::Vec<std::uint64_t>& out) {
  if (wt == kFixed64) {
    std::uint64_t v = 0;
    TRY_IN(name, read_fixed64(c, r, v));
    out.push_back(v);
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  if (sub.left() % 8 != 0) {
    c.fail(sub.p, "packed fixed64 length " + std::to_string(sub.left()) + " is not a multiple of 8");
    return c.in(name);
  }
  const std::size_t n = sub.left() / 8;
  if (n == 0) return true;  // memcpy into an empty vector's null data() is UB, even of 0 bytes
  const std::size_t old = out.size();
  out.resize(old + n);
  std::memcpy(out.data() + old, sub.p, n * 8);
  return true;
}

bool read_repeated_double(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                          pdata::Vec<double>& out) {
  if (wt == kFixed64) {
    std::uint64_t v = 0;
    TRY_IN(name, read_fixed64(c, r, v));
    out.push_back(std::bit_cast<double>(v));
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  if (sub.left() % 8 != 0) {
    c.fail(sub.p, "packed double length " + std::to_string(sub.left()) + " is not a multiple of 8");
    return c.in(name);
  }
  const std::size_t n = sub.left() / 8;
  if (n == 0) return true;  // memcpy into an empty vector's null data() is UB, even of 0 bytes
  const std::size_t old = out.size();
  out.resize(old + n);
  std::memcpy(out.data() + old, sub.p, n * 8);
  return true;
}

bool read_repeated_varint(Ctx& c, Cur& r, std::uint32_t wt, const char* tag_at, const char* name,
                          pdata::Vec<std::uint64_t>& out) {
  if (wt == kVarint) {
    std::uint64_t v = 0;
    TRY_IN(name, read_varint(c, r, v));
    out.push_back(v);
    return true;
  }
  EXPECT(name, kLen);
  Cur sub;
  TRY_IN(name, read_len(c, r, sub));
  std::size_t n = 0;  // every varint ends in exactly one byte < 0x80
  for (const char* q = sub.p; q < sub.end; ++q) n += static_cast<unsigned char>(*q) < 0x80;
  out.reserve(out.size() + n);
  while (sub.more()) {
    std::uint64_t v = 0;
    TRY_IN(name, read_varint(c, sub, v));
    out.push_back(v);
  }
  return true;
}

bool decode_exemplar(Ctx& c, Cur r, pdata::Exemplar& e) {
  e.filtered_attributes.reserve(count_field(r, 7));
  FIELD_LOOP {
    case 2: FIXED64("time_unix_nano", e.time_unix_nano)
    case 3:
      e.value_type = pdata::NumberType::Double;
      DOUBLE("as_double", e.as_double)
    case 4: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, e.span_id, "span_id"));
      break;
    }
    case 5: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, e.trace_id, "trace_id"));
      break;
    }
    case 6:
      e.value_type = pdata::NumberType::Int;
      SFIXED64("as_int", e.as_int)
    case 7: ATTR("filtered_attributes", e.filtered_attributes)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_number_point(Ctx& c, Cur r, pdata::NumberDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 7);
  FIELD_LOOP {
    case 2: FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3: FIXED64("time_unix_nano", p.time_unix_nano)
    case 4:
      p.value_type = pdata::NumberType::Double;
      p.as_int = 0;
      DOUBLE("as_double", p.as_double)
    case 5:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 6:
      p.value_type = pdata::NumberType::Int;
      p.as_double = 0;
      SFIXED64("as_int", p.as_int)
    case 7: ATTR("attributes", p.attributes)
    case 8: VARINT("flags", p.flags, std::uint32_t)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_histogram_point(Ctx& c, Cur r, pdata::HistogramDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 9);
  FIELD_LOOP {
    case 2: FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3: FIXED64("time_unix_nano", p.time_unix_nano)
    case 4: FIXED64("count", p.count)
    case 5:
      p.has_sum = true;
      DOUBLE("sum", p.sum)
    case 6: TRY(read_repeated_fixed64(c, r, wt, tag_at, "bucket_counts", p.bucket_counts)); break;
    case 7: TRY(read_repeated_double(c, r, wt, tag_at, "explicit_bounds", p.explicit_bounds)); break;
    case 8:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 9: ATTR("attributes", p.attributes)
    case 10: VARINT("flags", p.flags, std::uint32_t)
    case 11:
      p.has_min = true;
      DOUBLE("min", p.min)
    case 12:
      p.has_max = true;
      DOUBLE("max", p.max)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_buckets(Ctx& c, Cur r, pdata::ExponentialBuckets& b) {
  FIELD_LOOP {
    case 1: SINT32("offset", b.offset)
    case 2: TRY(read_repeated_varint(c, r, wt, tag_at, "bucket_counts", b.bucket_counts)); break;
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_exp_point(Ctx& c, Cur r, pdata::ExponentialHistogramDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 1);
  FIELD_LOOP {
    case 1: ATTR("attributes", p.attributes)
    case 2: FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3: FIXED64("time_unix_nano", p.time_unix_nano)
    case 4: FIXED64("count", p.count)
    case 5:
      p.has_sum = true;
      DOUBLE("sum", p.sum)
    case 6: SINT32("scale", p.scale)
    case 7: FIXED64("zero_count", p.zero_count)
    case 8: MSG("positive", decode_buckets(c, sub, p.positive))
    case 9: MSG("negative", decode_buckets(c, sub, p.negative))
    case 10: VARINT("flags", p.flags, std::uint32_t)
    case 11:
      RESERVE_AT_FIRST(p.exemplars);
      REPEATED("exemplars", p.exemplars, decode_exemplar)
    case 12:
      p.has_min = true;
      DOUBLE("min", p.min)
    case 13:
      p.has_max = true;
      DOUBLE("max", p.max)
    case 14: DOUBLE("zero_threshold", p.zero_threshold)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

bool decode_quantile(Ctx& c, Cur r, pdata::ValueAtQuantile& q) {
  FIELD_LOOP {
    case 1: DOUBLE("quantile", q.quantile)
    case 2: DOUBLE("value", q.value)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_summary_point(Ctx& c, Cur r, pdata::SummaryDataPoint& p) {
  reserve_attributes(p.attributes, c.point_attrs_hint, r, 7);
  FIELD_LOOP {
    case 2: FIXED64("start_time_unix_nano", p.start_time_unix_nano)
    case 3: FIXED64("time_unix_nano", p.time_unix_nano)
    case 4: FIXED64("count", p.count)
    case 5: DOUBLE("sum", p.sum)
    case 6: {
      EXPECT("quantile_values", kLen);
      RESERVE_AT_FIRST(p.quantile_values);
      Cur sub;
      TRY_IN("quantile_values", read_len(c, r, sub));
      TRY_IN("quantile_values", decode_quantile(c, sub, p.quantile_values.emplace_back()));
      break;
    }
    case 7: ATTR("attributes", p.attributes)
    case 8: VARINT("flags", p.flags, std::uint32_t)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.point_attrs_hint = p.attributes.size();
  return true;
}

// Gauge/Sum/Histogram/ExponentialHistogram/Summary bodies: data_points = 1, then
// aggregation_temporality = 2 and (Sum) is_monotonic = 3.
template <class Point, class DecodeFn>
bool decode_metric_data(Ctx& c, Cur r, pdata::Metric& m, pdata::Vec<Point>& points, DecodeFn decode_fn,
                        bool has_temporality, bool has_monotonic) {
  points.reserve(points.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1: REPEATED("data_points", points, decode_fn)
    case 2:
      if (!has_temporality) {
        TRY(skip(c, r, f, wt, 0));
        break;
      }
      INT32("aggregation_temporality", m.temporality, pdata::AggregationTemporality)
    case 3: {
      if (!has_monotonic) {
        TRY(skip(c, r, f, wt, 0));
        break;
      }
      EXPECT("is_monotonic", kVarint);
      std::uint64_t b = 0;
      TRY_IN("is_monotonic", read_varint(c, r, b));
      m.is_monotonic = b != 0;
      break;
    }
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

// A different oneof member replaces the data; the same member again merges (protobuf rules).
void switch_type(pdata::Metric& m, pdata::MetricType t) {
  if (m.type == t) return;
  m.type = t;
  m.temporality = pdata::AggregationTemporality::Unspecified;
  m.is_monotonic = false;
  m.number_points.clear();
  m.histogram_points.clear();
  m.exponential_histogram_points.clear();
  m.summary_points.clear();
}

bool decode_metric(Ctx& c, Cur r, pdata::Metric& m) {
  using pdata::MetricType;
  m.metadata.reserve(count_field(r, 12));
  FIELD_LOOP {
    case 1: STR("name", m.name)
    case 2: STR("description", m.description)
    case 3: STR("unit", m.unit)
    case 5:
      switch_type(m, MetricType::Gauge);
      MSG("gauge", decode_metric_data(c, sub, m, m.number_points, decode_number_point, false, false))
    case 7:
      switch_type(m, MetricType::Sum);
      MSG("sum", decode_metric_data(c, sub, m, m.number_points, decode_number_point, true, true))
    case 9:
      switch_type(m, MetricType::Histogram);
      MSG("histogram", decode_metric_data(c, sub, m, m.histogram_points, decode_histogram_point, true, false))
    case 10:
      switch_type(m, MetricType::ExponentialHistogram);
      MSG("exponential_histogram",
          decode_metric_data(c, sub, m, m.exponential_histogram_points, decode_exp_point, true, false))
    case 11:
      switch_type(m, MetricType::Summary);
      MSG("summary", decode_metric_data(c, sub, m, m.summary_points, decode_summary_point, false, false))
    case 12: ATTR("metadata", m.metadata)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_scope_metrics(Ctx& c, Cur r, pdata::ScopeMetrics& sm) {
  sm.metrics.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("scope", decode_scope(c, sub, sm.scope))
    case 2: REPEATED("metrics", sm.metrics, decode_metric)
    case 3: STR("schema_url", sm.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_resource_metrics(Ctx& c, Cur r, pdata::ResourceMetrics& rm) {
  rm.scope_metrics.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1: MSG("resource", decode_resource(c, sub, rm.resource))
    case 2: REPEATED("scope_metrics", rm.scope_metrics, decode_scope_metrics)
    case 3: STR("schema_url", rm.schema_url)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_metrics(Ctx& c, Cur r, pdata::MetricsData& d) {
  d.resource_metrics.reserve(d.resource_metrics.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1: REPEATED("resource_metrics", d.resource_metrics, decode_resource_metrics)
    SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

template <class Data, class Fn>
std::optional<DecodeError> run(std::string_view in, Data& out, const DecodeOptions& opt, Fn fn) {
  Ctx c{in.data(), opt, out.arena, {}, {}};
  bool ok;
  try {
    const Arena::Limit limit(out.arena, opt.max_decoded_bytes);
    ok = fn(c, Cur{in.data(), in.data() + in.size()}, out);
  } catch (const pdata::ArenaLimitExceeded&) {
    return DecodeError{0, {}, decoded_size_message(opt.max_decoded_bytes)};
  }
  if (ok) return std::nullopt;
  for (auto it = c.path.rbegin(); it != c.path.rend(); ++it) {
    if (!c.err.field.empty()) c.err.field += '.';
    c.err.field += *it;
  }
  return std::move(c.err);
}

}  // namespace

std::optional<DecodeError> decode_logs_proto(std::string_view in, pdata::LogsData& out, const DecodeOptions& options) {
  return run(in, out, options, decode_logs);
}
std::optional<DecodeError> decode_traces_proto(std::string_view in, pdata::TracesData& out,
                                               const DecodeOptions& options) {
  return run(in, out, options, decode_traces);
}
std::optional<DecodeError> decode_metrics_proto(std::string_view in, pdata::MetricsData& out,
                                                const DecodeOptions& options) {
  return run(in, out, options, decode_metrics);
}

}  // namespace tern::otlp
