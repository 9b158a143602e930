#pragma once
// The protobuf decoder shared by proto_decode*.cpp: the wire primitives and field-reading
// macros, inline (forced: they run per tag and per varint), and the common messages' entry
// points. Each signal's messages are in their own file, internal to it.
#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "otlp/proto_codec.h"
#include "otlp/proto_wire.h"

namespace tern::otlp::proto_detail {

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
TERN_COLD bool read_varint_slow(Ctx& c, Cur& r, std::uint64_t& v);

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

TERN_COLD bool bad_tag(Ctx& c, const char* start, std::uint64_t tag);

// One-byte tags that are valid: field 1..15, wire type 0..5. Not `inline`: one copy per file
// (with a shared one, GCC spends 2 more instructions per data point).
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

TERN_COLD bool len_past_end(Ctx& c, const char* start, std::uint64_t len, std::size_t left);

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

TERN_COLD bool truncated_fixed(Ctx& c, Cur& r, const char* what);

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

// `tag_at` is where the field's tag began (the error points there).
TERN_COLD bool wrong_type(Ctx& c, const char* tag_at, const char* field, std::uint32_t want,
                          std::uint32_t got);

// Skips one unknown field's value. Groups (deprecated, but legal on the wire) are skipped
// through their matching end-group tag, with nesting bounded by max_depth.
bool skip(Ctx& c, Cur& r, std::uint32_t field, std::uint32_t wt, int depth);

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
const char* find_invalid_utf8(const char* p, const char* end);

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

TERN_COLD bool bad_id_length(Ctx& c, const char* at, const char* what, std::size_t want, std::size_t got);

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

#define STR(name, dst)                 \
  {                                    \
    EXPECT(name, kLen);                \
    TRY_IN(name, read_str(c, r, dst)); \
    break;                             \
  }
#define BYTES(name, dst)                 \
  {                                      \
    EXPECT(name, kLen);                  \
    TRY_IN(name, read_bytes(c, r, dst)); \
    break;                               \
  }
#define VARINT(name, dst, T)             \
  {                                      \
    EXPECT(name, kVarint);               \
    std::uint64_t v_ = 0;                \
    TRY_IN(name, read_varint(c, r, v_)); \
    dst = static_cast<T>(v_);            \
    break;                               \
  }
#define FIXED64(name, dst)                 \
  {                                        \
    EXPECT(name, kFixed64);                \
    TRY_IN(name, read_fixed64(c, r, dst)); \
    break;                                 \
  }
#define FIXED32(name, dst)                 \
  {                                        \
    EXPECT(name, kFixed32);                \
    TRY_IN(name, read_fixed32(c, r, dst)); \
    break;                                 \
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
#define MSG(name, call)                \
  {                                    \
    EXPECT(name, kLen);                \
    Cur sub;                           \
    TRY_IN(name, read_len(c, r, sub)); \
    TRY_IN(name, call);                \
    break;                             \
  }

bool decode_kv(Ctx& c, Cur r, pdata::KeyValue& kv, int depth);
bool decode_any(Ctx& c, Cur r, pdata::AnyValue& v, int depth);

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

bool decode_resource(Ctx& c, Cur r, pdata::Resource& res);
bool decode_scope(Ctx& c, Cur r, pdata::InstrumentationScope& s);

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

}  // namespace tern::otlp::proto_detail
