// OTLP/JSON decoding with simdjson On-Demand: it parses straight into pdata without
// building a DOM (one pass, no tape), skips unknown keys for free, and hands out
// the raw token of each value, which gives the byte offsets for error messages.
// This file: number parsing beyond the fast path, and the messages every signal shares
// (AnyValue, attributes, resource, scope).
#include <string>

#include "otlp/json_decoder.h"

namespace tern::otlp::json_detail {
namespace {

int b64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;  // standard and URL-safe alphabets
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Names of oneof members, for the error when a second one is given.
const char* member_name(ValueKind k) {
  switch (k) {
    case ValueKind::String:
      return "string_value";
    case ValueKind::Bool:
      return "bool_value";
    case ValueKind::Int:
      return "int_value";
    case ValueKind::Double:
      return "double_value";
    case ValueKind::Bytes:
      return "bytes_value";
    case ValueKind::Array:
      return "array_value";
    case ValueKind::KvList:
      return "kvlist_value";
    case ValueKind::Empty:
      break;
  }
  return "?";
}

}  // namespace

DecimalInt decimal_integer(std::string_view s, bool json_grammar, bool& negative, std::uint64_t& magnitude) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto digit = [&](std::size_t j) { return j < n && s[j] >= '0' && s[j] <= '9'; };
  negative = i < n && s[i] == '-';
  if (negative) ++i;
  const std::size_t int_begin = i;
  while (digit(i)) ++i;
  const std::size_t int_end = i;
  if (int_end == int_begin) return DecimalInt::Syntax;
  if (json_grammar && s[int_begin] == '0' && int_end - int_begin > 1) return DecimalInt::Syntax;  // 01
  std::size_t frac_begin = i, frac_end = i;
  if (i < n && s[i] == '.') {
    frac_begin = ++i;
    while (digit(i)) ++i;
    frac_end = i;
    if (frac_end == frac_begin) return DecimalInt::Syntax;
  }
  std::int64_t exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    if (!digit(i)) return DecimalInt::Syntax;
    for (; digit(i); ++i) exp = std::min<std::int64_t>(exp * 10 + (s[i] - '0'), 1'000'000'000'000);
    if (exp_negative) exp = -exp;
  }
  if (i != n) return DecimalInt::Syntax;
  // The significant digits are those of [int_begin, int_end) ++ [frac_begin, frac_end) without
  // leading and trailing zeros; value = digits * 10^(exp - fraction length + trailing zeros).
  auto at = [&](std::size_t k) {  // k-th digit of the concatenation
    const std::size_t int_len = int_end - int_begin;
    return k < int_len ? s[int_begin + k] : s[frac_begin + (k - int_len)];
  };
  std::size_t first = 0, last = (int_end - int_begin) + (frac_end - frac_begin);
  while (first < last && at(first) == '0') ++first;
  magnitude = 0;
  if (first == last) return DecimalInt::Ok;  // zero, whatever the exponent
  std::int64_t exp10 = exp - static_cast<std::int64_t>(frac_end - frac_begin);
  while (at(last - 1) == '0') --last, ++exp10;
  if (exp10 < 0) return DecimalInt::NotIntegral;  // the last significant digit is after the point
  if (static_cast<std::int64_t>(last - first) + exp10 > 20) return DecimalInt::TooBig;  // >= 10^20 > 2^64
  std::uint64_t m = 0;
  for (std::size_t k = first; k < last; ++k)
    if (__builtin_mul_overflow(m, 10u, &m) ||
        __builtin_add_overflow(m, static_cast<unsigned>(at(k) - '0'), &m))
      return DecimalInt::TooBig;
  for (std::int64_t e = 0; e < exp10; ++e)
    if (__builtin_mul_overflow(m, 10u, &m)) return DecimalInt::TooBig;
  magnitude = m;
  return DecimalInt::Ok;
}

bool Decoder::base64(od::value& v, std::string_view& out) {
  std::size_t off = at(v);
  std::string_view s;
  if (!raw_str(v, s)) return false;
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  if (s.size() % 4 == 1) return fail(off, "invalid base64 length");
  std::string bytes;
  bytes.reserve(s.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int d = b64_digit(c);
    if (d < 0) return fail(off, "invalid base64 character");
    acc = (acc << 6) | static_cast<std::uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  out = arena_.copy(bytes);
  return true;
}

// `depth` is the number of arrayValue/kvlistValue levels around `v` (0 for a body or an
// attribute value); at most max_depth of them may nest, as in the protobuf decoder.
bool Decoder::any_value(od::value& v, AnyValue& out, int depth) {
  out = AnyValue{};
  return fields(v, [&](std::string_view k, od::value& f) {
    ValueKind kind;
    const char* name;
    if (key_is(k, "stringValue", "string_value"))
      kind = ValueKind::String, name = "string_value";
    else if (key_is(k, "boolValue", "bool_value"))
      kind = ValueKind::Bool, name = "bool_value";
    else if (key_is(k, "intValue", "int_value"))
      kind = ValueKind::Int, name = "int_value";
    else if (key_is(k, "doubleValue", "double_value"))
      kind = ValueKind::Double, name = "double_value";
    else if (key_is(k, "bytesValue", "bytes_value"))
      kind = ValueKind::Bytes, name = "bytes_value";
    else if (key_is(k, "arrayValue", "array_value"))
      kind = ValueKind::Array, name = "array_value";
    else if (key_is(k, "kvlistValue", "kvlist_value"))
      kind = ValueKind::KvList, name = "kvlist_value";
    else
      return true;
    return in(name, [&] {
      od::json_type t = od::json_type::null;
      if (!type_of(f, t)) return false;
      if (t == od::json_type::null) return true;  // null: the member is not set (ProtoJSON)
      if (out.kind != ValueKind::Empty) return oneof_twice(f, "value", member_name(out.kind));
      return any_member(f, t, out, kind, depth);
    });
  });
}

// The value of one member of AnyValue, of (non-null) JSON type `t`.
bool Decoder::any_member(od::value& f, od::json_type t, AnyValue& out, ValueKind kind, int depth) {
  switch (kind) {
    case ValueKind::String:
      out.kind = kind;
      return str(f, t, out.string_value);
    case ValueKind::Bool:
      out = AnyValue::boolean(false);
      return boolean(f, t, out.bool_value);
    case ValueKind::Int:
      out = AnyValue::integer(0);
      return integer(f, t, out.int_value);
    case ValueKind::Double:
      out = AnyValue::dbl(0);
      return dbl(f, t, out.double_value);
    case ValueKind::Bytes: {
      if (t != od::json_type::string) return wrong_type(f, t, "base64 string");
      out.kind = kind;
      return base64(f, out.string_value);
    }
    case ValueKind::Array: {
      if (depth + 1 > opt_.max_depth) return too_deep(f);
      auto* arr = arena_.make<Vec<AnyValue>>(arena_.vec<AnyValue>());
      out = AnyValue::make_array(arr);
      return fields(f, [&](std::string_view k2, od::value& f2) {
        if (k2 != "values") return true;
        return elements(f2, [&](od::value& el) {
          arr->emplace_back();
          return any_value(el, arr->back(), depth + 1);
        });
      });
    }
    case ValueKind::KvList: {
      if (depth + 1 > opt_.max_depth) return too_deep(f);
      auto* kv = arena_.make<Vec<KeyValue>>(arena_.vec<KeyValue>());
      out = AnyValue::make_kvlist(kv);
      return fields(f, [&](std::string_view k2, od::value& f2) {
        if (k2 != "values") return true;
        return key_values(f2, *kv, depth + 1);
      });
    }
    case ValueKind::Empty:
      break;
  }
  return true;
}

bool Decoder::too_deep(od::value& v) {
  return fail(at(v), "AnyValue nesting exceeds max_depth " + std::to_string(opt_.max_depth));
}

bool Decoder::key_values(od::value& v, Vec<KeyValue>& out, int depth) {
  return elements(v, [&](od::value& el) {
    out.emplace_back();
    auto& kv = out.back();
    return fields(el, [&](std::string_view k, od::value& f) {
      if (k == "key") return in("key", [&] { return str(f, kv.key); });
      if (k == "value") return in("value", [&] { return any_value(f, kv.value, depth); });
      return true;
    });
  });
}

bool Decoder::resource(od::value& v, Resource& r) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (k == "attributes") return in("attributes", [&] { return key_values(f, r.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, r.dropped_attributes_count); });
    return true;
  });
}

bool Decoder::scope(od::value& v, InstrumentationScope& s) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (k == "name") return in("name", [&] { return str(f, s.name); });
    if (k == "version") return in("version", [&] { return str(f, s.version); });
    if (k == "attributes") return in("attributes", [&] { return key_values(f, s.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, s.dropped_attributes_count); });
    return true;
  });
}

}  // namespace tern::otlp::json_detail
