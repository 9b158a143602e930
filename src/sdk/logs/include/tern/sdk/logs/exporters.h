#pragma once
// Built-in exporters: noop (benchmarks), ostream (examples, debugging) and in-memory
// (tests). All honour the const, thread-safe Export contract.
#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs {

class NoopLogRecordExporter final : public LogRecordExporter {
 public:
  ExportResult Export(const LogRecordBatchView&) const noexcept override { return ExportResult::kSuccess; }
};

// One human-readable line per record. Each batch is formatted into a std::osyncstream
// and written in one piece, so concurrent exports never interleave inside a line.
// The stream must outlive the exporter.
class OStreamLogRecordExporter final : public LogRecordExporter {
 public:
  explicit OStreamLogRecordExporter(std::ostream& out) : out_(&out) {}
  ExportResult Export(const LogRecordBatchView& batch) const noexcept override;

 private:
  std::ostream* out_;
};

// Keeps copies of everything exported, for tests. Concurrency: each Export pushes
// one immutable node (the batch) onto a lock-free Treiber stack with a CAS, so
// Export never blocks; readers walk the nodes, which are never modified once
// published and are freed only by the destructor (hence no Clear()).
class InMemoryLogRecordExporter final : public LogRecordExporter {
 public:
  struct Record {
    LogRecordData data;
    std::string scope_name;
    std::string scope_version;
    LogRecord view() const { return data.view(); }
  };

  InMemoryLogRecordExporter() = default;
  ~InMemoryLogRecordExporter() override;
  InMemoryLogRecordExporter(const InMemoryLogRecordExporter&) = delete;
  InMemoryLogRecordExporter& operator=(const InMemoryLogRecordExporter&) = delete;

  ExportResult Export(const LogRecordBatchView& batch) const noexcept override;
  bool Shutdown(std::chrono::milliseconds) const noexcept override {
    shutdown_calls_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // Snapshots, in export order (the order of the successful CASes).
  std::vector<Record> records() const;
  std::vector<std::size_t> batch_sizes() const;
  std::size_t record_count() const { return record_count_.load(std::memory_order_acquire); }
  int shutdown_calls() const { return shutdown_calls_.load(std::memory_order_relaxed); }

 private:
  struct Node {
    std::vector<Record> records;
    const Node* next = nullptr;
  };
  std::vector<const Node*> NodesInOrder() const;

  // `mutable` atomics only: Export is logically const (callable concurrently); the
  // list itself is the concurrent structure.
  mutable std::atomic<const Node*> head_{nullptr};
  mutable std::atomic<std::size_t> record_count_{0};
  mutable std::atomic<int> shutdown_calls_{0};
};

}  // namespace tern::sdk::logs
