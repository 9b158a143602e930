#pragma once
// Builds export batches for the network exporter tests: a resource, two scopes and
// records with every field set, owned by the builder so views stay valid.
#include <deque>
#include <string>
#include <vector>

#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs::testing {

class BatchBuilder {
 public:
  BatchBuilder() : resource_{{"service.name", "sdk-test"}, {"host.id", 7}} {
    scopes_[0] = InstrumentationScope{"scope.a", "1.0", "", {}};
    scopes_[1] = InstrumentationScope{"scope.b", "2.0", "", {}};
  }

  // Record `i`: body "record <i>", severity WARN(13), attributes seq=i, tag="<tag>", ratio,
  // flag; trace context with trace_id[0] = 0xab, trace_id[15] = i % 256. Records alternate scopes in runs of
  // `run`.
  BatchBuilder& Add(int count, const std::string& tag = "t", int run = 1000000) {
    for (int k = 0; k < count; ++k) {
      const int i = static_cast<int>(records_.size());
      const std::string& body = strings_.emplace_back("record " + std::to_string(i));
      const std::string& t = strings_.emplace_back(tag);
      LogRecord& r = records_.emplace_back();
      TraceId trace{};
      trace[0] = 0xab;  // never all zero: a zero trace id is "no trace" and is not exported
      trace[15] = static_cast<std::uint8_t>(i % 256);
      SpanId span{};
      span[7] = 1;
      r.SetTimestamp(1'700'000'000'000'000'000ULL + static_cast<std::uint64_t>(i))
          .SetSeverity(Severity::kWarn, "WARN")
          .SetBody(body)
          .SetEventName("sdk.test")
          .SetTraceContext(trace, span, 1)
          .AddAttribute("seq", i)
          .AddAttribute("tag", t)
          .AddAttribute("ratio", 0.5)
          .AddAttribute("flag", true);
      scope_of_.push_back(&scopes_[(i / run) % 2]);
    }
    return *this;
  }
  LogRecordBatchView View() {
    entries_.clear();
    for (std::size_t i = 0; i < records_.size(); ++i) entries_.push_back({scope_of_[i], &records_[i]});
    return LogRecordBatchView(resource_, entries_);
  }
  Resource& resource() { return resource_; }

 private:
  Resource resource_;
  InstrumentationScope scopes_[2];
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::deque<LogRecord> records_;
  std::vector<const InstrumentationScope*> scope_of_;
  std::vector<LogRecordEntry> entries_;
};

}  // namespace tern::sdk::logs::testing
