// libFuzzer target: the exporter's reader of Elasticsearch `_bulk` responses on arbitrary
// bodies. Byte 0 is the number of items the request had, the rest the response body.
// Never a crash; a body read as an answer has exactly one result per item, each with an
// HTTP status, and a reused parser reads the same body the same way.
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
  if (parser.all_indexed()) require(ok && parser.results().empty(), "results beside errors:false");
  const std::size_t n = parser.results().size();
  const bool all = parser.all_indexed();
  require(parser.parse(body, expected) == ok && parser.results().size() == n && parser.all_indexed() == all,
          "a reused parser read the body differently");
  return 0;
}
