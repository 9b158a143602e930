// The filelog operators on single records: each type, the timestamp and severity blocks,
// on_error, and their order.
#include "receiver/filelog/operators.h"

#include <gtest/gtest.h>

#include <ctime>
#include <map>
#include <string>

namespace tern::receiver::filelog {
namespace {

using Op = receiver::filelog::FilelogOperatorConfig;
using Type = Op::Type;

class OperatorsTest : public ::testing::Test {
 protected:
  pdata::LogRecord& record(std::string_view body) {
    rec_ = std::make_unique<pdata::LogRecord>(arena_);
    rec_->body = pdata::AnyValue::string(arena_.copy(body));
    return *rec_;
  }
  const pdata::AnyValue* attr(std::string_view key) const {
    for (const auto& kv : rec_->attributes)
      if (kv.key == key) return &kv.value;
    return nullptr;
  }
  std::string attr_text(std::string_view key) const {
    const auto* v = attr(key);
    return v && v->kind == pdata::ValueKind::String ? std::string(v->string_value) : "<none>";
  }
  static Op regex(std::string re) {
    Op o;
    o.type = Type::kRegexParser;
    o.id = "regex_parser";
    o.regex = std::move(re);
    return o;
  }
  // The default preset, as the loader builds it: each name for itself, and 404.
  static Op::Severity severity_from(std::string field, std::vector<Op::SeverityMatch> extra = {}) {
    Op::Severity s;
    s.parse_from = std::move(field);
    s.mapping = std::move(extra);
    const char* names[] = {"trace", "debug", "info", "warn", "error", "fatal"};
    for (int b = 0; b < 6; ++b) {
      s.mapping.push_back({1 + 4 * b, names[b], 0, -1});
      for (int k = 2; k <= 4; ++k)
        s.mapping.push_back({1 + 4 * b + k - 1, names[b] + std::to_string(k), 0, -1});
    }
    s.mapping.push_back({17, "404", 0, -1});
    return s;
  }

  pdata::Arena arena_;
  std::unique_ptr<pdata::LogRecord> rec_;
};

TEST_F(OperatorsTest, RegexNamedGroupsBecomeAttributes) {
  Operators ops({regex(R"(^(?P<ip>\S+) (?P<method>GET|POST)(?: (?P<path>/\S*))?(?P<empty>x?)$)")});
  auto& r = record("10.0.0.1 GET /index.html");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(attr_text("ip"), "10.0.0.1");
  EXPECT_EQ(attr_text("method"), "GET");
  EXPECT_EQ(attr_text("path"), "/index.html");
  EXPECT_EQ(attr_text("empty"), "");                                        // matched, empty: kept
  EXPECT_EQ(std::string(r.body.string_value), "10.0.0.1 GET /index.html");  // the body stays

  auto& r2 = record("10.0.0.2 POST");
  ASSERT_TRUE(ops.apply(r2, arena_));
  EXPECT_EQ(attr("path"), nullptr);  // took no part in the match: no attribute
  EXPECT_EQ(attr_text("method"), "POST");
  EXPECT_EQ(ops.errors(), 0u);
}

TEST_F(OperatorsTest, OnErrorSendKeepsTheRecordDropDropsIt) {
  Operators send({regex(R"(^(?P<n>\d+)$)")});
  auto& r = record("not a number");
  EXPECT_TRUE(send.apply(r, arena_));
  EXPECT_TRUE(r.attributes.empty());
  EXPECT_EQ(send.errors(), 1u);
  EXPECT_EQ(send.dropped(), 0u);

  Op d = regex(R"(^(?P<n>\d+)$)");
  d.on_error = Op::OnError::kDropQuiet;
  Operators drop({d});
  EXPECT_FALSE(drop.apply(record("still not"), arena_));
  EXPECT_TRUE(drop.apply(record("42"), arena_));
  EXPECT_EQ(attr_text("n"), "42");
  EXPECT_EQ(drop.errors(), 1u);
  EXPECT_EQ(drop.dropped(), 1u);
}

TEST_F(OperatorsTest, JsonParserFillsAttributesAndKeepsTheBody) {
  Op j;
  j.type = Type::kJsonParser;
  Operators ops({j});
  auto& r = record(R"({"level":"warn","n":3,"ok":true,"nested":{"a":1},"level2":null})");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(attr_text("level"), "warn");
  ASSERT_NE(attr("n"), nullptr);
  EXPECT_EQ(attr("n")->int_value, 3);
  EXPECT_EQ(attr("ok")->kind, pdata::ValueKind::Bool);
  EXPECT_EQ(attr("nested")->kind, pdata::ValueKind::KvList);
  EXPECT_EQ(attr("level2")->kind, pdata::ValueKind::Empty);
  EXPECT_EQ(r.body.string_value.substr(0, 9), R"({"level":)");
  EXPECT_TRUE(ops.apply(record("[1,2]"), arena_));  // not an object: an error, sent on
  EXPECT_EQ(ops.errors(), 1u);
}

TEST_F(OperatorsTest, TimestampBlockSetsTheRecordTime) {
  Op o = regex(R"(^(?P<ts>\S+ \S+) (?P<msg>.*)$)");
  o.timestamp = Op::Timestamp{"attributes.ts", false, "%Y-%m-%d %H:%M:%S.%L%z", false};
  Operators ops({o});
  auto& r = record("2022-01-02 07:24:56.250-0700 hello");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(r.time_unix_nano, 1641133496250000000ull);
  auto& bad = record("2022-01-02 nope hello");
  EXPECT_TRUE(ops.apply(bad, arena_));
  EXPECT_EQ(bad.time_unix_nano, 0u);
  EXPECT_EQ(ops.errors(), 1u);

  Op e;
  e.type = Type::kTimeParser;
  e.timestamp = Op::Timestamp{"attributes.t", true, "ms", true};
  Op j;
  j.type = Type::kJsonParser;
  Operators epoch({j, e});
  auto& r2 = record(R"({"t":1136214245123})");
  ASSERT_TRUE(epoch.apply(r2, arena_));
  EXPECT_EQ(r2.time_unix_nano, 1136214245123000000ull);
}

TEST_F(OperatorsTest, SeverityPresetMappingRangesAndText) {
  Op s;
  s.type = Type::kSeverityParser;
  s.severity = severity_from("attributes.level", {{17, "nooo!", 0, -1}, {13, "", 500, 599}});
  Op j;
  j.type = Type::kJsonParser;
  Operators ops({j, s});
  const auto run = [&](std::string_view line) {
    auto& r = record(line);
    EXPECT_TRUE(ops.apply(r, arena_));
    return std::make_pair(r.severity_number, std::string(r.severity_text));
  };
  EXPECT_EQ(run(R"({"level":"ERROR"})"), std::make_pair(17, std::string("ERROR")));  // any case
  EXPECT_EQ(run(R"({"level":"info3"})"), std::make_pair(11, std::string("info3")));
  EXPECT_EQ(run(R"({"level":"Nooo!"})"), std::make_pair(17, std::string("Nooo!")));
  EXPECT_EQ(run(R"({"level":503})"), std::make_pair(13, std::string("503")));  // a range, an integer
  EXPECT_EQ(run(R"({"level":"404"})"), std::make_pair(17, std::string("404")));
  EXPECT_EQ(run(R"({"level":"whatever"})"), std::make_pair(0, std::string("whatever")));  // unmapped
  EXPECT_EQ(ops.errors(), 0u);
  EXPECT_EQ(run(R"({"other":1})").first, 0);  // missing: an error
  EXPECT_EQ(ops.errors(), 1u);

  s.severity->overwrite_text = true;
  Operators overwrite({j, s});
  auto& r = record(R"({"level":"nooo!"})");
  ASSERT_TRUE(overwrite.apply(r, arena_));
  EXPECT_EQ(r.severity_text, "ERROR");
}

TEST_F(OperatorsTest, RemoveMoveAddInOrder) {
  Op p = regex(R"(^(?P<ts>\S+) (?P<message>.*)$)");
  Op rm;
  rm.type = Type::kRemove;
  rm.field = "attributes.ts";
  Op mv;
  mv.type = Type::kMove;
  mv.from = "attributes.message";
  mv.to = "body";
  Op add;
  add.type = Type::kAdd;
  add.field = "attributes.source";
  add.value = "app";
  Op keep;
  keep.type = Type::kMove;
  keep.from = "attributes.source";
  keep.to = "attributes.origin";
  Operators ops({p, rm, mv, add, keep});
  auto& r = record("t0 the message");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(r.body.string_value, "the message");
  EXPECT_EQ(attr("ts"), nullptr);
  EXPECT_EQ(attr("message"), nullptr);
  EXPECT_EQ(attr("source"), nullptr);
  EXPECT_EQ(attr_text("origin"), "app");
  // move from a field that is not there: an error, the record goes on.
  EXPECT_TRUE(ops.apply(record("nospace"), arena_));
  EXPECT_EQ(ops.errors(), 1u);
}

TEST_F(OperatorsTest, KeyValuePairsWithQuotesAndCustomDelimiters) {
  Op kv;
  kv.type = Type::kKeyValueParser;
  Operators ops({kv});
  auto& r = record(R"(level=info  msg="hello world" user='bob o' n=3 "quoted key"=v)");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(attr_text("level"), "info");
  EXPECT_EQ(attr_text("msg"), "hello world");
  EXPECT_EQ(attr_text("user"), "bob o");
  EXPECT_EQ(attr_text("n"), "3");
  EXPECT_EQ(attr_text("quoted key"), "v");
  EXPECT_EQ(ops.errors(), 0u);
  EXPECT_TRUE(ops.apply(record("a=1 junk"), arena_));  // a pair without '=': an error
  EXPECT_EQ(ops.errors(), 1u);

  kv.delimiter = ":";
  kv.pair_delimiter = ";";
  Operators custom({kv});
  auto& r2 = record("a:1; b : 2 ;c:x:y;;d:'e;f'");
  ASSERT_TRUE(custom.apply(r2, arena_));
  EXPECT_EQ(attr_text("a"), "1");
  EXPECT_EQ(attr_text("b"), "2");
  EXPECT_EQ(attr_text("c"), "x:y");  // split at the first delimiter
  EXPECT_EQ(attr_text("d"), "e;f");  // no pair split inside quotes
  EXPECT_EQ(custom.errors(), 0u);
}

TEST_F(OperatorsTest, CopyAndRetain) {
  Op kv;
  kv.type = Type::kKeyValueParser;
  Op copy;
  copy.type = Type::kCopy;
  copy.from = "attributes.msg";
  copy.to = "body";
  Op retain;
  retain.type = Type::kRetain;
  retain.fields = {"attributes.level", "attributes.msg"};
  Operators ops({kv, copy, retain});
  auto& r = record("level=warn msg=hi noise=1 more=2");
  ASSERT_TRUE(ops.apply(r, arena_));
  EXPECT_EQ(r.body.string_value, "hi");
  EXPECT_EQ(attr_text("msg"), "hi");  // copied, not moved
  EXPECT_EQ(attr_text("level"), "warn");
  EXPECT_EQ(r.attributes.size(), 2u);  // noise and more dropped
}

// container: docker JSON and CRI lines, their time, stream and the pod from the file path.
TEST_F(OperatorsTest, ContainerLogLinesAndPodMetadata) {
  Op c;
  c.type = Type::kContainer;
  Operators ops({c});
  const std::string path = "/var/log/pods/shop_checkout-7d9f_0b3e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b/app/2.log";
  const auto run = [&](std::string_view line, pdata::Attributes& resource) {
    auto& r = record(line);
    r.attributes.push_back({"log.file.path", pdata::AnyValue::string(path)});
    return ops.apply(r, arena_, &resource);
  };
  pdata::Attributes resource(arena_.vec<pdata::KeyValue>());
  ASSERT_TRUE(
      run(R"({"log":"hello docker\n","stream":"stderr","time":"2024-04-13T07:59:37.505201169Z"})", resource));
  EXPECT_EQ(rec_->body.string_value, "hello docker");
  EXPECT_EQ(attr_text("log.iostream"), "stderr");
  EXPECT_EQ(rec_->time_unix_nano, 1712995177505201169ull);
  std::map<std::string, std::string> got;
  for (const auto& kv : resource) got[std::string(kv.key)] = std::string(kv.value.string_value);
  EXPECT_EQ(got,
            (std::map<std::string, std::string>{{"k8s.container.name", "app"},
                                                {"k8s.container.restart_count", "2"},
                                                {"k8s.namespace.name", "shop"},
                                                {"k8s.pod.name", "checkout-7d9f"},
                                                {"k8s.pod.uid", "0b3e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"}}));
  // CRI-O (a zone offset) and containerd (Z); the same resource is not duplicated.
  ASSERT_TRUE(run("2024-04-13T02:59:37.505201169-05:00 stdout F hello cri-o", resource));
  EXPECT_EQ(rec_->body.string_value, "hello cri-o");
  EXPECT_EQ(rec_->time_unix_nano, 1712995177505201169ull);
  EXPECT_EQ(attr_text("log.iostream"), "stdout");
  EXPECT_EQ(attr_text("logtag"), "F");  // CRI's tag, as the Collector keeps it
  ASSERT_TRUE(run("2024-04-13T07:59:37Z stderr P ", resource));
  EXPECT_EQ(rec_->body.string_value, "");
  EXPECT_EQ(attr_text("logtag"), "P");
  EXPECT_EQ(resource.size(), 5u);
  EXPECT_EQ(ops.errors(), 0u);
  for (const char* bad : {"plain text line", "2024-04-13T07:59:37Z stdin F x", "not-a-time stdout F x",
                          R"({"stream":"stdout"})"}) {
    EXPECT_TRUE(run(bad, resource)) << bad;  // on_error: send
  }
  EXPECT_EQ(ops.errors(), 4u);

  Op strict = c;
  strict.format = "containerd";
  Operators containerd({strict});
  auto& r = record("2024-04-13T02:59:37.5-05:00 stdout F x");
  EXPECT_TRUE(containerd.apply(r, arena_));
  EXPECT_EQ(containerd.errors(), 1u);  // containerd times end in Z
  Op no_meta = c;
  no_meta.add_metadata_from_filepath = false;
  Operators plain({no_meta});
  pdata::Attributes none(arena_.vec<pdata::KeyValue>());
  auto& r2 = record("2024-04-13T07:59:37Z stdout F x");  // no log.file.path: fine without metadata
  EXPECT_TRUE(plain.apply(r2, arena_, &none));
  EXPECT_EQ(plain.errors(), 0u);
  EXPECT_TRUE(none.empty());
}

// csv_parser: fields by the header, RFC 4180 quotes ("" is a quote, delimiters inside
// quotes), one-character delimiters; wrong counts and stray quotes are errors unless
// lazy_quotes / ignore_quotes say otherwise.
TEST_F(OperatorsTest, CsvParserSplitsByTheHeader) {
  Op c;
  c.type = Type::kCsvParser;
  c.delimiter = ",";
  c.csv_header = {"time", "level", "msg", "empty"};
  Operators ops({c});
  ASSERT_TRUE(ops.apply(record(R"(2024-01-01,INFO,"said ""hi"", left",)"), arena_));
  EXPECT_EQ(attr_text("time"), "2024-01-01");
  EXPECT_EQ(attr_text("level"), "INFO");
  EXPECT_EQ(attr_text("msg"), R"(said "hi", left)");
  EXPECT_EQ(attr_text("empty"), "");
  EXPECT_EQ(ops.errors(), 0u);
  for (const char* bad : {"a,b,c", "a,b,c,d,e", R"(a,b"x,c,d)", R"(a,"b"x,c,d)", R"(a,"b,c,d)"}) {
    EXPECT_TRUE(ops.apply(record(bad), arena_)) << bad;  // on_error: send
  }
  EXPECT_EQ(ops.errors(), 5u);

  Op lazy = c;
  lazy.lazy_quotes = true;
  Operators lazy_ops({lazy});
  ASSERT_TRUE(lazy_ops.apply(record(R"(a,b"x,"c"d",e)"), arena_));
  EXPECT_EQ(attr_text("level"), R"(b"x)");
  EXPECT_EQ(attr_text("msg"), R"(c"d)");
  EXPECT_EQ(lazy_ops.errors(), 0u);

  Op tabs = c;
  tabs.delimiter = "\t";
  tabs.ignore_quotes = true;
  Operators tab_ops({tabs});
  ASSERT_TRUE(tab_ops.apply(record("t\t\"q\t\"x\t"), arena_));
  EXPECT_EQ(attr_text("level"), "\"q");
  EXPECT_EQ(attr_text("msg"), "\"x");
  EXPECT_EQ(tab_ops.errors(), 0u);
}

// trace_parser: the ids the Elasticsearch documents correlate logs and traces by.
TEST_F(OperatorsTest, TraceParserSetsIdsAndFlags) {
  Op kv;
  kv.type = Type::kKeyValueParser;
  Op t;
  t.type = Type::kTraceParser;
  Operators ops({kv, t});
  auto& r = record("trace_id=5B8EFFF798038103D269B633813FC60C span_id=eee19b7ec3c1b174 trace_flags=01");
  ASSERT_TRUE(ops.apply(r, arena_));
  const pdata::TraceId want_trace{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03,
                                  0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c};
  const pdata::SpanId want_span{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74};
  EXPECT_EQ(r.trace_id, want_trace);
  EXPECT_EQ(r.span_id, want_span);
  EXPECT_EQ(r.flags, 1u);
  auto& none = record("other=1");  // no ids: nothing to do, no error
  ASSERT_TRUE(ops.apply(none, arena_));
  EXPECT_TRUE(pdata::is_zero(none.trace_id));
  EXPECT_EQ(ops.errors(), 0u);
  auto& bad = record("trace_id=xyz span_id=eee19b7ec3c1b174");  // an error, and no half-set ids
  ASSERT_TRUE(ops.apply(bad, arena_));
  EXPECT_EQ(ops.errors(), 1u);
  EXPECT_TRUE(pdata::is_zero(bad.span_id));
}

TEST(Operators, ARegexThatDoesNotCompileThrows) {
  Op o;
  o.type = Type::kRegexParser;
  o.id = "bad";
  o.regex = "(?P<x>[";
  EXPECT_THROW(Operators({o}), std::invalid_argument);
}

}  // namespace
}  // namespace tern::receiver::filelog
