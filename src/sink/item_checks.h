#pragma once
// What Elasticsearch refuses of an item before its shards, from the action line alone.
#include <string>
#include <string_view>

#include "sink/bulk_item.h"

namespace tern::sink {

// Checks in Elasticsearch's order, the first that applies deciding: index name, pipeline,
// require_alias, require_data_stream, a data stream's op type, an empty `_id`. The index
// name's verdict is kept for the next item, as consecutive items mostly share it.
class ItemChecks {
 public:
  // Fails `it` with the first check it does not pass; returns whether it did.
  bool reject(Item& it);

 private:
  std::string_view checked_index_;
  std::string index_reason_;  // empty: a valid name
  bool data_stream_index_ = false;
};

}  // namespace tern::sink
