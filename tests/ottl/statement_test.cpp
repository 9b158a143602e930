// OTTL statements: each editor with and without `where`, what they refuse to parse (with the
// column), and OTTL's quiet cases (nil or a value of another type changes nothing).
#include "ottl/statement.h"

#include <gtest/gtest.h>

namespace tern::ottl {
namespace {

using pdata::AnyValue;

class StatementTest : public ::testing::Test {
 protected:
  StatementTest() : resource_(arena_), scope_(arena_), log_(arena_) {
    resource_.attributes.push_back({"service.name", AnyValue::string("checkout")});
    log_.severity_number = 9;
    log_.severity_text = "INFO";
    log_.body = AnyValue::string("user 42 paid 17 EUR");
    log_.attributes.push_back({"password", AnyValue::string("hunter2")});
    log_.attributes.push_back({"http.method", AnyValue::string("GET")});
    log_.attributes.push_back({"http.status_code", AnyValue::integer(200)});
    item_.resource = &resource_;
    item_.scope = &scope_;
    item_.log = &log_;
  }
  void run(const std::string& text, Context ctx = Context::kLog) {
    std::string error;
    auto s = Statement::parse(text, ctx, error);
    ASSERT_TRUE(s) << text << ": " << error;
    s->execute(item_, arena_);
  }
  std::string attr(std::string_view key, const pdata::Attributes* from = nullptr) const {
    for (const auto& kv : from ? *from : log_.attributes) {
      if (kv.key != key) continue;
      if (kv.value.kind == pdata::ValueKind::String) return std::string(kv.value.string_value);
      if (kv.value.kind == pdata::ValueKind::Int) return std::to_string(kv.value.int_value);
      return "<other>";
    }
    return "<none>";
  }
  static std::string error_of(const std::string& text, Context ctx = Context::kLog) {
    std::string error;
    EXPECT_FALSE(Statement::parse(text, ctx, error)) << text;
    return error;
  }

  pdata::Arena arena_;
  pdata::Resource resource_;
  pdata::InstrumentationScope scope_;
  pdata::LogRecord log_;
  MutableItem item_;
};

TEST_F(StatementTest, SetWritesAttributesAndFields) {
  run(R"(set(attributes["env"], "prod"))");
  EXPECT_EQ(attr("env"), "prod");
  run(R"(set(attributes["http.method"], "POST"))");  // replaced in place, not added
  EXPECT_EQ(attr("http.method"), "POST");
  EXPECT_EQ(log_.attributes.size(), 4u);
  run(R"(set(attributes["code"], attributes["http.status_code"]))");
  EXPECT_EQ(attr("code"), "200");
  run(R"(set(resource.attributes["team"], "payments"))");
  EXPECT_EQ(attr("team", &resource_.attributes), "payments");
  run(R"(set(severity_text, "WARN") where attributes["code"] >= 200)");
  EXPECT_EQ(log_.severity_text, "WARN");
  run(R"(set(severity_number, SEVERITY_NUMBER_WARN))");
  EXPECT_EQ(log_.severity_number, 13);
  run(R"(set(log.body, "redacted") where severity_number < SEVERITY_NUMBER_INFO)");  // where is false
  EXPECT_EQ(log_.body.string_value, "user 42 paid 17 EUR");
  // OTTL's quiet cases: nil, and a number where a string goes, change nothing.
  run(R"(set(attributes["env"], attributes["missing"]))");
  EXPECT_EQ(attr("env"), "prod");
  run(R"(set(severity_text, 5))");
  EXPECT_EQ(log_.severity_text, "WARN");
}

TEST_F(StatementTest, DeleteAndKeepKeys) {
  run(R"(delete_key(attributes, "password"))");
  EXPECT_EQ(attr("password"), "<none>");
  run(R"(delete_matching_keys(attributes, "^http\\.status"))");
  EXPECT_EQ(attr("http.status_code"), "<none>");
  EXPECT_EQ(attr("http.method"), "GET");
  log_.attributes.push_back({"a", AnyValue::string("1")});
  log_.attributes.push_back({"b", AnyValue::string("2")});
  run(R"(keep_keys(attributes, ["b", "http.method"]))");
  ASSERT_EQ(log_.attributes.size(), 2u);
  EXPECT_EQ(log_.attributes[0].key, "http.method");
  EXPECT_EQ(log_.attributes[1].key, "b");
  run(R"(keep_keys(attributes, []) where body == "other")");  // where is false: kept
  EXPECT_EQ(log_.attributes.size(), 2u);
}

TEST_F(StatementTest, ReplacePatternWithGroups) {
  run(R"x(replace_pattern(body, "(\\d+)", "<$1>"))x");
  EXPECT_EQ(log_.body.string_value, "user <42> paid <17> EUR");
  run(R"(replace_pattern(attributes["password"], ".+", "***"))");
  EXPECT_EQ(attr("password"), "***");
  run(R"(replace_pattern(attributes["http.status_code"], "2", "x"))");  // not a string: unchanged
  EXPECT_EQ(attr("http.status_code"), "200");
  run(R"(replace_pattern(body, "EUR", "$$"))");
  EXPECT_EQ(log_.body.string_value, "user <42> paid <17> $");
}

TEST_F(StatementTest, ResourceAndScopeContexts) {
  MutableItem r;
  r.resource = &resource_;
  std::string error;
  auto s = Statement::parse(
      R"(set(attributes["deployment.environment"], "prod") where attributes["service.name"] == "checkout")",
      Context::kResource, error);
  ASSERT_TRUE(s) << error;
  s->execute(r, arena_);
  EXPECT_EQ(attr("deployment.environment", &resource_.attributes), "prod");
  MutableItem sc;
  sc.resource = &resource_;
  sc.scope = &scope_;
  auto rename = Statement::parse(R"(set(instrumentation_scope.name, "app"))", Context::kScope, error);
  ASSERT_FALSE(rename) << "a scope's name is not settable here";
  auto scope_attr = Statement::parse(R"(set(attributes["x"], "y"))", Context::kScope, error);
  ASSERT_TRUE(scope_attr) << error;
  scope_attr->execute(sc, arena_);
  EXPECT_EQ(attr("x", &scope_.attributes), "y");
}

TEST_F(StatementTest, ErrorsSayWhatAndWhere) {
  EXPECT_EQ(
      error_of(R"(merge_maps(attributes, attributes, "upsert"))"),
      "column 1: editor \"merge_maps\" is not one Tern has (it has: set, delete_key, delete_matching_keys, "
      "keep_keys, replace_pattern)");
  EXPECT_EQ(error_of(R"(attributes["a"] == "b")"),
            "column 1: expected an editor, such as set(attributes[\"k\"], \"v\")");
  EXPECT_EQ(error_of(R"(set("x", "y"))"), "column 5: set's first argument is the path it changes");
  EXPECT_EQ(
      error_of(R"(set(attributes, "y"))"),
      "column 5: set and replace_pattern write one attribute (attributes[\"k\"]) or a field such as body, "
      "severity_text, name");
  EXPECT_EQ(error_of(R"(set(attributes["a"], IsString(body)))"),
            "column 22: set takes a literal or a path as its value");
  EXPECT_EQ(error_of(R"(delete_key(attributes["a"], "b"))"),
            "column 12: delete_key takes a map: attributes, resource.attributes or "
            "instrumentation_scope.attributes");
  EXPECT_EQ(error_of(R"(delete_key(attributes, 1))"), "column 24: delete_key takes the key as a string");
  EXPECT_EQ(error_of(R"(keep_keys(attributes, "a"))"),
            "column 23: keep_keys takes a list of keys: [\"a\", \"b\"]");
  EXPECT_EQ(error_of(R"x(replace_pattern(body, "(", "x"))x"), "column 23: replace_pattern: missing ): (");
  EXPECT_EQ(error_of(R"(set(attributes["a"], "\q"))"),
            "column 23: invalid quoted string: \\q is not an escape");
  EXPECT_EQ(error_of(R"(set(attributes["a"], "b") where)"),
            "column 32: expected a value, got \"end of condition\"");
  EXPECT_EQ(error_of(R"(set(attributes["a"], "b") when true)"), "column 27: unexpected \"when\"");
  EXPECT_EQ(error_of(R"(set(name, "b"))"),
            "column 5: path \"name\" is not one Tern has in the log_record context");
}

// Found by an audit: a whole map as set's value validated and then did nothing. The Collector
// copies it; so does Tern, deeply, into the batch's arena.
TEST_F(StatementTest, SetCopiesWholeMaps) {
  scope_.attributes.push_back({"scope.kind", AnyValue::string("http")});
  run(R"(set(attributes["res"], resource.attributes))");
  run(R"(set(attributes["scope"], instrumentation_scope.attributes))");
  const auto map_at = [&](const pdata::Attributes& in, std::string_view key) -> const pdata::Attributes* {
    const AnyValue* v = pdata::find_attribute(in, key);
    return v && v->kind == pdata::ValueKind::KvList ? v->kvlist : nullptr;
  };
  const pdata::Attributes* res = map_at(log_.attributes, "res");
  ASSERT_TRUE(res);
  EXPECT_EQ(attr("service.name", res), "checkout");
  ASSERT_TRUE(map_at(log_.attributes, "scope"));
  EXPECT_EQ(attr("scope.kind", map_at(log_.attributes, "scope")), "http");
  // A copy: changing the source afterwards leaves it as it was.
  run(R"(set(resource.attributes["service.name"], "cart"))");
  EXPECT_EQ(attr("service.name", res), "checkout");
  // The record's own map into one of its keys: a copy of what it held before, not itself.
  const auto before = log_.attributes.size();
  run(R"(set(attributes["self"], attributes))");
  ASSERT_EQ(log_.attributes.size(), before + 1);
  const pdata::Attributes* self = map_at(log_.attributes, "self");
  ASSERT_TRUE(self);
  EXPECT_EQ(self->size(), before);
  EXPECT_EQ(attr("self", self), "<none>");
  EXPECT_EQ(attr("service.name", map_at(*self, "res")), "checkout");  // nested maps copied too
  EXPECT_NE(map_at(*self, "res"), res);
  run(R"(set(body, attributes))");
  ASSERT_EQ(log_.body.kind, pdata::ValueKind::KvList);
  EXPECT_EQ(log_.body.kvlist->size(), before + 1);
  EXPECT_NE(log_.body.kvlist, &log_.attributes);
  run(R"(set(attributes["res"], 1))");  // the copy, not the resource, was replaced
  EXPECT_EQ(attr("service.name", &resource_.attributes), "cart");
}

// Go's regexp.Expand: $name is the longest run of letters, digits and '_' ($1x is the group
// named "1x"), ${name} delimits it, $$ is a '$', a group that did not take part (or does not
// exist) is empty, and a '$' that starts no name is itself.
TEST_F(StatementTest, ReplacePatternExpandsAsGo) {
  run(R"x(replace_pattern(body, "(\\d+)", "$1x"))x");
  EXPECT_EQ(log_.body.string_value, "user  paid  EUR");
  run(R"(set(body, "abcdefghijk"))");
  run(R"x(replace_pattern(body, "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)", "[$10|${1}0|$2$$|$ x|${x|$-]"))x");
  EXPECT_EQ(log_.body.string_value, "[j|a0|b$|$ x|${x|$-]k");
  run(R"(set(body, "id=42"))");
  run(R"x(replace_pattern(body, "(?P<key>\\w+)=(?P<value>\\d+)", "${value}:$key:$nope:$3"))x");
  EXPECT_EQ(log_.body.string_value, "42:id::");
  run(R"(set(body, "a\\b"))");  // a backslash in the replacement is itself, as in Go
  run(R"(replace_pattern(body, "b", "\\1"))");
  EXPECT_EQ(log_.body.string_value, "a\\\\1");
  run(R"(set(body, "aaa"))");  // empty matches: Go's ReplaceAllString steps
  run(R"(replace_pattern(body, "a*", "-"))");
  EXPECT_EQ(log_.body.string_value, "-");
  run(R"(set(body, "baaac"))");
  run(R"(replace_pattern(body, "a*", "-"))");
  EXPECT_EQ(log_.body.string_value, "-b-c-");
}

}  // namespace
}  // namespace tern::ottl
