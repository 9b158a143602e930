#include "to_pdata.h"

namespace tern::sdk::logs::detail {

namespace {

pdata::AnyValue Convert(const pdata::Arena& a, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
      return pdata::AnyValue::string(a.copy(v.as_string()));
    case ValueKind::kBool:
      return pdata::AnyValue::boolean(v.as_bool());
    case ValueKind::kInt:
      return pdata::AnyValue::integer(v.as_int());
    case ValueKind::kDouble:
      return pdata::AnyValue::dbl(v.as_double());
    case ValueKind::kEmpty:
      break;
  }
  return {};
}

void CopyAttributes(const pdata::Arena& a, const std::vector<OwnedAttribute>& in, pdata::Attributes& out) {
  out.reserve(in.size());
  for (const auto& kv : in) out.push_back({a.copy(kv.key), Convert(a, kv.value.view())});
}

}  // namespace

void ToPdata(const LogRecordBatchView& batch, pdata::LogsData& out) {
  const pdata::Arena& a = out.arena;
  auto& rl = out.resource_logs.emplace_back(a);
  CopyAttributes(a, batch.resource().attributes, rl.resource.attributes);
  rl.schema_url = a.copy(batch.resource().schema_url);
  const InstrumentationScope* current = nullptr;
  for (const auto& e : batch) {
    if (e.scope != current || rl.scope_logs.empty()) {
      current = e.scope;
      auto& sl = rl.scope_logs.emplace_back(a);
      if (current != nullptr) {
        sl.scope.name = a.copy(current->name);
        sl.scope.version = a.copy(current->version);
        sl.schema_url = a.copy(current->schema_url);
        CopyAttributes(a, current->attributes, sl.scope.attributes);
      }
    }
    const LogRecord& r = *e.record;
    auto& rec = rl.scope_logs.back().log_records.emplace_back(a);
    rec.time_unix_nano = r.timestamp();
    rec.observed_time_unix_nano = r.observed_timestamp();
    rec.severity_number = static_cast<std::int32_t>(r.severity());
    rec.severity_text = a.copy(r.severity_text());
    rec.body = Convert(a, r.body());
    rec.attributes.reserve(r.attributes().size());
    for (const auto& attr : r.attributes())
      rec.attributes.push_back({a.copy(attr.key), Convert(a, attr.value)});
    rec.dropped_attributes_count = r.dropped_attributes_count();
    rec.flags = r.trace_flags();  // OTLP LogRecordFlags: the low 8 bits are the W3C trace flags
    rec.trace_id = r.trace_id();
    rec.span_id = r.span_id();
    rec.event_name = a.copy(r.event_name());
  }
}

}  // namespace tern::sdk::logs::detail
