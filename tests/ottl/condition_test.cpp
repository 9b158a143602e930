// OTTL conditions: what parses (and the errors for what does not, with their column), and
// how they evaluate on log records, spans, span events, metrics and data points.
#include "ottl/condition.h"

#include <gtest/gtest.h>

#include <re2/re2.h>

#include <string>

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

// Found by an audit: nesting was parsed by recursion (50,000 parentheses or 200,000 `not`
// crashed the config check), and `or`/`and` chains were left-deep trees evaluated and freed by
// recursion (a 50,000-term `or` loaded, then crashed on the first record).
TEST_F(ConditionTest, DeepNestingIsAnErrorNotACrash) {
  const auto nested = [](std::size_t n, const std::string& open, const std::string& close) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += open;
    s += R"(body == "x")";
    for (std::size_t i = 0; i < n; ++i) s += close;
    return s;
  };
  EXPECT_EQ(error_of(nested(50000, "(", ")")),
            "column 257: nesting deeper than 256 (parentheses, not and converters)");
  EXPECT_EQ(error_of(nested(200000, "not ", "")),
            "column 1025: nesting deeper than 256 (parentheses, not and converters)");
  EXPECT_EQ(error_of(nested(50000, "IsString(", ")")).rfind("column 2305: nesting deeper than 256", 0), 0u);
  // Up to the limit, nesting works.
  EXPECT_TRUE(log_matches(nested(255, "(", ")").replace(255, 11, R"(body == "GET /healthz 200")")));
  EXPECT_TRUE(log_matches(nested(256, "not ", "").replace(1024, 11, "true")));
}

TEST_F(ConditionTest, LongAndOrChainsEvaluateWithoutRecursion) {
  constexpr int kTerms = 200000;
  std::string any, all;
  for (int i = 0; i < kTerms; ++i) {
    any += (i ? " or " : "") + std::string(R"(attributes["route"] == "/r)") + std::to_string(i) + "\"";
    all += (i ? " and " : "") + std::string(R"(attributes["route"] != "/r)") + std::to_string(i) + "\"";
  }
  EXPECT_FALSE(log_matches(any));
  EXPECT_TRUE(log_matches(all));
  EXPECT_TRUE(log_matches(any + R"( or body == "GET /healthz 200")"));
  EXPECT_FALSE(log_matches(all + R"( and body == "other")"));
  // Mixed: `and` binds tighter, with parentheses regrouping.
  EXPECT_TRUE(log_matches(R"(false and true or true and (false or true))"));
  EXPECT_FALSE(log_matches(R"(false and (true or true) and true)"));
}

// IsMatch sees what the Collector's StringLikeGetter makes of a value: maps and lists as JSON
// (keys sorted here; encoding/json's escaping), bytes as lower-case hex, doubles as Go writes
// them (no exponent from 1e-6 up to 1e21).
TEST_F(ConditionTest, IsMatchSeesValuesAsTheCollectorWritesThem) {
  auto* list = arena_.make<pdata::Vec<AnyValue>>(arena_.vec<AnyValue>());
  list->push_back(AnyValue::integer(1));
  list->push_back(AnyValue::dbl(2.5));
  list->push_back(AnyValue::string("x<\"\n"));
  list->push_back(AnyValue::boolean(true));
  list->push_back(AnyValue());
  auto* obj = arena_.make<pdata::Vec<pdata::KeyValue>>(arena_.vec<pdata::KeyValue>());
  obj->push_back({"z", AnyValue::dbl(1e6)});
  obj->push_back({"b", AnyValue::bytes(std::string_view("\x01\xff", 2))});
  obj->push_back({"a", AnyValue::make_array(list)});
  log_.attributes.push_back({"obj", AnyValue::make_kvlist(obj)});
  log_.attributes.push_back({"list", AnyValue::make_array(list)});
  log_.attributes.push_back({"raw", AnyValue::bytes(std::string_view("\x01\xab", 2))});
  log_.attributes.push_back({"million", AnyValue::dbl(1e6)});
  log_.attributes.push_back({"small", AnyValue::dbl(1e-4)});
  log_.attributes.push_back({"huge", AnyValue::dbl(1e21)});
  const auto text_is = [&](const std::string& path, const std::string& text) {
    std::string quoted;  // the pattern as an OTTL string literal
    for (char c : RE2::QuoteMeta(text))
      quoted += c == '\\' || c == '"' ? std::string("\\") + c : std::string(1, c);
    return log_matches("IsMatch(" + path + ", \"^" + quoted + "$\")");
  };
  EXPECT_TRUE(
      text_is(R"(attributes["obj"])", R"({"a":[1,2.5,"x\u003c\"\n",true,null],"b":"Af8=","z":1000000})"));
  EXPECT_TRUE(text_is(R"(attributes["list"])", R"([1,2.5,"x\u003c\"\n",true,null])"));
  EXPECT_TRUE(text_is(R"(attributes["user"])", R"({"id":"u-1"})"));
  EXPECT_TRUE(text_is("resource.attributes", R"({"service.name":"checkout"})"));
  EXPECT_TRUE(text_is(R"(attributes["raw"])", "01ab"));
  EXPECT_TRUE(text_is(R"(attributes["million"])", "1000000"));
  EXPECT_TRUE(text_is(R"(attributes["small"])", "0.0001"));
  EXPECT_TRUE(text_is(R"(attributes["huge"])", "1e+21"));
  EXPECT_TRUE(text_is(R"(attributes["duration"])", "1.5"));
  EXPECT_FALSE(log_matches(R"(IsMatch(attributes["missing"], ""))"));  // nil: no text at all
}

// Strings unquote as Go's strconv.Unquote does (OTTL's lexer hands them to it).
TEST_F(ConditionTest, StringEscapesFollowGo) {
  log_.attributes.push_back({"e", AnyValue::string("\xc3\xa9"
                                                   "AA\t\"\\\a\b\f\v\r\n\x01\xf0\x9f\x98\x80")});
  EXPECT_TRUE(log_matches(R"(attributes["e"] == "\u00e9\x41\101\t\"\\\a\b\f\v\r\n\x01\U0001F600")"));
  EXPECT_TRUE(log_matches(R"(attributes["e"] == "é\u0041A\011\"\\\007\010\x0c\x0B\r\n\001😀")"));
  EXPECT_EQ(error_of(R"(IsMatch(body, "\d+"))"), "column 16: invalid quoted string: \\d is not an escape");
  EXPECT_EQ(error_of(R"(body == "\u00e")"), "column 10: invalid quoted string: \\u takes 4 hex digits");
  EXPECT_EQ(error_of(R"(body == "\x4g")"), "column 10: invalid quoted string: \\x takes 2 hex digits");
  EXPECT_EQ(error_of(R"(body == "\400")"), "column 10: invalid quoted string: octal \\400 is above \\377");
  EXPECT_EQ(error_of(R"(body == "\18")"), "column 10: invalid quoted string: \\1 takes 3 octal digits");
  EXPECT_EQ(error_of(R"(body == "\ud800")"),
            "column 10: invalid quoted string: \\ud800 is not a Unicode code point");
  EXPECT_EQ(error_of(R"(body == "\U00110000")"),
            "column 10: invalid quoted string: \\U00110000 is not a Unicode code point");
  EXPECT_EQ(error_of(R"(body == "\'")"), "column 10: invalid quoted string: \\' is not an escape");
  EXPECT_EQ(error_of("body == \"a\nb\""),
            "column 11: invalid quoted string: a line break must be written \\n");
}

// pkg/ottl/compare.go: nil equals nil (<= and >= too), booleans order false < true, bytes
// compare bytewise, maps and lists compare by content.
TEST_F(ConditionTest, ComparisonsOfNilBoolsBytesMapsAndLists) {
  EXPECT_TRUE(log_matches(R"(nil <= nil and nil >= nil and nil == nil)"));
  EXPECT_TRUE(log_matches(R"(attributes["missing"] <= attributes["absent"])"));
  EXPECT_FALSE(log_matches(R"(nil < nil or nil > nil or nil != nil)"));
  EXPECT_FALSE(log_matches(R"(attributes["missing"] <= 1)"));
  EXPECT_TRUE(log_matches(R"(false < true and true > false and true >= true and false <= false)"));
  EXPECT_TRUE(log_matches(R"(attributes["sampled"] > false)"));
  EXPECT_FALSE(log_matches(R"(true < false)"));
  log_.attributes.push_back({"b1", AnyValue::bytes(std::string_view("\x01\x02", 2))});
  log_.attributes.push_back({"b1again", AnyValue::bytes(std::string_view("\x01\x02", 2))});
  log_.attributes.push_back({"b2", AnyValue::bytes(std::string_view("\x01\x80", 2))});
  EXPECT_TRUE(log_matches(R"(attributes["b1"] < attributes["b2"] and attributes["b2"] >= attributes["b1"])"));
  EXPECT_TRUE(log_matches(R"(attributes["b1"] == attributes["b1again"])"));
  EXPECT_FALSE(log_matches(R"(attributes["b1"] == attributes["b2"])"));
  // The same map in another key order, and a list with the same elements.
  auto* user2 = arena_.make<pdata::Vec<pdata::KeyValue>>(arena_.vec<pdata::KeyValue>());
  user2->push_back({"id", AnyValue::string("u-1")});
  log_.attributes.push_back({"user2", AnyValue::make_kvlist(user2)});
  auto* a = arena_.make<pdata::Vec<AnyValue>>(arena_.vec<AnyValue>());
  a->push_back(AnyValue::integer(1));
  a->push_back(AnyValue::make_kvlist(user2));
  auto* b = arena_.make<pdata::Vec<AnyValue>>(arena_.vec<AnyValue>());
  b->push_back(AnyValue::integer(1));
  auto* user3 = arena_.make<pdata::Vec<pdata::KeyValue>>(arena_.vec<pdata::KeyValue>());
  user3->push_back({"id", AnyValue::string("u-1")});
  b->push_back(AnyValue::make_kvlist(user3));
  log_.attributes.push_back({"l1", AnyValue::make_array(a)});
  log_.attributes.push_back({"l2", AnyValue::make_array(b)});
  EXPECT_TRUE(log_matches(R"(attributes["user"] == attributes["user2"])"));
  EXPECT_FALSE(log_matches(R"(attributes["user"] != attributes["user2"])"));
  EXPECT_TRUE(log_matches(R"(attributes["l1"] == attributes["l2"])"));
  EXPECT_FALSE(log_matches(R"(attributes["user"] == attributes["l1"])"));
  EXPECT_FALSE(log_matches(R"(attributes["user"] <= attributes["user2"])"));  // maps are not ordered
  user3->push_back({"extra", AnyValue::integer(1)});
  EXPECT_FALSE(log_matches(R"(attributes["l1"] == attributes["l2"])"));
  EXPECT_TRUE(log_matches(R"(attributes["l1"] != attributes["l2"])"));
}

}  // namespace
}  // namespace tern::ottl
