#pragma once
// Helpers shared by the SDK tests.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
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

// Runs `fn` on a thread of its own and reports whether it returned within `limit`: a
// liveness bound for calls that used to hang (a hung `fn` is left behind, blocked, so
// that the test fails instead of never ending; whatever it uses must be owned by it).
inline bool ReturnsWithin(std::function<void()> fn, std::chrono::milliseconds limit) {
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  std::thread([fn = std::move(fn), done] {
    fn();
    done->set_value();
  }).detach();
  return finished.wait_for(limit) == std::future_status::ready;
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

// A network exporter that cannot deliver: Export blocks until Shutdown is called (as an
// Elasticsearch export of a held or endlessly retried batch does), then fails.
class StuckUntilShutdownExporter final : public LogRecordExporter {
 public:
  ExportResult Export(const LogRecordBatchView&) const noexcept override {
    entered_.fetch_add(1);
    shut_down_.wait(false);
    return ExportResult::kFailure;
  }
  bool Shutdown(std::chrono::milliseconds) const noexcept override {
    shutdown_calls_.fetch_add(1);
    shut_down_.store(true);
    shut_down_.notify_all();
    return true;
  }
  int entered() const { return entered_.load(); }
  int shutdown_calls() const { return shutdown_calls_.load(); }

 private:
  mutable std::atomic<bool> shut_down_{false};
  mutable std::atomic<int> entered_{0};
  mutable std::atomic<int> shutdown_calls_{0};
};

// Exports into `inner` but reports its ForceFlush and Shutdown as failed.
class FailingFlushExporter final : public LogRecordExporter {
 public:
  explicit FailingFlushExporter(std::shared_ptr<const LogRecordExporter> inner) : inner_(std::move(inner)) {}
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override {
    return inner_->Export(batch);
  }
  bool ForceFlush(std::chrono::milliseconds) const noexcept override { return false; }
  bool Shutdown(std::chrono::milliseconds) const noexcept override { return false; }

 private:
  std::shared_ptr<const LogRecordExporter> inner_;
};

}  // namespace tern::sdk::logs::testing
