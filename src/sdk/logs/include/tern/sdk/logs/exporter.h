#pragma once
// Exporter interface. Export is const and must be safe to call from many threads at
// once: processors call it without any lock (SimpleLogRecordProcessor calls it on
// every emitting thread). An exporter that needs shared state keeps a concurrent
// structure of its own, never a processor-side mutex.
#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <span>

#include "tern/sdk/logs/log_record.h"
#include "tern/sdk/logs/resource.h"

namespace tern::sdk::logs {

enum class ExportResult { kSuccess, kFailure };

struct LogRecordEntry {
  const InstrumentationScope* scope;
  const LogRecord* record;
};

// What an exporter receives: one resource and records tagged with their scope, i.e.
// the shape of one OTLP ResourceLogs (group entries by scope to get ScopeLogs).
// Everything it points to is only valid during the Export/ExportAsync call.
class LogRecordBatchView {
 public:
  LogRecordBatchView(const Resource& resource, std::span<const LogRecordEntry> entries)
      : resource_(&resource), entries_(entries) {}
  const Resource& resource() const { return *resource_; }
  std::span<const LogRecordEntry> entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  const Resource* resource_;
  std::span<const LogRecordEntry> entries_;
};

using ExportCallback = std::function<void(ExportResult)>;

class LogRecordExporter {
 public:
  virtual ~LogRecordExporter() = default;

  // Synchronous export; failures are reported, never thrown.
  virtual ExportResult Export(const LogRecordBatchView& batch) const noexcept = 0;

  // Asynchronous export: the exporter must be done reading `batch` when this returns
  // (encode it, then send), and calls `done` exactly once, on any thread: usually later,
  // but possibly before returning, on the caller's thread (an empty or refused batch).
  // Default: synchronous Export, then `done` on the caller's thread.
  virtual void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const {
    done(Export(batch));
  }
  std::future<ExportResult> ExportFuture(const LogRecordBatchView& batch) const {
    auto promise = std::make_shared<std::promise<ExportResult>>();
    auto future = promise->get_future();
    ExportAsync(batch, [promise](ExportResult r) { promise->set_value(r); });
    return future;
  }

  virtual bool ForceFlush(std::chrono::milliseconds timeout) const noexcept { return true; }
  virtual bool Shutdown(std::chrono::milliseconds timeout) const noexcept { return true; }
};

// Base for network exporters whose natural form is asynchronous: implement
// ExportAsync; Export is the blocking convenience on top of it.
class AsyncLogRecordExporter : public LogRecordExporter {
 public:
  void ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const override = 0;
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    try {
      return ExportFuture(batch).get();
    } catch (...) {
      return ExportResult::kFailure;
    }
  }
};

}  // namespace tern::sdk::logs
