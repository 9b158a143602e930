#include "exporter/otlp/otlp_client.h"

#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "otlp/proto_wire.h"
#include "text/endpoint.h"

namespace tern::exporter::otlp {

std::string_view grpc_method(pdata::Signal signal) {
  switch (signal) {
    case pdata::Signal::Logs:
      return "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
    case pdata::Signal::Traces:
      return "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
    case pdata::Signal::Metrics:
      return "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export";
  }
  return {};
}

std::string_view default_http_path(pdata::Signal signal) {
  switch (signal) {
    case pdata::Signal::Logs:
      return "/v1/logs";
    case pdata::Signal::Traces:
      return "/v1/traces";
    case pdata::Signal::Metrics:
      return "/v1/metrics";
  }
  return {};
}

namespace wire = tern::otlp::wire;
using wire::Field;
using wire::next_field;

bool parse_export_response(std::string_view in, std::int64_t& rejected, std::string& error_message) {
  rejected = 0;
  error_message.clear();
  Field f;
  while (!in.empty()) {
    if (!next_field(in, f)) return false;
    if (f.number != 1 || f.type != wire::kLen) continue;  // partial_success
    for (std::string_view ps = f.bytes; !ps.empty();) {
      Field p;
      if (!next_field(ps, p)) return false;
      if (p.number == 1 && p.type == wire::kVarint) rejected = static_cast<std::int64_t>(p.varint);
      if (p.number == 2 && p.type == wire::kLen) error_message.assign(p.bytes);
    }
  }
  return true;
}

namespace {
// Reads the first length-delimited field `field` of a message; false if absent or malformed.
bool find_len_field(std::string_view in, std::uint64_t field, std::string_view& out) {
  Field f;
  while (!in.empty()) {
    if (!next_field(in, f)) return false;
    if (f.number == field && f.type == wire::kLen) {
      out = f.bytes;
      return true;
    }
  }
  return false;
}
}  // namespace

bool parse_json_export_response(std::string_view response, std::int64_t& rejected,
                                std::string& error_message) {
  rejected = 0;
  error_message.clear();
  if (response.empty()) return true;  // an empty body is a response without partial success
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(simdjson::padded_string(response)).get(root)) return false;
  simdjson::dom::object ps;
  if (root["partialSuccess"].get(ps) && root["partial_success"].get(ps)) return true;
  for (const auto field : {"rejectedLogRecords", "rejected_log_records", "rejectedSpans", "rejected_spans",
                           "rejectedDataPoints", "rejected_data_points"}) {
    simdjson::dom::element e;
    if (ps[field].get(e)) continue;
    std::int64_t n = 0;
    std::string_view text;
    if (!e.get(n)) {
      rejected = n;
    } else if (!e.get(text)) {  // int64 as a decimal string, as OTLP/JSON writes it
      std::from_chars(text.data(), text.data() + text.size(), rejected);
    }
    break;
  }
  std::string_view message;
  if (!ps["errorMessage"].get(message) || !ps["error_message"].get(message)) error_message.assign(message);
  return true;
}

std::string status_message(std::string_view body, bool json) {
  if (json) {
    simdjson::dom::parser parser;
    std::string_view message;
    if (parser.parse(simdjson::padded_string(body))["message"].get(message)) return {};
    return std::string(message);
  }
  std::string_view message;  // google.rpc.Status {code = 1, message = 2, details = 3}
  if (!find_len_field(body, 2, message)) return {};
  return std::string(message);
}

std::optional<std::chrono::milliseconds> parse_retry_info(std::string_view status) {
  // google.rpc.Status {details = 3 (repeated Any {type_url = 1, value = 2})}
  Field f;
  while (!status.empty()) {
    if (!next_field(status, f)) return std::nullopt;
    if (f.number != 3 || f.type != wire::kLen) continue;
    const std::string_view any = f.bytes;
    std::string_view type_url, value, delay;
    if (!find_len_field(any, 1, type_url) || type_url != "type.googleapis.com/google.rpc.RetryInfo") continue;
    // RetryInfo {retry_delay = 1 (google.protobuf.Duration {seconds = 1, nanos = 2})}. A
    // RetryInfo without a delay (or a damaged one) is still a RetryInfo: no delay given.
    if (!find_len_field(any, 2, value) || !find_len_field(value, 1, delay))
      return std::chrono::milliseconds(0);
    std::uint64_t seconds = 0, nanos = 0;
    while (!delay.empty()) {
      Field d;
      if (!next_field(delay, d)) return std::chrono::milliseconds(0);
      if (d.type != wire::kVarint) continue;
      if (d.number == 1) seconds = d.varint;
      if (d.number == 2) nanos = d.varint;
    }
    // Negative (a huge varint) or nanos out of range: no delay given. Absurdly long: a day.
    if (seconds > (std::uint64_t{1} << 62) || nanos >= 1'000'000'000) return std::chrono::milliseconds(0);
    if (seconds >= 86400) return std::chrono::milliseconds(86'400'000);
    return std::chrono::milliseconds(seconds * 1000 + (nanos + 999'999) / 1'000'000);
  }
  return std::nullopt;
}

namespace {
// Headers are checked before anything is sent (text::header_error says why).
void check_headers(const OtlpClientOptions& o) {
  for (const auto& [key, value] : o.headers)
    if (std::string why = text::header_error(key, value, o.protocol == Protocol::Grpc); !why.empty())
      throw std::invalid_argument(why);
}
}  // namespace

std::unique_ptr<OtlpClient> make_otlp_client(const OtlpClientOptions& options) {
  check_headers(options);
  return options.protocol == Protocol::Http ? make_http_client(options) : make_grpc_client(options);
}

}  // namespace tern::exporter::otlp
