#include "tern/sdk/logs/elasticsearch_log_exporter.h"

#include <algorithm>
#include <atomic>

#include "encoding/elasticsearch/encoder.h"
#include "exporter/elasticsearch/bulk_exporter.h"
#include "slot_pool.h"
#include "tern/sdk/logs/deadline.h"
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
  return b;
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

  const std::chrono::milliseconds submit_timeout;
  const enc::EncoderConfig encoder_config;
  detail::SlotPool<enc::Encoder> encoders;
  es::BulkExporter bulk;
  std::atomic<bool> shut_down{false};
  // Shared with completion callbacks, which run on bulk workers.
  std::shared_ptr<std::atomic<std::uint64_t>> indexed = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::shared_ptr<std::atomic<std::uint64_t>> failed = std::make_shared<std::atomic<std::uint64_t>>(0);
};

ElasticsearchLogExporter::ElasticsearchLogExporter(ElasticsearchLogExporterOptions options)
    : impl_(std::make_unique<Impl>(options)) {
  impl_->bulk.start();
}

ElasticsearchLogExporter::~ElasticsearchLogExporter() { Shutdown(std::chrono::seconds(10)); }

void ElasticsearchLogExporter::ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const {
  Impl& im = *impl_;
  if (im.shut_down.load(std::memory_order_acquire)) {
    im.failed->fetch_add(batch.size(), std::memory_order_relaxed);
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
    auto encoder = im.encoders.Acquire();
    encoder->encode_logs(data, encoded);
  } catch (...) {  // allocation failure
    im.failed->fetch_add(batch.size(), std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  const std::uint64_t records = batch.size();
  auto settle = [done, records, indexed = im.indexed, failed = im.failed](const es::BulkResult& r) {
    const std::uint64_t ok = r.indexed + r.duplicates;
    indexed->fetch_add(ok, std::memory_order_relaxed);
    failed->fetch_add(records - std::min(records, ok), std::memory_order_relaxed);
    try {
      done(r.acked() && r.failed == 0 && r.dropped == 0 ? ExportResult::kSuccess : ExportResult::kFailure);
    } catch (...) {  // runs on a bulk worker: a throwing callback must not escape into it
    }
  };
  // `done` is copied into `settle`, so it is still ours if submit refuses the batch.
  if (!im.bulk.submit(std::move(encoded), std::move(settle), DeadlineAfter(im.submit_timeout))) {
    im.failed->fetch_add(records, std::memory_order_relaxed);
    done(ExportResult::kFailure);
  }
}

bool ElasticsearchLogExporter::ForceFlush(std::chrono::milliseconds timeout) const noexcept {
  try {
    return impl_->bulk.flush(DeadlineAfter(timeout));  // time_point::max(): waits without a limit
  } catch (...) {
    return false;
  }
}

bool ElasticsearchLogExporter::Shutdown(std::chrono::milliseconds timeout) const noexcept {
  Impl& im = *impl_;
  if (im.shut_down.exchange(true, std::memory_order_acq_rel)) return true;
  try {
    const auto deadline = DeadlineAfter(timeout);
    const bool flushed = im.bulk.flush(deadline);
    // BulkExporter::shutdown adds its timeout to now() unsaturated: keep "no limit" far
    // inside the clock's range. After a flush without limit, it only waits for exports
    // that raced with the shut_down flag.
    constexpr std::chrono::milliseconds kLongestBulkWait = std::chrono::hours(24 * 365 * 100);
    im.bulk.shutdown(std::min(TimeLeft(deadline), kLongestBulkWait));
    return flushed && im.bulk.counters().docs_undelivered == 0;
  } catch (...) {
    return false;
  }
}

ElasticsearchLogExporterStats ElasticsearchLogExporter::stats() const {
  return {impl_->indexed->load(std::memory_order_relaxed), impl_->failed->load(std::memory_order_relaxed),
          impl_->bulk.counters().requests};
}

}  // namespace tern::sdk::logs
