// libFuzzer target: arbitrary bytes -> OTLP/protobuf decoders -> Elasticsearch bulk encoder.
// Byte 0 picks the encoder and decoder options (bit 5: bodymap mode), the rest is the
// request (decoded as logs, traces and metrics). Whatever decodes must encode to valid bulk NDJSON: every
// action and document line one JSON object (simdjson), items back to back, one item per log record, per span
// and per span event, every data point in a document or counted as rejected; the same encoder gives the same
// bytes again (scratch reuse), and shared action lines give the same NDJSON as inline ones. In bodymap mode:
// one item per map body (or a counted bad data_stream.type), every other record, span and data point counted
// as rejected.
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "encoding/elasticsearch/encoder.h"
#include "otlp/proto_codec.h"
#include "require.h"

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
  const std::string_view in(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  using namespace tern::pdata;
  tern::otlp::DecodeOptions opt;
  opt.max_depth = 16;
  opt.validate_utf8 = flags & 1;
  EncoderConfig config;
  if (flags & 2) config.logs_index = "logs-static";
  if (flags & 4) config.traces_index = "traces-static";
  if (flags & 8) config.metrics_index = "metrics-static";
  config.logs_dynamic_id = flags & 16;
  const bool bodymap = flags & 32;
  if (bodymap) config.mode = tern::encoding::es::MappingMode::BodyMap;
  using tern::encoding::EncodeReject;
  const auto rejected = [](const EncodedBatch& b, EncodeReject r) {
    return b.stats.rejected[std::size_t(r)];
  };

  if (LogsData logs; !tern::otlp::decode_logs_proto(in, logs, opt)) {
    const EncodedBatch b = encode_checked(logs, config, &Encoder::encode_logs);
    std::size_t records = 0, maps = 0;
    for (const auto& rl : logs.resource_logs)
      for (const auto& sl : rl.scope_logs) {
        records += sl.log_records.size();
        for (const auto& r : sl.log_records) maps += r.body.kind == ValueKind::KvList;
      }
    if (bodymap) {  // one item per map body, unless its data_stream.type is refused
      require(rejected(b, EncodeReject::BodyNotMap) == records - maps, "non-map bodies not counted");
      require(b.size() + rejected(b, EncodeReject::BadDataStreamType) == maps, "map bodies lost");
      require(b.stats.total_rejected() == records - b.size(), "log records lost without a reject count");
    } else {
      require(b.size() == records, "not one item per log record");
    }
  }
  if (TracesData traces; !tern::otlp::decode_traces_proto(in, traces, opt)) {
    const EncodedBatch b = encode_checked(traces, config, &Encoder::encode_traces);
    std::size_t docs = 0;
    for (const auto& rs : traces.resource_spans)
      for (const auto& ss : rs.scope_spans)
        for (const auto& s : ss.spans) docs += 1 + s.events.size();
    if (bodymap) {
      std::size_t spans = 0;
      for (const auto& rs : traces.resource_spans)
        for (const auto& ss : rs.scope_spans) spans += ss.spans.size();
      require(b.empty() && rejected(b, EncodeReject::UnsupportedMode) == spans, "bodymap encoded spans");
    } else {
      require(b.size() == docs, "not one item per span and span event");
    }
  }
  if (MetricsData metrics; !tern::otlp::decode_metrics_proto(in, metrics, opt)) {
    const EncodedBatch b = encode_checked(metrics, config, &Encoder::encode_metrics);
    std::uint64_t points = 0;
    for (const auto& rm : metrics.resource_metrics)
      for (const auto& sm : rm.scope_metrics)
        for (const auto& m : sm.metrics) points += m.type == MetricType::Empty ? 1 : m.point_count();
    if (bodymap)
      require(b.empty() && rejected(b, EncodeReject::UnsupportedMode) == metrics.data_point_count(),
              "bodymap encoded data points");
    else
      require(b.event_count() + b.stats.total_rejected() == points,
              "data points lost without a reject count");
  }
  return 0;
}
