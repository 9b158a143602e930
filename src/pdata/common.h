#pragma once
// OTLP common types: AnyValue, KeyValue, Resource, InstrumentationScope, ids.
// Field-for-field with opentelemetry/proto/common/v1 and resource/v1 (OTLP 1.x).
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "pdata/arena.h"

namespace tern::pdata {

using Str = std::string_view;  // a view into the request buffer or the arena

using TraceId = std::array<std::uint8_t, 16>;
using SpanId = std::array<std::uint8_t, 8>;

// Word-wise: the encoders ask this for two or three ids per record, and the
// byte loop with an early exit does not vectorize.
template <std::size_t N>
inline bool is_zero(const std::array<std::uint8_t, N>& id) {
  static_assert(N % 8 == 0, "ids are 8 or 16 bytes");
  std::uint64_t any = 0;
  for (std::size_t i = 0; i < N; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, id.data() + i, 8);
    any |= word;
  }
  return any == 0;
}

struct KeyValue;

enum class ValueKind : std::uint8_t { Empty, String, Bool, Int, Double, Bytes, Array, KvList };

struct AnyValue {
  ValueKind kind = ValueKind::Empty;
  union {
    bool bool_value;
    std::int64_t int_value;
    double double_value = 0;
  };
  Str string_value;                 // String and Bytes (raw bytes, not hex)
  Vec<AnyValue>* array = nullptr;   // Array: arena-allocated
  Vec<KeyValue>* kvlist = nullptr;  // KvList: arena-allocated

  static AnyValue string(Str s) {
    AnyValue v;
    v.kind = ValueKind::String;
    v.string_value = s;
    return v;
  }
  static AnyValue bytes(Str s) {
    AnyValue v;
    v.kind = ValueKind::Bytes;
    v.string_value = s;
    return v;
  }
  static AnyValue boolean(bool b) {
    AnyValue v;
    v.kind = ValueKind::Bool;
    v.bool_value = b;
    return v;
  }
  static AnyValue integer(std::int64_t i) {
    AnyValue v;
    v.kind = ValueKind::Int;
    v.int_value = i;
    return v;
  }
  static AnyValue dbl(double d) {
    AnyValue v;
    v.kind = ValueKind::Double;
    v.double_value = d;
    return v;
  }
  static AnyValue make_array(Vec<AnyValue>* a) {
    AnyValue v;
    v.kind = ValueKind::Array;
    v.array = a;
    return v;
  }
  static AnyValue make_kvlist(Vec<KeyValue>* kv) {
    AnyValue v;
    v.kind = ValueKind::KvList;
    v.kvlist = kv;
    return v;
  }
};

struct KeyValue {
  Str key;
  AnyValue value;
};

using Attributes = Vec<KeyValue>;

struct Resource {
  explicit Resource(const Arena& a) : attributes(a.vec<KeyValue>()) {}
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
};

struct InstrumentationScope {
  explicit InstrumentationScope(const Arena& a) : attributes(a.vec<KeyValue>()) {}
  Str name;
  Str version;
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
};

// Looks up an attribute by key (linear: OTLP attribute maps are small and ordered).
inline const AnyValue* find_attribute(const Attributes& attrs, Str key) {
  for (const auto& kv : attrs)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

}  // namespace tern::pdata
