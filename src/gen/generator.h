#pragma once
// `tern gen`: a telemetrygen-compatible load generator (see docs/gen.md).
//
// Every worker is a thread that owns all it touches: its OTLP client (own connection or
// channel), its token-bucket rate limiter, its request template (a pdata batch built once;
// per request only timestamps, ids and counters are patched and it is re-encoded into a
// reused buffer) and its latency histogram. Workers share nothing but a stop flag and
// their published progress counters, which they alone write.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/otlp/otlp_client.h"
#include "pdata/signal.h"

namespace tern::gen {

// A telemetrygen attribute value: key="string", key=true|false, key=<integer>, key=[...].
struct AttrValue {
  enum class Kind { String, Bool, Int, Array } kind = Kind::String;
  std::string s;
  bool b = false;
  std::int64_t i = 0;
  std::vector<AttrValue> items;  // Array: all of one kind
};
using Attr = std::pair<std::string, AttrValue>;

// Parses `key="value"` etc. as telemetrygen does; nullopt + `error` if malformed.
std::optional<Attr> parse_attribute(std::string_view text, std::string& error);
// Go time.ParseDuration syntax ("5s", "1m30s", "123us", "0"); "inf" gives nullopt with no error.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text, std::string& error);

enum class MetricKind { Gauge, Sum, Histogram, ExponentialHistogram };

struct GenOptions {
  pdata::Signal signal = pdata::Signal::Logs;
  unsigned workers = 1;
  double rate = 0;                       // items per second per worker, 0 = unthrottled
  std::chrono::nanoseconds duration{0};  // > 0 overrides count
  bool infinite = false;                 // --duration inf
  std::uint64_t count = 1;               // logs / traces / metrics per worker
  std::size_t batch_size = 1;            // items per export request
  // --size, telemetrygen's load: this many string attributes load-0, load-1, ... of 1 MiB
  // (NUL characters, as telemetrygen's) on every log record, every trace's root span and
  // every data point.
  std::uint32_t load_size_mib = 0;
  bool allow_export_failures = false;
  bool progress = false;

  exporter::otlp::OtlpClientOptions client;

  std::string service = "telemetrygen";
  std::vector<Attr> resource_attributes;   // --otlp-attributes (may override service.name)
  std::vector<Attr> telemetry_attributes;  // --telemetry-attributes (on each record/span/point)

  // logs
  std::string body = "the message";
  std::string severity_text = "Info";
  std::int32_t severity_number = 9;
  std::string trace_id_hex;  // 32 hex digits or empty
  std::string span_id_hex;   // 16 hex digits or empty
  // traces
  unsigned child_spans = 1;  // at least 1, as telemetrygen (0 is taken as 1)
  std::chrono::nanoseconds span_duration{123'000};
  int status_code = 0;  // 0 Unset, 1 Ok, 2 Error (OTLP numbering)
  bool marshal = false;
  // metrics (trace_id_hex / span_id_hex above: the exemplar on every data point, as telemetrygen)
  MetricKind metric_type = MetricKind::Gauge;
  std::string metric_name = "gen";
  // --aggregation-temporality of sums and histograms. Cumulative (telemetrygen's default):
  // every point starts when the worker started. Delta: each point covers the second
  // before it was sent (Elasticsearch's otel mapping indexes delta histograms only).
  bool delta_temporality = false;
};

// Export-call latency: log-linear buckets (16 per power of two, ~6% resolution) so a
// worker records any number of calls in fixed memory with no allocation.
class LatencyHistogram {
 public:
  void record(std::uint64_t ns);
  void merge(const LatencyHistogram& o);
  std::uint64_t count() const { return count_; }
  // The q-quantile (0..1) in nanoseconds (upper edge of its bucket); 0 when empty.
  std::uint64_t quantile(double q) const;

 private:
  static constexpr int kSub = 16;
  std::array<std::uint64_t, 64 * kSub> buckets_{};
  std::uint64_t count_ = 0;
};

struct WorkerResult {
  std::uint64_t items = 0;     // logs / traces / metrics sent successfully
  std::uint64_t events = 0;    // log records / spans / data points sent successfully
  std::uint64_t requests = 0;  // export calls
  std::uint64_t failures = 0;  // failed export calls
  std::uint64_t failed_items = 0;
  std::uint64_t rejected = 0;  // partial-success rejections reported by the receiver
  LatencyHistogram latency;
  std::string first_error;
};

struct GenResult {
  std::vector<WorkerResult> workers;
  double seconds = 0;
  bool failed = false;  // stopped on an export failure (without allow_export_failures)
  std::string error;    // that failure
  std::uint64_t total(std::uint64_t WorkerResult::*field) const {
    std::uint64_t n = 0;
    for (const auto& w : workers) n += w.*field;
    return n;
  }
};

using ClientFactory = std::function<std::unique_ptr<exporter::otlp::OtlpClient>(unsigned worker)>;

// Runs the workers to completion. `stop` (may be null) ends the run early when set (SIGINT).
// `progress_out` receives one line per second when options.progress.
GenResult run_generator(const GenOptions& options, const ClientFactory& factory,
                        const std::atomic<bool>* stop = nullptr, std::FILE* progress_out = stderr);

// The end-of-run report: one JSON line per worker, then a total line.
std::string format_report(const GenOptions& options, const GenResult& result);

// Validates the options (ids, batch size, counts); returns an error message or empty.
std::string validate(const GenOptions& options);
constexpr unsigned kMaxWorkers = 4096;
constexpr std::size_t kMaxBatchSize = 1'000'000;
// --size × --batch-size: MiB of load attributes in one request. 2 GiB is past what OTLP
// receivers take anyway (gRPC's message limit), and the encoded request is held whole.
constexpr std::uint64_t kMaxLoadMibPerRequest = 2048;

}  // namespace tern::gen
