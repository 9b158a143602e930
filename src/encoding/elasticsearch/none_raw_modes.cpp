// The "none" and "raw" mapping modes (the OpenTelemetry Collector's original document
// shape, docs/elasticsearch-mapping.md): log records and spans as FlatDocuments, routed
// to `<type>-<dataset>-<namespace>` without the otel mode's ".otel" suffix.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "encoding/elasticsearch/encoder.h"
#include "encoding/elasticsearch/encoder_internal.h"
#include "encoding/elasticsearch/flat_document.h"
#include "text/base64.h"
#include "text/json_writer.h"

namespace tern::encoding::es {

using internal::add_data_stream_fields;
using pdata::AnyValue;
using pdata::KeyValue;
using pdata::ValueKind;

namespace {

constexpr int kMaxLinkDepth = 64;

// A double as Go's encoding/json writes it: shortest round trip, fixed notation for
// 1e-6 <= |v| < 1e21 (5.0 is "5"), otherwise exponent form with "e-7", not "e-07".
// Non-finite values, which Go refuses to encode, are null.
void go_double(JsonWriter& w, double v) {
  if (!std::isfinite(v)) return w.lit("null");
  char* d = w.at(json::kDoubleRoom);
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    char* e = std::to_chars(d, d + json::kDoubleRoom, v, std::chars_format::scientific).ptr;
    if (e - d >= 4 && e[-4] == 'e' && e[-3] == '-' && e[-2] == '0') {
      e[-2] = e[-1];
      --e;
    }
    return w.done(e);
  }
  w.done(std::to_chars(d, d + json::kDoubleRoom, v, std::chars_format::fixed).ptr);
}

void go_base64(JsonWriter& w, std::string_view s) {
  char* d = w.at(text::base64_size(s.size()) + 3);
  *d++ = '"';
  d = text::base64(d, s);
  *d++ = '"';
  w.done(d);
}

}  // namespace

std::string_view internal::span_kind_name(pdata::SpanKind k) {
  switch (k) {
    case pdata::SpanKind::Internal:
      return "SPAN_KIND_INTERNAL";
    case pdata::SpanKind::Server:
      return "SPAN_KIND_SERVER";
    case pdata::SpanKind::Client:
      return "SPAN_KIND_CLIENT";
    case pdata::SpanKind::Producer:
      return "SPAN_KIND_PRODUCER";
    case pdata::SpanKind::Consumer:
      return "SPAN_KIND_CONSUMER";
    case pdata::SpanKind::Unspecified:
      return "SPAN_KIND_UNSPECIFIED";
  }
  return "";  // a kind OTLP does not define: no Kind field, as the Collector
}

void internal::add_data_stream_fields(FlatDocument& doc, const Route& route, bool under_attributes) {
  if (!route.data_stream) return;
  doc.add_string(under_attributes ? "Attributes.data_stream.type" : "data_stream.type", route.type);
  doc.add_string(under_attributes ? "Attributes.data_stream.dataset" : "data_stream.dataset", route.dataset);
  doc.add_string(under_attributes ? "Attributes.data_stream.namespace" : "data_stream.namespace", route.ns);
}

// A value as Go's encoding/json writes pcommon's AsRaw() of it: maps with their keys
// sorted and one value per key (the last), bytes in base64.
void Encoder::write_go_json(JsonWriter& w, const AnyValue& v, int depth) {
  if (depth > kMaxLinkDepth) return w.lit("null");
  switch (v.kind) {
    case ValueKind::String:
      return w.string(v.string_value);
    case ValueKind::Int:
      return w.integer(v.int_value);
    case ValueKind::Double:
      return go_double(w, v.double_value);
    case ValueKind::Bool:
      return v.bool_value ? w.lit("true") : w.lit("false");
    case ValueKind::Bytes:
      return go_base64(w, v.string_value);
    case ValueKind::Array: {
      w.put('[');
      if (v.array)
        for (std::size_t i = 0; i < v.array->size(); ++i) {
          if (i) w.put(',');
          write_go_json(w, (*v.array)[i], depth + 1);
        }
      return w.put(']');
    }
    case ValueKind::KvList:
      return write_go_map(w, v.kvlist, depth);
    case ValueKind::Empty:
      return w.lit("null");
  }
}

void Encoder::write_go_map(JsonWriter& w, const pdata::Attributes* kv, int depth) {
  w.put('{');
  if (kv && !kv->empty()) {
    // Sized once for every depth: a resize while an outer map's keys are in use would move them.
    if (sorted_keys_.empty()) sorted_keys_.resize(kMaxLinkDepth + 1);
    auto& keys = sorted_keys_[depth];
    keys.clear();
    for (const auto& e : *kv) keys.push_back(&e);
    std::stable_sort(keys.begin(), keys.end(),
                     [](const KeyValue* a, const KeyValue* b) { return a->key < b->key; });
    bool comma = false;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i + 1 < keys.size() && keys[i + 1]->key == keys[i]->key) continue;  // the last one wins
      if (comma) w.put(',');
      comma = true;
      w.string(keys[i]->key);
      w.put(':');
      // keys is not used again at this depth until this map is done; deeper maps use their own.
      write_go_json(w, keys[i]->value, depth + 1);
    }
  }
  w.put('}');
}

// A span's links as the Collector's `Link` field: JSON text of
// [{"attribute":{..},"spanID":"..","traceID":".."}] ("[]" without links).
std::string_view Encoder::links_json(const pdata::Vec<pdata::SpanLink>& links) {
  tmp_.clear();
  {
    JsonWriter w(tmp_, 0);
    w.put('[');
    for (std::size_t i = 0; i < links.size(); ++i) {
      const auto& l = links[i];
      if (i) w.put(',');
      w.lit("{\"attribute\":");
      write_go_map(w, &l.attributes, 0);
      w.lit(",\"spanID\":\"");
      if (!pdata::is_zero(l.span_id)) w.hex(l.span_id.data(), l.span_id.size());
      w.lit("\",\"traceID\":\"");
      if (!pdata::is_zero(l.trace_id)) w.hex(l.trace_id.data(), l.trace_id.size());
      w.lit("\"}");
    }
    w.put(']');
  }
  return tmp_;
}

void Encoder::render_flat_scope(const pdata::Resource& resource, const pdata::InstrumentationScope& scope) {
  // What every document of the scope repeats, sorted and de-dotted once: `Resource` and
  // `Scope` are objects no other field of a none-mode document can reach into.
  FlatDocument& part = flat_part();
  flat_resource_.clear();
  part.clear();
  part.add_attributes({}, resource.attributes);
  if (!part.empty()) {
    JsonWriter w(flat_resource_, 0);
    part.write(w);
  }
  flat_scope_.clear();
  part.clear();
  // The Collector builds a map from name, version and then the attributes, so an
  // attribute called `name` or `version` replaces the field: added later, it wins.
  part.add_string_always("name", scope.name);
  part.add_string_always("version", scope.version);
  part.add_attributes({}, scope.attributes);
  JsonWriter w(flat_scope_, 0);
  part.write(w);
}

namespace {
// True when a raw-mode key lands in the `Resource` or `Scope` object (`Scope`, `Resource.x`).
bool reaches_resource_or_scope(std::string_view k) {
  for (const std::string_view top : {std::string_view("Resource"), std::string_view("Scope")})
    if (k.starts_with(top) && (k.size() == top.size() || k[top.size()] == '.')) return true;
  return false;
}
bool reaches_resource_or_scope(const pdata::Attributes& attrs) {
  for (const auto& kv : attrs)
    if (reaches_resource_or_scope(kv.key)) return true;
  return false;
}
}  // namespace

// `merge`: a raw-mode record has fields inside `Resource` or `Scope`, which then merge with
// them field by field, in the Collector's order; otherwise both objects are the text
// rendered once for the scope.
void Encoder::add_resource(FlatDocument& doc, bool merge, const pdata::Resource& resource) {
  if (merge)
    doc.add_attributes("Resource", resource.attributes);
  else if (!flat_resource_.empty())
    doc.add_fragment("Resource", flat_resource_);
}

void Encoder::add_scope(FlatDocument& doc, bool merge, const pdata::InstrumentationScope& scope) {
  if (!merge) return doc.add_fragment("Scope", flat_scope_);
  doc.add_string_always("Scope.name", scope.name);
  doc.add_string_always("Scope.version", scope.version);
  doc.add_attributes("Scope", scope.attributes);
}

void Encoder::encode_scope_logs_flat(JsonWriter& w, std::size_t written, MappingMode mode,
                                     const pdata::ResourceLogs& rl, const pdata::ScopeLogs& sl,
                                     EncodedBatch& out) {
  // What every document repeats: its action line, resource and scope (tail_ measures
  // them in otel form, about the size they take here).
  if (!begin_flat_scope(written, config_.logs_index, "logs", sl.scope, sl.schema_url, rl.resource,
                        sl.log_records.size(), out))
    return;
  render_flat_scope(rl.resource, sl.scope);
  const std::string_view attributes_prefix = mode == MappingMode::Raw ? "" : "Attributes";
  FlatDocument& doc = flat_doc();
  for (const auto& r : sl.log_records) {
    const Route& route = flat_route(config_.logs_index, "logs", r.attributes, sl.scope, rl.resource);
    ItemStart item;
    if (!begin_item(w, route, &r.attributes, out, item)) continue;
    doc.clear();
    doc.add_timestamp("@timestamp", r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
    // The fields in the order they sort (the sort then only orders the attributes among
    // themselves), except in raw mode, where an attribute may have a field's name and must
    // come after it, as in the Collector, to win.
    if (mode == MappingMode::None) {
      doc.add_attributes(attributes_prefix, r.attributes);
      add_data_stream_fields(doc, route, true);
      doc.add_value("Body", r.body);
      add_resource(doc, false, rl.resource);
      add_scope(doc, false, sl.scope);
      doc.add_int("SeverityNumber", r.severity_number);
      doc.add_string("SeverityText", r.severity_text);
      doc.add_id("SpanId", r.span_id);
      doc.add_int("TraceFlags", r.flags);
      doc.add_id("TraceId", r.trace_id);
    } else {
      doc.add_value("Body", r.body);
      doc.add_int("SeverityNumber", r.severity_number);
      doc.add_string("SeverityText", r.severity_text);
      doc.add_id("SpanId", r.span_id);
      doc.add_int("TraceFlags", r.flags);
      doc.add_id("TraceId", r.trace_id);
      doc.add_attributes(attributes_prefix, r.attributes);
      add_data_stream_fields(doc, route, false);
      const bool merge = reaches_resource_or_scope(r.attributes);
      add_resource(doc, merge, rl.resource);
      add_scope(doc, merge, sl.scope);
    }
    doc.write(w);
    end_item(w, item, out);
  }
}

void Encoder::encode_scope_spans_flat(JsonWriter& w, std::size_t written, MappingMode mode,
                                      const pdata::ResourceSpans& rs, const pdata::ScopeSpans& ss,
                                      EncodedBatch& out) {
  if (!begin_flat_scope(written, config_.traces_index, "traces", ss.scope, ss.schema_url, rs.resource,
                        ss.spans.size(), out))
    return;
  render_flat_scope(rs.resource, ss.scope);
  const bool raw = mode == MappingMode::Raw;
  FlatDocument& doc = flat_doc();
  for (const auto& s : ss.spans) {
    const Route& route = flat_route(config_.traces_index, "traces", s.attributes, ss.scope, rs.resource);
    ItemStart item;
    begin_item(w, route, nullptr, out, item);  // no `_id`: cannot fail
    doc.clear();
    // Each event as `Events.<name>.time` and `Events.<name>.<attribute>` (raw: no
    // `Events.`); events that share a name share their fields, the last one winning.
    const auto add_events = [&] {
      for (const auto& e : s.events) {
        event_key_.clear();
        if (!raw) event_key_.append("Events.");
        event_key_.append(e.name);
        const std::size_t name_end = event_key_.size();
        event_key_.append(".time");
        doc.add_timestamp(event_key_, e.time_unix_nano);
        doc.add_attributes(std::string_view(event_key_).substr(0, name_end), e.attributes);
      }
    };
    // Microseconds, truncated toward zero; end before start is negative.
    const auto duration = static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano) / 1000;
    doc.add_timestamp("@timestamp", s.start_time_unix_nano);
    if (!raw) {  // in the order they sort, as for logs
      doc.add_attributes("Attributes", s.attributes);
      add_data_stream_fields(doc, route, true);
      doc.add_int("Duration", duration);
      doc.add_timestamp("EndTimestamp", s.end_time_unix_nano);
      add_events();
      doc.add_string("Kind", internal::span_kind_name(s.kind));
      doc.add_text("Link", links_json(s.links));
      doc.add_string("Name", s.name);
      doc.add_id("ParentSpanId", s.parent_span_id);
      add_resource(doc, false, rs.resource);
      add_scope(doc, false, ss.scope);
      doc.add_id("SpanId", s.span_id);
      doc.add_id("TraceId", s.trace_id);
      doc.add_int("TraceStatus", static_cast<std::int64_t>(s.status.code));
      doc.add_string("TraceStatusDescription", s.status.message);
    } else {  // the Collector's order: attributes and events win over equal field names
      doc.add_timestamp("EndTimestamp", s.end_time_unix_nano);
      doc.add_id("TraceId", s.trace_id);
      doc.add_id("SpanId", s.span_id);
      doc.add_id("ParentSpanId", s.parent_span_id);
      doc.add_string("Name", s.name);
      doc.add_string("Kind", internal::span_kind_name(s.kind));
      doc.add_int("TraceStatus", static_cast<std::int64_t>(s.status.code));
      doc.add_string("TraceStatusDescription", s.status.message);
      doc.add_text("Link", links_json(s.links));
      bool merge = reaches_resource_or_scope(s.attributes);
      for (const auto& e : s.events) merge = merge || reaches_resource_or_scope(e.name);
      doc.add_attributes({}, s.attributes);
      add_data_stream_fields(doc, route, false);
      add_resource(doc, merge, rs.resource);
      add_events();
      doc.add_int("Duration", duration);
      add_scope(doc, merge, ss.scope);
    }
    doc.write(w);
    end_item(w, item, out);
  }
}

FlatDocument& Encoder::flat_doc() {
  if (!flat_doc_) flat_doc_ = std::make_unique<FlatDocument>();
  return *flat_doc_;
}

FlatDocument& Encoder::flat_part() {
  if (!flat_part_) flat_part_ = std::make_unique<FlatDocument>();
  return *flat_part_;
}

}  // namespace tern::encoding::es
