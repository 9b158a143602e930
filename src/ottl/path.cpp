#include "ottl/path.h"

#include <cstdint>
#include <string_view>
#include <utility>

namespace tern::ottl {

namespace {

// OTTL's enums (pkg/ottl/contexts): the OTLP numbers.
struct EnumValue {
  const char* name;
  std::int64_t value;
};
constexpr EnumValue kEnums[] = {
    {"SEVERITY_NUMBER_UNSPECIFIED", 0},
    {"SEVERITY_NUMBER_TRACE", 1},
    {"SEVERITY_NUMBER_TRACE2", 2},
    {"SEVERITY_NUMBER_TRACE3", 3},
    {"SEVERITY_NUMBER_TRACE4", 4},
    {"SEVERITY_NUMBER_DEBUG", 5},
    {"SEVERITY_NUMBER_DEBUG2", 6},
    {"SEVERITY_NUMBER_DEBUG3", 7},
    {"SEVERITY_NUMBER_DEBUG4", 8},
    {"SEVERITY_NUMBER_INFO", 9},
    {"SEVERITY_NUMBER_INFO2", 10},
    {"SEVERITY_NUMBER_INFO3", 11},
    {"SEVERITY_NUMBER_INFO4", 12},
    {"SEVERITY_NUMBER_WARN", 13},
    {"SEVERITY_NUMBER_WARN2", 14},
    {"SEVERITY_NUMBER_WARN3", 15},
    {"SEVERITY_NUMBER_WARN4", 16},
    {"SEVERITY_NUMBER_ERROR", 17},
    {"SEVERITY_NUMBER_ERROR2", 18},
    {"SEVERITY_NUMBER_ERROR3", 19},
    {"SEVERITY_NUMBER_ERROR4", 20},
    {"SEVERITY_NUMBER_FATAL", 21},
    {"SEVERITY_NUMBER_FATAL2", 22},
    {"SEVERITY_NUMBER_FATAL3", 23},
    {"SEVERITY_NUMBER_FATAL4", 24},
    {"SPAN_KIND_UNSPECIFIED", 0},
    {"SPAN_KIND_INTERNAL", 1},
    {"SPAN_KIND_SERVER", 2},
    {"SPAN_KIND_CLIENT", 3},
    {"SPAN_KIND_PRODUCER", 4},
    {"SPAN_KIND_CONSUMER", 5},
    {"STATUS_CODE_UNSET", 0},
    {"STATUS_CODE_OK", 1},
    {"STATUS_CODE_ERROR", 2},
    {"METRIC_DATA_TYPE_NONE", 0},
    {"METRIC_DATA_TYPE_GAUGE", 1},
    {"METRIC_DATA_TYPE_SUM", 2},
    {"METRIC_DATA_TYPE_HISTOGRAM", 3},
    {"METRIC_DATA_TYPE_EXPONENTIAL_HISTOGRAM", 4},
    {"METRIC_DATA_TYPE_SUMMARY", 5},
    {"AGGREGATION_TEMPORALITY_UNSPECIFIED", 0},
    {"AGGREGATION_TEMPORALITY_DELTA", 1},
    {"AGGREGATION_TEMPORALITY_CUMULATIVE", 2},
};

// OTLP's MetricType numbering differs from Tern's enum order only in name: Empty is NONE.
std::int64_t metric_type_number(pdata::MetricType t) {
  switch (t) {
    case pdata::MetricType::Empty:
      return 0;
    case pdata::MetricType::Gauge:
      return 1;
    case pdata::MetricType::Sum:
      return 2;
    case pdata::MetricType::Histogram:
      return 3;
    case pdata::MetricType::ExponentialHistogram:
      return 4;
    case pdata::MetricType::Summary:
      return 5;
  }
  return 0;
}

const pdata::AnyValue* find(const pdata::Attributes* attrs, std::string_view key) {
  return attrs ? pdata::find_attribute(*attrs, key) : nullptr;
}

Value keyed(const pdata::Attributes* attrs, const std::vector<std::string>& keys) {
  if (keys.empty()) {
    Value v;
    v.kind = attrs ? Kind::kMap : Kind::kNil;
    v.map = attrs;
    return v;
  }
  const pdata::AnyValue* v = find(attrs, keys[0]);
  for (std::size_t k = 1; v && k < keys.size(); ++k)
    v = v->kind == pdata::ValueKind::KvList && v->kvlist ? pdata::find_attribute(*v->kvlist, keys[k])
                                                         : nullptr;
  return from_any(v);
}

const pdata::Attributes* own_attributes(const Item& it) {
  if (it.log) return &it.log->attributes;
  if (it.event) return &it.event->attributes;
  if (it.span) return &it.span->attributes;
  return it.point_attributes;
}

pdata::Str* text_field(Field f, const MutableItem& it) {
  switch (f) {
    case Field::kLogSeverityText:
      return &it.log->severity_text;
    case Field::kSpanName:
      return &it.span->name;
    case Field::kSpanStatusMessage:
      return &it.span->status.message;
    case Field::kEventName:
      return &it.event->name;
    case Field::kMetricName:
      return &it.metric->name;
    case Field::kMetricDescription:
      return &it.metric->description;
    case Field::kMetricUnit:
      return &it.metric->unit;
    default:
      return nullptr;
  }
}

}  // namespace

bool resolve(std::string& path, Context context, Field& field) {
  static constexpr std::pair<Context, std::string_view> kPrefixes[] = {
      {Context::kLog, "log."},
      {Context::kSpan, "span."},
      {Context::kSpanEvent, "spanevent."},
      {Context::kMetric, "metric."},
      {Context::kDataPoint, "datapoint."},
      {Context::kResource, "resource."},
      {Context::kScope, "instrumentation_scope."},
      {Context::kScope, "scope."}};
  for (const auto& [c, prefix] : kPrefixes)
    if (c == context && path.starts_with(prefix)) path.erase(0, prefix.size());

  struct Entry {
    std::string_view path;
    Field field;
    unsigned contexts;  // bit per Context
  };
  constexpr unsigned kLog = 1u << static_cast<unsigned>(Context::kLog);
  constexpr unsigned kSpan = 1u << static_cast<unsigned>(Context::kSpan);
  constexpr unsigned kEvent = 1u << static_cast<unsigned>(Context::kSpanEvent);
  constexpr unsigned kMetric = 1u << static_cast<unsigned>(Context::kMetric);
  constexpr unsigned kPoint = 1u << static_cast<unsigned>(Context::kDataPoint);
  constexpr unsigned kResourceCtx = 1u << static_cast<unsigned>(Context::kResource);
  constexpr unsigned kScopeCtx = 1u << static_cast<unsigned>(Context::kScope);
  constexpr unsigned kItems = kLog | kSpan | kEvent | kMetric | kPoint;
  static constexpr Entry kPaths[] = {
      {"attributes", Field::kAttributes, kLog | kSpan | kEvent | kPoint},
      {"attributes", Field::kResourceAttributes, kResourceCtx},  // the resource's own
      {"attributes", Field::kScopeAttributes, kScopeCtx},
      {"name", Field::kScopeName, kScopeCtx},
      {"version", Field::kScopeVersion, kScopeCtx},
      {"resource.attributes", Field::kResourceAttributes, kItems | kScopeCtx},
      {"instrumentation_scope.attributes", Field::kScopeAttributes, kItems},
      {"instrumentation_scope.name", Field::kScopeName, kItems},
      {"instrumentation_scope.version", Field::kScopeVersion, kItems},
      {"body", Field::kLogBody, kLog},
      {"severity_number", Field::kLogSeverityNumber, kLog},
      {"severity_text", Field::kLogSeverityText, kLog},
      {"flags", Field::kLogFlags, kLog},
      {"event_name", Field::kLogEventName, kLog},
      {"time_unix_nano", Field::kLogTime, kLog},
      {"observed_time_unix_nano", Field::kLogObservedTime, kLog},
      {"name", Field::kSpanName, kSpan},
      {"kind", Field::kSpanKind, kSpan},
      {"status.code", Field::kSpanStatusCode, kSpan},
      {"status.message", Field::kSpanStatusMessage, kSpan},
      {"start_time_unix_nano", Field::kSpanStart, kSpan},
      {"end_time_unix_nano", Field::kSpanEnd, kSpan},
      {"trace_state", Field::kSpanTraceState, kSpan},
      {"name", Field::kEventName, kEvent},
      {"time_unix_nano", Field::kEventTime, kEvent},
      {"name", Field::kMetricName, kMetric},
      {"description", Field::kMetricDescription, kMetric},
      {"unit", Field::kMetricUnit, kMetric},
      {"type", Field::kMetricType, kMetric},
      {"aggregation_temporality", Field::kMetricTemporality, kMetric},
      {"is_monotonic", Field::kMetricIsMonotonic, kMetric},
      {"metric.name", Field::kMetricName, kPoint},
      {"metric.description", Field::kMetricDescription, kPoint},
      {"metric.unit", Field::kMetricUnit, kPoint},
      {"metric.type", Field::kMetricType, kPoint},
      {"start_time_unix_nano", Field::kPointStart, kPoint},
      {"time_unix_nano", Field::kPointTime, kPoint},
  };
  const unsigned bit = 1u << static_cast<unsigned>(context);
  for (const auto& e : kPaths) {
    if (e.path == path && (e.contexts & bit)) {
      field = e.field;
      return true;
    }
  }
  return false;
}

bool find_enum(std::string_view name, std::int64_t& value) {
  for (const auto& e : kEnums) {
    if (name == e.name) {
      value = e.value;
      return true;
    }
  }
  return false;
}

bool takes_keys(Field f) {
  return f == Field::kAttributes || f == Field::kResourceAttributes || f == Field::kScopeAttributes ||
         f == Field::kLogBody;
}

Value read(const Path& p, const Item& it) {
  switch (p.field) {
    case Field::kAttributes:
      return keyed(own_attributes(it), p.keys);
    case Field::kResourceAttributes:
      return keyed(it.resource ? &it.resource->attributes : nullptr, p.keys);
    case Field::kScopeAttributes:
      return keyed(it.scope ? &it.scope->attributes : nullptr, p.keys);
    case Field::kScopeName:
      return text(it.scope ? it.scope->name : std::string_view());
    case Field::kScopeVersion:
      return text(it.scope ? it.scope->version : std::string_view());
    case Field::kLogBody: {
      if (p.keys.empty()) return from_any(&it.log->body);
      const auto* body = it.log->body.kind == pdata::ValueKind::KvList ? it.log->body.kvlist : nullptr;
      return keyed(body, p.keys);
    }
    case Field::kLogSeverityNumber:
      return integer(it.log->severity_number);
    case Field::kLogSeverityText:
      return text(it.log->severity_text);
    case Field::kLogFlags:
      return integer(it.log->flags);
    case Field::kLogEventName:
      return text(it.log->event_name);
    case Field::kLogTime:
      return integer(static_cast<std::int64_t>(it.log->time_unix_nano));
    case Field::kLogObservedTime:
      return integer(static_cast<std::int64_t>(it.log->observed_time_unix_nano));
    case Field::kSpanName:
      return text(it.span->name);
    case Field::kSpanKind:
      return integer(static_cast<std::int64_t>(it.span->kind));
    case Field::kSpanStatusCode:
      return integer(static_cast<std::int64_t>(it.span->status.code));
    case Field::kSpanStatusMessage:
      return text(it.span->status.message);
    case Field::kSpanStart:
      return integer(static_cast<std::int64_t>(it.span->start_time_unix_nano));
    case Field::kSpanEnd:
      return integer(static_cast<std::int64_t>(it.span->end_time_unix_nano));
    case Field::kSpanTraceState:
      return text(it.span->trace_state);
    case Field::kEventName:
      return text(it.event->name);
    case Field::kEventTime:
      return integer(static_cast<std::int64_t>(it.event->time_unix_nano));
    case Field::kMetricName:
      return text(it.metric->name);
    case Field::kMetricDescription:
      return text(it.metric->description);
    case Field::kMetricUnit:
      return text(it.metric->unit);
    case Field::kMetricType:
      return integer(metric_type_number(it.metric->type));
    case Field::kMetricTemporality:
      return integer(static_cast<std::int64_t>(it.metric->temporality));
    case Field::kMetricIsMonotonic:
      return boolean(it.metric->is_monotonic);
    case Field::kPointStart:
      return integer(static_cast<std::int64_t>(it.point_start_time));
    case Field::kPointTime:
      return integer(static_cast<std::int64_t>(it.point_time));
  }
  return {};
}

bool is_map(const Path& p) {
  return p.keys.empty() && (p.field == Field::kAttributes || p.field == Field::kResourceAttributes ||
                            p.field == Field::kScopeAttributes);
}

bool settable(const Path& p) {
  switch (p.field) {
    case Field::kAttributes:
    case Field::kResourceAttributes:
    case Field::kScopeAttributes:
      return p.keys.size() == 1;
    case Field::kLogBody:
    case Field::kLogSeverityText:
    case Field::kLogSeverityNumber:
    case Field::kSpanName:
    case Field::kSpanStatusMessage:
    case Field::kEventName:
    case Field::kMetricName:
    case Field::kMetricDescription:
    case Field::kMetricUnit:
      return p.keys.empty();
    default:
      return false;
  }
}

pdata::Attributes* map_of(Field f, const MutableItem& it) {
  switch (f) {
    case Field::kAttributes:
      if (it.log) return &it.log->attributes;
      if (it.event) return &it.event->attributes;
      if (it.span) return &it.span->attributes;
      return it.point_attributes;
    case Field::kResourceAttributes:
      return it.resource ? &it.resource->attributes : nullptr;
    case Field::kScopeAttributes:
      return it.scope ? &it.scope->attributes : nullptr;
    default:
      return nullptr;
  }
}

void assign(const Path& target, const Value& v, const MutableItem& it, const pdata::Arena& a) {
  if (v.kind == Kind::kNil) return;  // OTTL: setting nil changes nothing
  if (pdata::Attributes* m = map_of(target.field, it)) {
    // The copy first: `v` may be this very map (set(attributes["x"], attributes)).
    pdata::AnyValue copy = to_any(v, a);
    const std::string_view key = target.keys.front();
    for (auto& kv : *m) {
      if (kv.key == key) {
        kv.value = copy;
        return;
      }
    }
    m->push_back({a.copy(key), copy});
    return;
  }
  if (target.field == Field::kLogBody) {
    it.log->body = to_any(v, a);
  } else if (target.field == Field::kLogSeverityNumber) {
    if (v.kind == Kind::kInt && v.i >= INT32_MIN && v.i <= INT32_MAX)
      it.log->severity_number = static_cast<std::int32_t>(v.i);
  } else if (pdata::Str* t = text_field(target.field, it)) {
    if (v.kind == Kind::kString) *t = a.copy(v.s);
  }
}

}  // namespace tern::ottl
