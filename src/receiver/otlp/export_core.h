#pragma once
// The transport-independent half of the OTLP receiver: decode one Export*ServiceRequest,
// hand it to the Consumer, count, and say what to answer. Plus the few response messages
// (Export*ServiceResponse, google.rpc.Status, RetryInfo) written by hand on the wire
// format: they are tiny, and this keeps generated protobuf code out of Tern.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "component/consumer.h"
#include "pdata/signal.h"
#include "receiver/otlp/stats.h"

namespace tern::receiver::otlp {

using pdata::Signal;

enum class Encoding { kProto, kJson };

// google.rpc.Code values used in Status messages (HTTP bodies and gRPC statuses).
namespace rpc_code {
inline constexpr int kOk = 0;
inline constexpr int kInvalidArgument = 3;
inline constexpr int kNotFound = 5;
inline constexpr int kResourceExhausted = 8;
inline constexpr int kUnimplemented = 12;
inline constexpr int kInternal = 13;
inline constexpr int kUnavailable = 14;
}  // namespace rpc_code

struct ExportOutcome {
  enum class Kind {
    kOk,           // queued; `rejected` items of it were dropped (partial success)
    kBadData,      // undecodable payload, or the pipeline called the data invalid: do not retry
    kTooLarge,     // the data can never fit in the queue (disk max_size): do not retry (HTTP 413)
    kRetryLater,   // back-pressure: retry after `retry_after`
    kShutdown,     // the pipeline is stopping: retry elsewhere / later
    kUnavailable,  // the pipeline cannot store data now (disk queue full): retry after `retry_after`
    kInternal,     // a bug or resource failure on our side
  };
  Kind kind = Kind::kOk;
  std::uint64_t items = 0;     // items in the request (0 when it could not be decoded)
  std::uint64_t rejected = 0;  // kOk only
  std::string message;         // for the client (partial success, Status.message)
  std::chrono::milliseconds retry_after{0};
};

class ExportCore {
 public:
  ExportCore(component::Consumer& consumer, OtlpReceiverCounters& counters)
      : consumer_(consumer), counters_(counters) {}

  // Decodes `body` (protobuf: kept alive by the batch's arena, views point into it; JSON:
  // strings are copied, the body is freed on return), consumes it and counts. Never throws.
  ExportOutcome export_request(Signal signal, Encoding encoding, std::string body);

  // Counts a request refused before decoding (bad gzip, ...).
  void count_bad_request(Signal signal);

  OtlpReceiverCounters& counters() { return counters_; }

 private:
  component::Consumer& consumer_;
  OtlpReceiverCounters& counters_;
};

// Retry delay sent to clients when the Consumer gave no hint.
inline constexpr std::chrono::milliseconds kDefaultRetryAfter{1000};

// Export{Logs,Trace,Metrics}ServiceResponse: empty unless `rejected` or `message` is set
// (then partial_success {rejected_<items> = 1, error_message = 2}; the field numbers are
// the same for the three signals).
std::string export_response_proto(std::uint64_t rejected, std::string_view message);
std::string export_response_json(Signal signal, std::uint64_t rejected, std::string_view message);

// google.rpc.Status {code = 1, message = 2, details = 3}. With a positive `retry_delay`
// the details hold one google.rpc.RetryInfo {retry_delay = 1 (google.protobuf.Duration)}.
std::string status_proto(int code, std::string_view message,
                         std::chrono::milliseconds retry_delay = std::chrono::milliseconds{0});
std::string status_json(int code, std::string_view message);

// "/opentelemetry.proto.collector.logs.v1.LogsService/Export" -> Logs, etc.
std::optional<Signal> signal_for_grpc_method(std::string_view method);

}  // namespace tern::receiver::otlp
