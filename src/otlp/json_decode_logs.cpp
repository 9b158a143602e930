// OTLP/JSON logs: LogsData and LogRecord.
#include "otlp/json_codec.h"
#include "otlp/json_decoder.h"

namespace tern::otlp::json_detail {

bool Decoder::log_record(od::value& v, LogRecord& r) {
  return fields(v, [&](std::string_view k, od::value& f) {
    if (key_is(k, "timeUnixNano", "time_unix_nano"))
      return in("time_unix_nano", [&] { return integer(f, r.time_unix_nano); });
    if (key_is(k, "observedTimeUnixNano", "observed_time_unix_nano"))
      return in("observed_time_unix_nano", [&] { return integer(f, r.observed_time_unix_nano); });
    if (key_is(k, "severityNumber", "severity_number"))
      return in("severity_number", [&] {
        return enumeration(f, r.severity_number,
                           {"SEVERITY_NUMBER_UNSPECIFIED", "SEVERITY_NUMBER_TRACE",  "SEVERITY_NUMBER_TRACE2",
                            "SEVERITY_NUMBER_TRACE3",      "SEVERITY_NUMBER_TRACE4", "SEVERITY_NUMBER_DEBUG",
                            "SEVERITY_NUMBER_DEBUG2",      "SEVERITY_NUMBER_DEBUG3", "SEVERITY_NUMBER_DEBUG4",
                            "SEVERITY_NUMBER_INFO",        "SEVERITY_NUMBER_INFO2",  "SEVERITY_NUMBER_INFO3",
                            "SEVERITY_NUMBER_INFO4",       "SEVERITY_NUMBER_WARN",   "SEVERITY_NUMBER_WARN2",
                            "SEVERITY_NUMBER_WARN3",       "SEVERITY_NUMBER_WARN4",  "SEVERITY_NUMBER_ERROR",
                            "SEVERITY_NUMBER_ERROR2",      "SEVERITY_NUMBER_ERROR3", "SEVERITY_NUMBER_ERROR4",
                            "SEVERITY_NUMBER_FATAL",       "SEVERITY_NUMBER_FATAL2", "SEVERITY_NUMBER_FATAL3",
                            "SEVERITY_NUMBER_FATAL4"});
      });
    if (key_is(k, "severityText", "severity_text"))
      return in("severity_text", [&] { return str(f, r.severity_text); });
    if (k == "body") return in("body", [&] { return any_value(f, r.body, 0); });
    if (k == "attributes") return in("attributes", [&] { return key_values(f, r.attributes); });
    if (key_is(k, "droppedAttributesCount", "dropped_attributes_count"))
      return in("dropped_attributes_count", [&] { return integer(f, r.dropped_attributes_count); });
    if (k == "flags") return in("flags", [&] { return integer(f, r.flags); });
    if (key_is(k, "traceId", "trace_id")) return in("trace_id", [&] { return id(f, r.trace_id); });
    if (key_is(k, "spanId", "span_id")) return in("span_id", [&] { return id(f, r.span_id); });
    if (key_is(k, "eventName", "event_name")) return in("event_name", [&] { return str(f, r.event_name); });
    return true;
  });
}

bool Decoder::logs(std::string_view k, od::value& f, LogsData& out) {
  if (!key_is(k, "resourceLogs", "resource_logs")) return true;
  return in("resource_logs", [&] {
    return elements(f, [&](od::value& rv) {
      auto& rl = out.resource_logs.emplace_back(arena_);
      return resource_wrapper(rv, rl, "scopeLogs", "scope_logs", [&](od::value& sv) {
        return elements(sv, [&](od::value& se) {
          auto& sl = rl.scope_logs.emplace_back(arena_);
          return scope_wrapper(se, sl, "logRecords", "log_records", [&](od::value& lv) {
            return message_list(lv, sl.log_records, &Decoder::log_record);
          });
        });
      });
    });
  });
}

}  // namespace tern::otlp::json_detail

namespace tern::otlp {

std::optional<DecodeError> decode_logs_json(std::string_view in, pdata::LogsData& out,
                                            const DecodeOptions& options) {
  return json_detail::decode(in, out, options, &json_detail::Decoder::logs);
}

}  // namespace tern::otlp
