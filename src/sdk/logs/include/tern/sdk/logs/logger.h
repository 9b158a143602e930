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

#include "tern/sdk/logs/log_record.h"
#include "tern/sdk/logs/processor.h"
#include "tern/sdk/logs/resource.h"

namespace tern::sdk::logs {

class LoggerProvider;

class Logger {
 public:
  // Hands the record to every processor; a no-op once the provider is shut down.
  void Emit(const LogRecord& record) const noexcept {
    if (shutdown_->load(std::memory_order_relaxed)) return;
    for (const auto& p : processors_) p->OnEmit(record, scope_);
  }
  const InstrumentationScope& scope() const { return scope_; }

 private:
  friend class LoggerProvider;
  Logger(InstrumentationScope scope, std::span<const std::unique_ptr<LogRecordProcessor>> processors,
         const std::atomic<bool>* shutdown)
      : scope_(std::move(scope)), processors_(processors), shutdown_(shutdown) {}

  InstrumentationScope scope_;
  std::span<const std::unique_ptr<LogRecordProcessor>> processors_;
  const std::atomic<bool>* shutdown_;
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

  bool ForceFlush(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  bool Shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  const Resource& resource() const { return *resource_; }

 private:
  std::unique_ptr<const Resource> resource_;  // stable address handed to processors
  std::vector<std::unique_ptr<LogRecordProcessor>> processors_;
  std::atomic<bool> shutdown_{false};
  std::mutex loggers_mu_;
  std::vector<std::unique_ptr<Logger>> loggers_;
};

}  // namespace tern::sdk::logs
