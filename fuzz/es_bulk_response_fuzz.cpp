// libFuzzer target: the exporter's reader of Elasticsearch `_bulk` responses on arbitrary
// bodies. Byte 0 is the number of items the request had, the rest the response body.
// Never a crash; a body read as an answer has exactly one result per item, each with an
// HTTP status; one settled as all indexed without a parse is one a parse agrees with; and a
// reused parser reads the same body the same way.
#include <simdjson.h>

#include <cstdint>
#include <string>

#include "exporter/elasticsearch/bulk_response.h"
#include "require.h"

using tern::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t expected = data[0];
  std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string original = body;
  static tern::exporter::es::BulkResponseParser parser;  // reused, as in a worker
  const bool ok = parser.parse(body, expected);
  require(body == original, "the parser changed the body");
  if (ok && !parser.all_indexed()) {
    require(parser.results().size() == expected, "not one result per item");
    for (const auto& r : parser.results())
      require(r.status > 0 && r.status < 1000, "a result without a status");
  }
  if (parser.all_indexed()) {
    require(ok && parser.results().empty(), "results beside all indexed");
    // Read from the bytes without a parse (not validated as JSON: a 2xx body that holds one
    // `"status":20x` per item sent is taken at its word, as `errors:false` was before). A
    // body that is JSON must then read the same when parsed: `expected` items, every
    // status 200 or 201, no error.
    simdjson::dom::parser dom;
    simdjson::dom::element doc;
    if (dom.parse(original).get(doc) == simdjson::SUCCESS) {
      simdjson::dom::array items;
      require(doc["items"].get_array().get(items) == simdjson::SUCCESS, "all indexed, but no items array");
      std::size_t n_items = 0;
      for (simdjson::dom::element item : items) {
        ++n_items;
        simdjson::dom::object o;
        require(item.get_object().get(o) == simdjson::SUCCESS && o.size() == 1,
                "all indexed, but an odd item");
        const simdjson::dom::element result = (*o.begin()).value;
        std::int64_t status = 0;
        require(
            result["status"].get_int64().get(status) == simdjson::SUCCESS && (status == 200 || status == 201),
            "all indexed, but an item not 200/201");
        require(result["error"].error() == simdjson::NO_SUCH_FIELD, "all indexed, but an item with an error");
      }
      require(n_items == expected, "all indexed, but another item count");
    }
  }
  const std::size_t n = parser.results().size();
  const bool all = parser.all_indexed();
  require(parser.parse(body, expected) == ok && parser.results().size() == n && parser.all_indexed() == all,
          "a reused parser read the body differently");
  return 0;
}
