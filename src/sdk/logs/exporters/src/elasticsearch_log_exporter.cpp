#include "tern/sdk/logs/elasticsearch_log_exporter.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>

#include "encoding/elasticsearch/encoder.h"
#include "exporter/elasticsearch/bulk_exporter.h"
#include "slot_pool.h"
#include "tern/sdk/logs/deadline.h"
#include "text/endpoint.h"
#include "to_pdata.h"

namespace tern::sdk::logs {

namespace es = tern::exporter::es;
namespace enc = tern::encoding::es;

namespace {

es::BulkExporterOptions BulkOptions(const ElasticsearchLogExporterOptions& o) {
  es::BulkExporterOptions b;
  b.endpoints = o.endpoints;
  b.num_workers = o.num_workers == 0 ? 1 : o.num_workers;
  b.flush_bytes = o.flush_bytes;
  b.flush_interval = o.flush_interval;
  b.gzip = o.gzip;
  b.max_retries = o.max_retries;
  b.headers = o.headers;
  b.user = o.user;
  b.password = o.password;
  b.api_key = o.api_key;
  b.timeout = o.timeout;
  b.require_data_stream = o.logs_index.empty();  // data streams unless a static index is set
  // An application cannot keep records forever behind a bad URL or credentials: fail the
  // export (the collector holds such a request instead; see BulkExporterOptions).
  b.hold_on_request_error = false;
  return b;
}

// The bulk exporter takes any port string; reject what cannot be a TCP port here, as the
// header promises, instead of failing every export later. The check is the OTLP/HTTP
// exporters' and the config loader's (text/endpoint.h); no port: 80/443 by scheme.
void CheckEndpoint(std::string_view url) {
  if (const std::string why = text::http_endpoint_error(url, /*require_scheme=*/false); !why.empty())
    throw std::invalid_argument("elasticsearch exporter: bad endpoint " + std::string(url) + ": " + why);
}

enc::EncoderConfig EncoderOptions(const ElasticsearchLogExporterOptions& o) {
  enc::EncoderConfig c;
  c.logs_index = o.logs_index;
  c.mode = enc::MappingMode::Otel;
  return c;
}

}  // namespace

struct ElasticsearchLogExporter::Impl {
  explicit Impl(const ElasticsearchLogExporterOptions& o)
      : submit_timeout(o.submit_timeout),
        encoder_config(EncoderOptions(o)),
        encoders(o.max_encoders, [this] { return std::make_unique<enc::Encoder>(encoder_config); }),
        bulk(BulkOptions(o)) {}

  // Encodes `batch` and hands it to the bulk exporter; `done` runs once, inline when the
  // batch is refused or empty. `send_now`: do not wait for flush_interval (a synchronous
  // Export waits for its batch, so buffering it only adds latency).
  void Submit(const LogRecordBatchView& batch, ExportCallback done, bool send_now);

  const std::chrono::milliseconds submit_timeout;
  const enc::EncoderConfig encoder_config;
  detail::SlotPool<enc::Encoder> encoders;
  es::BulkExporter bulk;
  std::atomic<bool> shut_down{false};
  // Shared with completion callbacks, which run on bulk workers.
  std::shared_ptr<std::atomic<std::uint64_t>> indexed = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::shared_ptr<std::atomic<std::uint64_t>> failed = std::make_shared<std::atomic<std::uint64_t>>(0);
  FirstCallResult shutdown_result;  // the first Shutdown's outcome, for the calls after it
};

ElasticsearchLogExporter::ElasticsearchLogExporter(ElasticsearchLogExporterOptions options) {
  for (const auto& e : options.endpoints) CheckEndpoint(e);
  impl_ = std::make_unique<Impl>(options);
  impl_->bulk.start();
}

ElasticsearchLogExporter::~ElasticsearchLogExporter() { Shutdown(std::chrono::seconds(10)); }

void ElasticsearchLogExporter::Impl::Submit(const LogRecordBatchView& batch, ExportCallback done,
                                            bool send_now) {
  if (shut_down.load(std::memory_order_acquire)) {
    failed->fetch_add(batch.size(), std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  if (batch.empty()) {
    done(ExportResult::kSuccess);
    return;
  }
  encoding::EncodedBatch encoded;
  try {
    pdata::LogsData data;
    detail::ToPdata(batch, data);
    auto encoder = encoders.Acquire();
    encoder->encode_logs(data, encoded);
  } catch (...) {  // allocation failure
    failed->fetch_add(batch.size(), std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  const std::uint64_t records = batch.size();
  // The encoder drops records it cannot encode (an unsupported mapping mode asked for by a
  // scope attribute, a body that must be a map, a document over the size limit...): those
  // never reach the bulk exporter, so success is every record indexed, not every item
  // submitted.
  auto settle = [done, records, indexed = indexed, failed = failed](const es::BulkResult& r) {
    const std::uint64_t ok = std::min(records, r.indexed + r.duplicates);
    indexed->fetch_add(ok, std::memory_order_relaxed);
    failed->fetch_add(records - ok, std::memory_order_relaxed);
    try {
      done(ok == records && r.acked() ? ExportResult::kSuccess : ExportResult::kFailure);
    } catch (...) {  // runs on a bulk worker: a throwing callback must not escape into it
    }
  };
  // `done` is copied into `settle`, so it is still ours if submit refuses the batch.
  // (An empty encoded batch, every record dropped, settles at once with nothing indexed.)
  if (!bulk.submit(std::move(encoded), std::move(settle), DeadlineAfter(submit_timeout))) {
    failed->fetch_add(records, std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  if (send_now) bulk.send_pending();
}

void ElasticsearchLogExporter::ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const {
  impl_->Submit(batch, std::move(done), /*send_now=*/false);
}

ExportResult ElasticsearchLogExporter::Export(const LogRecordBatchView& batch) const noexcept {
  try {
    auto promise = std::make_shared<std::promise<ExportResult>>();
    auto future = promise->get_future();
    impl_->Submit(
        batch, [promise](ExportResult r) { promise->set_value(r); }, /*send_now=*/true);
    return future.get();
  } catch (...) {
    return ExportResult::kFailure;
  }
}

bool ElasticsearchLogExporter::ForceFlush(std::chrono::milliseconds timeout) const noexcept {
  try {
    // Only what was submitted before the call: waiting for the exporter to be idle would
    // never end while other threads keep exporting.
    return impl_->bulk.flush_submitted(DeadlineAfter(timeout));  // time_point::max(): no limit
  } catch (...) {
    return false;
  }
}

bool ElasticsearchLogExporter::Shutdown(std::chrono::milliseconds timeout) const noexcept {
  Impl& im = *impl_;
  const auto deadline = DeadlineAfter(timeout);
  try {
    if (im.shut_down.exchange(true, std::memory_order_acq_rel)) {
      // A later or concurrent call: the first one's result, once it has one.
      return im.shutdown_result.Wait(deadline);
    }
    bool ok = false;
    // Also when something below throws: later callers must not wait in vain.
    const FirstCallResult::Publishing publish{im.shutdown_result, ok};
    const bool flushed = im.bulk.flush(deadline);
    // BulkExporter::shutdown adds its timeout to now() unsaturated: keep "no limit" far
    // inside the clock's range. After a flush without limit, it only waits for exports
    // that raced with the shut_down flag.
    constexpr std::chrono::milliseconds kLongestBulkWait = std::chrono::hours(24 * 365 * 100);
    im.bulk.shutdown(std::min(TimeLeft(deadline), kLongestBulkWait));
    ok = flushed && im.bulk.counters().docs_undelivered == 0;
    return ok;
  } catch (...) {
    return false;
  }
}

ElasticsearchLogExporterStats ElasticsearchLogExporter::stats() const {
  return {impl_->indexed->load(std::memory_order_relaxed), impl_->failed->load(std::memory_order_relaxed),
          impl_->bulk.counters().requests};
}

}  // namespace tern::sdk::logs
