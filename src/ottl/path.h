#pragma once
// OTTL paths: which fields each context has (attributes, body, name, ...), and reading and
// writing them on an item. Internal to src/ottl.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ottl/condition.h"
#include "ottl/statement.h"
#include "ottl/value.h"

namespace tern::ottl {

enum class Field {
  kAttributes,
  kResourceAttributes,
  kScopeAttributes,
  kScopeName,
  kScopeVersion,
  kLogBody,
  kLogSeverityNumber,
  kLogSeverityText,
  kLogFlags,
  kLogEventName,
  kLogTime,
  kLogObservedTime,
  kSpanName,
  kSpanKind,
  kSpanStatusCode,
  kSpanStatusMessage,
  kSpanStart,
  kSpanEnd,
  kSpanTraceState,
  kEventName,
  kEventTime,
  kMetricName,
  kMetricDescription,
  kMetricUnit,
  kMetricType,
  kMetricTemporality,
  kMetricIsMonotonic,
  kPointStart,
  kPointTime,
};

struct Path {
  Field field = Field::kAttributes;
  std::vector<std::string> keys;  // attributes["k"]["nested"]
};

// The field `path` (segments joined by '.') names in `context`, the context's own name
// first removed from `path` when it leads (log.body, span.name, ...); false when there is
// none.
bool resolve(std::string& path, Context context, Field& field);

// The number an OTTL enum (SEVERITY_NUMBER_INFO, SPAN_KIND_SERVER, ...) stands for.
bool find_enum(std::string_view name, std::int64_t& value);

// Whether the field takes ["key"] lookups: the attribute maps and a log's body.
bool takes_keys(Field f);

// The path's value on `it`; nil where a key is missing.
Value read(const Path& p, const Item& it);

// A map path as a whole (attributes, resource.attributes, ...), what delete_key and the
// other key editors change.
bool is_map(const Path& p);

// A path set() and replace_pattern() may write: one attribute, or a field of the item.
bool settable(const Path& p);

// The map a map field is on `it` (null when the item has none).
pdata::Attributes* map_of(Field f, const MutableItem& it);

// Writes `v` to the settable path `target`, copied into `a`. A value of another type than
// the field takes, or nil, changes nothing.
void assign(const Path& target, const Value& v, const MutableItem& it, const pdata::Arena& a);

}  // namespace tern::ottl
