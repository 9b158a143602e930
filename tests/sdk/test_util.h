#pragma once
// Helpers shared by the SDK tests.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs::testing {

// Polls `done` until true or `limit` passes: bounds tests without asserting on timing.
inline bool WaitFor(const std::function<bool()>& done,
                    std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Forwards to `inner` once the gate is opened; Export blocks until then.
class GatedExporter final : public LogRecordExporter {
 public:
  explicit GatedExporter(std::shared_ptr<const LogRecordExporter> inner) : inner_(std::move(inner)) {}
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    entered_.fetch_add(1);
    open_.wait(false);
    return inner_->Export(batch);
  }
  void Open() const {
    open_.store(true);
    open_.notify_all();
  }
  int entered() const { return entered_.load(); }

 private:
  std::shared_ptr<const LogRecordExporter> inner_;
  mutable std::atomic<bool> open_{false};
  mutable std::atomic<int> entered_{0};
};

// Forwards to `inner` after sleeping `delay` in every Export (a slow network exporter),
// and records the timeouts it is given by ForceFlush and Shutdown.
class SlowExporter final : public LogRecordExporter {
 public:
  SlowExporter(std::shared_ptr<const LogRecordExporter> inner, std::chrono::milliseconds delay)
      : inner_(std::move(inner)), delay_(delay) {}
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    std::this_thread::sleep_for(delay_);
    return inner_->Export(batch);
  }
  bool ForceFlush(std::chrono::milliseconds timeout) const noexcept override {
    flush_timeout_.store(timeout.count());
    return inner_->ForceFlush(timeout);
  }
  bool Shutdown(std::chrono::milliseconds timeout) const noexcept override {
    shutdown_timeout_.store(timeout.count());
    return inner_->Shutdown(timeout);
  }
  // The timeout of the last call; -1 ms if there was none.
  std::chrono::milliseconds last_flush_timeout() const {
    return std::chrono::milliseconds(flush_timeout_.load());
  }
  std::chrono::milliseconds last_shutdown_timeout() const {
    return std::chrono::milliseconds(shutdown_timeout_.load());
  }

 private:
  std::shared_ptr<const LogRecordExporter> inner_;
  const std::chrono::milliseconds delay_;
  mutable std::atomic<std::chrono::milliseconds::rep> flush_timeout_{-1};
  mutable std::atomic<std::chrono::milliseconds::rep> shutdown_timeout_{-1};
};

}  // namespace tern::sdk::logs::testing
