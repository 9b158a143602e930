#pragma once
// OTTL's values as conditions and statements see them: a view of a pdata value or of a
// literal, never owning what it points at. Internal to src/ottl.
#include <cstdint>
#include <string_view>

#include "pdata/arena.h"
#include "pdata/common.h"

namespace tern::ottl {

enum class Kind { kNil, kBool, kInt, kDouble, kString, kBytes, kMap, kList };

struct Value {
  Kind kind = Kind::kNil;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string_view s;
  const pdata::Attributes* map = nullptr;             // kMap (null: an empty one)
  const pdata::Vec<pdata::AnyValue>* list = nullptr;  // kList (null: an empty one)
};

inline Value boolean(bool b) {
  Value v;
  v.kind = Kind::kBool;
  v.b = b;
  return v;
}
inline Value integer(std::int64_t i) {
  Value v;
  v.kind = Kind::kInt;
  v.i = i;
  return v;
}
inline Value real(double d) {
  Value v;
  v.kind = Kind::kDouble;
  v.d = d;
  return v;
}
inline Value text(std::string_view s) {
  Value v;
  v.kind = Kind::kString;
  v.s = s;
  return v;
}

// Inline: reading attributes goes through it for every path evaluated.
inline Value from_any(const pdata::AnyValue* v) {
  Value out;
  if (!v) return out;
  switch (v->kind) {
    case pdata::ValueKind::Empty:
      break;
    case pdata::ValueKind::String:
      out.kind = Kind::kString;
      out.s = v->string_value;
      break;
    case pdata::ValueKind::Bytes:
      out.kind = Kind::kBytes;
      out.s = v->string_value;
      break;
    case pdata::ValueKind::Bool:
      out.kind = Kind::kBool;
      out.b = v->bool_value;
      break;
    case pdata::ValueKind::Int:
      out.kind = Kind::kInt;
      out.i = v->int_value;
      break;
    case pdata::ValueKind::Double:
      out.kind = Kind::kDouble;
      out.d = v->double_value;
      break;
    case pdata::ValueKind::Array:
      out.kind = Kind::kList;
      out.list = v->array;
      break;
    case pdata::ValueKind::KvList:
      out.kind = Kind::kMap;
      out.map = v->kvlist;
      break;
  }
  return out;
}

// The value as an AnyValue that points at the same data (to be read only), for the shared
// value-to-text conversion and deep comparisons.
pdata::AnyValue as_any(const Value& v);

// The value as an AnyValue of its own, its strings and containers copied into `a` (what
// OTTL's set stores).
pdata::AnyValue to_any(const Value& v, const pdata::Arena& a);

// pcommon's Value.Equal: same kind and content; maps equal when they have as many keys and
// each key's (first) value is equal, in any order; lists element by element.
bool deep_equal(const pdata::AnyValue& x, const pdata::AnyValue& y);

}  // namespace tern::ottl
