// Hand-written zero-copy OTLP/protobuf decoder (hot path). Field numbers follow the public
// opentelemetry-proto definitions (common, resource, logs, trace, metrics v1). Every loop
// consumes at least one byte per iteration and every length is checked against the end of
// its enclosing message, so bad input can only produce a DecodeError.
//
// Error paths cost nothing on the happy path: a failing parser records offset and message,
// then each enclosing parser appends its field name while unwinding (reversed at the end).
//
// This file: the cold error builders, skipping unknown fields, UTF-8 validation, and the
// messages every signal shares (AnyValue, KeyValue, Resource, InstrumentationScope).
#include <string>

#include "otlp/proto_decoder.h"

namespace tern::otlp::proto_detail {

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

TERN_COLD bool bad_tag(Ctx& c, const char* start, std::uint64_t tag) {
  if (tag > 0xffffffffu) return c.fail(start, "tag does not fit in 32 bits");
  if ((tag >> 3) == 0) return c.fail(start, "invalid field number 0");
  return c.fail(start, "invalid wire type " + std::to_string(tag & 7));
}

TERN_COLD bool len_past_end(Ctx& c, const char* start, std::uint64_t len, std::size_t left) {
  return c.fail(start, "length " + std::to_string(len) + " past end of message (" + std::to_string(left) +
                           " bytes left)");
}

TERN_COLD bool truncated_fixed(Ctx& c, Cur& r, const char* what) {
  return c.fail(r.p, std::string("truncated ") + what + " (" + std::to_string(r.left()) + " bytes left)");
}

namespace {

const char* wire_name(std::uint32_t wt) {
  static constexpr const char* names[] = {"varint",      "fixed64",   "length-delimited",
                                          "start-group", "end-group", "fixed32"};
  return wt < 6 ? names[wt] : "invalid";
}

}  // namespace

TERN_COLD bool wrong_type(Ctx& c, const char* tag_at, const char* field, std::uint32_t want,
                          std::uint32_t got) {
  c.fail(tag_at, std::string("wrong wire type: expected ") + wire_name(want) + ", got " + wire_name(got));
  return c.in(field);
}

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
      if (depth >= c.opt.max_depth)
        return c.fail(start, "group nesting exceeds max_depth " + std::to_string(c.opt.max_depth));
      while (true) {
        if (!r.more()) return c.fail(start, "unterminated group (field " + std::to_string(field) + ")");
        const char* tag_at = r.p;
        std::uint32_t f = 0, w = 0;
        TRY(read_tag(c, r, f, w));
        if (w == kEndGroup) {
          if (f != field)
            return c.fail(tag_at, "end-group tag for field " + std::to_string(f) + " inside group " +
                                      std::to_string(field));
          return true;
        }
        TRY(skip(c, r, f, w, depth + 1));
      }
    }
    default:
      return c.fail(r.p, "unexpected end-group tag (field " + std::to_string(field) + ")");
  }
}

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

TERN_COLD bool bad_id_length(Ctx& c, const char* at, const char* what, std::size_t want, std::size_t got) {
  return c.fail(at, std::string(what) + " must be " + std::to_string(want) + " bytes or empty, got " +
                        std::to_string(got));
}

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
        if (v.kind != ValueKind::Array)
          v = pdata::AnyValue::make_array(
              c.arena.make<pdata::Vec<pdata::AnyValue>>(c.arena.vec<pdata::AnyValue>()));
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
        if (v.kind != ValueKind::KvList)
          v = pdata::AnyValue::make_kvlist(
              c.arena.make<pdata::Vec<pdata::KeyValue>>(c.arena.vec<pdata::KeyValue>()));
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

bool decode_kv(Ctx& c, Cur r, pdata::KeyValue& kv, int depth) {
  FIELD_LOOP {
    case 1:
      STR("key", kv.key)
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

bool decode_resource(Ctx& c, Cur r, pdata::Resource& res) {
  res.attributes.reserve(count_field(r, 1));
  FIELD_LOOP {
    case 1:
      ATTR("attributes", res.attributes)
    case 2:
      VARINT("dropped_attributes_count", res.dropped_attributes_count, std::uint32_t)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_scope(Ctx& c, Cur r, pdata::InstrumentationScope& s) {
  s.attributes.reserve(count_field(r, 3));
  FIELD_LOOP {
    case 1:
      STR("name", s.name)
    case 2:
      STR("version", s.version)
    case 3:
      ATTR("attributes", s.attributes)
    case 4:
      VARINT("dropped_attributes_count", s.dropped_attributes_count, std::uint32_t)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

}  // namespace tern::otlp::proto_detail
