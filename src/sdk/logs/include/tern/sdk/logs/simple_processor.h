#pragma once
// Exports every record synchronously on the emitting thread. No lock: the exporter
// contract (const, thread-safe Export) makes concurrent calls legal.
#include <atomic>
#include <memory>

#include "tern/sdk/logs/deadline.h"
#include "tern/sdk/logs/exporter.h"
#include "tern/sdk/logs/processor.h"

namespace tern::sdk::logs {

class SimpleLogRecordProcessor final : public LogRecordProcessor {
 public:
  explicit SimpleLogRecordProcessor(std::shared_ptr<const LogRecordExporter> exporter)
      : exporter_(std::move(exporter)) {}

  void OnEmit(const LogRecord& record, const InstrumentationScope& scope) noexcept override {
    if (shutdown_.load(std::memory_order_relaxed)) return;
    const LogRecordEntry entry{&scope, &record};
    exporter_->Export(LogRecordBatchView(resource(), {&entry, 1}));
  }
  bool ForceFlush(std::chrono::milliseconds timeout) noexcept override {
    return !shutdown_.load(std::memory_order_relaxed) && exporter_->ForceFlush(timeout);
  }
  // Later emits are ignored. Exports already running on other threads may still finish.
  // A concurrent or later call waits (within its own timeout) for the first to end and
  // returns its result.
  bool Shutdown(std::chrono::milliseconds timeout) noexcept override {
    const auto deadline = DeadlineAfter(timeout);
    if (shutdown_.exchange(true)) return shutdown_result_.Wait(deadline);
    const bool ok = exporter_->Shutdown(timeout);
    shutdown_result_.Publish(ok);
    return ok;
  }

 private:
  std::shared_ptr<const LogRecordExporter> exporter_;
  std::atomic<bool> shutdown_{false};
  // Shutdown's outcome, for the callers after the first (never touched by OnEmit).
  FirstCallResult shutdown_result_;
};

}  // namespace tern::sdk::logs
