#include "tern/sdk/logs/log_record.h"

namespace tern::sdk::logs {

void LogRecordData::Assign(const LogRecord& r) {
  timestamp_ = r.timestamp();
  observed_timestamp_ = r.observed_timestamp();
  severity_ = r.severity();
  severity_text_.assign(r.severity_text());
  event_name_.assign(r.event_name());
  body_.Assign(r.body());
  const auto attrs = r.attributes();
  attribute_count_ = static_cast<std::uint32_t>(attrs.size());
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    attributes_[i].key.assign(attrs[i].key);
    attributes_[i].value.Assign(attrs[i].value);
  }
  dropped_attributes_ = r.dropped_attributes_count();
  trace_id_ = r.trace_id();
  span_id_ = r.span_id();
  trace_flags_ = r.trace_flags();
}

LogRecord LogRecordData::view() const {
  LogRecord r{LogRecord::NoObservedTimestamp{}};
  r.SetTimestamp(timestamp_)
      .SetObservedTimestamp(observed_timestamp_)
      .SetSeverity(severity_, severity_text_)
      .SetEventName(event_name_)
      .SetBody(body_.view())
      .SetTraceContext(trace_id_, span_id_, trace_flags_);
  for (std::uint32_t i = 0; i < attribute_count_; ++i)
    r.AddAttribute(attributes_[i].key, attributes_[i].value.view());
  r.SetDroppedAttributesCount(dropped_attributes_);
  return r;
}

}  // namespace tern::sdk::logs
