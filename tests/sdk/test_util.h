#pragma once
// Helpers shared by the SDK tests.
#include <atomic>
#include <chrono>
#include <functional>
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

}  // namespace tern::sdk::logs::testing
