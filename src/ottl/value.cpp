#include "ottl/value.h"

#include <utility>
#include <vector>

namespace tern::ottl {

pdata::AnyValue as_any(const Value& v) {
  switch (v.kind) {
    case Kind::kNil:
      break;
    case Kind::kBool:
      return pdata::AnyValue::boolean(v.b);
    case Kind::kInt:
      return pdata::AnyValue::integer(v.i);
    case Kind::kDouble:
      return pdata::AnyValue::dbl(v.d);
    case Kind::kString:
      return pdata::AnyValue::string(v.s);
    case Kind::kBytes:
      return pdata::AnyValue::bytes(v.s);
    case Kind::kMap:
      return pdata::AnyValue::make_kvlist(const_cast<pdata::Attributes*>(v.map));
    case Kind::kList:
      return pdata::AnyValue::make_array(const_cast<pdata::Vec<pdata::AnyValue>*>(v.list));
  }
  return {};
}

namespace {

// A copy of `v` in `a`, maps and lists too, as OTTL's set copies them (pcommon CopyTo): the
// target never shares, or contains, the map it was set from (set(attributes["x"], attributes)
// copies what the map held before). Built a container at a time from a stack of pending
// ones, each given its full size before it is filled (so no member moves), not by recursion.
pdata::AnyValue deep_copy(const pdata::AnyValue& v, const pdata::Arena& a) {
  struct Pending {
    const pdata::AnyValue* from;  // an Array or KvList
    pdata::AnyValue* to;          // its copy, empty so far
  };
  std::vector<Pending> pending;
  const auto one = [&](const pdata::AnyValue& from, pdata::AnyValue& to) {
    switch (from.kind) {
      case pdata::ValueKind::String:
        to = pdata::AnyValue::string(a.copy(from.string_value));
        break;
      case pdata::ValueKind::Bytes:
        to = pdata::AnyValue::bytes(a.copy(from.string_value));
        break;
      case pdata::ValueKind::KvList:
        to = pdata::AnyValue::make_kvlist(a.make<pdata::Vec<pdata::KeyValue>>(a.vec<pdata::KeyValue>()));
        if (from.kvlist && !from.kvlist->empty()) pending.push_back({&from, &to});
        break;
      case pdata::ValueKind::Array:
        to = pdata::AnyValue::make_array(a.make<pdata::Vec<pdata::AnyValue>>(a.vec<pdata::AnyValue>()));
        if (from.array && !from.array->empty()) pending.push_back({&from, &to});
        break;
      default:
        to = from;
    }
  };
  pdata::AnyValue out;
  one(v, out);
  while (!pending.empty()) {
    const Pending p = pending.back();
    pending.pop_back();
    if (p.from->kind == pdata::ValueKind::KvList) {
      auto& dst = *p.to->kvlist;
      dst.resize(p.from->kvlist->size());
      for (std::size_t k = 0; k < dst.size(); ++k) {
        dst[k].key = a.copy((*p.from->kvlist)[k].key);
        one((*p.from->kvlist)[k].value, dst[k].value);
      }
    } else {
      auto& dst = *p.to->array;
      dst.resize(p.from->array->size());
      for (std::size_t k = 0; k < dst.size(); ++k) one((*p.from->array)[k], dst[k]);
    }
  }
  return out;
}

}  // namespace

// On a stack instead of recursion.
bool deep_equal(const pdata::AnyValue& x, const pdata::AnyValue& y) {
  using K = pdata::ValueKind;
  std::vector<std::pair<const pdata::AnyValue*, const pdata::AnyValue*>> todo{{&x, &y}};
  while (!todo.empty()) {
    const auto [a, b] = todo.back();
    todo.pop_back();
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case K::Empty:
        break;
      case K::String:
      case K::Bytes:
        if (a->string_value != b->string_value) return false;
        break;
      case K::Bool:
        if (a->bool_value != b->bool_value) return false;
        break;
      case K::Int:
        if (a->int_value != b->int_value) return false;
        break;
      case K::Double:
        if (!(a->double_value == b->double_value)) return false;
        break;
      case K::Array: {
        const std::size_t n = a->array ? a->array->size() : 0;
        if (n != (b->array ? b->array->size() : 0)) return false;
        for (std::size_t k = 0; k < n; ++k) todo.push_back({&(*a->array)[k], &(*b->array)[k]});
        break;
      }
      case K::KvList: {
        const std::size_t n = a->kvlist ? a->kvlist->size() : 0;
        if (n != (b->kvlist ? b->kvlist->size() : 0)) return false;
        for (std::size_t k = 0; k < n; ++k) {
          const pdata::KeyValue& kv = (*a->kvlist)[k];
          const pdata::AnyValue* other = pdata::find_attribute(*b->kvlist, kv.key);
          if (!other) return false;
          todo.push_back({&kv.value, other});
        }
        break;
      }
    }
  }
  return true;
}

pdata::AnyValue to_any(const Value& v, const pdata::Arena& a) { return deep_copy(as_any(v), a); }

}  // namespace tern::ottl
