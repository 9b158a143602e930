#pragma once
// Elasticsearch bulk encoder: the "otel" mapping mode (contract:
// shared/spec/elasticsearch-otel-mode.md, summarized in docs/elasticsearch-mapping.md), the
// logs-only "bodymap" mode, and the Collector's original "none" and "raw" modes
// (MappingMode below).
//
// Writes action line + document line per item straight from pdata into an
// EncodedBatch: in otel and bodymap modes no document tree, no sorting, no de-dotting;
// none and raw sort and de-dot by their definition, through a reused FlatDocument. One
// Encoder per thread; it owns reusable scratch so steady-state encoding allocates nothing
// (reuse the EncodedBatch after clear()).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/elasticsearch/index_name.h"
#include "encoding/encoded_batch.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::text {
class JsonWriter;
class JsonCursor;
namespace json {}
}  // namespace tern::text

namespace tern::encoding::es {

// The encoder writes through text/json_writer.h, by these short names.
using text::JsonCursor;
using text::JsonWriter;
namespace json = text::json;

class FlatDocument;

// How documents are shaped (`mapping.mode`, as the OpenTelemetry Collector names them).
//  - Otel: the OTel-native documents of the spec, for every signal.
//  - BodyMap: logs only; a record's body, which must be a map, *is* the document (keys
//    verbatim, nothing added). Routing as in otel mode but without the ".otel" dataset
//    suffix, and `data_stream.type` ("logs" or "metrics") may send a record to a metrics
//    data stream. Records with another body, and spans and data points, are rejected
//    (counted per reason, never sent).
//  - None: logs and spans in the Collector's original shape (its objmodel): `@timestamp`,
//    `TraceId`, `SeverityText`, `Body`, `Attributes.*`, `Resource.*`, `Scope.*`, ...;
//    nested maps flattened, fields sorted and de-duplicated, written de-dotted. Span
//    events are fields of their span (`Events.<name>.*`). Routing as bodymap's, with the
//    signal's type. Data points are rejected (unsupported_mode).
//  - Raw: None without the `Attributes.` and `Events.` prefixes.
// A scope's `elastic.mapping.mode` attribute overrides the configured mode for its items
// (Encoder::scope_mode).
//  - Ecs: logs and spans with semantic-convention names mapped to Elastic Common Schema
//    fields (`host.name` -> `host.hostname`, the body -> `message`, ...), as the
//    Collector's ecs mode writes them (ecs_mode.cpp); FlatDocuments routed as none's. Data
//    points are rejected (unsupported_mode).
enum class MappingMode : std::uint8_t { Otel, BodyMap, None, Raw, Ecs };
// "otel" | "bodymap" | "none" | "raw" | "ecs" in any case, "" and "no" for none (the
// Collector's names and aliases); nullopt for any other name.
std::optional<MappingMode> parse_mapping_mode(std::string_view name);

struct EncoderConfig {
  std::string logs_index;        // static index for logs and span events (empty: route)
  std::string metrics_index;     // static index for metrics (empty: route)
  std::string traces_index;      // static index for spans (empty: route)
  bool logs_dynamic_id = false;  // `elasticsearch.document_id` attribute -> `_id`
  // A log record's `elasticsearch.ingest_pipeline` attribute -> its action line's `pipeline`
  // (the Collector's logs_dynamic_pipeline); otel mode then leaves the attribute out.
  bool logs_dynamic_pipeline = false;
  MappingMode mode = MappingMode::Otel;
  // Modes a scope's `elastic.mapping.mode` attribute may ask for (bit 1 << MappingMode);
  // a scope asking for another one is counted unsupported_mode (`mapping.allowed_modes`).
  std::uint8_t allowed_modes = 0xff;
  // Items whose action line is the same as one already written in the same output (same
  // route, no `_id`, no dynamic templates) refer to it instead of repeating it
  // (EncodedItem::action_at). The collector's queues use it: ~12 % less memory per queued
  // log record. Off by default: `data` is then the bulk NDJSON as is.
  bool share_action_lines = false;
  // Bounds what one encode call appends. Every document repeats its resource and scope,
  // so a small request can ask for an enormous output: a 1 MiB resource attribute on 300
  // empty log records is a 1 MB request and 300 MiB of documents, and the 20 MiB requests
  // receivers accept by default could ask for terabytes. Before a scope is written, its
  // documents times what each of them repeats (action line, data_stream, resource and
  // scope) is checked against what is left; a scope that cannot fit is not written and
  // its items are counted as output_too_large. (Also keeps EncodedItem's 32-bit offsets
  // valid.)
  std::size_t max_output_bytes = std::size_t{512} << 20;
};

// Where one document goes (spec section 3). Shared with the objmodel baseline.
struct Route {
  std::string index;
  bool data_stream = false;  // true: write the `data_stream` object below
  std::string_view type;     // logs | metrics | traces
  std::string dataset;       // sanitized, with ".otel"
  std::string ns;            // sanitized
};

// Resolves the target index. `record` may be null (no record-level attributes).
void resolve_route(std::string_view static_index, std::string_view type, const pdata::Attributes* record,
                   const pdata::InstrumentationScope& scope, const pdata::Attributes& resource, Route& out);

// The bodymap mode's route: as resolve_route without the ".otel" dataset suffix, and a data
// stream's type from `data_stream.type` (record, scope, resource; "logs" when absent),
// which may only be "logs" or "metrics": false otherwise. A static or an explicit index
// takes no type, as in otel mode.
bool resolve_bodymap_route(std::string_view static_index, const pdata::Attributes* record,
                           const pdata::InstrumentationScope& scope, const pdata::Attributes& resource,
                           Route& out);

// The none and raw modes' route: as resolve_route without the ".otel" dataset suffix.
void resolve_legacy_route(std::string_view static_index, std::string_view type,
                          const pdata::Attributes* record, const pdata::InstrumentationScope& scope,
                          const pdata::Attributes& resource, Route& out);

// Spec section 3 helpers, exposed for tests.
std::string_view receiver_from_scope_name(std::string_view scope_name);  // "" when no match
// Each character of kIndexNameForbidden (index_name.h) becomes '_'.
void sanitize_dataset(std::string_view in, std::string& out);  // without ".otel"
void sanitize_namespace(std::string_view in, std::string& out);

class Encoder {
 public:
  explicit Encoder(EncoderConfig config);
  ~Encoder();
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  void encode_logs(const pdata::LogsData& logs, EncodedBatch& out);
  void encode_traces(const pdata::TracesData& traces, EncodedBatch& out);
  void encode_metrics(const pdata::MetricsData& metrics, EncodedBatch& out);

 private:
  struct PointRef {
    const pdata::Metric* metric;
    std::uint32_t index;  // data point index within the metric
    std::uint32_t next;   // next point of the same group (kNone: last)
  };
  struct Group {
    std::uint64_t hash;
    std::uint32_t head, tail;  // PointRef indexes
    // The route of a group a point with routing attributes opened: its strings in pool_.
    std::uint32_t pool_off, index_len, dataset_len, ns_len;
    bool data_stream;
    bool scope_route;  // opened by a point on the scope's route (nothing in pool_)
  };
  // A route with its JSON fragments written once: every record that follows
  // the scope's route copies them instead of re-escaping the index and names.
  struct CachedRoute {
    Route route;
    std::string action;       // {"create":{"_index":"..."}}\n
    std::string index_field;  // {"create":{"_index":"..."   (metrics add dynamic_templates)
    std::string data_stream;  // ,"data_stream":{...} or empty
    // Offset of `action` in the output being written (share_action_lines), npos if not there.
    std::size_t written_at = std::string::npos;
    // Room for a log document up to its attributes but for severity_text.
    std::size_t record_room = 0;
    void build();
  };
  // Where an item's action line is when it was not written inline (share_action_lines).
  struct SharedAction {
    std::uint32_t at = EncodedItem::kInlineAction;
    std::uint32_t size = 0;
  };

  // Route of one record: the scope-level route cached per scope unless the
  // record carries routing attributes itself (the common case is a cache hit).
  const Route& route_for(const pdata::Attributes& record);
  const Route& event_route_for(const pdata::Attributes& event);
  void begin_scope_route(std::string_view static_index, std::string_view type,
                         const pdata::InstrumentationScope& scope, const pdata::Attributes& resource);
  // `dynamic_templates` (metrics) is read as a padded fragment: a JsonWriter::padded_view().
  SharedAction write_action(JsonWriter& w, const Route& route, std::string_view id, std::string_view pipeline,
                            std::string_view dynamic_templates);
  // The cached fragments of `route` when it is the scope's or the span events' route.
  CachedRoute* cached_route(const Route& route);
  void begin_output();  // a new output: no action line of it can be shared yet
  void write_data_stream(JsonWriter& w, const Route& r);
  // False when `docs` documents that each repeat `per_doc` bytes cannot fit in what is
  // left of config_.max_output_bytes after the `written` bytes of this call (plus the
  // action lines it shared instead of repeating); the scope's `events` are then counted as
  // output_too_large.
  bool fits_output(std::size_t written, std::size_t docs, std::size_t per_doc, std::uint64_t events,
                   EncodeStats& stats) const;
  // What every log or span document of the current scope repeats: action line,
  // data_stream, resource and scope.
  std::size_t scope_doc_bytes() const;
  void encode_logs_into(const pdata::LogsData& logs, EncodedBatch& out);
  // The otel documents of one scope's log records (route, resource and scope cached).
  void encode_scope_logs_otel(JsonWriter& w, const pdata::ScopeLogs& sl, EncodedBatch& out);
  // False (nothing written) when the record's `_id` is over kMaxDocumentIdBytes.
  bool write_scanned_log_record(JsonWriter& w, const pdata::LogRecord& r, EncodedItem& item);
  // One otel log record on the scope's route in one pass; false (nothing written) when it
  // carries routing attributes of its own.
  bool write_log_record(JsonWriter& w, const pdata::LogRecord& r, EncodedItem& item);
  // The members of an attributes object through the writer's cursor `c`; false when a
  // document written in one pass (kMayTakeBack) has a route of its own (encoder.cpp).
  template <bool kMayTakeBack>
  bool write_attribute_members(JsonCursor& c, JsonWriter& w, const pdata::Attributes& attrs,
                               const pdata::AnyValue** event_attribute, bool metrics_mode,
                               bool log_record = false);
  char* inline_action(char* d, CachedRoute& route, std::size_t start, EncodedItem& item);
  // Undoes the document of `item`, opened by inline_action (write_log_record, write_span).
  void take_back(JsonWriter& w, CachedRoute& route, const EncodedItem& item);
  // An otel log document from after its attributes to its end; it completes `item`, which
  // internal::open_item() began.
  void end_log_document(JsonCursor& c, JsonWriter& w, const pdata::LogRecord& r,
                        const pdata::AnyValue* event_attribute, EncodedItem& item);
  // The scope's `elastic.mapping.mode` attribute (its text, of any kind; "" is none)
  // overrides config_.mode for its items, as in the OpenTelemetry Collector; nullopt for a mode this
  // encoder does not have or config_.allowed_modes leaves out: the scope's items are
  // counted unsupported_mode.
  std::optional<MappingMode> scope_mode(const pdata::InstrumentationScope& scope) const;
  // `written`: bytes this encode call has appended so far (fits_output).
  void encode_scope_logs_bodymap(JsonWriter& w, std::size_t written, const pdata::ResourceLogs& rl,
                                 const pdata::ScopeLogs& sl, EncodedBatch& out);
  // What the bodymap, none, raw and ecs modes share (encoder.cpp). An item under way: where
  // it starts, where its action line ends, and that line when it is shared.
  struct ItemStart {
    std::size_t start = 0, action_end = 0;
    SharedAction shared;
  };
  // The scope's route (none, raw, ecs: no ".otel" suffix) and whether its documents fit
  // the output (fits_output); `items` documents, each repeating about the scope's tail_.
  bool begin_flat_scope(std::size_t written, std::string_view static_index, std::string_view type,
                        const pdata::InstrumentationScope& scope, std::string_view schema_url,
                        const pdata::Resource& resource, std::size_t items, EncodedBatch& out);
  // An item's route: the scope's, or its own when it carries routing attributes.
  const Route& flat_route(std::string_view static_index, std::string_view type,
                          const pdata::Attributes& attrs, const pdata::InstrumentationScope& scope,
                          const pdata::Resource& resource);
  // Writes an item's action line, with the `_id` and `pipeline` logs_dynamic_id and
  // logs_dynamic_pipeline take from `record` (a log record's attributes; null for spans);
  // false, nothing written and the item counted, when that `_id` is too long.
  bool begin_item(JsonWriter& w, const Route& route, const pdata::Attributes* record, EncodedBatch& out,
                  ItemStart& item);
  // A log record's `_id` and `pipeline` as the config asks for them (views into the record
  // or into id_text_ / pipeline_text_).
  std::string_view record_id(const pdata::Attributes& record);
  std::string_view record_pipeline(const pdata::Attributes& record);
  // Ends the item's document line and appends the item.
  void end_item(JsonWriter& w, const ItemStart& item, EncodedBatch& out);
  // The none and raw modes (none_raw_modes.cpp).
  void encode_scope_logs_flat(JsonWriter& w, std::size_t written, MappingMode mode,
                              const pdata::ResourceLogs& rl, const pdata::ScopeLogs& sl, EncodedBatch& out);
  void encode_scope_spans_flat(JsonWriter& w, std::size_t written, MappingMode mode,
                               const pdata::ResourceSpans& rs, const pdata::ScopeSpans& ss,
                               EncodedBatch& out);
  // The ecs mode (ecs_mode.cpp).
  void encode_scope_logs_ecs(JsonWriter& w, std::size_t written, const pdata::ResourceLogs& rl,
                             const pdata::ScopeLogs& sl, EncodedBatch& out);
  void encode_scope_spans_ecs(JsonWriter& w, std::size_t written, const pdata::ResourceSpans& rs,
                              const pdata::ScopeSpans& ss, EncodedBatch& out);
  // ecs_agent_name_, ecs_agent_version_ and ecs_os_type_ for a resource's documents.
  void prepare_ecs_scope(const pdata::Resource& resource);
  void add_ecs_resource_and_scope(FlatDocument& doc, const pdata::Resource& resource,
                                  const pdata::InstrumentationScope& scope);
  std::string_view ecs_links_json(const pdata::Vec<pdata::SpanLink>& links);
  // flat_resource_ and flat_scope_ for the scope about to be written.
  void render_flat_scope(const pdata::Resource& resource, const pdata::InstrumentationScope& scope);
  void add_resource(FlatDocument& doc, bool merge, const pdata::Resource& resource);
  void add_scope(FlatDocument& doc, bool merge, const pdata::InstrumentationScope& scope);
  std::string_view links_json(const pdata::Vec<pdata::SpanLink>& links);
  void write_go_json(JsonWriter& w, const pdata::AnyValue& v, int depth);
  void write_go_map(JsonWriter& w, const pdata::Attributes* kv, int depth);
  FlatDocument& flat_doc();   // the document being written
  FlatDocument& flat_part();  // a scope's resource and scope objects
  void encode_traces_into(const pdata::TracesData& traces, EncodedBatch& out);
  // The otel documents of one scope's spans and their events (`docs` of them).
  void encode_scope_spans_otel(JsonWriter& w, const pdata::ScopeSpans& ss, std::size_t docs,
                               EncodedBatch& out);
  // One span on the scope's route in one pass; false (nothing written) when it carries
  // routing attributes of its own.
  bool write_span(JsonWriter& w, const pdata::Span& s, EncodedItem& item);
  void write_scanned_span(JsonWriter& w, const pdata::Span& s, EncodedItem& item);
  // A span document from after its attributes to its end (write_span's uncommon spans).
  void end_span_document(JsonWriter& w, const pdata::Span& s);
  EncodedItem* write_span_events(JsonWriter& w, const pdata::Span& s, EncodedItem* item);
  void encode_metrics_into(const pdata::MetricsData& metrics, EncodedBatch& out);
  void write_attributes(JsonWriter& w, bool& first, const pdata::Attributes& attrs, bool metrics_mode,
                        std::string_view event_name = {}, bool log_record = false);
  void end_with_attributes(JsonWriter& w, bool& first, const pdata::Attributes& attrs, std::uint32_t dropped,
                           bool metrics_mode);
  // resource_json_ = "resource":{..} once per resource; tail_ = ,<resource>,"scope":{..} once per scope.
  void cache_resource(const pdata::Resource& r, std::string_view schema_url, bool metrics_mode);
  void cache_scope(const pdata::InstrumentationScope& s, std::string_view schema_url, bool metrics_mode);
  void encode_scope_metrics(JsonWriter& w, std::size_t written, const pdata::ScopeMetrics& sm,
                            const pdata::ResourceMetrics& rm, EncodedBatch& out);
  const Route& group_route(const Group& g);
  // A point's value (its template: metric_template), or false, counted in `stats`, for one
  // the spec rejects.
  bool write_metric_value(JsonWriter& o, const pdata::Metric& m, std::uint32_t i, std::uint64_t& doc_count,
                          EncodeStats& stats);
  bool write_point_document(JsonWriter& w, const Group& g, EncodedBatch& out);
  void write_point_head(JsonWriter& w, const Route& route, const pdata::Attributes& attrs, std::uint64_t ts,
                        std::uint64_t start, std::string_view unit);
  std::uint64_t name_hash(std::string_view name);

  // Output bytes per log record, span (with its events) and data point, learned from
  // the previous batch: the output is reserved once up front instead of growing by
  // reallocation (each doubling copied everything written so far: 6 % of the CPU of a
  // file-to-Elasticsearch pipeline), and a batch waiting in the queue carries little
  // slack capacity.
  struct SizeGuess {
    std::size_t per_unit = 512;
    void reserve(std::string& data, std::size_t units) const;
    void learn(std::size_t bytes, std::size_t units);
  };
  SizeGuess log_size_, span_size_, point_size_;

  EncoderConfig config_;
  Route route_;
  CachedRoute scope_route_, event_route_;  // event_route_: span events (logs) of the current scope
  bool event_route_ready_ = false;
  std::size_t shared_action_bytes_ = 0;  // action line bytes this output shared (fits_output)
  std::size_t empty_items_ = 0;          // items of this scope left without a document (rejected)
  std::string_view static_index_, type_;
  const pdata::InstrumentationScope* scope_ = nullptr;
  const pdata::Attributes* resource_ = nullptr;
  std::string resource_json_;  // cached per resource
  std::string tail_;           // ,"resource":{..},"scope":{..} cached per scope
  std::size_t tail_room_;      // json::padded_room(tail_), kept with it: a load, not a max
  std::string tmp_;            // kvlist stringification (metrics)
  std::string id_text_;        // the text of an `_id` given as another kind than a string
  std::string pipeline_text_;  // ... and of a `pipeline`
  std::string doc_, templates_, names_concat_, pool_;
  std::vector<std::string_view> names_;
  std::string_view one_name_;        // name_hash's last name (within a scope) ...
  std::uint64_t one_name_hash_ = 0;  // ... and its hash
  std::vector<PointRef> points_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> table_;
  // none and raw modes
  std::unique_ptr<FlatDocument> flat_doc_, flat_part_;
  std::string flat_resource_, flat_scope_;  // `{...}` per scope: the Resource and Scope objects
  std::vector<std::vector<const pdata::KeyValue*>> sorted_keys_;  // per nesting depth (links_json)
  std::string event_key_;
  // ecs mode, per resource (prepare_ecs_scope); the views point into its attributes
  std::string ecs_agent_name_;
  std::string_view ecs_agent_version_, ecs_os_type_;
  std::string ecs_links_;  // a span's `span.links` as JSON text
};

}  // namespace tern::encoding::es
