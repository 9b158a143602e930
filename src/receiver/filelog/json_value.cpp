#include "receiver/filelog/json_value.h"

#include <cstdint>

namespace tern::receiver::filelog {

pdata::AnyValue json_value(simdjson::dom::element e, const pdata::Arena& a) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::ARRAY: {
      auto* v = a.make<pdata::Vec<pdata::AnyValue>>(a.vec<pdata::AnyValue>());
      simdjson::dom::array arr;
      if (e.get_array().get(arr) == simdjson::SUCCESS)
        for (auto x : arr) v->push_back(json_value(x, a));
      return pdata::AnyValue::make_array(v);
    }
    case T::OBJECT: {
      auto* kv = a.make<pdata::Vec<pdata::KeyValue>>(a.vec<pdata::KeyValue>());
      simdjson::dom::object obj;
      if (e.get_object().get(obj) == simdjson::SUCCESS)
        for (auto field : obj) kv->push_back({a.copy(field.key), json_value(field.value, a)});
      return pdata::AnyValue::make_kvlist(kv);
    }
    case T::INT64:
      return pdata::AnyValue::integer(e.get_int64().value_unsafe());
    case T::UINT64: {
      const std::uint64_t u = e.get_uint64().value_unsafe();
      return u <= static_cast<std::uint64_t>(INT64_MAX)
                 ? pdata::AnyValue::integer(static_cast<std::int64_t>(u))
                 : pdata::AnyValue::dbl(static_cast<double>(u));
    }
    case T::DOUBLE:
      return pdata::AnyValue::dbl(e.get_double().value_unsafe());
    case T::STRING:
      return pdata::AnyValue::string(a.copy(e.get_string().value_unsafe()));
    case T::BOOL:
      return pdata::AnyValue::boolean(e.get_bool().value_unsafe());
    case T::NULL_VALUE:
      break;
  }
  return {};
}

}  // namespace tern::receiver::filelog
