#pragma once
// LogRecord: built on the caller's stack, no heap allocation. Strings are views
// (valid until Emit returns); attributes live in a fixed inline array and the ones
// beyond kMaxAttributes are counted in dropped_attributes_count() (OTLP semantics).
//
// LogRecordData: the owning copy kept by queueing processors and test exporters.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tern/sdk/logs/value.h"

namespace tern::sdk::logs {

// OTLP SeverityNumber.
enum class Severity : std::uint8_t {
  kUnspecified = 0,
  kTrace = 1,
  kTrace2,
  kTrace3,
  kTrace4,
  kDebug = 5,
  kDebug2,
  kDebug3,
  kDebug4,
  kInfo = 9,
  kInfo2,
  kInfo3,
  kInfo4,
  kWarn = 13,
  kWarn2,
  kWarn3,
  kWarn4,
  kError = 17,
  kError2,
  kError3,
  kError4,
  kFatal = 21,
  kFatal2,
  kFatal3,
  kFatal4,
};

using TraceId = std::array<std::uint8_t, 16>;
using SpanId = std::array<std::uint8_t, 8>;

inline std::uint64_t UnixNanos(std::chrono::system_clock::time_point t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

class LogRecord {
 public:
  static constexpr std::size_t kMaxAttributes = 8;
  struct NoObservedTimestamp {};

  // The observed timestamp is "when the SDK saw the record" (spec): stamping it here,
  // not in Emit, keeps Emit taking a const record.
  LogRecord() : observed_timestamp_(UnixNanos(std::chrono::system_clock::now())) {}
  explicit LogRecord(NoObservedTimestamp) {}

  LogRecord& SetTimestamp(std::uint64_t unix_nanos) {
    timestamp_ = unix_nanos;
    return *this;
  }
  LogRecord& SetTimestamp(std::chrono::system_clock::time_point t) { return SetTimestamp(UnixNanos(t)); }
  LogRecord& SetObservedTimestamp(std::uint64_t unix_nanos) {
    observed_timestamp_ = unix_nanos;
    return *this;
  }
  LogRecord& SetSeverity(Severity number, std::string_view text = {}) {
    severity_ = number;
    severity_text_ = text;
    return *this;
  }
  LogRecord& SetBody(Value body) {
    body_ = body;
    return *this;
  }
  LogRecord& SetEventName(std::string_view name) {
    event_name_ = name;
    return *this;
  }
  LogRecord& SetTraceContext(const TraceId& trace_id, const SpanId& span_id, std::uint8_t flags) {
    trace_id_ = trace_id;
    span_id_ = span_id;
    trace_flags_ = flags;
    return *this;
  }
  LogRecord& SetDroppedAttributesCount(std::uint32_t n) {
    dropped_attributes_ = n;
    return *this;
  }
  // Appends (no de-duplication: callers own their keys, and a linear scan would tax
  // every emit). Past kMaxAttributes the attribute is counted as dropped.
  LogRecord& AddAttribute(std::string_view key, Value value) {
    if (attribute_count_ < kMaxAttributes) {
      attributes_[attribute_count_++] = Attribute{key, value};
    } else {
      ++dropped_attributes_;
    }
    return *this;
  }

  std::uint64_t timestamp() const { return timestamp_; }
  std::uint64_t observed_timestamp() const { return observed_timestamp_; }
  Severity severity() const { return severity_; }
  std::string_view severity_text() const { return severity_text_; }
  const Value& body() const { return body_; }
  std::string_view event_name() const { return event_name_; }
  std::span<const Attribute> attributes() const { return {attributes_.data(), attribute_count_}; }
  std::uint32_t dropped_attributes_count() const { return dropped_attributes_; }
  const TraceId& trace_id() const { return trace_id_; }
  const SpanId& span_id() const { return span_id_; }
  std::uint8_t trace_flags() const { return trace_flags_; }

 private:
  std::uint64_t timestamp_ = 0;
  std::uint64_t observed_timestamp_ = 0;
  std::string_view severity_text_;
  std::string_view event_name_;
  Value body_;
  std::array<Attribute, kMaxAttributes> attributes_;
  std::uint32_t attribute_count_ = 0;
  std::uint32_t dropped_attributes_ = 0;
  TraceId trace_id_{};
  SpanId span_id_{};
  std::uint8_t trace_flags_ = 0;
  Severity severity_ = Severity::kUnspecified;
};

// Owning copy of a LogRecord. Assign() reuses existing string capacity.
class LogRecordData {
 public:
  LogRecordData() = default;
  explicit LogRecordData(const LogRecord& r) { Assign(r); }

  void Assign(const LogRecord& r);
  // A view into this object: valid while it is alive and unmodified.
  LogRecord view() const;

 private:
  std::uint64_t timestamp_ = 0;
  std::uint64_t observed_timestamp_ = 0;
  std::string severity_text_;
  std::string event_name_;
  OwnedValue body_;
  std::array<OwnedAttribute, LogRecord::kMaxAttributes> attributes_;
  std::uint32_t attribute_count_ = 0;
  std::uint32_t dropped_attributes_ = 0;
  TraceId trace_id_{};
  SpanId span_id_{};
  std::uint8_t trace_flags_ = 0;
  Severity severity_ = Severity::kUnspecified;
};

}  // namespace tern::sdk::logs
