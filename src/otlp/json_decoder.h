#pragma once
// The OTLP/JSON decoder shared by json_decode*.cpp: the generic readers (objects, arrays,
// strings, numbers, ids) stay inline here, since each signal's readers call them per field;
// the common messages (values, attributes, resource, scope) and each signal's messages are
// defined in their own file.
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "otlp/json_codec.h"
#include "text/ascii.h"

namespace tern::otlp::json_detail {

namespace od = simdjson::ondemand;
using namespace tern::pdata;

// Accepts both spellings of a key: lowerCamelCase (spec) and snake_case (proto names).
inline bool key_is(std::string_view key, std::string_view camel, std::string_view snake) {
  return key == camel || key == snake;
}

// A JSON integer written with a fraction or an exponent ("1e3", "5.0", "1.5E1"), which
// ProtoJSON accepts for integer fields, quoted or not. The decimal digits are read
// exactly (no double on the way), so a value beyond 2^53 is right or refused, never rounded.
enum class DecimalInt { Ok, Syntax, NotIntegral, TooBig };
DecimalInt decimal_integer(std::string_view s, bool json_grammar, bool& negative, std::uint64_t& magnitude);

template <class T>
constexpr const char* int_type_name() {
  if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 4 ? "int32" : "int64";
  else
    return sizeof(T) == 4 ? "uint32" : "uint64";
}

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
      case od::json_type::array:
        return "array";
      case od::json_type::object:
        return "object";
      case od::json_type::number:
        return "number";
      case od::json_type::string:
        return "string";
      case od::json_type::boolean:
        return "boolean";
      case od::json_type::null:
        return "null";
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
      if (s == "NaN")
        out = std::numeric_limits<double>::quiet_NaN();
      else if (s == "Infinity")
        out = std::numeric_limits<double>::infinity();
      else if (s == "-Infinity")
        out = -std::numeric_limits<double>::infinity();
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
      return fail(off,
                  "id must be " + std::to_string(2 * N) + " hex digits, got " + std::to_string(s.size()));
    for (std::size_t i = 0; i < N; ++i) {
      int hi = tern::text::hex_digit(s[2 * i]), lo = tern::text::hex_digit(s[2 * i + 1]);
      if (hi < 0 || lo < 0) return fail(off, "id is not hex: \"" + std::string(s) + "\"");
      out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return true;
  }

  template <class T>
  bool message_list(od::value& v, Vec<T>& list, bool (Decoder::*one)(od::value&, T&)) {
    return elements(v, [&](od::value& el) {
      list.emplace_back(arena_);
      return (this->*one)(el, list.back());
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

  // json_decode.cpp: the messages every signal shares.
  bool base64(od::value& v, std::string_view& out);
  bool any_value(od::value& v, AnyValue& out, int depth);
  bool any_member(od::value& f, od::json_type t, AnyValue& out, ValueKind kind, int depth);
  [[gnu::noinline, gnu::cold]] bool too_deep(od::value& v);
  bool key_values(od::value& v, Vec<KeyValue>& out, int depth = 0);
  bool resource(od::value& v, Resource& r);
  bool scope(od::value& v, InstrumentationScope& s);

  // json_decode_logs.cpp
  bool log_record(od::value& v, LogRecord& r);
  bool logs(std::string_view k, od::value& f, LogsData& out);

  // json_decode_traces.cpp
  bool span_event(od::value& v, SpanEvent& e);
  bool span_link(od::value& v, SpanLink& l);
  bool span(od::value& v, Span& s);
  bool traces(std::string_view k, od::value& f, TracesData& out);

  // json_decode_metrics.cpp
  bool u64_list(od::value& v, Vec<std::uint64_t>& out);
  bool double_list(od::value& v, Vec<double>& out);
  bool number_value(std::string_view k, od::value& f, NumberType& type, double& d, std::int64_t& i,
                    bool& handled);
  bool exemplar(od::value& v, Exemplar& e);
  bool optional_dbl(od::value& f, bool& has, double& out);
  template <class P>
  bool point_common(std::string_view k, od::value& f, P& p, bool& handled);
  bool number_point(od::value& v, NumberDataPoint& p);
  bool histogram_point(od::value& v, HistogramDataPoint& p);
  bool buckets(od::value& v, ExponentialBuckets& b);
  bool exp_histogram_point(od::value& v, ExponentialHistogramDataPoint& p);
  bool summary_point(od::value& v, SummaryDataPoint& p);
  bool temporality(od::value& f, Metric& m);
  template <class P>
  bool metric_data(od::value& v, Metric& m, MetricType type, std::string_view name, Vec<P>& points,
                   bool (Decoder::*one)(od::value&, P&));
  bool metric(od::value& v, Metric& m);
  bool metrics(std::string_view k, od::value& f, MetricsData& out);

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

}  // namespace tern::otlp::json_detail
