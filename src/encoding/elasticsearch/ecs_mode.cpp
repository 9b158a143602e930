// The "ecs" mapping mode (docs/elasticsearch-mapping.md): log records and spans with their
// OpenTelemetry semantic-convention names mapped to Elastic Common Schema fields, as the
// OpenTelemetry Collector's Elasticsearch exporter writes them, so that dashboards and
// pipelines built on ECS keep working. Documents are FlatDocuments (sorted, de-duplicated,
// de-dotted), routed as in the none mode. Data points are not written in this mode.
#include <string_view>

#include "encoding/elasticsearch/ecs_fields.h"
#include "encoding/elasticsearch/encoder.h"
#include "encoding/elasticsearch/encoder_internal.h"
#include "encoding/elasticsearch/flat_document.h"
#include "text/json_writer.h"

namespace tern::encoding::es {

namespace ecs {

const pdata::AnyValue* find(const pdata::Attributes& attrs, std::string_view key) {
  for (const auto& kv : attrs)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

std::string_view str(const pdata::AnyValue* v) {
  return v && v->kind == pdata::ValueKind::String ? std::string_view(v->string_value) : std::string_view();
}

void agent_name(const pdata::Attributes& resource, std::string& out) {
  const pdata::AnyValue* sdk_name = find(resource, "telemetry.sdk.name");
  std::string_view language = str(find(resource, "telemetry.sdk.language"));
  const pdata::AnyValue* distro_attr = find(resource, "telemetry.distro.name");
  const std::string_view distro = str(distro_attr);
  if (distro_attr && language.empty()) language = "unknown";
  out.assign(sdk_name ? str(sdk_name) : std::string_view("otlp"));
  if (!distro.empty())
    out.append("/").append(language).append("/").append(distro);
  else if (!language.empty())
    out.append("/").append(language);
}

std::string_view agent_version(const pdata::Attributes& resource) {
  const pdata::AnyValue* version = find(resource, "telemetry.distro.version");
  return str(version ? version : find(resource, "telemetry.sdk.version"));
}

std::string_view host_os_type(const pdata::Attributes& resource) {
  std::string_view type;
  const std::string_view os_type = str(find(resource, "os.type"));
  if (os_type == "windows" || os_type == "linux")
    type = os_type;
  else if (os_type == "darwin")
    type = "macos";
  else if (os_type == "aix" || os_type == "hpux" || os_type == "solaris")
    type = "unix";
  const std::string_view os_name = str(find(resource, "os.name"));
  if (os_name == "Android") type = "android";
  if (os_name == "iOS") type = "ios";
  return type;
}

std::string_view span_kind(pdata::SpanKind k) {
  // The Collector's name without its "SPAN_KIND_" (Elastic APM's), none when unspecified.
  if (k == pdata::SpanKind::Unspecified) return {};
  const std::string_view name = internal::span_kind_name(k);
  return name.empty() ? name : name.substr(std::string_view("SPAN_KIND_").size());
}

}  // namespace ecs

using internal::add_data_stream_fields;
using pdata::AnyValue;
using pdata::Attributes;
using pdata::ValueKind;
using namespace ecs;

namespace {

// `attrs` into `doc` through `table`; `queue_key`: where messaging.destination.name goes
// (spans).
template <std::size_t N>
void add_converted(FlatDocument& doc, const Attributes& attrs, const EcsConversion (&table)[N],
                   std::string_view queue_key = {}) {
  for (const auto& kv : attrs) {
    const EcsConversion* c = find_conversion(table, kv.key);
    if (!c) {
      doc.add_value(kv.key, kv.value);
      continue;
    }
    if (c->skip) continue;
    const std::string_view to = c->to.empty() ? queue_key : c->to;
    if (!c->unless_present || !find(attrs, to)) doc.add_value(to, kv.value);
    if (c->preserve) doc.add_value(kv.key, kv.value);
  }
}

}  // namespace

void Encoder::prepare_ecs_scope(const pdata::Resource& resource) {
  agent_name(resource.attributes, ecs_agent_name_);
  ecs_agent_version_ = agent_version(resource.attributes);
  ecs_os_type_ = host_os_type(resource.attributes);
}

void Encoder::add_ecs_resource_and_scope(FlatDocument& doc, const pdata::Resource& resource,
                                         const pdata::InstrumentationScope& scope) {
  add_converted(doc, resource.attributes, kResourceConversions);
  doc.add_attributes({}, scope.attributes);  // no conversions for scope attributes
}

void Encoder::encode_scope_logs_ecs(JsonWriter& w, std::size_t written, const pdata::ResourceLogs& rl,
                                    const pdata::ScopeLogs& sl, EncodedBatch& out) {
  if (!begin_flat_scope(written, config_.logs_index, "logs", sl.scope, sl.schema_url, rl.resource,
                        sl.log_records.size(), out))
    return;
  prepare_ecs_scope(rl.resource);
  FlatDocument& doc = flat_doc();
  for (const auto& r : sl.log_records) {
    const Route& route = flat_route(config_.logs_index, "logs", r.attributes, sl.scope, rl.resource);
    ItemStart item;
    if (!begin_item(w, route, &r.attributes, out, item)) continue;
    // In the Collector's order: of equal names, the field added last wins.
    doc.clear();
    add_ecs_resource_and_scope(doc, rl.resource, sl.scope);
    add_converted(doc, r.attributes, kLogConversions);
    add_data_stream_fields(doc, route, false);
    doc.add_string("agent.name", ecs_agent_name_);
    doc.add_string("agent.version", ecs_agent_version_);
    doc.add_string("host.os.type", ecs_os_type_);
    doc.add_timestamp("@timestamp", r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
    doc.add_id("trace.id", r.trace_id);
    doc.add_id("span.id", r.span_id);
    if (r.severity_number) doc.add_int("event.severity", r.severity_number);
    doc.add_string("log.level", r.severity_text);
    if (r.body.kind == ValueKind::String) doc.add_string_always("message", r.body.string_value);
    doc.write(w);
    end_item(w, item, out);
  }
}

// Span links as ECS writes them: [{"span":{"id":".."},"trace":{"id":".."}}], a link with
// neither id `null`.
std::string_view Encoder::ecs_links_json(const pdata::Vec<pdata::SpanLink>& links) {
  ecs_links_.clear();
  {
    JsonWriter w(ecs_links_, 0);
    w.put('[');
    for (std::size_t i = 0; i < links.size(); ++i) {
      const auto& l = links[i];
      if (i) w.put(',');
      const bool span = !pdata::is_zero(l.span_id), trace = !pdata::is_zero(l.trace_id);
      if (!span && !trace) {
        w.lit("null");
        continue;
      }
      w.put('{');
      if (span) {
        w.lit("\"span\":{\"id\":\"");
        w.hex(l.span_id.data(), l.span_id.size());
        w.lit("\"}");
      }
      if (trace) {
        if (span) w.put(',');
        w.lit("\"trace\":{\"id\":\"");
        w.hex(l.trace_id.data(), l.trace_id.size());
        w.lit("\"}");
      }
      w.put('}');
    }
    w.put(']');
  }  // the writer trims ecs_links_ to what it wrote
  return ecs_links_;
}

void Encoder::encode_scope_spans_ecs(JsonWriter& w, std::size_t written, const pdata::ResourceSpans& rs,
                                     const pdata::ScopeSpans& ss, EncodedBatch& out) {
  if (!begin_flat_scope(written, config_.traces_index, "traces", ss.scope, ss.schema_url, rs.resource,
                        ss.spans.size(), out))
    return;
  prepare_ecs_scope(rs.resource);
  FlatDocument& doc = flat_doc();
  for (const auto& s : ss.spans) {
    const Route& route = flat_route(config_.traces_index, "traces", s.attributes, ss.scope, rs.resource);
    ItemStart item;
    begin_item(w, route, nullptr, out, item);  // no `_id`: cannot fail
    doc.clear();
    add_ecs_resource_and_scope(doc, rs.resource, ss.scope);
    // Elastic APM tells a transaction from a span by `processor.event`.
    const std::string_view queue_key = str(find(s.attributes, "processor.event")) == "transaction"
                                           ? std::string_view("transaction.message.queue.name")
                                           : std::string_view("span.message.queue.name");
    add_converted(doc, s.attributes, kSpanConversions, queue_key);
    doc.add_string("host.os.type", ecs_os_type_);
    add_data_stream_fields(doc, route, false);
    doc.add_timestamp("@timestamp", s.start_time_unix_nano);
    doc.add_id("trace.id", s.trace_id);
    doc.add_id("span.id", s.span_id);
    doc.add_string("span.name", s.name);
    doc.add_id("parent.id", s.parent_span_id);
    if (s.status.code == pdata::StatusCode::Ok)
      doc.add_string("event.outcome", "success");
    else if (s.status.code == pdata::StatusCode::Error)
      doc.add_string("event.outcome", "failure");
    if (!s.links.empty()) doc.add_fragment("span.links", ecs_links_json(s.links));
    doc.add_string("span.kind", span_kind(s.kind));
    doc.write(w);
    end_item(w, item, out);
  }
}

}  // namespace tern::encoding::es
