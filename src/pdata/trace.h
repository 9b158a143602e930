#pragma once
// Traces data model: opentelemetry/proto/trace/v1 (ExportTraceServiceRequest).
#include <cstdint>

#include "pdata/common.h"
#include "pdata/delivery.h"

namespace tern::pdata {

enum class SpanKind : std::int32_t { Unspecified = 0, Internal = 1, Server = 2, Client = 3, Producer = 4, Consumer = 5 };
enum class StatusCode : std::int32_t { Unset = 0, Ok = 1, Error = 2 };

struct SpanEvent {
  explicit SpanEvent(const Arena& a) : attributes(a.vec<KeyValue>()) {}
  std::uint64_t time_unix_nano = 0;
  Str name;
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
};

struct SpanLink {
  explicit SpanLink(const Arena& a) : attributes(a.vec<KeyValue>()) {}
  TraceId trace_id{};
  SpanId span_id{};
  Str trace_state;
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
  std::uint32_t flags = 0;
};

struct Status {
  Str message;
  StatusCode code = StatusCode::Unset;
};

struct Span {
  explicit Span(const Arena& a)
      : attributes(a.vec<KeyValue>()), events(a.vec<SpanEvent>()), links(a.vec<SpanLink>()) {}
  TraceId trace_id{};
  SpanId span_id{};
  Str trace_state;
  SpanId parent_span_id{};
  std::uint32_t flags = 0;
  Str name;
  SpanKind kind = SpanKind::Unspecified;
  std::uint64_t start_time_unix_nano = 0;
  std::uint64_t end_time_unix_nano = 0;
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
  Vec<SpanEvent> events;
  std::uint32_t dropped_events_count = 0;
  Vec<SpanLink> links;
  std::uint32_t dropped_links_count = 0;
  Status status;
};

struct ScopeSpans {
  explicit ScopeSpans(const Arena& a) : scope(a), spans(a.vec<Span>()) {}
  InstrumentationScope scope;
  Vec<Span> spans;
  Str schema_url;
};

struct ResourceSpans {
  explicit ResourceSpans(const Arena& a) : resource(a), scope_spans(a.vec<ScopeSpans>()) {}
  Resource resource;
  Vec<ScopeSpans> scope_spans;
  Str schema_url;
};

// One ExportTraceServiceRequest. Owns its arena (declared first: destroyed last).
struct TracesData {
  TracesData() : resource_spans(arena.vec<ResourceSpans>()) {}
  explicit TracesData(std::size_t arena_bytes) : arena(arena_bytes), resource_spans(arena.vec<ResourceSpans>()) {}
  Arena arena;
  Vec<ResourceSpans> resource_spans;
  // Set by producers that need to know when the batch is settled (pdata/delivery.h).
  DeliveryTokenPtr delivery;

  std::size_t span_count() const {
    std::size_t n = 0;
    for (const auto& rs : resource_spans)
      for (const auto& ss : rs.scope_spans) n += ss.spans.size();
    return n;
  }
};

}  // namespace tern::pdata
