#pragma once
// LoggerProvider owns the resource, the processors and the loggers; Logger is an
// instrumentation scope bound to them. Processors are fixed at construction so
// Emit reads them without synchronisation. Loggers live as long as their provider.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "tern/sdk/logs/deadline.h"
#include "tern/sdk/logs/log_record.h"
#include "tern/sdk/logs/processor.h"
#include "tern/sdk/logs/resource.h"

namespace tern::sdk::logs {

class LoggerProvider;

class Logger {
 public:
  // Hands the record to every processor, also after the provider's shutdown: each
  // processor checks its own shutdown flag (it has to anyway, for emits racing with
  // Shutdown), and the batch processor counts such a record in dropped_count().
  void Emit(const LogRecord& record) const noexcept {
    for (const auto& p : processors_) p->OnEmit(record, scope_);
  }
  const InstrumentationScope& scope() const { return scope_; }

 private:
  friend class LoggerProvider;
  Logger(InstrumentationScope scope, std::span<const std::unique_ptr<LogRecordProcessor>> processors)
      : scope_(std::move(scope)), processors_(processors) {}

  InstrumentationScope scope_;
  std::span<const std::unique_ptr<LogRecordProcessor>> processors_;
};

class LoggerProvider {
 public:
  explicit LoggerProvider(Resource resource = {},
                          std::vector<std::unique_ptr<LogRecordProcessor>> processors = {});
  LoggerProvider(Resource resource, std::unique_ptr<LogRecordProcessor> processor);
  ~LoggerProvider();  // Shutdown() unless already done
  LoggerProvider(const LoggerProvider&) = delete;
  LoggerProvider& operator=(const LoggerProvider&) = delete;

  // Same (name, version, schema_url) gives the same Logger. Takes a mutex: call it
  // once and keep the reference, not on every emit.
  Logger& GetLogger(std::string_view name, std::string_view version = {}, std::string_view schema_url = {});

  // Each processor gets the time left of `timeout`; milliseconds::max() means no limit.
  bool ForceFlush(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // The first call shuts the processors down; a concurrent or later call waits (within its
  // own timeout) for that to end and returns the same result, false if it timed out.
  bool Shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  const Resource& resource() const { return *resource_; }

 private:
  // Destroyed bottom-up. The loggers outlive the processors: after a Shutdown that timed
  // out, a processor's destructor joins an export thread that still exports queued
  // records, and those point to their logger's scope.
  std::unique_ptr<const Resource> resource_;  // stable address handed to processors
  std::mutex loggers_mu_;
  std::vector<std::unique_ptr<Logger>> loggers_;
  std::vector<std::unique_ptr<LogRecordProcessor>> processors_;
  std::atomic<bool> shutdown_{false};
  FirstCallResult shutdown_result_;  // Shutdown's outcome, for the callers after the first
};

}  // namespace tern::sdk::logs
