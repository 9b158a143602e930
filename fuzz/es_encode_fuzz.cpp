// libFuzzer target: arbitrary bytes -> OTLP/protobuf decoders -> Elasticsearch bulk encoder.
// Byte 0 picks the encoder and decoder options (bit 5: bodymap mode, bit 7: none mode, both:
// raw mode), the rest is the
// request (decoded as logs, traces and metrics). Whatever decodes must encode to valid bulk NDJSON: every
// action and document line one JSON object (simdjson), items back to back, one item per log record, per span
// and per span event, every data point in a document or counted as rejected; the same encoder gives the same
// bytes again (scratch reuse), and shared action lines give the same NDJSON as inline ones. In bodymap mode:
// one item per map body (or a counted bad data_stream.type), every other record, span and data point counted
// as rejected. Every document routed to its data stream names one Elasticsearch accepts
// (lowercase, no refused characters). In none and raw modes: one item per log record and per span (its events
// are inside it), data points counted as rejected, and no document repeats a key in any object.
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "encoding/elasticsearch/encoder.h"
#include "otlp/proto_codec.h"
#include "pdata/value_text.h"
#include "require.h"
#include "support/json_keys.h"
#include "text/ascii.h"
#include "text/lowercase.h"

namespace {

using tern::encoding::EncodedBatch;
using tern::encoding::es::Encoder;
using tern::encoding::es::EncoderConfig;
using tern::fuzz::require;

// A line of the bulk body: '\n'-terminated, no other '\n', one JSON object.
void require_json_line(simdjson::dom::parser& parser, std::string_view line) {
  require(!line.empty() && line.back() == '\n', "line without its newline");
  line.remove_suffix(1);
  require(line.find('\n') == std::string_view::npos, "newline inside a line");
  simdjson::padded_string padded(line);
  simdjson::dom::element e;
  require(parser.parse(padded).get(e) == simdjson::SUCCESS, "line is not valid JSON");
  require(e.is_object(), "line is not a JSON object");
}

// The none and raw modes de-duplicate: no object of any document repeats a key.
void require_unique_keys(const EncodedBatch& b) {
  simdjson::dom::parser parser;
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::string_view line = b.document(i);
    line.remove_suffix(1);
    simdjson::padded_string padded(line);
    simdjson::dom::element e;
    require(parser.parse(padded).get(e) == simdjson::SUCCESS, "line is not valid JSON");
    require(!tern::test::repeats_a_key(e), "an object repeats a key");
  }
}

// A data stream's dataset and namespace as Elasticsearch takes them in an index name:
// lowercase (non-ASCII letters too) and none of the characters it refuses.
bool index_part_ok(std::string_view part) {
  std::string lower;
  tern::text::append_lowercase(part, lower);
  return lower == part &&
         part.find_first_of(tern::encoding::es::kIndexNameForbidden) == std::string_view::npos;
}

// A document routed to its data stream (`_index` is `<type>-<dataset>-<namespace>` of its
// `data_stream` object) names a stream Elasticsearch accepts.
void require_sanitized_stream(simdjson::dom::parser& parser, std::string_view action, std::string_view doc) {
  simdjson::padded_string a(action), d(doc);
  simdjson::dom::element ae, de;
  if (parser.parse(a).get(ae) != simdjson::SUCCESS) return;  // require_json_line reports it
  std::string_view index;
  if (ae["create"]["_index"].get(index) != simdjson::SUCCESS) return;
  const std::string index_copy(index);  // the next parse reuses the parser's strings
  std::string_view type, dataset, ns;
  if (parser.parse(d).get(de) != simdjson::SUCCESS ||
      de["data_stream"]["type"].get(type) != simdjson::SUCCESS ||
      de["data_stream"]["dataset"].get(dataset) != simdjson::SUCCESS ||
      de["data_stream"]["namespace"].get(ns) != simdjson::SUCCESS)
    return;
  if (index_copy != std::string(type) + "-" + std::string(dataset) + "-" + std::string(ns)) return;
  require(index_part_ok(dataset) && index_part_ok(ns), "a data stream name Elasticsearch refuses");
}

void require_valid(const EncodedBatch& b) {
  simdjson::dom::parser parser;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    require(b.items[i].offset == offset, "items are not back to back");
    offset += b.stored(i).size();
    if (b.items[i].shares_action())
      require(b.items[i].action_at < b.items[i].offset, "shared action after its item");
    require_json_line(parser, b.action(i));
    require_json_line(parser, b.document(i));
    if (!b.items[i].shares_action()) require_sanitized_stream(parser, b.action(i), b.document(i));
  }
  require(offset == b.data.size(), "bytes outside any item");
}

// Encodes `data` with `config` twice with one encoder, and with shared action lines.
template <class Data>
EncodedBatch encode_checked(const Data& data, EncoderConfig config,
                            void (Encoder::*encode)(const Data&, EncodedBatch&)) {
  Encoder encoder(config);
  EncodedBatch plain;
  (encoder.*encode)(data, plain);
  require_valid(plain);
  EncodedBatch again;
  (encoder.*encode)(data, again);
  require(again.data == plain.data, "a reused encoder wrote different bytes");

  config.share_action_lines = true;
  EncodedBatch shared;
  (Encoder(config).*encode)(data, shared);
  require_valid(shared);
  require(shared.size() == plain.size(), "shared action lines changed the item count");
  std::string ndjson;
  for (std::size_t i = 0; i < shared.size(); ++i) ndjson.append(shared.action(i)).append(shared.document(i));
  require(ndjson == plain.data, "shared action lines changed the NDJSON");
  return plain;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = bytes[0];
  // none or ecs (flat, bit 5 clear): byte 1 picks between them (odd: ecs) and is not input.
  const bool flat_pick = (flags & 128) && !(flags & 32) && size > 1;
  const std::size_t skip = flat_pick ? 2 : 1;
  const bool ecs = flat_pick && (bytes[1] & 1);
  const std::string_view in(reinterpret_cast<const char*>(bytes) + skip, size - skip);
  using namespace tern::pdata;
  tern::otlp::DecodeOptions opt;
  opt.max_depth = 16;
  opt.validate_utf8 = flags & 1;
  EncoderConfig config;
  if (flags & 2) config.logs_index = "logs-static";
  if (flags & 4) config.traces_index = "traces-static";
  if (flags & 8) config.metrics_index = "metrics-static";
  config.logs_dynamic_id = flags & 16;
  config.logs_dynamic_pipeline = flags & 16;  // with the id: both take the scanning path
  using tern::encoding::es::MappingMode;
  const bool bodymap = (flags & 32) && !(flags & 128);
  const bool flat = flags & 128;  // none; raw with bit 5; ecs with byte 1 odd
  if (bodymap) config.mode = MappingMode::BodyMap;
  if (flat) config.mode = flags & 32 ? MappingMode::Raw : ecs ? MappingMode::Ecs : MappingMode::None;
  // A small output bound: scopes that cannot fit are rejected whole as output_too_large.
  if (flags & 64) config.max_output_bytes = 1024;
  using tern::encoding::EncodeReject;
  const auto rejected = [](const EncodedBatch& b, EncodeReject r) {
    return b.stats.rejected[std::size_t(r)];
  };

  // The mode of a scope: its non-empty string `elastic.mapping.mode` attribute, else the
  // configured one. 0 otel, 1 bodymap, 2 a mode the encoder does not have, 3 none, raw or ecs.
  const auto mode_of = [bodymap, flat](const InstrumentationScope& scope) {
    const AnyValue* v = find_attribute(scope.attributes, "elastic.mapping.mode");
    if (!v) return bodymap ? 1 : flat ? 3 : 0;
    // As the Collector reads it: any kind, as its AsString text; names in any case, "" and
    // "no" for none ("otEl" is otel).
    const std::string m = tern::text::ascii_lower(tern::pdata::pcommon_as_string(*v));
    return m == "otel"                                                         ? 0
           : m == "bodymap"                                                    ? 1
           : m.empty() || m == "none" || m == "no" || m == "raw" || m == "ecs" ? 3
                                                                               : 2;
  };

  if (LogsData logs; !tern::otlp::decode_logs_proto(in, logs, opt)) {
    const EncodedBatch b = encode_checked(logs, config, &Encoder::encode_logs);
    if (flat) require_unique_keys(b);
    std::size_t records = 0, otel = 0, maps = 0, not_maps = 0, unsupported = 0;
    for (const auto& rl : logs.resource_logs)
      for (const auto& sl : rl.scope_logs) {
        records += sl.log_records.size();
        switch (mode_of(sl.scope)) {
          case 0:
          case 3:
            otel += sl.log_records.size();
            break;
          case 1:
            for (const auto& r : sl.log_records) (r.body.kind == ValueKind::KvList ? maps : not_maps) += 1;
            break;
          default:
            unsupported += sl.log_records.size();
        }
      }
    // otel, none, raw: one item per record; bodymap: one per map body unless its data_stream.type is
    // refused; anything else counted. (A scope over the output bound counts all of its
    // records as output_too_large, whatever their bodies: then only the sum holds.)
    require(rejected(b, EncodeReject::UnsupportedMode) == unsupported, "unsupported scopes not counted");
    require(b.stats.total_rejected() == records - b.size(), "log records lost without a reject count");
    if (rejected(b, EncodeReject::OutputTooLarge) == 0) {
      require(b.size() + rejected(b, EncodeReject::BadDataStreamType) == otel + maps, "log records lost");
      require(rejected(b, EncodeReject::BodyNotMap) == not_maps, "non-map bodies not counted");
    }
  }
  if (TracesData traces; !tern::otlp::decode_traces_proto(in, traces, opt)) {
    const EncodedBatch b = encode_checked(traces, config, &Encoder::encode_traces);
    std::size_t docs = 0, unsupported = 0;
    for (const auto& rs : traces.resource_spans)
      for (const auto& ss : rs.scope_spans) {
        const int mode = mode_of(ss.scope);
        if (mode == 1 || mode == 2) {
          unsupported += ss.spans.size();
          continue;
        }
        for (const auto& s : ss.spans) docs += 1 + (mode == 0 ? s.events.size() : 0);
      }
    require(b.size() + rejected(b, EncodeReject::OutputTooLarge) == docs,
            "not one item per span and span event (otel) or per span (none, raw, ecs)");
    if (flat) require_unique_keys(b);
    require(rejected(b, EncodeReject::UnsupportedMode) == unsupported, "unsupported spans not counted");
  }
  if (MetricsData metrics; !tern::otlp::decode_metrics_proto(in, metrics, opt)) {
    const EncodedBatch b = encode_checked(metrics, config, &Encoder::encode_metrics);
    std::uint64_t points = 0, unsupported = 0;
    for (const auto& rm : metrics.resource_metrics)
      for (const auto& sm : rm.scope_metrics)
        for (const auto& m : sm.metrics) {
          if (mode_of(sm.scope) != 0)
            unsupported += m.point_count();
          else
            points += m.type == MetricType::Empty ? 1 : m.point_count();
        }
    require(rejected(b, EncodeReject::UnsupportedMode) == unsupported, "unsupported data points not counted");
    require(b.event_count() + b.stats.total_rejected() - unsupported == points,
            "data points lost without a reject count");
  }
  return 0;
}
