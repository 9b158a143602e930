#pragma once
// Whether a parsed JSON value has an object, at any depth, that repeats a key: valid JSON,
// but a document Elasticsearch refuses. Shared by the encoder's tests and es_encode_fuzz.
#include <simdjson.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace tern::test {

inline bool repeats_a_key(simdjson::dom::element e) {
  simdjson::dom::array arr;
  simdjson::dom::object obj;
  if (e.get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element v : arr)
      if (repeats_a_key(v)) return true;
  } else if (e.get_object().get(obj) == simdjson::SUCCESS) {
    std::vector<std::string_view> keys;
    for (auto field : obj) {
      if (repeats_a_key(field.value)) return true;
      keys.push_back(field.key);
    }
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
  }
  return false;
}

}  // namespace tern::test
