#pragma once
// What the encoder's source files share and nothing else uses: the otel, bodymap, none
// and raw modes all append items and route records the same way.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "encoding/encoded_batch.h"
#include "pdata/common.h"
#include "pdata/trace.h"

namespace tern::encoding::es {
class FlatDocument;
struct Route;
}  // namespace tern::encoding::es

namespace tern::encoding::es::internal {

// Appends the item written at [start, end) whose action line ends at `action_end`.
// `shared_at`/`shared_size`: the item's action line when it was not written at `start`.
inline void set_item(EncodedItem& it, std::size_t start, std::size_t action_end, std::size_t end,
                     std::uint32_t events, std::uint32_t shared_at = EncodedItem::kInlineAction,
                     std::uint32_t shared_size = 0) {
  it.offset = static_cast<std::uint32_t>(start);
  it.size = static_cast<std::uint32_t>(end - start) + shared_size;
  it.action_size = static_cast<std::uint32_t>(action_end - start) + shared_size;
  it.events = events;
  it.action_at = shared_at;
}
// set_item() in two steps, for a document whose end is not known yet: open_item() fills
// in everything but the size, which holds shared_size - start (uint32 arithmetic wraps),
// and close_item() adds the end to it. `action_size`: the action line's bytes, shared or not.
inline void open_item(EncodedItem& it, std::size_t start, std::size_t action_size, std::uint32_t shared_at,
                      std::uint32_t shared_size) {
  it.offset = static_cast<std::uint32_t>(start);
  it.size = shared_size - static_cast<std::uint32_t>(start);
  it.action_size = static_cast<std::uint32_t>(action_size);
  it.events = 1;
  it.action_at = shared_at;
}
inline void close_item(EncodedItem& it, std::size_t end) { it.size += static_cast<std::uint32_t>(end); }
inline void push_item(EncodedBatch& out, std::size_t start, std::size_t action_end, std::size_t end,
                      std::uint32_t events, std::uint32_t shared_at = EncodedItem::kInlineAction,
                      std::uint32_t shared_size = 0) {
  set_item(out.items.emplace_back(), start, action_end, end, events, shared_at, shared_size);
}

// A log record's `_id` under logs_dynamic_id: its non-empty `elasticsearch.document_id`, as
// the Collector reads it (pcommon's AsString: an int 5 is "5", a bool "true", bytes base64).
// A value that is not a string is written into `text`, which the view then points at.
std::string_view document_id(const pdata::Attributes& record, std::string& text);
// Its `elasticsearch.ingest_pipeline` under logs_dynamic_pipeline, read the same way.
std::string_view ingest_pipeline(const pdata::Attributes& record, std::string& text);
// Elasticsearch's limit on an `_id` (IndexRequest.validate, UTF-8 bytes). A longer one fails
// the whole bulk request with 400, not just its item, and the exporter would send that
// request again for ever: the record is rejected here instead (document_id_too_long).
inline constexpr std::size_t kMaxDocumentIdBytes = 512;

// A data stream route's type, dataset and namespace as the fields `data_stream.*`, under
// `Attributes.` when `under_attributes` (none mode); nothing for a route to an index. The
// Collector's none, raw and ecs modes add them after the item's attributes, so that they
// win over attributes of the same name.
void add_data_stream_fields(FlatDocument& doc, const Route& route, bool under_attributes);

// A span kind as the Collector names it (its traceutil.SpanKindStr): "SPAN_KIND_SERVER", ...,
// "SPAN_KIND_UNSPECIFIED"; "" for a kind OTLP does not define.
std::string_view span_kind_name(pdata::SpanKind k);

// True when a record carries an attribute that can change its route
// (`elasticsearch.index`, `data_stream.dataset`, `data_stream.namespace`).
bool has_routing_key(const pdata::Attributes& attrs);

}  // namespace tern::encoding::es::internal
