#pragma once
// OTLP/protobuf codec for the three signals (Export{Logs,Trace,Metrics}ServiceRequest,
// which are wire-identical to LogsData/TracesData/MetricsData).
//
// Hand-written on the protobuf wire format rather than generated code, so decoding is
// zero-copy: every string and bytes field of the result is a view into `in`, and all
// other memory comes from the output's arena. The caller keeps `in` alive as long as the
// output, e.g. `auto in = out.arena.hold(std::move(body));` before decoding.
#include <optional>
#include <string>
#include <string_view>

#include "otlp/decode_error.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::otlp {

// Decodes into `out` (appending to whatever it already holds). On error `out` may be
// partially filled and should be discarded. Unknown fields are skipped; known fields
// with the wrong wire type, truncated input, bad id lengths, too deep AnyValue nesting
// and (with options.validate_utf8) invalid UTF-8 are errors.
std::optional<DecodeError> decode_logs_proto(std::string_view in, pdata::LogsData& out,
                                             const DecodeOptions& options = {});
std::optional<DecodeError> decode_traces_proto(std::string_view in, pdata::TracesData& out,
                                               const DecodeOptions& options = {});
std::optional<DecodeError> decode_metrics_proto(std::string_view in, pdata::MetricsData& out,
                                                const DecodeOptions& options = {});

// Appends one export request in protobuf wire format to `out` (sizes of nested
// messages are computed in a first pass, so each byte is written once).
void encode_logs_proto(const pdata::LogsData& data, std::string& out);
void encode_traces_proto(const pdata::TracesData& data, std::string& out);
void encode_metrics_proto(const pdata::MetricsData& data, std::string& out);

}  // namespace tern::otlp
