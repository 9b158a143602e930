#include "receiver/otlp/export_core.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <type_traits>

#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "text/json_string.h"

namespace tern::receiver::otlp {
namespace {

// Arena sized to the request: a decoded batch is of the order of its wire size, so one
// or two blocks instead of a chain of small ones; capped so a huge request does not
// reserve more than it will use up front.
std::size_t arena_bytes_for(std::size_t body_size) {
  return std::clamp<std::size_t>(body_size, 4096, 4u << 20);
}

template <class Batch>
std::optional<tern::otlp::DecodeError> decode(Encoding encoding, std::string& body, Batch& batch) {
  namespace o = tern::otlp;
  const o::DecodeOptions opt{.max_decoded_bytes = o::max_decoded_bytes_for(body.size())};
  if (encoding == Encoding::kProto) {
    // Zero-copy: the decoded views point into the body, which the arena keeps alive.
    std::string_view in = batch.arena.hold(std::move(body));
    if constexpr (std::is_same_v<Batch, pdata::LogsData>) return o::decode_logs_proto(in, batch, opt);
    if constexpr (std::is_same_v<Batch, pdata::TracesData>) return o::decode_traces_proto(in, batch, opt);
    if constexpr (std::is_same_v<Batch, pdata::MetricsData>) return o::decode_metrics_proto(in, batch, opt);
  } else {
    if constexpr (std::is_same_v<Batch, pdata::LogsData>) return o::decode_logs_json(body, batch, opt);
    if constexpr (std::is_same_v<Batch, pdata::TracesData>) return o::decode_traces_json(body, batch, opt);
    if constexpr (std::is_same_v<Batch, pdata::MetricsData>) return o::decode_metrics_json(body, batch, opt);
  }
}

std::size_t items_of(const pdata::LogsData& d) { return d.record_count(); }
std::size_t items_of(const pdata::TracesData& d) { return d.span_count(); }
std::size_t items_of(const pdata::MetricsData& d) { return d.data_point_count(); }

component::ConsumeResult consume(component::Consumer& c, std::shared_ptr<pdata::LogsData> b) {
  return c.consume_logs(std::move(b));
}
component::ConsumeResult consume(component::Consumer& c, std::shared_ptr<pdata::TracesData> b) {
  return c.consume_traces(std::move(b));
}
component::ConsumeResult consume(component::Consumer& c, std::shared_ptr<pdata::MetricsData> b) {
  return c.consume_metrics(std::move(b));
}

template <class Batch>
ExportOutcome run(Signal signal, Encoding encoding, std::string body, component::Consumer& consumer,
                  OtlpReceiverCounters& counters) {
  using Kind = ExportOutcome::Kind;
  auto& per = counters.of(signal);
  OtlpReceiverCounters::add(per.requests, 1);
  ExportOutcome out;
  auto batch = std::make_shared<Batch>(arena_bytes_for(body.size()));
  if (auto err = decode(encoding, body, *batch)) {
    OtlpReceiverCounters::add(counters.bad_requests, 1);
    out.kind = Kind::kBadData;
    out.message = err->to_string();
    return out;
  }
  out.items = items_of(*batch);
  // An export request without items (an empty message, or resources without records)
  // is valid and trivially accepted; the pipeline has nothing to do with it.
  if (out.items == 0) return out;

  component::ConsumeResult r = consume(consumer, std::move(batch));
  switch (r.code) {
    case component::ConsumeCode::kOk:
      out.rejected = std::min<std::uint64_t>(r.rejected, out.items);
      out.message = std::move(r.message);
      if (out.rejected > 0 && out.message.empty()) out.message = "some items were rejected as invalid";
      OtlpReceiverCounters::add(per.accepted, out.items - out.rejected);
      OtlpReceiverCounters::add(per.refused, out.rejected);
      return out;
    case component::ConsumeCode::kRetryLater:
      out.kind = Kind::kRetryLater;
      out.message = r.message.empty() ? "pipeline is busy, retry later" : std::move(r.message);
      out.retry_after = r.retry_after.count() > 0 ? r.retry_after : kDefaultRetryAfter;
      break;
    case component::ConsumeCode::kUnavailable:
      out.kind = Kind::kUnavailable;
      out.message = r.message.empty() ? "pipeline cannot store data now, retry later" : std::move(r.message);
      out.retry_after = r.retry_after.count() > 0 ? r.retry_after : kDefaultRetryAfter;
      break;
    case component::ConsumeCode::kInvalid:
      out.kind = Kind::kBadData;
      out.message = r.message.empty() ? "data refused as invalid" : std::move(r.message);
      break;
    case component::ConsumeCode::kTooLarge:
      out.kind = Kind::kTooLarge;
      out.message = r.message.empty() ? "data too large for the queue" : std::move(r.message);
      break;
    case component::ConsumeCode::kShutdown:
      out.kind = Kind::kShutdown;
      out.message = r.message.empty() ? "pipeline is shutting down" : std::move(r.message);
      out.retry_after = r.retry_after.count() > 0 ? r.retry_after : kDefaultRetryAfter;
      break;
  }
  OtlpReceiverCounters::add(per.refused, out.items);
  return out;
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_tag(std::string& out, std::uint32_t field, std::uint32_t wire_type) {
  put_varint(out, (field << 3) | wire_type);
}
void put_len_field(std::string& out, std::uint32_t field, std::string_view bytes) {
  put_tag(out, field, 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}

}  // namespace

ExportOutcome ExportCore::export_request(Signal signal, Encoding encoding, std::string body) {
  try {
    switch (signal) {
      case Signal::Logs:
        return run<pdata::LogsData>(signal, encoding, std::move(body), consumer_, counters_);
      case Signal::Traces:
        return run<pdata::TracesData>(signal, encoding, std::move(body), consumer_, counters_);
      case Signal::Metrics:
        return run<pdata::MetricsData>(signal, encoding, std::move(body), consumer_, counters_);
    }
  } catch (const std::exception& e) {
    // bad_alloc from a hostile request, or a failing consumer: answer instead of dropping
    // the connection, so the client can retry.
    spdlog::error("otlp receiver: exporting {} failed: {}", pdata::to_string(signal), e.what());
    ExportOutcome out;
    out.kind = ExportOutcome::Kind::kInternal;
    out.message = std::string("internal error: ") + e.what();
    return out;
  }
  return {};
}

void ExportCore::count_bad_request(Signal signal) {
  OtlpReceiverCounters::add(counters_.of(signal).requests, 1);
  OtlpReceiverCounters::add(counters_.bad_requests, 1);
}

std::string export_response_proto(std::uint64_t rejected, std::string_view message) {
  std::string out;
  if (rejected == 0 && message.empty()) return out;
  std::string partial;
  if (rejected != 0) {
    put_tag(partial, 1, 0);
    put_varint(partial, rejected);  // int64, never negative here
  }
  if (!message.empty()) put_len_field(partial, 2, message);
  put_len_field(out, 1, partial);
  return out;
}

std::string export_response_json(Signal signal, std::uint64_t rejected, std::string_view message) {
  if (rejected == 0 && message.empty()) return "{}";
  std::string_view key = signal == Signal::Logs     ? "rejectedLogRecords"
                         : signal == Signal::Traces ? "rejectedSpans"
                                                    : "rejectedDataPoints";
  std::string out = "{\"partialSuccess\":{";
  bool comma = false;
  if (rejected != 0) {
    // proto3 JSON writes int64 as a decimal string.
    out += '"';
    out += key;
    out += "\":\"" + std::to_string(rejected) + '"';
    comma = true;
  }
  if (!message.empty()) {
    if (comma) out += ',';
    out += "\"errorMessage\":";
    text::append_json_string(out, message);
  }
  out += "}}";
  return out;
}

std::string status_proto(int code, std::string_view message, std::chrono::milliseconds retry_delay) {
  std::string out;
  if (code != 0) {
    put_tag(out, 1, 0);
    put_varint(out, static_cast<std::uint64_t>(static_cast<std::int64_t>(code)));
  }
  if (!message.empty()) put_len_field(out, 2, message);
  if (retry_delay.count() > 0) {
    std::string duration;  // google.protobuf.Duration {seconds = 1, nanos = 2}
    auto secs = retry_delay.count() / 1000;
    auto nanos = (retry_delay.count() % 1000) * 1'000'000;
    if (secs) {
      put_tag(duration, 1, 0);
      put_varint(duration, static_cast<std::uint64_t>(secs));
    }
    if (nanos) {
      put_tag(duration, 2, 0);
      put_varint(duration, static_cast<std::uint64_t>(nanos));
    }
    std::string retry_info;  // google.rpc.RetryInfo {retry_delay = 1}
    put_len_field(retry_info, 1, duration);
    std::string any;  // google.protobuf.Any {type_url = 1, value = 2}
    put_len_field(any, 1, "type.googleapis.com/google.rpc.RetryInfo");
    put_len_field(any, 2, retry_info);
    put_len_field(out, 3, any);
  }
  return out;
}

std::string status_json(int code, std::string_view message) {
  std::string out = "{\"code\":" + std::to_string(code) + ",\"message\":";
  text::append_json_string(out, message);
  out += '}';
  return out;
}

std::optional<Signal> signal_for_grpc_method(std::string_view method) {
  if (method == "/opentelemetry.proto.collector.logs.v1.LogsService/Export") return Signal::Logs;
  if (method == "/opentelemetry.proto.collector.trace.v1.TraceService/Export") return Signal::Traces;
  if (method == "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export") return Signal::Metrics;
  return std::nullopt;
}

}  // namespace tern::receiver::otlp
