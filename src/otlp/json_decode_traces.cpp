// OTLP/JSON traces: TracesData, Span and its events and links.
#include "otlp/json_codec.h"
#include "otlp/json_decoder.h"

namespace tern::otlp::json_detail {

bool Decoder::span_event(od::value& v, SpanEvent& e) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (key_is(k, "timeUnixNano", "time_unix_nano"))
      return in("time_unix_nano", [&] { return integer(f, e.time_unix_nano); });
    if (k == "name") return in("name", [&] { return str(f, e.name); });
    if (k == "attributes") return in("attributes", [&] { return key_values(f, e.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, e.dropped_attributes_count); });
    return true;
  });
}

bool Decoder::span_link(od::value& v, SpanLink& l) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, l.trace_id); });
    if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, l.span_id); });
    if (key_is(k, "traceState", "trace_state"))
      return in("trace_state", [&] { return str(f, l.trace_state); });
    if (k == "attributes") return in("attributes", [&] { return key_values(f, l.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, l.dropped_attributes_count); });
    if (k == "flags") return in("flags", [&] { return integer(f, l.flags); });
    return true;
  });
}

bool Decoder::span(od::value& v, Span& s) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, s.trace_id); });
    if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, s.span_id); });
    if (key_is(k, "traceState", "trace_state"))
      return in("trace_state", [&] { return str(f, s.trace_state); });
    if (key_is(k, "parentSpanId", "parent_span_id"))
      return in("parent_span_id", [&] { return id(f, s.parent_span_id); });
    if (k == "flags") return in("flags", [&] { return integer(f, s.flags); });
    if (k == "name") return in("name", [&] { return str(f, s.name); });
    if (k == "kind")
      return in("kind", [&] {
        std::int32_t x = static_cast<std::int32_t>(s.kind);
        bool ok = enumeration(f, x,
                              {"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
                               "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"});
        s.kind = static_cast<SpanKind>(x);
        return ok;
      });
    if (key_is(k, "startTimeUnixNano", "start_time_unix_nano"))
      return in("start_time_unix_nano", [&] { return integer(f, s.start_time_unix_nano); });
    if (key_is(k, "endTimeUnixNano", "end_time_unix_nano"))
      return in("end_time_unix_nano", [&] { return integer(f, s.end_time_unix_nano); });
    if (k == "attributes") return in("attributes", [&] { return key_values(f, s.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, s.dropped_attributes_count); });
    if (k == "events") return in("events", [&] { return message_list(f, s.events, &Decoder::span_event); });
    if (key_is(k, "droppedEventsCount", "dropped_events_count"))
      return in("dropped_events_count", [&] { return integer(f, s.dropped_events_count); });
    if (k == "links") return in("links", [&] { return message_list(f, s.links, &Decoder::span_link); });
    if (key_is(k, "droppedLinksCount", "dropped_links_count"))
      return in("dropped_links_count", [&] { return integer(f, s.dropped_links_count); });
    if (k == "status")
      return in("status", [&] {
        return fields(f, [&](std::string_view k2, od::value& f2) {
          if (k2 == "message") return in("message", [&] { return str(f2, s.status.message); });
          if (k2 == "code")
            return in("code", [&] {
              std::int32_t x = static_cast<std::int32_t>(s.status.code);
              bool ok = enumeration(f2, x, {"STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"});
              s.status.code = static_cast<StatusCode>(x);
              return ok;
            });
          return true;
        });
      });
    return true;
  });
}

bool Decoder::traces(std::string_view k, od::value& f, TracesData& out) {
  if (!key_is(k, "resourceSpans", "resource_spans")) return true;
  return in("resource_spans", [&] {
    return elements(f, [&](od::value& rv) {
      auto& rs = out.resource_spans.emplace_back(arena_);
      return resource_wrapper(rv, rs, "scopeSpans", "scope_spans", [&](od::value& sv) {
        return elements(sv, [&](od::value& se) {
          auto& ss = rs.scope_spans.emplace_back(arena_);
          return scope_wrapper(se, ss, "spans", "spans",
                               [&](od::value& lv) { return message_list(lv, ss.spans, &Decoder::span); });
        });
      });
    });
  });
}

}  // namespace tern::otlp::json_detail

namespace tern::otlp {

std::optional<DecodeError> decode_traces_json(std::string_view in, pdata::TracesData& out,
                                              const DecodeOptions& options) {
  return json_detail::decode(in, out, options, &json_detail::Decoder::traces);
}

}  // namespace tern::otlp
