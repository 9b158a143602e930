// The objmodel baseline for the none, raw and ecs modes: the OpenTelemetry Collector's own
// approach written plainly — a vector of (flattened key, value) fields per document,
// sorted, de-duplicated, turned into a nested nlohmann tree (de-dotting) and dumped.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "encoding/elasticsearch/ecs_fields.h"
#include "encoding/elasticsearch/flat_document.h"
#include "objmodel.h"
#include "objmodel_item.h"

namespace tern::bench {
namespace {

using Json = nlohmann::ordered_json;
using namespace tern::pdata;
namespace es = tern::encoding::es;

struct Field {
  std::string key;
  Json value;
  bool ignore = false;
};
using Doc = std::vector<Field>;

std::string flatten(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

std::string timestamp(std::uint64_t ns) {
  char buf[es::kRfc3339NanoRoom];
  return {buf, es::rfc3339_nano(buf, ns)};
}

Json tree(Doc& d);
void add_attributes(Doc& d, const std::string& path, const Attributes& attrs);

Json array_value(const AnyValue& v) {
  Json a = Json::array();
  for (const auto& e : *v.array) {
    switch (e.kind) {
      case ValueKind::String:
        a.push_back(std::string(e.string_value));
        break;
      case ValueKind::Int:
        a.push_back(e.int_value);
        break;
      case ValueKind::Double:
        a.push_back(std::isfinite(e.double_value) ? Json(e.double_value) : Json());
        break;
      case ValueKind::Bool:
        a.push_back(e.bool_value);
        break;
      case ValueKind::Array:
        a.push_back(e.array ? array_value(e) : Json::array());
        break;
      case ValueKind::KvList: {
        Doc sub;
        if (e.kvlist) add_attributes(sub, "", *e.kvlist);
        a.push_back(sub.empty() ? Json() : tree(sub));
        break;
      }
      default:
        a.push_back(nullptr);
    }
  }
  return a;
}

void add_value(Doc& d, const std::string& path, std::string_view key, const AnyValue& v) {
  switch (v.kind) {
    case ValueKind::Empty:
    case ValueKind::Bytes:
      return;
    case ValueKind::KvList:
      if (v.kvlist) add_attributes(d, flatten(path, key), *v.kvlist);
      return;
    case ValueKind::Array:
      if (v.array && !v.array->empty()) d.push_back({flatten(path, key), array_value(v)});
      return;
    case ValueKind::String:
      d.push_back({flatten(path, key), std::string(v.string_value)});
      return;
    case ValueKind::Int:
      d.push_back({flatten(path, key), v.int_value});
      return;
    case ValueKind::Double:
      d.push_back({flatten(path, key), std::isfinite(v.double_value) ? Json(v.double_value) : Json()});
      return;
    case ValueKind::Bool:
      d.push_back({flatten(path, key), v.bool_value});
      return;
  }
}

void add_attributes(Doc& d, const std::string& path, const Attributes& attrs) {
  for (const auto& kv : attrs) add_value(d, path, kv.key, kv.value);
}

// Sort, rename scalars that are also objects to `.value`, keep the last of equal keys,
// then nest by the dots.
Json tree(Doc& d) {
  const auto by_key = [](const Field& a, const Field& b) { return a.key < b.key; };
  std::stable_sort(d.begin(), d.end(), by_key);
  for (bool renamed = true; renamed;) {
    renamed = false;
    for (std::size_t i = 0; i + 1 < d.size(); ++i)
      for (std::size_t j = i + 1; j < d.size(); ++j) {
        if (d[j].key == d[i].key) continue;
        if (d[j].key.rfind(d[i].key, 0) != 0) break;
        if (d[j].key[d[i].key.size()] == '.') {
          d[i].key += ".value";
          renamed = true;
          break;
        }
      }
    if (renamed) std::stable_sort(d.begin(), d.end(), by_key);
  }
  Json out = Json::object();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i + 1 < d.size() && d[i + 1].key == d[i].key) continue;
    Json* at = &out;
    std::size_t start = 0;
    for (std::size_t dot; (dot = d[i].key.find('.', start)) != std::string::npos; start = dot + 1)
      at = &(*at)[d[i].key.substr(start, dot - start)];
    (*at)[d[i].key.substr(start)] = std::move(d[i].value);
  }
  return out;
}

void scope_fields(Doc& d, const InstrumentationScope& s) {
  d.push_back({"Scope.name", std::string(s.name)});
  d.push_back({"Scope.version", std::string(s.version)});
  add_attributes(d, "Scope", s.attributes);
}

const char* kind_name(SpanKind k) {
  static const char* names[] = {"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
                                "SPAN_KIND_CLIENT",      "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"};
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(names) ? names[i] : nullptr;
}

// ecs: `attrs` through a conversion table, as the Collector's encodeAttributesECSMode.
template <std::size_t N>
void add_converted(Doc& d, const Attributes& attrs, const es::ecs::EcsConversion (&table)[N],
                   std::string_view queue_key = {}) {
  for (const auto& kv : attrs) {
    const auto* c = es::ecs::find_conversion(table, kv.key);
    if (!c) {
      add_value(d, "", kv.key, kv.value);
    } else if (!c->skip) {
      const std::string_view to = c->to.empty() ? queue_key : c->to;
      if (!c->unless_present || !es::ecs::find(attrs, to)) add_value(d, "", to, kv.value);
      if (c->preserve) add_value(d, "", kv.key, kv.value);
    }
  }
}

void add_string(Doc& d, const char* key, std::string_view v) {
  if (!v.empty()) d.push_back({key, std::string(v)});
}

// The Collector's addDataStreamAttributes: under `prefix` (none: "Attributes"), for a data stream.
void data_stream_fields(Doc& d, const std::string& prefix, const es::Route& route) {
  if (!route.data_stream) return;
  const std::string p = prefix.empty() ? "" : prefix + ".";
  add_string(d, (p + "data_stream.type").c_str(), route.type);
  add_string(d, (p + "data_stream.dataset").c_str(), route.dataset);
  add_string(d, (p + "data_stream.namespace").c_str(), route.ns);
}

}  // namespace

void ObjModelEncoder::encode_logs_ecs(const LogsData& logs, encoding::EncodedBatch& out) {
  es::Route route;
  for (const auto& rl : logs.resource_logs)
    for (const auto& sl : rl.scope_logs)
      for (const auto& r : sl.log_records) {
        es::resolve_legacy_route(config_.logs_index, "logs", &r.attributes, sl.scope, rl.resource.attributes,
                                 route);
        const Attributes& res = rl.resource.attributes;
        Doc d;
        add_converted(d, res, es::ecs::kResourceConversions);
        add_attributes(d, "", sl.scope.attributes);
        add_converted(d, r.attributes, es::ecs::kLogConversions);
        data_stream_fields(d, "", route);
        std::string agent;
        es::ecs::agent_name(res, agent);
        add_string(d, "agent.name", agent);
        add_string(d, "agent.version", es::ecs::agent_version(res));
        add_string(d, "host.os.type", es::ecs::host_os_type(res));
        d.push_back(
            {"@timestamp", timestamp(r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano)});
        if (!is_zero(r.trace_id)) d.push_back({"trace.id", hex(r.trace_id.data(), 16)});
        if (!is_zero(r.span_id)) d.push_back({"span.id", hex(r.span_id.data(), 8)});
        if (r.severity_number) d.push_back({"event.severity", r.severity_number});
        add_string(d, "log.level", r.severity_text);
        if (r.body.kind == ValueKind::String) d.push_back({"message", std::string(r.body.string_value)});
        append_item(out, Json{{"create", {{"_index", route.index}}}}, tree(d), 1);
      }
}

void ObjModelEncoder::encode_traces_ecs(const TracesData& traces, encoding::EncodedBatch& out) {
  es::Route route;
  for (const auto& rs : traces.resource_spans)
    for (const auto& ss : rs.scope_spans)
      for (const auto& s : ss.spans) {
        es::resolve_legacy_route(config_.traces_index, "traces", &s.attributes, ss.scope,
                                 rs.resource.attributes, route);
        Doc d;
        add_converted(d, rs.resource.attributes, es::ecs::kResourceConversions);
        add_attributes(d, "", ss.scope.attributes);
        const bool transaction =
            es::ecs::str(es::ecs::find(s.attributes, "processor.event")) == "transaction";
        add_converted(d, s.attributes, es::ecs::kSpanConversions,
                      transaction ? "transaction.message.queue.name" : "span.message.queue.name");
        add_string(d, "host.os.type", es::ecs::host_os_type(rs.resource.attributes));
        data_stream_fields(d, "", route);
        d.push_back({"@timestamp", timestamp(s.start_time_unix_nano)});
        if (!is_zero(s.trace_id)) d.push_back({"trace.id", hex(s.trace_id.data(), 16)});
        if (!is_zero(s.span_id)) d.push_back({"span.id", hex(s.span_id.data(), 8)});
        add_string(d, "span.name", s.name);
        if (!is_zero(s.parent_span_id)) d.push_back({"parent.id", hex(s.parent_span_id.data(), 8)});
        if (s.status.code == StatusCode::Ok) d.push_back({"event.outcome", "success"});
        if (s.status.code == StatusCode::Error) d.push_back({"event.outcome", "failure"});
        if (!s.links.empty()) {
          Json links = Json::array();
          for (const auto& l : s.links) {
            Doc link;
            if (!is_zero(l.trace_id)) link.push_back({"trace.id", hex(l.trace_id.data(), 16)});
            if (!is_zero(l.span_id)) link.push_back({"span.id", hex(l.span_id.data(), 8)});
            links.push_back(link.empty() ? Json() : tree(link));
          }
          d.push_back({"span.links", links});
        }
        add_string(d, "span.kind", es::ecs::span_kind(s.kind));
        append_item(out, Json{{"create", {{"_index", route.index}}}}, tree(d), 1);
      }
}

void ObjModelEncoder::encode_logs_flat(const LogsData& logs, encoding::EncodedBatch& out) {
  const bool raw = config_.mode == es::MappingMode::Raw;
  es::Route route;
  for (const auto& rl : logs.resource_logs)
    for (const auto& sl : rl.scope_logs)
      for (const auto& r : sl.log_records) {
        es::resolve_legacy_route(config_.logs_index, "logs", &r.attributes, sl.scope, rl.resource.attributes,
                                 route);
        Doc d;
        d.push_back(
            {"@timestamp", timestamp(r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano)});
        if (!is_zero(r.trace_id)) d.push_back({"TraceId", hex(r.trace_id.data(), 16)});
        if (!is_zero(r.span_id)) d.push_back({"SpanId", hex(r.span_id.data(), 8)});
        d.push_back({"TraceFlags", r.flags});
        if (!r.severity_text.empty()) d.push_back({"SeverityText", std::string(r.severity_text)});
        d.push_back({"SeverityNumber", r.severity_number});
        add_value(d, "", "Body", r.body);
        add_attributes(d, raw ? "" : "Attributes", r.attributes);
        data_stream_fields(d, raw ? "" : "Attributes", route);
        add_attributes(d, "Resource", rl.resource.attributes);
        scope_fields(d, sl.scope);
        append_item(out, Json{{"create", {{"_index", route.index}}}}, tree(d), 1);
      }
}

void ObjModelEncoder::encode_traces_flat(const TracesData& traces, encoding::EncodedBatch& out) {
  const bool raw = config_.mode == es::MappingMode::Raw;
  es::Route route;
  for (const auto& rs : traces.resource_spans)
    for (const auto& ss : rs.scope_spans)
      for (const auto& s : ss.spans) {
        es::resolve_legacy_route(config_.traces_index, "traces", &s.attributes, ss.scope,
                                 rs.resource.attributes, route);
        Doc d;
        d.push_back({"@timestamp", timestamp(s.start_time_unix_nano)});
        d.push_back({"EndTimestamp", timestamp(s.end_time_unix_nano)});
        if (!is_zero(s.trace_id)) d.push_back({"TraceId", hex(s.trace_id.data(), 16)});
        if (!is_zero(s.span_id)) d.push_back({"SpanId", hex(s.span_id.data(), 8)});
        if (!is_zero(s.parent_span_id)) d.push_back({"ParentSpanId", hex(s.parent_span_id.data(), 8)});
        if (!s.name.empty()) d.push_back({"Name", std::string(s.name)});
        if (const char* k = kind_name(s.kind)) d.push_back({"Kind", k});
        d.push_back({"TraceStatus", static_cast<int>(s.status.code)});
        if (!s.status.message.empty()) d.push_back({"TraceStatusDescription", std::string(s.status.message)});
        Json links = Json::array();
        for (const auto& l : s.links) {
          Doc attrs;
          add_attributes(attrs, "", l.attributes);
          links.push_back({{"attribute", tree(attrs)},
                           {"spanID", is_zero(l.span_id) ? "" : hex(l.span_id.data(), 8)},
                           {"traceID", is_zero(l.trace_id) ? "" : hex(l.trace_id.data(), 16)}});
        }
        d.push_back({"Link", links.dump()});
        add_attributes(d, raw ? "" : "Attributes", s.attributes);
        data_stream_fields(d, raw ? "" : "Attributes", route);
        add_attributes(d, "Resource", rs.resource.attributes);
        for (const auto& e : s.events) {
          const std::string name = (raw ? "" : "Events.") + std::string(e.name);
          d.push_back({name + ".time", timestamp(e.time_unix_nano)});
          add_attributes(d, name, e.attributes);
        }
        d.push_back(
            {"Duration", static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano) / 1000});
        scope_fields(d, ss.scope);
        append_item(out, Json{{"create", {{"_index", route.index}}}}, tree(d), 1);
      }
}

}  // namespace tern::bench
