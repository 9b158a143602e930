// OTLP/protobuf traces: TracesData down to Span, its events, links and status.
#include "otlp/proto_codec.h"
#include "otlp/proto_decoder.h"

namespace tern::otlp::proto_detail {
namespace {

bool decode_event(Ctx& c, Cur r, pdata::SpanEvent& e) {
  e.attributes.reserve(count_field(r, 3));
  FIELD_LOOP {
    case 1:
      FIXED64("time_unix_nano", e.time_unix_nano)
    case 2:
      STR("name", e.name)
    case 3:
      ATTR("attributes", e.attributes)
    case 4:
      VARINT("dropped_attributes_count", e.dropped_attributes_count, std::uint32_t)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_link(Ctx& c, Cur r, pdata::SpanLink& l) {
  l.attributes.reserve(count_field(r, 4));
  FIELD_LOOP {
    case 1: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, l.trace_id, "trace_id"));
      break;
    }
    case 2: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, l.span_id, "span_id"));
      break;
    }
    case 3:
      STR("trace_state", l.trace_state)
    case 4:
      ATTR("attributes", l.attributes)
    case 5:
      VARINT("dropped_attributes_count", l.dropped_attributes_count, std::uint32_t)
    case 6:
      FIXED32("flags", l.flags)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_status(Ctx& c, Cur r, pdata::Status& s) {
  FIELD_LOOP {
    case 2:
      STR("message", s.message)
    case 3:
      INT32("code", s.code, pdata::StatusCode)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_span(Ctx& c, Cur r, pdata::Span& s) {
  reserve_attributes(s.attributes, c.span_attrs_hint, r, 9);
  FIELD_LOOP {
    case 1: {
      EXPECT("trace_id", kLen);
      TRY_IN("trace_id", read_id(c, r, s.trace_id, "trace_id"));
      break;
    }
    case 2: {
      EXPECT("span_id", kLen);
      TRY_IN("span_id", read_id(c, r, s.span_id, "span_id"));
      break;
    }
    case 3:
      STR("trace_state", s.trace_state)
    case 4: {
      EXPECT("parent_span_id", kLen);
      TRY_IN("parent_span_id", read_id(c, r, s.parent_span_id, "parent_span_id"));
      break;
    }
    case 5:
      STR("name", s.name)
    case 6:
      INT32("kind", s.kind, pdata::SpanKind)
    case 7:
      FIXED64("start_time_unix_nano", s.start_time_unix_nano)
    case 8:
      FIXED64("end_time_unix_nano", s.end_time_unix_nano)
    case 9:
      ATTR("attributes", s.attributes)
    case 10:
      VARINT("dropped_attributes_count", s.dropped_attributes_count, std::uint32_t)
    case 11:
      RESERVE_AT_FIRST(s.events);
      REPEATED("events", s.events, decode_event)
    case 12:
      VARINT("dropped_events_count", s.dropped_events_count, std::uint32_t)
    case 13:
      RESERVE_AT_FIRST(s.links);
      REPEATED("links", s.links, decode_link)
    case 14:
      VARINT("dropped_links_count", s.dropped_links_count, std::uint32_t)
    case 15:
      MSG("status", decode_status(c, sub, s.status))
    case 16:
      FIXED32("flags", s.flags)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  c.span_attrs_hint = s.attributes.size();
  return true;
}

bool decode_scope_spans(Ctx& c, Cur r, pdata::ScopeSpans& ss) {
  ss.spans.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1:
      MSG("scope", decode_scope(c, sub, ss.scope))
    case 2:
      REPEATED("spans", ss.spans, decode_span)
    case 3:
      STR("schema_url", ss.schema_url)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_resource_spans(Ctx& c, Cur r, pdata::ResourceSpans& rs) {
  rs.scope_spans.reserve(count_field(r, 2));
  FIELD_LOOP {
    case 1:
      MSG("resource", decode_resource(c, sub, rs.resource))
    case 2:
      REPEATED("scope_spans", rs.scope_spans, decode_scope_spans)
    case 3:
      STR("schema_url", rs.schema_url)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

bool decode_traces(Ctx& c, Cur r, pdata::TracesData& d) {
  d.resource_spans.reserve(d.resource_spans.size() + count_field(r, 1));
  FIELD_LOOP {
    case 1:
      REPEATED("resource_spans", d.resource_spans, decode_resource_spans)
      SKIP_DEFAULT;
  }
  FIELD_LOOP_END
  return true;
}

}  // namespace
}  // namespace tern::otlp::proto_detail

namespace tern::otlp {

std::optional<DecodeError> decode_traces_proto(std::string_view in, pdata::TracesData& out,
                                               const DecodeOptions& options) {
  return proto_detail::run(in, out, options, proto_detail::decode_traces);
}

}  // namespace tern::otlp
