#include "ottl/condition.h"

#include "ottl/evaluator.h"
#include "ottl/parser.h"

namespace tern::ottl {

const char* to_string(Context c) {
  switch (c) {
    case Context::kLog:
      return "log_record";
    case Context::kSpan:
      return "span";
    case Context::kSpanEvent:
      return "spanevent";
    case Context::kMetric:
      return "metric";
    case Context::kDataPoint:
      return "datapoint";
    case Context::kResource:
      return "resource";
    case Context::kScope:
      return "scope";
  }
  return "?";
}

std::optional<Condition> Condition::parse(std::string_view text, Context context, std::string& error) {
  error.clear();
  auto root = parse_condition(text, context, error);
  if (!root) {
    if (error.empty()) error = "not a condition";
    return std::nullopt;
  }
  Condition c;
  c.text_ = std::string(text);
  c.root_ = std::move(root);
  return c;
}

Condition::Condition(Condition&&) noexcept = default;
Condition& Condition::operator=(Condition&&) noexcept = default;
Condition::~Condition() = default;

bool Condition::matches(const Item& item) const { return truth(*root_, item); }

}  // namespace tern::ottl
