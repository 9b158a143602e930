#pragma once
// Reading an Elasticsearch `_bulk` response: per item its status and, for failures, the
// index, error type and reason (what the exporter needs to settle, retry or dead-letter
// each item). Untrusted input: any body gives true or false, never a crash
// (fuzz/es_bulk_response_fuzz.cpp).
#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tern::exporter::es {

// The `filter_path` the exporter asks for (bulk-delivery.md's, exactly): per-item status and
// error only, so responses stay small. Not `errors`: the items are the truth, and a response
// whose `errors` said false while items failed was settled as all indexed.
inline constexpr std::string_view kBulkFilterPath =
    "items.*._index,items.*.status,items.*.error.type,items.*.error.reason";

struct BulkItemResult {
  int status = 0;
  std::string index, type, reason;  // filled for failures (status >= 300) only
};

// One per worker: the simdjson parser and the result vector are reused.
class BulkResponseParser {
 public:
  // True when `body` answers a request of `expected` items: either all_indexed() (a scan of
  // the bytes found `expected` items, each 200 or 201, and no error; results() stays empty)
  // or results() holds `expected` entries, each with a status. False for anything else
  // (not JSON, no `items` array, an item without status, another item count).
  // `body` gets SIMDJSON_PADDING bytes of spare capacity (its contents do not change).
  bool parse(std::string& body, std::size_t expected);
  bool all_indexed() const { return all_indexed_; }
  const std::vector<BulkItemResult>& results() const { return results_; }

 private:
  simdjson::dom::parser parser_;
  std::vector<BulkItemResult> results_;
  bool all_indexed_ = false;
};

}  // namespace tern::exporter::es
