#pragma once
// Processor interface: the hook between Logger::Emit and exporters.
#include <atomic>
#include <chrono>

#include "tern/sdk/logs/log_record.h"
#include "tern/sdk/logs/resource.h"

namespace tern::sdk::logs {

class LogRecordProcessor {
 public:
  virtual ~LogRecordProcessor() = default;

  // Called on the emitting thread, concurrently from any number of threads, and also
  // during and after Shutdown (Logger::Emit does not check): a processor that is shut
  // down drops the record (and counts it, if it keeps a count).
  virtual void OnEmit(const LogRecord& record, const InstrumentationScope& scope) noexcept = 0;
  // `timeout` may be milliseconds::max(), meaning no limit (see deadline.h); what is left
  // of it is what the exporter's ForceFlush/Shutdown get.
  virtual bool ForceFlush(std::chrono::milliseconds timeout) noexcept = 0;
  virtual bool Shutdown(std::chrono::milliseconds timeout) noexcept = 0;

  // LoggerProvider hands its resource to each processor before any OnEmit. Atomic so
  // an export thread started by the processor's constructor reads it race-free.
  void SetResource(const Resource* resource) noexcept {
    resource_.store(resource, std::memory_order_release);
  }

 protected:
  const Resource& resource() const noexcept {
    static const Resource kEmpty;
    const Resource* r = resource_.load(std::memory_order_acquire);
    return r != nullptr ? *r : kEmpty;
  }

 private:
  std::atomic<const Resource*> resource_{nullptr};
};

}  // namespace tern::sdk::logs
