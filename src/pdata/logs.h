#pragma once
// Logs data model: opentelemetry/proto/logs/v1 (ExportLogsServiceRequest).
#include <cstdint>

#include "pdata/common.h"
#include "pdata/delivery.h"

namespace tern::pdata {

struct LogRecord {
  explicit LogRecord(const Arena& a) : attributes(a.vec<KeyValue>()) {}
  std::uint64_t time_unix_nano = 0;
  std::uint64_t observed_time_unix_nano = 0;
  std::int32_t severity_number = 0;
  Str severity_text;
  AnyValue body;
  Attributes attributes;
  std::uint32_t dropped_attributes_count = 0;
  std::uint32_t flags = 0;
  TraceId trace_id{};
  SpanId span_id{};
  Str event_name;
};

struct ScopeLogs {
  explicit ScopeLogs(const Arena& a) : scope(a), log_records(a.vec<LogRecord>()) {}
  InstrumentationScope scope;
  Vec<LogRecord> log_records;
  Str schema_url;
};

struct ResourceLogs {
  explicit ResourceLogs(const Arena& a) : resource(a), scope_logs(a.vec<ScopeLogs>()) {}
  Resource resource;
  Vec<ScopeLogs> scope_logs;
  Str schema_url;
};

// One ExportLogsServiceRequest. Owns its arena (declared first: destroyed last).
struct LogsData {
  LogsData() : resource_logs(arena.vec<ResourceLogs>()) {}
  explicit LogsData(std::size_t arena_bytes) : arena(arena_bytes), resource_logs(arena.vec<ResourceLogs>()) {}
  Arena arena;
  Vec<ResourceLogs> resource_logs;
  // Set by producers that need to know when the batch is settled (pdata/delivery.h).
  DeliveryTokenPtr delivery;

  std::size_t record_count() const {
    std::size_t n = 0;
    for (const auto& rl : resource_logs)
      for (const auto& sl : rl.scope_logs) n += sl.log_records.size();
    return n;
  }
};

}  // namespace tern::pdata
