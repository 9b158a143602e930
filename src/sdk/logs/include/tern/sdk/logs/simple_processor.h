#pragma once
// Exports every record synchronously on the emitting thread. No lock: the exporter
// contract (const, thread-safe Export) makes concurrent calls legal.
#include <atomic>
#include <memory>

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
  bool Shutdown(std::chrono::milliseconds timeout) noexcept override {
    if (shutdown_.exchange(true)) return true;
    return exporter_->Shutdown(timeout);
  }

 private:
  std::shared_ptr<const LogRecordExporter> exporter_;
  std::atomic<bool> shutdown_{false};
};

}  // namespace tern::sdk::logs
