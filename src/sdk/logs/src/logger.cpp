#include "tern/sdk/logs/logger.h"

#include "tern/sdk/logs/deadline.h"

namespace tern::sdk::logs {

LoggerProvider::LoggerProvider(Resource resource, std::vector<std::unique_ptr<LogRecordProcessor>> processors)
    : resource_(std::make_unique<const Resource>(std::move(resource))), processors_(std::move(processors)) {
  std::erase(processors_, nullptr);
  for (auto& p : processors_) p->SetResource(resource_.get());
}

LoggerProvider::LoggerProvider(Resource resource, std::unique_ptr<LogRecordProcessor> processor)
    : LoggerProvider(std::move(resource), [&] {
        std::vector<std::unique_ptr<LogRecordProcessor>> v;
        v.push_back(std::move(processor));
        return v;
      }()) {}

LoggerProvider::~LoggerProvider() { Shutdown(); }

Logger& LoggerProvider::GetLogger(std::string_view name, std::string_view version,
                                  std::string_view schema_url) {
  std::lock_guard lock(loggers_mu_);
  for (const auto& l : loggers_) {
    const auto& s = l->scope();
    if (s.name == name && s.version == version && s.schema_url == schema_url) return *l;
  }
  InstrumentationScope scope{std::string(name), std::string(version), std::string(schema_url), {}};
  loggers_.push_back(std::unique_ptr<Logger>(new Logger(std::move(scope), processors_)));
  return *loggers_.back();
}

bool LoggerProvider::ForceFlush(std::chrono::milliseconds timeout) {
  if (shutdown_.load()) return false;
  const auto deadline = DeadlineAfter(timeout);
  bool ok = true;
  for (auto& p : processors_) ok = p->ForceFlush(TimeLeft(deadline)) && ok;
  return ok;
}

bool LoggerProvider::Shutdown(std::chrono::milliseconds timeout) {
  const auto deadline = DeadlineAfter(timeout);
  if (shutdown_.exchange(true)) {
    // Not `true` at once: the first call may still be exporting, and a caller told "done"
    // would exit with records still queued.
    return shutdown_result_.Wait(deadline);
  }
  bool ok = true;
  for (auto& p : processors_) ok = p->Shutdown(TimeLeft(deadline)) && ok;
  shutdown_result_.Publish(ok);
  return ok;
}

}  // namespace tern::sdk::logs
