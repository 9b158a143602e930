#pragma once
// OTTL boolean conditions, the subset the `filter` processor needs (the OpenTelemetry
// Transformation Language, pkg/ottl in the Collector): `and`, `or`, `not`, parentheses,
// comparisons (== != < <= > >=) of paths, literals and enums, and the converters IsMatch,
// IsString, IsInt, IsDouble, IsBool, IsMap, IsList. Parsed once (the config loader reports
// errors); evaluated per item without allocating, except IsMatch on a value that is no string
// (its text, pdata/value_text.h, is built). Parentheses, `not` and converters nest at most 256
// deep; `and` / `or` chains are one node each, of any length.
//
// Hand-written: OTTL has no C or C++ implementation to use, and only this small boolean part
// is needed. Semantics follow OTTL: values of different types are not equal (integers and
// doubles compare as numbers), a missing attribute is nil, an ordering comparison of values
// that cannot be ordered is false.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::ottl {

// The OTTL contexts: the filter processor's (`logs.log_record`, `traces.span`, ...), and
// the transform processor's `resource` and `scope`, whose items are a resource or a scope.
enum class Context { kLog, kSpan, kSpanEvent, kMetric, kDataPoint, kResource, kScope };
const char* to_string(Context c);

// What a condition is evaluated on; the pointers the context has are set, the rest null.
struct Item {
  const pdata::Resource* resource = nullptr;
  const pdata::InstrumentationScope* scope = nullptr;
  const pdata::LogRecord* log = nullptr;
  const pdata::Span* span = nullptr;
  const pdata::SpanEvent* event = nullptr;
  const pdata::Metric* metric = nullptr;
  const pdata::Attributes* point_attributes = nullptr;  // a data point's
  std::uint64_t point_start_time = 0, point_time = 0;
};

class Condition {
 public:
  // Parses `text` for `context`; nullopt with `error` (what and where, 1-based column).
  static std::optional<Condition> parse(std::string_view text, Context context, std::string& error);

  Condition(Condition&&) noexcept;
  Condition& operator=(Condition&&) noexcept;
  ~Condition();

  bool matches(const Item& item) const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  Condition() = default;
  std::string text_;
  std::unique_ptr<Node> root_;
};

}  // namespace tern::ottl
