#include "exporter/elasticsearch/bulk_response.h"

#include <cstdint>
#include <string_view>

namespace tern::exporter::es {

bool BulkResponseParser::parse(std::string& body, std::size_t expected) {
  namespace od = simdjson::ondemand;
  results_.clear();
  all_indexed_ = false;
  // Elasticsearch writes compact JSON with `errors` before `items`: false means every
  // item succeeded. Anything else (errors, other spacing) is parsed item by item.
  constexpr std::string_view kAllGood = R"({"errors":false)";
  if (body.size() > kAllGood.size() && body.compare(0, kAllGood.size(), kAllGood) == 0 &&
      (body[kAllGood.size()] == ',' || body[kAllGood.size()] == '}')) {
    all_indexed_ = true;
    return true;
  }
  // Only this path parses: pad the body for simdjson here, not on every response.
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  od::document doc;
  if (parser_.iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(doc))
    return false;
  od::array items;
  if (doc["items"].get_array().get(items)) return false;
  for (auto item_v : items) {
    od::object item;
    if (item_v.get_object().get(item)) return false;
    BulkItemResult res;
    bool first = true;
    // Each item is {"<action>": {...}}: the one field's value holds the result.
    for (auto action : item) {
      od::object inner;
      if (!first || action.value().get_object().get(inner)) return false;
      first = false;
      for (auto f : inner) {
        std::string_view key;
        if (f.unescaped_key().get(key)) return false;
        if (key == "status") {
          std::int64_t st;
          if (f.value().get_int64().get(st)) return false;
          if (st <= 0 || st > 999) return false;  // not an HTTP status
          res.status = static_cast<int>(st);
        } else if (key == "_index") {
          std::string_view v;
          if (!f.value().get_string().get(v)) res.index = v;
        } else if (key == "error") {
          od::object err;
          if (f.value().get_object().get(err)) continue;
          for (auto ef : err) {
            std::string_view ek, ev;
            if (ef.unescaped_key().get(ek)) return false;
            if (ek == "type" && !ef.value().get_string().get(ev)) res.type = ev;
            if (ek == "reason" && !ef.value().get_string().get(ev)) res.reason = ev;
          }
        }
      }
    }
    if (res.status == 0) return false;
    if (res.status < 300) res.index.clear();        // only kept for failures (dead letter)
    if (results_.size() == expected) return false;  // more items than were sent
    results_.push_back(std::move(res));
  }
  return results_.size() == expected;
}

}  // namespace tern::exporter::es
