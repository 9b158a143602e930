#pragma once
// Reading a `_bulk` body: NDJSON action lines (and document lines) into items, with the
// request-level errors Elasticsearch 8's BulkRequestParser and BulkRequest.validate give.
#include <simdjson.h>

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sink/bulk_item.h"
#include "sink/sink_core.h"

namespace tern::sink {

struct ParsedBulk {
  std::vector<Item> items;
  // What items point to beyond the request: copies of parsed names and ids (the parser's
  // strings live only until its next line). A deque: its strings never move.
  std::deque<std::string> owned;
};

// Reads `body` into `out`. `body` gets simdjson's padding appended; items point into it, so
// it must outlive them. A whole-request error is returned as its reply.
std::optional<Reply> parse_bulk(std::string& body, std::string_view default_index,
                                const BulkDefaults& defaults, simdjson::dom::parser& parser, ParsedBulk& out);

}  // namespace tern::sink
