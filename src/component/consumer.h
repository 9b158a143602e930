#pragma once
// The seam between receivers and the rest of a pipeline. A receiver decodes a
// request into a batch and hands it to its Consumer (processors, then the queue of
// each exporter). `consume_*` returns once the batch is in every exporter's queue,
// or says why it is not, so the receiver can answer its client truthfully: a
// client is acknowledged only for data that is queued (at-least-once).
//
// Called concurrently from receiver threads; implementations are thread-safe.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::component {

enum class ConsumeCode {
  kOk,           // queued (partially, if `rejected` > 0: those items were dropped as invalid)
  kRetryLater,   // back-pressure (queue full, memory limit): the client should retry
  kUnavailable,  // the exporter cannot take data now (disk queue full or failing): retry later
  kInvalid,      // the data itself cannot be accepted; retrying will not help
  kTooLarge,     // an item is larger than the queue can ever hold (disk max_size); retrying will not help
  kShutdown,     // the pipeline is stopping
};

struct ConsumeResult {
  ConsumeCode code = ConsumeCode::kOk;
  std::string message;                       // for the client and the logs
  std::chrono::milliseconds retry_after{0};  // hint for kRetryLater (Retry-After / RetryInfo)
  std::uint64_t rejected = 0;                // items refused inside an otherwise accepted batch

  static ConsumeResult ok() { return {}; }
  static ConsumeResult retry_later(std::string why, std::chrono::milliseconds after) {
    return {ConsumeCode::kRetryLater, std::move(why), after, 0};
  }
  bool accepted() const { return code == ConsumeCode::kOk; }
};

class Consumer {
 public:
  virtual ~Consumer() = default;
  // The batch is shared: several exporters (fan-out) or a late-encoding queue may
  // keep it after the call returns.
  virtual ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> batch) = 0;
  virtual ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> batch) = 0;
  virtual ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> batch) = 0;
};

}  // namespace tern::component
