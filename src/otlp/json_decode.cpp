// OTLP/JSON decoding with simdjson On-Demand: it parses straight into pdata without
// building a DOM (one pass, no tape), skips unknown keys for free, and hands out
// the raw token of each value, which gives the byte offsets for error messages.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "otlp/json_codec.h"
#include "text/ascii.h"

namespace tern::otlp {
namespace {

namespace od = simdjson::ondemand;
using namespace tern::pdata;

// Accepts both spellings of a key: lowerCamelCase (spec) and snake_case (proto names).
bool key_is(std::string_view key, std::string_view camel, std::string_view snake) {
  return key == camel || key == snake;
}

int b64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;  // standard and URL-safe alphabets
  if (c == '/' || c == '_') return 63;
  return -1;
}

// A JSON integer written with a fraction or an exponent ("1e3", "5.0", "1.5E1"), which
// ProtoJSON accepts for integer fields, quoted or not. The decimal digits are read
// exactly (no double on the way), so a value beyond 2^53 is right or refused, never rounded.
enum class DecimalInt { Ok, Syntax, NotIntegral, TooBig };
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

template <class T>
constexpr const char* int_type_name() {
  if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 4 ? "int32" : "int64";
  else
    return sizeof(T) == 4 ? "uint32" : "uint64";
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
const char* member_name(MetricType t) {
  switch (t) {
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Sum:
      return "sum";
    case MetricType::Histogram:
      return "histogram";
    case MetricType::ExponentialHistogram:
      return "exponential_histogram";
    case MetricType::Summary:
      return "summary";
    case MetricType::Empty:
      break;
  }
  return "?";
}
const char* member_name(NumberType t) { return t == NumberType::Int ? "as_int" : "as_double"; }

class Decoder {
public:
  Decoder(std::string_view in, const Arena& arena, const DecodeOptions& opt)
      : in_(in), arena_(arena), opt_(opt) {}

  std::optional<DecodeError> error;

  // Runs `root` on the top-level object and checks nothing follows it.
  template <class F>
  bool run(F&& root) {
    static thread_local od::parser parser;
    padded_ = simdjson::padded_string(in_);
    if (auto ec = parser.iterate(padded_).get(doc_)) return sj_fail(ec, nullptr);
    iterating_ = true;
    od::object obj;
    if (auto ec = doc_.get_object().get(obj)) return sj_fail(ec, nullptr);
    if (!fields(obj, root)) return false;
    // current_location() fails only once the iterator has consumed every token.
    const char* rest = nullptr;
    if (!doc_.current_location().get(rest))
      return fail(offset(rest), "trailing content after the JSON document");
    return true;
  }

  // --- generic helpers -------------------------------------------------------

  std::size_t loc() {
    const char* p = nullptr;
    // current_location() of a document that failed to start would read no tokens.
    if (!iterating_ || doc_.current_location().get(p) || p == nullptr) return in_.size();
    return offset(p);
  }
  std::size_t offset(const char* p) const {
    auto d = p - padded_.data();
    return d < 0 ? 0 : std::min<std::size_t>(static_cast<std::size_t>(d), in_.size());
  }
  std::size_t at(od::value& v) { return offset(v.raw_json_token().data()); }

  bool fail(std::size_t off, std::string msg) {
    if (!error) {
      std::string field;
      for (auto p : path_) {
        if (!field.empty()) field += '.';
        field += p;
      }
      error = DecodeError{off, std::move(field), std::move(msg)};
    }
    return false;
  }
  bool sj_fail(simdjson::error_code ec, od::value* v) {
    std::string msg = std::string("invalid JSON: ") + simdjson::error_message(ec);
    return fail(v ? at(*v) : loc(), std::move(msg));
  }

  bool type_of(od::value& v, od::json_type& t) {
    if (auto ec = v.type().get(t)) return sj_fail(ec, &v);
    return true;
  }
  static const char* type_name(od::json_type t) {
    switch (t) {
      case od::json_type::array: return "array";
      case od::json_type::object: return "object";
      case od::json_type::number: return "number";
      case od::json_type::string: return "string";
      case od::json_type::boolean: return "boolean";
      case od::json_type::null: return "null";
    }
    return "value";
  }
  bool wrong_type(od::value& v, od::json_type t, const char* want) {
    return fail(at(v), std::string("expected ") + want + ", got " + type_name(t));
  }

  // Iterates an object's fields: f(key, value) -> bool. null counts as an empty object.
  template <class F>
  bool fields(od::value& v, F&& f) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    if (t != od::json_type::object) return wrong_type(v, t, "object");
    od::object obj;
    if (auto ec = v.get_object().get(obj)) return sj_fail(ec, &v);
    return fields(obj, f);
  }
  template <class F>
  bool fields(od::object& obj, F&& f) {
    for (auto field_r : obj) {
      od::field field;
      if (auto ec = std::move(field_r).get(field)) return sj_fail(ec, nullptr);
      std::string_view key;
      if (auto ec = field.unescaped_key().get(key)) return sj_fail(ec, nullptr);
      od::value val = field.value();
      if (!f(key, val)) return false;
    }
    return true;
  }
  // Iterates an array: f(value) -> bool. null counts as an empty array.
  template <class F>
  bool elements(od::value& v, F&& f) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    if (t != od::json_type::array) return wrong_type(v, t, "array");
    od::array arr;
    if (auto ec = v.get_array().get(arr)) return sj_fail(ec, &v);
    for (auto el_r : arr) {
      od::value el;
      if (auto ec = std::move(el_r).get(el)) return sj_fail(ec, nullptr);
      if (!f(el)) return false;
    }
    return true;
  }

  // Pushes `name` on the error path for the duration of f().
  template <class F>
  bool in(std::string_view name, F&& f) {
    path_.push_back(name);
    bool ok = f();
    if (ok) path_.pop_back();  // on error the path stays as it was, for the message
    return ok;
  }

  // A second non-null member of a oneof (or the same one twice) is an error, as in
  // protobuf's JSON parser: which one was meant is unknowable.
  [[gnu::noinline, gnu::cold]] bool oneof_twice(od::value& v, const char* oneof, const char* set_by) {
    return fail(at(v), std::string("oneof \"") + oneof + "\" already set by " + set_by);
  }

  // Each reader takes null as "absent" (leaves `out` alone); the overloads with a json_type
  // are for a value whose (non-null) type the caller has already looked at.
  bool str(od::value& v, std::string_view& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    return str(v, t, out);
  }
  bool str(od::value& v, od::json_type t, std::string_view& out) {
    if (t != od::json_type::string) return wrong_type(v, t, "string");
    std::string_view s;
    if (auto ec = v.get_string().get(s)) return sj_fail(ec, &v);
    out = arena_.copy(s);
    return true;
  }
  bool raw_str(od::value& v, std::string_view& out) {  // not copied: parse-local use only
    if (auto ec = v.get_string().get(out)) return sj_fail(ec, &v);
    return true;
  }

  bool boolean(od::value& v, bool& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    return boolean(v, t, out);
  }
  bool boolean(od::value& v, od::json_type t, bool& out) {
    if (t != od::json_type::boolean) return wrong_type(v, t, "boolean");
    if (auto ec = v.get_bool().get(out)) return sj_fail(ec, &v);
    return true;
  }

  // Integers: JSON number or decimal string (the spec's form for 64-bit ones). Both forms
  // may also have a fraction or an exponent as long as the value is an integer ("1e3", "5.0").
  template <class T>
  bool integer(od::value& v, T& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    return integer(v, t, out);
  }
  template <class T>
  bool integer(od::value& v, od::json_type t, T& out) {
    if (t == od::json_type::string) {
      std::string_view s;
      if (!raw_str(v, s)) return false;
      T x{};
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
      if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return other_integer(v, s, false, out);
      out = x;
      return true;
    }
    if (t != od::json_type::number) return wrong_type(v, t, "integer");
    if constexpr (std::is_signed_v<T>) {
      std::int64_t x;
      if (v.get_int64().get(x) || x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max())
        return other_integer(v, number_token(v), true, out);
      out = static_cast<T>(x);
    } else {
      std::uint64_t x;
      if (v.get_uint64().get(x) || x > std::numeric_limits<T>::max())
        return other_integer(v, number_token(v), true, out);
      out = static_cast<T>(x);
    }
    return true;
  }
  std::string_view number_token(od::value& v) {
    std::string_view s = v.raw_json_token();  // runs up to the next token: drop the whitespace
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
      s.remove_suffix(1);
    return s;
  }
  // An integer the fast path did not take: exponent or fraction, out of range, or not one.
  template <class T>
  [[gnu::noinline, gnu::cold]] bool other_integer(od::value& v, std::string_view s, bool bare, T& out) {
    const std::size_t off = at(v);
    const std::string shown = std::string(s.substr(0, 32)) + (s.size() > 32 ? "..." : "");
    bool negative = false;
    std::uint64_t m = 0;
    switch (decimal_integer(s, bare, negative, m)) {
      case DecimalInt::Syntax:
        return fail(
            off, std::string(bare ? "invalid number " : "invalid integer \"") + shown + (bare ? "" : "\""));
      case DecimalInt::NotIntegral:
        return fail(off, shown + " is not an integer");
      case DecimalInt::TooBig:
        return fail(off, shown + " is out of range for " + int_type_name<T>());
      case DecimalInt::Ok:
        break;
    }
    using U = std::make_unsigned_t<T>;
    if (!negative || m == 0) {
      if (m > static_cast<U>(std::numeric_limits<T>::max()))
        return fail(off, shown + " is out of range for " + int_type_name<T>());
      out = static_cast<T>(m);
      return true;
    }
    if constexpr (std::is_signed_v<T>) {
      if (m <= static_cast<U>(std::numeric_limits<T>::max()) + U{1}) {
        out = static_cast<T>(U{0} - static_cast<U>(m));  // two's complement: fine for the minimum too
        return true;
      }
    }
    return fail(off, shown + " is out of range for " + int_type_name<T>());
  }

  // Enums: integer, or the value's name (e.g. "SPAN_KIND_SERVER") as a courtesy.
  bool enumeration(od::value& v, std::int32_t& out, std::initializer_list<std::string_view> names) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t != od::json_type::string) return integer(v, out);
    std::size_t off = at(v);
    std::string_view s;
    if (!raw_str(v, s)) return false;
    std::int32_t i = 0;
    for (auto n : names) {
      if (n == s) {
        out = i;
        return true;
      }
      ++i;
    }
    std::int32_t x;  // a number in a string is fine too
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) {
      out = x;
      return true;
    }
    return fail(off, "unknown enum value \"" + std::string(s.substr(0, 64)) + "\"");
  }

  bool dbl(od::value& v, double& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    return dbl(v, t, out);
  }
  bool dbl(od::value& v, od::json_type t, double& out) {
    std::size_t off = at(v);
    if (t == od::json_type::string) {
      std::string_view s;
      if (!raw_str(v, s)) return false;
      if (s == "NaN") out = std::numeric_limits<double>::quiet_NaN();
      else if (s == "Infinity") out = std::numeric_limits<double>::infinity();
      else if (s == "-Infinity") out = -std::numeric_limits<double>::infinity();
      else {
        double x;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty())
          return fail(off, "invalid number \"" + std::string(s.substr(0, 32)) + "\"");
        out = x;
      }
      return true;
    }
    if (t != od::json_type::number) return wrong_type(v, t, "number");
    if (auto ec = v.get_double().get(out)) return sj_fail(ec, &v);
    return true;
  }

  template <std::size_t N>
  bool id(od::value& v, std::array<std::uint8_t, N>& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(v, t)) return false;
    if (t == od::json_type::null) return true;
    if (t != od::json_type::string) return wrong_type(v, t, "hex string");
    std::size_t off = at(v);
    std::string_view s;
    if (!raw_str(v, s)) return false;
    if (s.empty()) {
      out = {};
      return true;
    }
    if (s.size() != 2 * N)
      return fail(off, "id must be " + std::to_string(2 * N) + " hex digits, got " + std::to_string(s.size()));
    for (std::size_t i = 0; i < N; ++i) {
      int hi = tern::text::hex_digit(s[2 * i]), lo = tern::text::hex_digit(s[2 * i + 1]);
      if (hi < 0 || lo < 0) return fail(off, "id is not hex: \"" + std::string(s) + "\"");
      out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return true;
  }

  bool base64(od::value& v, std::string_view& out) {
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

  template <class T>
  bool message_list(od::value& v, Vec<T>& list, bool (Decoder::*one)(od::value&, T&)) {
    return elements(v, [&](od::value& el) {
      list.emplace_back(arena_);
      return (this->*one)(el, list.back());
    });
  }

  // --- common ----------------------------------------------------------------

  // `depth` is the number of arrayValue/kvlistValue levels around `v` (0 for a body or an
  // attribute value); at most max_depth of them may nest, as in the protobuf decoder.
  bool any_value(od::value& v, AnyValue& out, int depth) {
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
  bool any_member(od::value& f, od::json_type t, AnyValue& out, ValueKind kind, int depth) {
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
  [[gnu::noinline, gnu::cold]] bool too_deep(od::value& v) {
    return fail(at(v), "AnyValue nesting exceeds max_depth " + std::to_string(opt_.max_depth));
  }

  bool key_values(od::value& v, Vec<KeyValue>& out, int depth = 0) {
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

  bool resource(od::value& v, Resource& r) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "attributes") return in("attributes", [&] { return key_values(f, r.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, r.dropped_attributes_count); });
      return true;
    });
  }

  bool scope(od::value& v, InstrumentationScope& s) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "name") return in("name", [&] { return str(f, s.name); });
      if (k == "version") return in("version", [&] { return str(f, s.version); });
      if (k == "attributes") return in("attributes", [&] { return key_values(f, s.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, s.dropped_attributes_count); });
      return true;
    });
  }

  // Resource/scope wrappers share their shape across signals: `Item` lists hold
  // `resource`/`scope`, a list of children and `schemaUrl`.
  template <class R, class ChildFn>
  bool resource_wrapper(od::value& v, R& r, std::string_view camel, std::string_view snake, ChildFn child) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "resource") return in("resource", [&] { return resource(f, r.resource); });
      if (key_is(k, "schemaUrl", "schema_url")) return in("schema_url", [&] { return str(f, r.schema_url); });
      if (key_is(k, camel, snake)) return in(snake, [&] { return child(f); });
      return true;
    });
  }
  template <class S, class ChildFn>
  bool scope_wrapper(od::value& v, S& s, std::string_view camel, std::string_view snake, ChildFn child) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "scope") return in("scope", [&] { return scope(f, s.scope); });
      if (key_is(k, "schemaUrl", "schema_url")) return in("schema_url", [&] { return str(f, s.schema_url); });
      if (key_is(k, camel, snake)) return in(snake, [&] { return child(f); });
      return true;
    });
  }

  // --- logs ------------------------------------------------------------------

  bool log_record(od::value& v, LogRecord& r) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (key_is(k, "timeUnixNano", "time_unix_nano"))
        return in("time_unix_nano", [&] { return integer(f, r.time_unix_nano); });
      if (key_is(k, "observedTimeUnixNano", "observed_time_unix_nano"))
        return in("observed_time_unix_nano", [&] { return integer(f, r.observed_time_unix_nano); });
      if (key_is(k, "severityNumber", "severity_number"))
        return in("severity_number", [&] {
          return enumeration(f, r.severity_number,
                             {"SEVERITY_NUMBER_UNSPECIFIED", "SEVERITY_NUMBER_TRACE", "SEVERITY_NUMBER_TRACE2",
                              "SEVERITY_NUMBER_TRACE3", "SEVERITY_NUMBER_TRACE4", "SEVERITY_NUMBER_DEBUG",
                              "SEVERITY_NUMBER_DEBUG2", "SEVERITY_NUMBER_DEBUG3", "SEVERITY_NUMBER_DEBUG4",
                              "SEVERITY_NUMBER_INFO", "SEVERITY_NUMBER_INFO2", "SEVERITY_NUMBER_INFO3",
                              "SEVERITY_NUMBER_INFO4", "SEVERITY_NUMBER_WARN", "SEVERITY_NUMBER_WARN2",
                              "SEVERITY_NUMBER_WARN3", "SEVERITY_NUMBER_WARN4", "SEVERITY_NUMBER_ERROR",
                              "SEVERITY_NUMBER_ERROR2", "SEVERITY_NUMBER_ERROR3", "SEVERITY_NUMBER_ERROR4",
                              "SEVERITY_NUMBER_FATAL", "SEVERITY_NUMBER_FATAL2", "SEVERITY_NUMBER_FATAL3",
                              "SEVERITY_NUMBER_FATAL4"});
        });
      if (key_is(k, "severityText", "severity_text"))
        return in("severity_text", [&] { return str(f, r.severity_text); });
      if (k == "body") return in("body", [&] { return any_value(f, r.body, 0); });
      if (k == "attributes") return in("attributes", [&] { return key_values(f, r.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, r.dropped_attributes_count); });
      if (k == "flags") return in("flags", [&] { return integer(f, r.flags); });
      if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, r.trace_id); });
      if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, r.span_id); });
      if (key_is(k, "eventName", "event_name")) return in("event_name", [&] { return str(f, r.event_name); });
      return true;
    });
  }

  bool logs(std::string_view k, od::value& f, LogsData& out) {
    if (!key_is(k, "resourceLogs", "resource_logs")) return true;
    return in("resource_logs", [&] {
      return elements(f, [&](od::value& rv) {
        auto& rl = out.resource_logs.emplace_back(arena_);
        return resource_wrapper(rv, rl, "scopeLogs", "scope_logs", [&](od::value& sv) {
          return elements(sv, [&](od::value& se) {
            auto& sl = rl.scope_logs.emplace_back(arena_);
            return scope_wrapper(se, sl, "logRecords", "log_records", [&](od::value& lv) {
              return message_list(lv, sl.log_records, &Decoder::log_record);
            });
          });
        });
      });
    });
  }

  // --- traces ----------------------------------------------------------------

  bool span_event(od::value& v, SpanEvent& e) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (key_is(k, "timeUnixNano", "time_unix_nano"))
        return in("time_unix_nano", [&] { return integer(f, e.time_unix_nano); });
      if (k == "name") return in("name", [&] { return str(f, e.name); });
      if (k == "attributes") return in("attributes", [&] { return key_values(f, e.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, e.dropped_attributes_count); });
      return true;
    });
  }

  bool span_link(od::value& v, SpanLink& l) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, l.trace_id); });
      if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, l.span_id); });
      if (key_is(k, "traceState", "trace_state")) return in("trace_state", [&] { return str(f, l.trace_state); });
      if (k == "attributes") return in("attributes", [&] { return key_values(f, l.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, l.dropped_attributes_count); });
      if (k == "flags") return in("flags", [&] { return integer(f, l.flags); });
      return true;
    });
  }

  bool span(od::value& v, Span& s) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, s.trace_id); });
      if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, s.span_id); });
      if (key_is(k, "traceState", "trace_state")) return in("trace_state", [&] { return str(f, s.trace_state); });
      if (key_is(k, "parentSpanId", "parent_span_id"))
        return in("parent_span_id", [&] { return id(f, s.parent_span_id); });
      if (k == "flags") return in("flags", [&] { return integer(f, s.flags); });
      if (k == "name") return in("name", [&] { return str(f, s.name); });
      if (k == "kind")
        return in("kind", [&] {
          std::int32_t x = static_cast<std::int32_t>(s.kind);
          bool ok = enumeration(f, x,
                                {"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
                                 "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"});
          s.kind = static_cast<SpanKind>(x);
          return ok;
        });
      if (key_is(k, "startTimeUnixNano", "start_time_unix_nano"))
        return in("start_time_unix_nano", [&] { return integer(f, s.start_time_unix_nano); });
      if (key_is(k, "endTimeUnixNano", "end_time_unix_nano"))
        return in("end_time_unix_nano", [&] { return integer(f, s.end_time_unix_nano); });
      if (k == "attributes") return in("attributes", [&] { return key_values(f, s.attributes); });
      if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
        return in("dropped_attributes_count", [&] { return integer(f, s.dropped_attributes_count); });
      if (k == "events") return in("events", [&] { return message_list(f, s.events, &Decoder::span_event); });
      if (key_is(k, "droppedEventsCount", "dropped_events_count"))
        return in("dropped_events_count", [&] { return integer(f, s.dropped_events_count); });
      if (k == "links") return in("links", [&] { return message_list(f, s.links, &Decoder::span_link); });
      if (key_is(k, "droppedLinksCount", "dropped_links_count"))
        return in("dropped_links_count", [&] { return integer(f, s.dropped_links_count); });
      if (k == "status")
        return in("status", [&] {
          return fields(f, [&](std::string_view k2, od::value& f2) {
            if (k2 == "message") return in("message", [&] { return str(f2, s.status.message); });
            if (k2 == "code")
              return in("code", [&] {
                std::int32_t x = static_cast<std::int32_t>(s.status.code);
                bool ok = enumeration(f2, x, {"STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"});
                s.status.code = static_cast<StatusCode>(x);
                return ok;
              });
            return true;
          });
        });
      return true;
    });
  }

  bool traces(std::string_view k, od::value& f, TracesData& out) {
    if (!key_is(k, "resourceSpans", "resource_spans")) return true;
    return in("resource_spans", [&] {
      return elements(f, [&](od::value& rv) {
        auto& rs = out.resource_spans.emplace_back(arena_);
        return resource_wrapper(rv, rs, "scopeSpans", "scope_spans", [&](od::value& sv) {
          return elements(sv, [&](od::value& se) {
            auto& ss = rs.scope_spans.emplace_back(arena_);
            return scope_wrapper(se, ss, "spans", "spans",
                                 [&](od::value& lv) { return message_list(lv, ss.spans, &Decoder::span); });
          });
        });
      });
    });
  }

  // --- metrics ---------------------------------------------------------------

  bool u64_list(od::value& v, Vec<std::uint64_t>& out) {
    return elements(v, [&](od::value& el) { return integer(el, out.emplace_back(0)); });
  }
  bool double_list(od::value& v, Vec<double>& out) {
    return elements(v, [&](od::value& el) { return dbl(el, out.emplace_back(0.0)); });
  }

  // asDouble/asInt of NumberDataPoint and Exemplar (the oneof `value`).
  bool number_value(std::string_view k, od::value& f, NumberType& type, double& d, std::int64_t& i,
                    bool& handled) {
    handled = true;
    NumberType member;
    const char* name;
    if (key_is(k, "asDouble", "as_double"))
      member = NumberType::Double, name = "as_double";
    else if (key_is(k, "asInt", "as_int"))
      member = NumberType::Int, name = "as_int";
    else {
      handled = false;
      return true;
    }
    return in(name, [&] {
      od::json_type t = od::json_type::null;
      if (!type_of(f, t)) return false;
      if (t == od::json_type::null) return true;  // null: the member is not set (ProtoJSON)
      if (type != NumberType::None) return oneof_twice(f, "value", member_name(type));
      type = member;
      return member == NumberType::Double ? dbl(f, t, d) : integer(f, t, i);
    });
  }

  bool exemplar(od::value& v, Exemplar& e) {
    return fields(v, [&](std::string_view k, od::value& f) {
      bool handled;
      if (!number_value(k, f, e.value_type, e.as_double, e.as_int, handled)) return false;
      if (handled) return true;
      if (key_is(k, "filteredAttributes", "filtered_attributes"))
        return in("filtered_attributes", [&] { return key_values(f, e.filtered_attributes); });
      if (key_is(k, "timeUnixNano", "time_unix_nano"))
        return in("time_unix_nano", [&] { return integer(f, e.time_unix_nano); });
      if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, e.trace_id); });
      if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, e.span_id); });
      return true;
    });
  }

  // An `optional double` (histogram sum/min/max): null leaves it absent.
  bool optional_dbl(od::value& f, bool& has, double& out) {
    od::json_type t = od::json_type::null;
    if (!type_of(f, t)) return false;
    if (t == od::json_type::null) return true;
    has = true;
    return dbl(f, t, out);
  }

  // Fields every data point kind has.
  template <class P>
  bool point_common(std::string_view k, od::value& f, P& p, bool& handled) {
    handled = true;
    if (k == "attributes") return in("attributes", [&] { return key_values(f, p.attributes); });
    if (key_is(k, "startTimeUnixNano", "start_time_unix_nano"))
      return in("start_time_unix_nano", [&] { return integer(f, p.start_time_unix_nano); });
    if (key_is(k, "timeUnixNano", "time_unix_nano"))
      return in("time_unix_nano", [&] { return integer(f, p.time_unix_nano); });
    if (k == "flags") return in("flags", [&] { return integer(f, p.flags); });
    if constexpr (!std::is_same_v<P, SummaryDataPoint>) {
      if (k == "exemplars") return in("exemplars", [&] { return message_list(f, p.exemplars, &Decoder::exemplar); });
    }
    if constexpr (!std::is_same_v<P, NumberDataPoint>) {
      if (k == "count") return in("count", [&] { return integer(f, p.count); });
      if (k == "sum") {
        if constexpr (std::is_same_v<P, SummaryDataPoint>)
          return in("sum", [&] { return dbl(f, p.sum); });
        else
          return in("sum", [&] { return optional_dbl(f, p.has_sum, p.sum); });
      }
    }
    if constexpr (std::is_same_v<P, HistogramDataPoint> || std::is_same_v<P, ExponentialHistogramDataPoint>) {
      if (k == "min") return in("min", [&] { return optional_dbl(f, p.has_min, p.min); });
      if (k == "max") return in("max", [&] { return optional_dbl(f, p.has_max, p.max); });
    }
    handled = false;
    return true;
  }

  bool number_point(od::value& v, NumberDataPoint& p) {
    return fields(v, [&](std::string_view k, od::value& f) {
      bool handled;
      if (!point_common(k, f, p, handled)) return false;
      if (handled) return true;
      return number_value(k, f, p.value_type, p.as_double, p.as_int, handled);
    });
  }

  bool histogram_point(od::value& v, HistogramDataPoint& p) {
    return fields(v, [&](std::string_view k, od::value& f) {
      bool handled;
      if (!point_common(k, f, p, handled)) return false;
      if (handled) return true;
      if (key_is(k, "bucketCounts", "bucket_counts"))
        return in("bucket_counts", [&] { return u64_list(f, p.bucket_counts); });
      if (key_is(k, "explicitBounds", "explicit_bounds"))
        return in("explicit_bounds", [&] { return double_list(f, p.explicit_bounds); });
      return true;
    });
  }

  bool buckets(od::value& v, ExponentialBuckets& b) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "offset") return in("offset", [&] { return integer(f, b.offset); });
      if (key_is(k, "bucketCounts", "bucket_counts"))
        return in("bucket_counts", [&] { return u64_list(f, b.bucket_counts); });
      return true;
    });
  }

  bool exp_histogram_point(od::value& v, ExponentialHistogramDataPoint& p) {
    return fields(v, [&](std::string_view k, od::value& f) {
      bool handled;
      if (!point_common(k, f, p, handled)) return false;
      if (handled) return true;
      if (k == "scale") return in("scale", [&] { return integer(f, p.scale); });
      if (key_is(k, "zeroCount", "zero_count")) return in("zero_count", [&] { return integer(f, p.zero_count); });
      if (k == "positive") return in("positive", [&] { return buckets(f, p.positive); });
      if (k == "negative") return in("negative", [&] { return buckets(f, p.negative); });
      if (key_is(k, "zeroThreshold", "zero_threshold"))
        return in("zero_threshold", [&] { return dbl(f, p.zero_threshold); });
      return true;
    });
  }

  bool summary_point(od::value& v, SummaryDataPoint& p) {
    return fields(v, [&](std::string_view k, od::value& f) {
      bool handled;
      if (!point_common(k, f, p, handled)) return false;
      if (handled) return true;
      if (key_is(k, "quantileValues", "quantile_values"))
        return in("quantile_values", [&] {
          return elements(f, [&](od::value& el) {
            auto& q = p.quantile_values.emplace_back();
            return fields(el, [&](std::string_view k2, od::value& f2) {
              if (k2 == "quantile") return in("quantile", [&] { return dbl(f2, q.quantile); });
              if (k2 == "value") return in("value", [&] { return dbl(f2, q.value); });
              return true;
            });
          });
        });
      return true;
    });
  }

  bool temporality(od::value& f, Metric& m) {
    return in("aggregation_temporality", [&] {
      std::int32_t x = static_cast<std::int32_t>(m.temporality);
      bool ok = enumeration(f, x,
                            {"AGGREGATION_TEMPORALITY_UNSPECIFIED", "AGGREGATION_TEMPORALITY_DELTA",
                             "AGGREGATION_TEMPORALITY_CUMULATIVE"});
      m.temporality = static_cast<AggregationTemporality>(x);
      return ok;
    });
  }

  // One of gauge/sum/histogram/exponentialHistogram/summary (the oneof `data`): null
  // leaves it unset, a second one is an error.
  template <class P>
  bool metric_data(od::value& v, Metric& m, MetricType type, std::string_view name, Vec<P>& points,
                   bool (Decoder::*one)(od::value&, P&)) {
    return in(name, [&] {
      od::json_type t = od::json_type::null;
      if (!type_of(v, t)) return false;
      if (t == od::json_type::null) return true;  // null: no data (ProtoJSON)
      if (m.type != MetricType::Empty) return oneof_twice(v, "data", member_name(m.type));
      m.type = type;
      return fields(v, [&](std::string_view k, od::value& f) {
        if (key_is(k, "dataPoints", "data_points"))
          return in("data_points", [&] { return message_list(f, points, one); });
        if (type != MetricType::Gauge && type != MetricType::Summary &&
            key_is(k, "aggregationTemporality", "aggregation_temporality"))
          return temporality(f, m);
        if (type == MetricType::Sum && key_is(k, "isMonotonic", "is_monotonic"))
          return in("is_monotonic", [&] { return boolean(f, m.is_monotonic); });
        return true;
      });
    });
  }

  bool metric(od::value& v, Metric& m) {
    return fields(v, [&](std::string_view k, od::value& f) {
      if (k == "name") return in("name", [&] { return str(f, m.name); });
      if (k == "description") return in("description", [&] { return str(f, m.description); });
      if (k == "unit") return in("unit", [&] { return str(f, m.unit); });
      if (k == "metadata") return in("metadata", [&] { return key_values(f, m.metadata); });
      if (k == "gauge")
        return metric_data(f, m, MetricType::Gauge, "gauge", m.number_points, &Decoder::number_point);
      if (k == "sum") return metric_data(f, m, MetricType::Sum, "sum", m.number_points, &Decoder::number_point);
      if (k == "histogram")
        return metric_data(f, m, MetricType::Histogram, "histogram", m.histogram_points,
                           &Decoder::histogram_point);
      if (key_is(k, "exponentialHistogram", "exponential_histogram"))
        return metric_data(f, m, MetricType::ExponentialHistogram, "exponential_histogram",
                           m.exponential_histogram_points, &Decoder::exp_histogram_point);
      if (k == "summary")
        return metric_data(f, m, MetricType::Summary, "summary", m.summary_points, &Decoder::summary_point);
      return true;
    });
  }

  bool metrics(std::string_view k, od::value& f, MetricsData& out) {
    if (!key_is(k, "resourceMetrics", "resource_metrics")) return true;
    return in("resource_metrics", [&] {
      return elements(f, [&](od::value& rv) {
        auto& rm = out.resource_metrics.emplace_back(arena_);
        return resource_wrapper(rv, rm, "scopeMetrics", "scope_metrics", [&](od::value& sv) {
          return elements(sv, [&](od::value& se) {
            auto& sm = rm.scope_metrics.emplace_back(arena_);
            return scope_wrapper(se, sm, "metrics", "metrics",
                                 [&](od::value& lv) { return message_list(lv, sm.metrics, &Decoder::metric); });
          });
        });
      });
    });
  }

private:
  std::string_view in_;
  const Arena& arena_;
  const DecodeOptions& opt_;
  simdjson::padded_string padded_;
  od::document doc_;
  bool iterating_ = false;
  std::vector<std::string_view> path_;
};

template <class Data, class Fn>
std::optional<DecodeError> decode(std::string_view in, Data& out, const DecodeOptions& opt, Fn fn) {
  Decoder d(in, out.arena, opt);
  try {
    const pdata::Arena::Limit limit(out.arena, opt.max_decoded_bytes);
    d.run([&](std::string_view k, od::value& f) { return (d.*fn)(k, f, out); });
  } catch (const pdata::ArenaLimitExceeded&) {
    return DecodeError{d.loc(), {}, decoded_size_message(opt.max_decoded_bytes)};
  }
  return std::move(d.error);
}

}  // namespace

std::optional<DecodeError> decode_logs_json(std::string_view in, LogsData& out, const DecodeOptions& options) {
  return decode(in, out, options, &Decoder::logs);
}
std::optional<DecodeError> decode_traces_json(std::string_view in, TracesData& out,
                                              const DecodeOptions& options) {
  return decode(in, out, options, &Decoder::traces);
}
std::optional<DecodeError> decode_metrics_json(std::string_view in, MetricsData& out,
                                               const DecodeOptions& options) {
  return decode(in, out, options, &Decoder::metrics);
}

}  // namespace tern::otlp
