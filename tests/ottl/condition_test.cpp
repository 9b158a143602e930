// OTTL conditions: what parses (and the errors for what does not, with their column), and
// how they evaluate on log records, spans, span events, metrics and data points.
#include "ottl/condition.h"

#include <gtest/gtest.h>

#include "otlp/json_codec.h"

namespace tern::ottl {
namespace {

using pdata::AnyValue;

class ConditionTest : public ::testing::Test {
 protected:
  ConditionTest() : resource_(arena_), scope_(arena_), log_(arena_) {
    resource_.attributes.push_back({"service.name", AnyValue::string("checkout")});
    scope_.name = "io.opentelemetry.http";
    log_.severity_number = 5;
    log_.severity_text = "DEBUG";
    log_.body = AnyValue::string("GET /healthz 200");
    log_.attributes.push_back({"http.status_code", AnyValue::integer(200)});
    log_.attributes.push_back({"duration", AnyValue::dbl(1.5)});
    log_.attributes.push_back({"sampled", AnyValue::boolean(true)});
    log_.attributes.push_back({"route", AnyValue::string("/healthz")});
    auto* inner = arena_.make<pdata::Vec<pdata::KeyValue>>(arena_.vec<pdata::KeyValue>());
    inner->push_back({"id", AnyValue::string("u-1")});
    log_.attributes.push_back({"user", AnyValue::make_kvlist(inner)});
    item_.resource = &resource_;
    item_.scope = &scope_;
    item_.log = &log_;
  }

  bool log_matches(const std::string& text) {
    std::string error;
    auto c = Condition::parse(text, Context::kLog, error);
    EXPECT_TRUE(c) << text << ": " << error;
    return c && c->matches(item_);
  }
  static std::string error_of(const std::string& text, Context ctx = Context::kLog) {
    std::string error;
    EXPECT_FALSE(Condition::parse(text, ctx, error)) << text;
    return error;
  }

  pdata::Arena arena_;
  pdata::Resource resource_;
  pdata::InstrumentationScope scope_;
  pdata::LogRecord log_;
  Item item_;
};

TEST_F(ConditionTest, ComparisonsFollowOttl) {
  EXPECT_TRUE(log_matches(R"(severity_number < SEVERITY_NUMBER_INFO)"));
  EXPECT_FALSE(log_matches(R"(severity_number >= SEVERITY_NUMBER_WARN)"));
  EXPECT_TRUE(log_matches(R"(severity_text == "DEBUG")"));
  EXPECT_TRUE(log_matches(R"(attributes["http.status_code"] == 200)"));
  EXPECT_TRUE(log_matches(R"(attributes["http.status_code"] == 200.0)"));   // int and double as numbers
  EXPECT_FALSE(log_matches(R"(attributes["http.status_code"] == "200")"));  // different types: not equal
  EXPECT_TRUE(log_matches(R"(attributes["http.status_code"] != "200")"));
  EXPECT_FALSE(log_matches(R"(attributes["http.status_code"] < "300")"));  // cannot be ordered: false
  EXPECT_TRUE(log_matches(R"(attributes["duration"] > 1)"));
  EXPECT_TRUE(log_matches(R"(attributes["sampled"] == true)"));
  EXPECT_TRUE(log_matches(R"(attributes["missing"] == nil)"));
  EXPECT_FALSE(log_matches(R"(attributes["route"] == nil)"));
  EXPECT_TRUE(log_matches(R"(attributes["route"] < "/z")"));  // strings in byte order
  EXPECT_TRUE(log_matches(R"(attributes["user"]["id"] == "u-1")"));
  EXPECT_TRUE(log_matches(R"(attributes["user"]["nope"]["deeper"] == nil)"));
  EXPECT_TRUE(log_matches(R"(resource.attributes["service.name"] == "checkout")"));
  EXPECT_TRUE(log_matches(R"(instrumentation_scope.name == "io.opentelemetry.http")"));
  EXPECT_TRUE(log_matches(R"(log.body == "GET /healthz 200")"));  // the context's name may lead
  EXPECT_TRUE(log_matches(R"(-1 < 0)"));
}

TEST_F(ConditionTest, BooleanOperatorsAndConverters) {
  EXPECT_TRUE(log_matches(R"(IsMatch(body, "^GET /healthz"))"));
  EXPECT_TRUE(log_matches(R"(IsMatch(attributes["http.status_code"], "^2\\d\\d$"))"));  // numbers as text
  EXPECT_FALSE(log_matches(R"(IsMatch(attributes["missing"], ".*"))"));
  EXPECT_TRUE(log_matches(R"(IsMatch(body, "healthz") == true)"));
  EXPECT_FALSE(log_matches(R"(IsMatch(body, "healthz") != true)"));
  EXPECT_TRUE(log_matches(R"(IsString(body) and IsInt(attributes["http.status_code"]))"));
  EXPECT_TRUE(log_matches(R"(IsDouble(attributes["duration"]) and IsBool(attributes["sampled"]))"));
  EXPECT_TRUE(log_matches(R"(IsMap(attributes["user"]) and not IsList(attributes["user"]))"));
  EXPECT_TRUE(log_matches(R"(severity_text == "INFO" or (severity_number == 5 and body != ""))"));
  EXPECT_FALSE(log_matches(R"(not (severity_number == 5))"));
  EXPECT_FALSE(log_matches(R"(severity_text == "DEBUG" and false)"));
  EXPECT_TRUE(log_matches(R"(true)"));
  // `and` binds tighter than `or`.
  EXPECT_TRUE(log_matches(R"(true or false and false)"));
}

TEST_F(ConditionTest, SpansEventsMetricsAndDataPoints) {
  pdata::Span span(arena_);
  span.name = "GET /healthz";
  span.kind = pdata::SpanKind::Server;
  span.status.code = pdata::StatusCode::Error;
  pdata::SpanEvent event(arena_);
  event.name = "exception";
  pdata::Metric metric(arena_);
  metric.name = "http.server.duration";
  metric.type = pdata::MetricType::Histogram;
  pdata::Attributes point(arena_.vec<pdata::KeyValue>());
  point.push_back({"http.route", AnyValue::string("/healthz")});
  const auto eval = [&](Context ctx, const std::string& text, const Item& it) {
    std::string error;
    auto c = Condition::parse(text, ctx, error);
    EXPECT_TRUE(c) << text << ": " << error;
    return c && c->matches(it);
  };
  Item s;
  s.resource = &resource_;
  s.scope = &scope_;
  s.span = &span;
  EXPECT_TRUE(eval(Context::kSpan, R"(kind == SPAN_KIND_SERVER and status.code == STATUS_CODE_ERROR)", s));
  EXPECT_TRUE(eval(Context::kSpan, R"(span.name == "GET /healthz")", s));
  Item e = s;
  e.event = &event;
  EXPECT_TRUE(eval(Context::kSpanEvent, R"(name == "exception")", e));
  Item m;
  m.resource = &resource_;
  m.scope = &scope_;
  m.metric = &metric;
  EXPECT_TRUE(eval(Context::kMetric, R"(type == METRIC_DATA_TYPE_HISTOGRAM)", m));
  EXPECT_TRUE(eval(Context::kMetric, R"(IsMatch(name, "^http\\."))", m));
  Item p = m;
  p.point_attributes = &point;
  EXPECT_TRUE(eval(Context::kDataPoint,
                   R"(metric.name == "http.server.duration" and attributes["http.route"] == "/healthz")", p));
}

TEST_F(ConditionTest, ErrorsSayWhatAndWhere) {
  EXPECT_EQ(error_of(R"(body = "x")"), "column 6: use == to compare");
  EXPECT_EQ(error_of(R"(body == 'x')"), "column 9: strings are written in double quotes");
  EXPECT_EQ(error_of(R"(body == "x)"), "column 9: the string is not closed");
  EXPECT_EQ(error_of(R"(name == "x")"),
            "column 1: path \"name\" is not one Tern has in the log_record context");
  EXPECT_EQ(error_of(R"(body == "x")", Context::kSpan),
            "column 1: path \"body\" is not one Tern has in the span context");
  EXPECT_EQ(error_of(R"(attributes["a"] == "x")", Context::kMetric),
            "column 1: path \"attributes\" is not one Tern has in the metric context");
  EXPECT_EQ(error_of(R"(body)"),
            "column 1: a condition needs a comparison (==, !=, <, <=, >, >=) or a converter such as IsMatch");
  EXPECT_EQ(error_of(R"(severity_number < SEVERITY_NUMBER_LOUD)"),
            "column 19: unknown enum \"SEVERITY_NUMBER_LOUD\"");
  EXPECT_EQ(error_of(R"(Contains(body, "x"))"),
            "column 1: function \"Contains\" is not one Tern has (it has: IsMatch, IsString, IsInt, "
            "IsDouble, IsBool, "
            "IsMap, IsList)");
  EXPECT_EQ(error_of(R"(IsMatch(body, "("))").rfind("column 15: IsMatch: missing )", 0), 0u)
      << error_of(R"(IsMatch(body, "("))");
  EXPECT_EQ(error_of(R"(IsMatch(body) )"), "column 13: IsMatch takes a value and a pattern");
  EXPECT_EQ(error_of(R"(IsMatch(body, "x") < true)"),
            "column 1: a converter's result can only be compared with == or !=");
  EXPECT_EQ(error_of(R"(severity_text == "x" and)"), "column 25: expected a value, got \"end of condition\"");
  EXPECT_EQ(error_of(R"((severity_text == "x")"), "column 22: expected \")\"");
  EXPECT_EQ(error_of(R"(severity_text["k"] == "x")"), "column 1: \"severity_text\" takes no [\"key\"]");
  EXPECT_EQ(error_of(R"(attributes[0] == "x")"), "column 12: keys are strings: [\"key\"]");
  EXPECT_EQ(error_of(R"(severity_number == 99999999999999999999)"),
            "column 20: \"99999999999999999999\" is not a 64-bit integer");
  EXPECT_EQ(error_of(R"(body == "x" body)"), "column 13: unexpected \"body\"");
  EXPECT_EQ(error_of(""), "column 1: expected a value, got \"end of condition\"");
}

}  // namespace
}  // namespace tern::ottl
