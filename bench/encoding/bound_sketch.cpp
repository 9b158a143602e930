// The Bound/logs sketches (bound_sketch.h). Built with the encoder's -O3, not the
// benchmarks' -O2, so that the comparison with Encode/logs/direct is like for like.
#include "bound_sketch.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "text/json_writer.h"

namespace tern::bench {
namespace {

namespace json = text::json;
using Cursor = text::JsonCursor;
using pdata::ValueKind;
using text::JsonWriter;

// The workload's route and its empty resource and scope, padded as Encoder keeps them.
struct Fragments {
  std::string action = "{\"create\":{\"_index\":\"logs-generic.otel-default\"}}\n";
  std::string data_stream =
      ",\"data_stream\":{\"type\":\"logs\",\"dataset\":\"generic.otel\",\"namespace\":\"default\"}";
  std::string tail = ",\"resource\":{},\"scope\":{}";
  Fragments() {
    json::pad(action);
    json::pad(data_stream);
    json::pad(tail);
  }
};

// The checks a correct encoder makes on every record (the spec's excluded, routing, geo and
// event.name keys; see Encoder). A hit means the record is not the workload's shape.
[[gnu::always_inline]] inline bool special_key(std::string_view k, ValueKind kind) {
  const std::size_t n = k.size();
  if (n == 10) return k == "event.name";
  if (n < 13) return false;
  if (kind == ValueKind::Double && n >= 16) return true;  // maybe half of a geo point
  if (k[0] == 'd')
    return k == "data_stream.type" || k == "data_stream.dataset" || k == "data_stream.namespace";
  if (k[0] == 'e')
    return k == "elasticsearch.mapping.hints" || k == "elasticsearch.document_id" ||
           k == "elasticsearch.index";
  return false;
}

[[noreturn]] void outside_shape() {
  // The benchmark feeds only the workload; anything else is a bug in the benchmark.
  std::abort();
}

template <SketchVariant V>
inline char* quoted(char* d, std::string_view s) {
  if constexpr (V == SketchVariant::Unescaped) {
    *d++ = '"';
#if defined(TERN_JSON_PAGE_READS)
    // As json::escaped reads short strings (one 16-byte load within the page), minus the check.
    const auto at = reinterpret_cast<std::uintptr_t>(s.data());
    if (s.size() - 1 < 16 && (at & (json::kPage - 1)) <= json::kPage - 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data())));
      d += s.size();
    } else {
      d = json::raw(d, s);
    }
#else
    d = json::raw(d, s);
#endif
    *d++ = '"';
    return d;
  } else {
    return json::string(d, s);
  }
}

template <SketchVariant V>
char* scalar(char* d, const pdata::AnyValue& v) {
  switch (v.kind) {
    case ValueKind::String:
      return quoted<V>(d, v.string_value);
    case ValueKind::Int:
      return json::integer(d, v.int_value);
    case ValueKind::Double:
      return json::dbl(d, v.double_value);
    case ValueKind::Bool:
      return v.bool_value ? json::lit(d, "true") : json::lit(d, "false");
    default:
      outside_shape();
  }
}

// Room for one attribute of the workload's shape: key and string value up to 64 bytes.
constexpr std::size_t kAttributeRoom = 2 * json::string_room(64) + 2;
constexpr std::size_t kRecordRoom = 1024;  // everything but the attributes

template <SketchVariant V>
void encode(const pdata::LogsData& logs, encoding::EncodedBatch& out) {
  static const Fragments f;
  constexpr bool kChecked = V == SketchVariant::Checked;
  out.clear();
  JsonWriter w(out.data);
  const std::size_t base = w.size();
  for (const auto& rl : logs.resource_logs) {
    for (const auto& sl : rl.scope_logs) {
      for (const auto& r : sl.log_records) {
        if constexpr (kChecked) {
          if (!pdata::is_zero(r.trace_id) || !pdata::is_zero(r.span_id) || r.dropped_attributes_count ||
              r.attributes.empty() || !r.event_name.empty() || r.severity_text.empty() || !r.severity_number)
            outside_shape();
        }
        // Unchecked variants reserve the record's worst case once (the workload has six
        // attributes); Checked reserves per attribute as a general encoder must.
        char* d = w.at(kRecordRoom + (kChecked ? 0 : r.attributes.size() * kAttributeRoom));
        const std::size_t start = w.pos(d);  // a position: a reservation may move the buffer
        d = json::padded_copy(d, f.action);
        const std::size_t action_size = w.pos(d) - start;
        d = json::lit(d, "{\"@timestamp\":");
        d = w.timestamp(d, r.time_unix_nano);
        d = json::lit(d, ",\"observed_timestamp\":");
        d = w.timestamp(d, r.observed_time_unix_nano);
        d = json::padded_copy(d, f.data_stream);
        d = json::lit(d, ",\"severity_text\":");
        d = quoted<V>(d, r.severity_text);
        d = json::lit(d, ",\"severity_number\":");
        d = json::integer(d, r.severity_number);
        d = json::lit(d, ",\"attributes\":{");
        if constexpr (kChecked) {
          w.done(d);
          Cursor c(w);
          for (const auto& kv : r.attributes) {
            if (special_key(kv.key, kv.value.kind) || kv.key.size() > 64 ||
                (kv.value.kind == ValueKind::String && kv.value.string_value.size() > 64))
              outside_shape();
            char* a = quoted<V>(c.room(kAttributeRoom), kv.key);
            *a++ = ':';
            a = scalar<V>(a, kv.value);
            *a++ = ',';
            c.done(a);
          }
          c.sync();
          d = w.at(kRecordRoom);
        } else {
          for (const auto& kv : r.attributes) {
            d = quoted<V>(d, kv.key);
            *d++ = ':';
            d = scalar<V>(d, kv.value);
            *d++ = ',';
          }
        }
        d[-1] = '}';  // the last attribute's ','
        d = json::padded_copy(d, f.tail);
        d = json::lit(d, ",\"body\":{\"text\":");
        d = quoted<V>(d, r.body.string_value);
        d = json::lit(d, "}}\n");
        const std::size_t end = w.pos(d);
        w.done(d);
        encoding::EncodedItem item;
        item.offset = static_cast<std::uint32_t>(start - base);
        item.size = static_cast<std::uint32_t>(end - start);
        item.action_size = static_cast<std::uint32_t>(action_size);
        out.items.push_back(item);
      }
    }
  }
}

}  // namespace

void encode_logs_sketch(SketchVariant variant, const pdata::LogsData& logs, encoding::EncodedBatch& out) {
  switch (variant) {
    case SketchVariant::Unescaped:
      return encode<SketchVariant::Unescaped>(logs, out);
    case SketchVariant::Sketch:
      return encode<SketchVariant::Sketch>(logs, out);
    case SketchVariant::Checked:
      return encode<SketchVariant::Checked>(logs, out);
  }
}

}  // namespace tern::bench
