#include "objmodel.h"
#include "objmodel_item.h"

#include <xxhash.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tern::bench {
namespace {

using Json = nlohmann::ordered_json;
using namespace tern::pdata;
namespace es = tern::encoding::es;

std::string hex(const void* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    auto b = static_cast<const unsigned char*>(p)[i];
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

std::string ts_string(std::uint64_t ns) {
  std::string rem = std::to_string(ns % 1000000);
  return std::to_string(ns / 1000000) + "." + std::string(6 - rem.size(), '0') + rem;
}

Json value(const AnyValue& v) {
  switch (v.kind) {
    case ValueKind::String:
      return std::string(v.string_value);
    case ValueKind::Bool:
      return v.bool_value;
    case ValueKind::Int:
      return v.int_value;
    case ValueKind::Double:
      return std::isfinite(v.double_value) ? Json(v.double_value) : Json(nullptr);
    case ValueKind::Bytes:
      return hex(v.string_value.data(), v.string_value.size());
    case ValueKind::Array: {
      Json a = Json::array();
      if (v.array)
        for (const auto& e : *v.array) a.push_back(value(e));
      return a;
    }
    case ValueKind::KvList: {
      Json o = Json::object();
      if (v.kvlist)
        for (const auto& kv : *v.kvlist) o[std::string(kv.key)] = value(kv.value);
      return o;
    }
    default:
      return nullptr;
  }
}

bool excluded(std::string_view k) {
  return k == "data_stream.type" || k == "data_stream.dataset" || k == "data_stream.namespace" ||
         k == "elasticsearch.mapping.hints" || k == "elasticsearch.document_id" || k == "elasticsearch.index";
}

void add_attributes(Json& doc, const Attributes& attrs, bool metrics_mode) {
  if (attrs.empty()) return;
  Json o = Json::object();
  for (const auto& kv : attrs) {
    if (excluded(kv.key)) continue;
    if (metrics_mode && kv.value.kind == ValueKind::KvList)
      o[std::string(kv.key)] = dump(value(kv.value));
    else
      o[std::string(kv.key)] = value(kv.value);
  }
  doc["attributes"] = o;
}

Json resource(const Resource& r, std::string_view schema_url, bool mm) {
  Json o = Json::object();
  if (!schema_url.empty()) o["schema_url"] = std::string(schema_url);
  add_attributes(o, r.attributes, mm);
  if (r.dropped_attributes_count) o["dropped_attributes_count"] = r.dropped_attributes_count;
  return o;
}

Json scope(const InstrumentationScope& s, std::string_view schema_url, bool mm) {
  Json o = Json::object();
  if (!schema_url.empty()) o["schema_url"] = std::string(schema_url);
  if (!s.name.empty()) o["name"] = std::string(s.name);
  if (!s.version.empty()) o["version"] = std::string(s.version);
  add_attributes(o, s.attributes, mm);
  if (s.dropped_attributes_count) o["dropped_attributes_count"] = s.dropped_attributes_count;
  return o;
}

void data_stream(Json& doc, const es::Route& r) {
  if (r.data_stream)
    doc["data_stream"] = {{"type", std::string(r.type)}, {"dataset", r.dataset}, {"namespace", r.ns}};
}

Json action(const es::Route& r) { return {{"create", {{"_index", r.index}}}}; }

template <std::size_t N>
void id(Json& doc, const char* key, const std::array<std::uint8_t, N>& v) {
  if (!is_zero(v)) doc[key] = hex(v.data(), N);
}

Json create(const es::Route& route, const Attributes& attrs, bool dynamic_id) {
  const AnyValue* v = dynamic_id ? find_attribute(attrs, "elasticsearch.document_id") : nullptr;
  if (!v || v->kind != ValueKind::String || v->string_value.empty()) return action(route);
  Json c = Json::object();
  c["_id"] = std::string(v->string_value);
  c["_index"] = route.index;
  return {{"create", c}};
}

}  // namespace

void ObjModelEncoder::encode_logs_bodymap(const LogsData& logs, encoding::EncodedBatch& out) {
  es::Route route;
  for (const auto& rl : logs.resource_logs)
    for (const auto& sl : rl.scope_logs)
      for (const auto& r : sl.log_records) {
        if (r.body.kind != ValueKind::KvList) {
          out.stats.count(encoding::EncodeReject::BodyNotMap);
        } else if (!es::resolve_bodymap_route(config_.logs_index, &r.attributes, sl.scope,
                                              rl.resource.attributes, route)) {
          out.stats.count(encoding::EncodeReject::BadDataStreamType);
        } else {
          append_item(out, create(route, r.attributes, config_.logs_dynamic_id), value(r.body), 1);
        }
      }
}

void ObjModelEncoder::encode_logs(const LogsData& logs, encoding::EncodedBatch& out) {
  if (config_.mode == es::MappingMode::BodyMap) return encode_logs_bodymap(logs, out);
  if (config_.mode == es::MappingMode::None || config_.mode == es::MappingMode::Raw)
    return encode_logs_flat(logs, out);
  if (config_.mode == es::MappingMode::Ecs) return encode_logs_ecs(logs, out);
  es::Route route;
  for (const auto& rl : logs.resource_logs)
    for (const auto& sl : rl.scope_logs)
      for (const auto& r : sl.log_records) {
        es::resolve_route(config_.logs_index, "logs", &r.attributes, sl.scope, rl.resource.attributes, route);
        const Json act = create(route, r.attributes, config_.logs_dynamic_id);
        Json doc = Json::object();
        doc["@timestamp"] = ts_string(r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
        doc["observed_timestamp"] = ts_string(r.observed_time_unix_nano);
        data_stream(doc, route);
        if (!r.severity_text.empty()) doc["severity_text"] = std::string(r.severity_text);
        if (r.severity_number) doc["severity_number"] = r.severity_number;
        id(doc, "trace_id", r.trace_id);
        id(doc, "span_id", r.span_id);
        add_attributes(doc, r.attributes, false);
        if (r.dropped_attributes_count) doc["dropped_attributes_count"] = r.dropped_attributes_count;
        std::string event_name(r.event_name);
        if (event_name.empty()) {
          const AnyValue* v = find_attribute(r.attributes, "event.name");
          if (v && v->kind == ValueKind::String) event_name = std::string(v->string_value);
        }
        if (!event_name.empty()) doc["event_name"] = event_name;
        doc["resource"] = resource(rl.resource, rl.schema_url, false);
        doc["scope"] = scope(sl.scope, sl.schema_url, false);
        if (r.body.kind == ValueKind::KvList) {
          doc["body"] = {{"structured", value(r.body)}};
        } else if (r.body.kind == ValueKind::Array) {
          bool all_maps = true;
          if (r.body.array)
            for (const auto& e : *r.body.array) all_maps = all_maps && e.kind == ValueKind::KvList;
          if (all_maps)
            doc["body"] = {{"structured", value(r.body)}};
          else
            doc["body"] = {{"structured", {{"value", value(r.body)}}}};
        } else if (r.body.kind != ValueKind::Empty) {
          doc["body"] = {{"text", value(r.body)}};
        }
        append_item(out, act, doc, 1);
      }
}

void ObjModelEncoder::encode_traces(const TracesData& traces, encoding::EncodedBatch& out) {
  if (config_.mode == es::MappingMode::None || config_.mode == es::MappingMode::Raw)
    return encode_traces_flat(traces, out);
  if (config_.mode == es::MappingMode::Ecs) return encode_traces_ecs(traces, out);
  static const char* kinds[] = {"Unspecified", "Internal", "Server", "Client", "Producer", "Consumer"};
  es::Route route;
  for (const auto& rs : traces.resource_spans)
    for (const auto& ss : rs.scope_spans)
      for (const auto& s : ss.spans) {
        es::resolve_route(config_.traces_index, "traces", &s.attributes, ss.scope, rs.resource.attributes,
                          route);
        Json doc = Json::object();
        doc["@timestamp"] = ts_string(s.start_time_unix_nano);
        data_stream(doc, route);
        id(doc, "trace_id", s.trace_id);
        id(doc, "span_id", s.span_id);
        if (!s.trace_state.empty()) doc["trace_state"] = std::string(s.trace_state);
        id(doc, "parent_span_id", s.parent_span_id);
        if (!s.name.empty()) doc["name"] = std::string(s.name);
        const int k = static_cast<int>(s.kind);
        doc["kind"] = kinds[k >= 0 && k <= 5 ? k : 0];
        doc["duration"] = static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano);
        add_attributes(doc, s.attributes, false);
        if (s.dropped_attributes_count) doc["dropped_attributes_count"] = s.dropped_attributes_count;
        if (s.dropped_events_count) doc["dropped_events_count"] = s.dropped_events_count;
        Json links = Json::array();
        for (const auto& l : s.links) {
          Json lj = Json::object();
          id(lj, "trace_id", l.trace_id);
          id(lj, "span_id", l.span_id);
          if (!l.trace_state.empty()) lj["trace_state"] = std::string(l.trace_state);
          add_attributes(lj, l.attributes, false);
          if (l.dropped_attributes_count) lj["dropped_attributes_count"] = l.dropped_attributes_count;
          links.push_back(lj);
        }
        doc["links"] = links;
        if (s.dropped_links_count) doc["dropped_links_count"] = s.dropped_links_count;
        Json status = Json::object();
        if (!s.status.message.empty()) status["message"] = std::string(s.status.message);
        if (s.status.code == StatusCode::Ok) status["code"] = "Ok";
        if (s.status.code == StatusCode::Error) status["code"] = "Error";
        doc["status"] = status;
        doc["resource"] = resource(rs.resource, rs.schema_url, false);
        doc["scope"] = scope(ss.scope, ss.schema_url, false);
        append_item(out, action(route), doc, 1);

        for (const auto& e : s.events) {
          es::resolve_route(config_.logs_index, "logs", &e.attributes, ss.scope, rs.resource.attributes,
                            route);
          Json ev = Json::object();
          ev["@timestamp"] = ts_string(e.time_unix_nano);
          data_stream(ev, route);
          id(ev, "trace_id", s.trace_id);
          id(ev, "span_id", s.span_id);
          if (e.dropped_attributes_count) ev["dropped_attributes_count"] = e.dropped_attributes_count;
          if (!e.name.empty()) ev["event_name"] = std::string(e.name);
          add_attributes(ev, e.attributes, false);
          if (!e.name.empty()) ev["attributes"]["event.name"] = std::string(e.name);
          ev["resource"] = resource(rs.resource, rs.schema_url, false);
          ev["scope"] = scope(ss.scope, ss.schema_url, false);
          append_item(out, action(route), ev, 1);
        }
      }
}

void ObjModelEncoder::encode_metrics(const MetricsData& metrics, encoding::EncodedBatch& out) {
  // Gauges and sums (number points) only: what the benchmark workload uses.
  struct Doc {
    es::Route route;
    Json doc;
    Json templates = Json::object();
    std::vector<std::string> names;
  };
  for (const auto& rm : metrics.resource_metrics)
    for (const auto& sm : rm.scope_metrics) {
      std::vector<Doc> docs;
      std::map<std::string, std::size_t> by_key;
      for (const auto& m : sm.metrics)
        for (const auto& p : m.number_points) {
          es::Route route;
          es::resolve_route(config_.metrics_index, "metrics", &p.attributes, sm.scope, rm.resource.attributes,
                            route);
          Json attrs = Json::object();
          for (const auto& kv : p.attributes) attrs[std::string(kv.key)] = value(kv.value);
          const std::string key = route.index + "|" + std::to_string(p.time_unix_nano) + "|" +
                                  std::to_string(p.start_time_unix_nano) + "|" + std::string(m.unit) + "|" +
                                  dump(attrs);
          auto [it, fresh] = by_key.emplace(key, docs.size());
          if (fresh) {
            Doc d;
            d.route = route;
            d.doc["@timestamp"] = p.time_unix_nano / 1000000;
            if (p.start_time_unix_nano) d.doc["start_timestamp"] = p.start_time_unix_nano / 1000000;
            if (!m.unit.empty()) d.doc["unit"] = std::string(m.unit);
            data_stream(d.doc, route);
            add_attributes(d.doc, p.attributes, true);
            d.doc["resource"] = resource(rm.resource, rm.schema_url, true);
            d.doc["scope"] = scope(sm.scope, sm.schema_url, true);
            d.doc["metrics"] = Json::object();
            docs.push_back(std::move(d));
          }
          Doc& d = docs[it->second];
          const std::string name(m.name);
          if (std::find(d.names.begin(), d.names.end(), name) != d.names.end()) {
            out.stats.count(encoding::EncodeReject::DuplicateMetricName);
            continue;
          }
          const bool counter = m.type == MetricType::Sum && m.is_monotonic &&
                               m.temporality == AggregationTemporality::Cumulative;
          if (p.value_type == NumberType::Int) {
            d.doc["metrics"][name] = p.as_int;
            d.templates["metrics." + name] = counter ? "counter_long" : "gauge_long";
          } else if (std::isfinite(p.as_double)) {
            d.doc["metrics"][name] = p.as_double;
            d.templates["metrics." + name] = counter ? "counter_double" : "gauge_double";
          } else {
            out.stats.count(encoding::EncodeReject::NanOrInf);
            continue;
          }
          d.names.push_back(name);
        }
      for (auto& d : docs) {
        if (d.names.empty()) continue;
        std::sort(d.names.begin(), d.names.end());
        std::string all;
        for (const auto& n : d.names) all += n;
        char buf[17];
        std::snprintf(buf, sizeof buf, "%016llx",
                      static_cast<unsigned long long>(XXH64(all.data(), all.size(), 0)));
        d.doc["_metric_names_hash"] = buf;
        Json act = {{"create", {{"_index", d.route.index}, {"dynamic_templates", d.templates}}}};
        append_item(out, act, d.doc, static_cast<std::uint32_t>(d.names.size()));
      }
    }
}

}  // namespace tern::bench
