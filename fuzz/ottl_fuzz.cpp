// OTTL as the filter and transform processors meet it (config text, so from the user, but
// written by hand and easy to get wrong): byte 0 picks the context (low bits) and whether the
// rest is a condition or a statement (0x80). Parsing either succeeds or gives an error message
// that names a column within the text. A condition that parses evaluates on a fixed item of
// its context (attributes of every kind, nested maps, a map body) without a crash, twice with
// the same answer; a statement that parses runs twice on a fresh item, and the item's
// conditions still evaluate afterwards.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ottl/condition.h"
#include "ottl/statement.h"
#include "require.h"

namespace {

using tern::fuzz::require;
namespace pd = tern::pdata;

struct Fixture {
  Fixture()
      : resource(arena),
        scope(arena),
        log(arena),
        span(arena),
        event(arena),
        metric(arena),
        point(arena.vec<pd::KeyValue>()) {
    auto* inner = arena.make<pd::Vec<pd::KeyValue>>(arena.vec<pd::KeyValue>());
    inner->push_back({"id", pd::AnyValue::string("u-1")});
    for (pd::Attributes* a : {&resource.attributes, &scope.attributes, &log.attributes, &span.attributes,
                              &event.attributes, &point}) {
      a->push_back({"s", pd::AnyValue::string("text")});
      a->push_back({"i", pd::AnyValue::integer(-7)});
      a->push_back({"d", pd::AnyValue::dbl(2.5)});
      a->push_back({"b", pd::AnyValue::boolean(true)});
      a->push_back({"m", pd::AnyValue::make_kvlist(inner)});
      a->push_back({"x", pd::AnyValue::bytes("\x01\x02")});
    }
    log.body = pd::AnyValue::make_kvlist(inner);
    span.name = "GET /";
    metric.name = "http.requests";
  }
  pd::Arena arena;
  pd::Resource resource;
  pd::InstrumentationScope scope;
  pd::LogRecord log;
  pd::Span span;
  pd::SpanEvent event;
  pd::Metric metric;
  pd::Attributes point;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto ctx = static_cast<tern::ottl::Context>((data[0] & 0x7f) % 7);
  const bool statement = data[0] & 0x80;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string error;
  std::optional<tern::ottl::Condition> c;
  std::optional<tern::ottl::Statement> s;
  if (statement)
    s = tern::ottl::Statement::parse(text, ctx, error);
  else
    c = tern::ottl::Condition::parse(text, ctx, error);
  if (!c && !s) {
    require(error.rfind("column ", 0) == 0, "a parse error names its column");
    const std::size_t column = std::stoul(error.substr(7));
    require(column >= 1 && column <= text.size() + 1, "the column is within the text");
    return 0;
  }
  Fixture f;  // fresh: statements change it
  tern::ottl::MutableItem it;
  it.resource = &f.resource;
  it.scope = &f.scope;
  switch (ctx) {
    case tern::ottl::Context::kLog:
      it.log = &f.log;
      break;
    case tern::ottl::Context::kSpanEvent:
      it.event = &f.event;
      [[fallthrough]];
    case tern::ottl::Context::kSpan:
      it.span = &f.span;
      break;
    case tern::ottl::Context::kDataPoint:
      it.point_attributes = &f.point;
      [[fallthrough]];
    case tern::ottl::Context::kMetric:
      it.metric = &f.metric;
      break;
    case tern::ottl::Context::kScope:
      break;
    case tern::ottl::Context::kResource:
      it.scope = nullptr;
      break;
  }
  if (c) {
    require(c->matches(it.view()) == c->matches(it.view()), "evaluation is deterministic");
    return 0;
  }
  s->execute(it, f.arena);
  s->execute(it, f.arena);
  static const auto probe = tern::ottl::Condition::parse(R"(attributes["s"] != nil or true)", ctx, error);
  if (probe) (void)probe->matches(it.view());
  return 0;
}
