// OTTL conditions as the filter processor meets them (config text, so from the user, but
// written by hand and easy to get wrong): byte 0 picks the context, the rest is the
// condition. Parsing either succeeds or gives an error message that names a column within
// the text; a condition that parses evaluates on a fixed item of its context (attributes of
// every kind, nested maps, an empty body) without a crash, twice with the same answer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ottl/condition.h"
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
  static Fixture f;
  const auto ctx = static_cast<tern::ottl::Context>(data[0] % 5);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string error;
  const auto c = tern::ottl::Condition::parse(text, ctx, error);
  if (!c) {
    require(error.rfind("column ", 0) == 0, "a parse error names its column");
    const std::size_t column = std::stoul(error.substr(7));
    require(column >= 1 && column <= text.size() + 1, "the column is within the text");
    return 0;
  }
  tern::ottl::Item it;
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
  }
  require(c->matches(it) == c->matches(it), "evaluation is deterministic");
  return 0;
}
