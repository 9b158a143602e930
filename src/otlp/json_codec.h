#pragma once
// OTLP/JSON codec (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding).
//
// Decode accepts lowerCamelCase and snake_case keys, ignores unknown keys, reads
// 64-bit integers from strings or numbers, enums from integers or their names,
// trace/span ids as hex (any case), bytes as base64 (standard or URL-safe), and
// doubles from numbers or the strings "NaN", "Infinity", "-Infinity". Integers may also
// be written with an exponent or a fraction when integral ("1e3", 5.0; read exactly).
// null leaves a field unset (optional fields stay absent, oneofs unset); a second member
// of a oneof (Metric data, AnyValue, number point/exemplar value) is an error.
// AnyValue nesting is bounded by DecodeOptions::max_depth exactly as in protobuf.
// Decoded strings are unescaped by simdjson into a parser-owned buffer that is
// reused by the next parse, so they are copied into `out.arena`; the input buffer
// need not outlive the result. UTF-8 is always validated (simdjson does it anyway).
//
// Encode writes lowerCamelCase, omits default-valued fields (proto3 JSON mapping),
// 64-bit integers as decimal strings, enums as integers, ids as lowercase hex.
#include <optional>
#include <string>
#include <string_view>

#include "otlp/decode_error.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::otlp {

// On error returns where and why; `out` may then hold a partial batch.
std::optional<DecodeError> decode_logs_json(std::string_view in, pdata::LogsData& out,
                                            const DecodeOptions& options = {});
std::optional<DecodeError> decode_traces_json(std::string_view in, pdata::TracesData& out,
                                              const DecodeOptions& options = {});
std::optional<DecodeError> decode_metrics_json(std::string_view in, pdata::MetricsData& out,
                                               const DecodeOptions& options = {});

// Appends one export request as JSON to `out`.
void encode_logs_json(const pdata::LogsData& data, std::string& out);
void encode_traces_json(const pdata::TracesData& data, std::string& out);
void encode_metrics_json(const pdata::MetricsData& data, std::string& out);

}  // namespace tern::otlp
