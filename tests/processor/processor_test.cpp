// attributes / resource processors and memory_limiter.
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <cmath>

#include "otlp/json_codec.h"
#include "processor/attributes/attributes_processor.h"
#include "processor/memorylimiter/memory_limiter.h"

namespace tern::processor {
namespace {

using Action = processor::AttributesProcessorConfig::Action;

processor::AttributesProcessorConfig actions(std::vector<processor::AttributesProcessorConfig::Entry> e) {
  processor::AttributesProcessorConfig c;
  c.actions = std::move(e);
  return c;
}

std::string as_json(const pdata::LogsData& d) {
  std::string out;
  otlp::encode_logs_json(d, out);
  return out;
}

constexpr std::string_view kLogs =
    R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},)"
    R"("scopeLogs":[{"logRecords":[{"attributes":[{"key":"keep","value":{"intValue":"1"}},)"
    R"({"key":"secret","value":{"stringValue":"x"}}]},{}]}]}]})";

TEST(AttributesProcessor, InsertUpdateUpsertDeleteOnRecords) {
  pdata::LogsData d;
  ASSERT_FALSE(otlp::decode_logs_json(kLogs, d));
  AttributesProcessor p(actions({{"secret", "", Action::kDelete},
                                 {"keep", "ignored", Action::kInsert},  // present: insert does nothing
                                 {"env", "prod", Action::kInsert},
                                 {"keep", "2", Action::kUpdate},
                                 {"missing", "m", Action::kUpdate},  // absent: update does nothing
                                 {"team", "core", Action::kUpsert}}),
                        AttributesProcessor::Target::kRecords);
  ASSERT_TRUE(p.process(d).accepted());
  EXPECT_EQ(
      as_json(d),
      R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},)"
      R"("scopeLogs":[{"logRecords":[{"attributes":[{"key":"keep","value":{"stringValue":"2"}},)"
      R"({"key":"env","value":{"stringValue":"prod"}},{"key":"team","value":{"stringValue":"core"}}]},)"
      // The empty record: insert adds "keep", then update changes it (actions run in order).
      R"({"attributes":[{"key":"keep","value":{"stringValue":"2"}},{"key":"env","value":{"stringValue":"prod"}},)"
      R"({"key":"team","value":{"stringValue":"core"}}]}]}]}]})");
}

// The Collector's other attributes actions: typed values, from_attribute, delete by pattern,
// convert (a value that cannot become the type stays as it is).
TEST(AttributesProcessor, TypedValuesFromAttributePatternAndConvert) {
  using Entry = processor::AttributesProcessorConfig::Entry;
  using Type = processor::AttributesProcessorConfig::Type;
  std::vector<Entry> e(9);
  e[0] = Entry("account_id", "2245", Action::kInsert);
  e[0].value_type = Type::kInt;
  e[1] = Entry("ratio", "0.5", Action::kUpsert);
  e[1].value_type = Type::kDouble;
  e[2] = Entry("redacted", "true", Action::kUpsert);
  e[2].value_type = Type::kBool;
  e[3] = Entry("copy", "", Action::kUpsert);
  e[3].from_attribute = "keep";
  e[4] = Entry("nothing", "", Action::kUpsert);
  e[4].from_attribute = "absent";  // nothing to copy: no action
  e[5] = Entry("", "", Action::kDelete);
  e[5].pattern = "^sec";
  e[6] = Entry("keep", "", Action::kConvert);
  e[6].converted_type = Type::kString;
  e[7] = Entry("ratio", "", Action::kConvert);
  e[7].converted_type = Type::kInt;  // 0.5 -> 0
  e[8] = Entry("redacted", "", Action::kConvert);
  e[8].converted_type = Type::kDouble;
  pdata::LogsData d;
  ASSERT_FALSE(otlp::decode_logs_json(kLogs, d));
  AttributesProcessor p(actions(std::move(e)), AttributesProcessor::Target::kRecords);
  ASSERT_TRUE(p.process(d).accepted());
  const auto json = as_json(d);
  EXPECT_NE(json.find(R"({"key":"account_id","value":{"intValue":"2245"}})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"key":"ratio","value":{"intValue":"0"}})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"key":"redacted","value":{"doubleValue":1}})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"key":"copy","value":{"intValue":"1"}})"), std::string::npos)
      << json;  // copied before convert
  EXPECT_NE(json.find(R"({"key":"keep","value":{"stringValue":"1"}})"), std::string::npos) << json;
  EXPECT_EQ(json.find("secret"), std::string::npos) << json;
  EXPECT_EQ(json.find("nothing"), std::string::npos) << json;
  // A string that is no number stays a string.
  pdata::Attributes attrs(d.arena.vec<pdata::KeyValue>());
  attrs.push_back({"code", pdata::AnyValue::string("abc")});
  std::vector<Entry> c(1);
  c[0] = Entry("code", "", Action::kConvert);
  c[0].converted_type = Type::kInt;
  AttributesProcessor(actions(std::move(c)), AttributesProcessor::Target::kRecords).apply(attrs, d.arena);
  EXPECT_EQ(attrs[0].value.kind, pdata::ValueKind::String);
  // Strings that are whole numbers convert; one with more after its number stays.
  attrs.push_back({"n", pdata::AnyValue::string("-12")});
  attrs.push_back({"x", pdata::AnyValue::string("2.5")});
  attrs.push_back({"partial", pdata::AnyValue::string("12abc")});
  std::vector<Entry> n(3);
  n[0] = Entry("n", "", Action::kConvert);
  n[0].converted_type = Type::kInt;
  n[1] = Entry("x", "", Action::kConvert);
  n[1].converted_type = Type::kDouble;
  n[2] = Entry("partial", "", Action::kConvert);
  n[2].converted_type = Type::kInt;
  AttributesProcessor(actions(std::move(n)), AttributesProcessor::Target::kRecords).apply(attrs, d.arena);
  ASSERT_EQ(attrs[1].value.kind, pdata::ValueKind::Int);
  EXPECT_EQ(attrs[1].value.int_value, -12);
  ASSERT_EQ(attrs[2].value.kind, pdata::ValueKind::Double);
  EXPECT_EQ(attrs[2].value.double_value, 2.5);
  EXPECT_EQ(attrs[3].value.kind, pdata::ValueKind::String);
  EXPECT_EQ(attrs[3].value.string_value, "12abc");
}

// Found by an audit: convert to string wrote doubles as C++'s shortest form ("1e+06") and left
// maps, lists and bytes alone; "+5" did not become an int. The Collector sets v.AsString():
// floats as ES6 / encoding/json write them, maps and lists as JSON (keys sorted), bytes as
// base64; strconv.ParseInt and ParseFloat take a leading '+'.
TEST(AttributesProcessor, ConvertToStringIsPcommonAsString) {
  using Entry = processor::AttributesProcessorConfig::Entry;
  using Type = processor::AttributesProcessorConfig::Type;
  using pdata::AnyValue;
  pdata::Arena arena;
  pdata::Attributes attrs(arena.vec<pdata::KeyValue>());
  auto* inner = arena.make<pdata::Vec<AnyValue>>(arena.vec<AnyValue>());
  inner->push_back(AnyValue::integer(1));
  inner->push_back(AnyValue::string("a&b"));
  inner->push_back(AnyValue::dbl(1e-7));
  inner->push_back(AnyValue::bytes(std::string_view()));  // empty bytes: Go's AsRaw gives nil
  auto* obj = arena.make<pdata::Vec<pdata::KeyValue>>(arena.vec<pdata::KeyValue>());
  obj->push_back({"z", AnyValue::boolean(false)});
  obj->push_back({"a", AnyValue::make_array(inner)});
  obj->push_back({"m", AnyValue::dbl(1e21)});
  obj->push_back({"\b\x01", AnyValue()});
  auto* nan_inside = arena.make<pdata::Vec<AnyValue>>(arena.vec<AnyValue>());
  nan_inside->push_back(AnyValue::dbl(std::nan("")));
  const std::vector<std::pair<AnyValue, std::string>> cases = {
      {AnyValue::dbl(1e6), "1000000"},
      {AnyValue::dbl(1e-4), "0.0001"},
      {AnyValue::dbl(123.456), "123.456"},
      {AnyValue::dbl(-0.5), "-0.5"},
      {AnyValue::dbl(1e21), "1e+21"},
      {AnyValue::dbl(1e-7), "1e-7"},
      {AnyValue::dbl(1.5e-10), "1.5e-10"},
      {AnyValue::dbl(std::nan("")), "json: unsupported value: NaN"},
      {AnyValue::dbl(-INFINITY), "json: unsupported value: -Inf"},
      {AnyValue::integer(-42), "-42"},
      {AnyValue::boolean(true), "true"},
      {AnyValue::bytes(std::string_view("\x01\xff\x10", 3)), "Af8Q"},
      {AnyValue::make_array(inner), R"([1,"a\u0026b",1e-7,null])"},
      {AnyValue::make_kvlist(obj), R"({"\b\u0001":null,"a":[1,"a\u0026b",1e-7,null],"m":1e+21,"z":false})"},
      {AnyValue::make_array(nan_inside), ""},  // encoding/json fails; AsString ignores the error
      {AnyValue(), ""},
  };
  std::vector<Entry> e;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string key = "k" + std::to_string(i);
    attrs.push_back({arena.copy(key), cases[i].first});
    e.emplace_back(key, "", Action::kConvert);
    e.back().converted_type = Type::kString;
  }
  AttributesProcessor(actions(std::move(e)), AttributesProcessor::Target::kRecords).apply(attrs, arena);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ASSERT_EQ(attrs[i].value.kind, pdata::ValueKind::String) << i;
    EXPECT_EQ(attrs[i].value.string_value, cases[i].second) << i;
  }
  pdata::Attributes nums(arena.vec<pdata::KeyValue>());
  nums.push_back({"i", AnyValue::string("+5")});
  nums.push_back({"d", AnyValue::string("+2.5")});
  nums.push_back({"bad", AnyValue::string("+-5")});
  std::vector<Entry> n;
  n.emplace_back("i", "", Action::kConvert);
  n.back().converted_type = Type::kInt;
  n.emplace_back("d", "", Action::kConvert);
  n.back().converted_type = Type::kDouble;
  n.emplace_back("bad", "", Action::kConvert);
  n.back().converted_type = Type::kInt;
  AttributesProcessor(actions(std::move(n)), AttributesProcessor::Target::kRecords).apply(nums, arena);
  ASSERT_EQ(nums[0].value.kind, pdata::ValueKind::Int);
  EXPECT_EQ(nums[0].value.int_value, 5);
  ASSERT_EQ(nums[1].value.kind, pdata::ValueKind::Double);
  EXPECT_EQ(nums[1].value.double_value, 2.5);
  EXPECT_EQ(nums[2].value.kind, pdata::ValueKind::String);
}

TEST(AttributesProcessor, ABadPatternIsAnError) {
  std::vector<processor::AttributesProcessorConfig::Entry> e(1);
  e[0] = processor::AttributesProcessorConfig::Entry("", "", Action::kDelete);
  e[0].pattern = "(";
  EXPECT_THROW(AttributesProcessor(actions(std::move(e)), AttributesProcessor::Target::kRecords),
               std::invalid_argument);
}

TEST(AttributesProcessor, ResourceTargetLeavesRecordsAlone) {
  pdata::LogsData d;
  ASSERT_FALSE(otlp::decode_logs_json(kLogs, d));
  AttributesProcessor p(
      actions({{"service.name", "renamed", Action::kUpsert}, {"host", "h1", Action::kInsert}}),
      AttributesProcessor::Target::kResource);
  ASSERT_TRUE(p.process(d).accepted());
  const auto& res = d.resource_logs[0].resource.attributes;
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0].value.string_value, "renamed");
  EXPECT_EQ(res[1].key, "host");
  EXPECT_EQ(d.resource_logs[0].scope_logs[0].log_records[0].attributes.size(), 2u);
}

TEST(AttributesProcessor, TracesAndMetricPoints) {
  pdata::TracesData t;
  ASSERT_FALSE(
      otlp::decode_traces_json(R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"s"}]}]}]})", t));
  pdata::MetricsData m;
  ASSERT_FALSE(otlp::decode_metrics_json(
      R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"asInt":"1"}]}},)"
      R"({"name":"h","histogram":{"dataPoints":[{"count":"1"}],"aggregationTemporality":1}}]}]}]})",
      m));
  AttributesProcessor p(actions({{"k", "v", Action::kInsert}}), AttributesProcessor::Target::kRecords);
  ASSERT_TRUE(p.process(t).accepted());
  ASSERT_TRUE(p.process(m).accepted());
  EXPECT_EQ(t.resource_spans[0].scope_spans[0].spans[0].attributes.at(0).key, "k");
  const auto& metrics = m.resource_metrics[0].scope_metrics[0].metrics;
  EXPECT_EQ(metrics[0].number_points[0].attributes.at(0).value.string_value, "v");
  EXPECT_EQ(metrics[1].histogram_points[0].attributes.at(0).key, "k");
}

TEST(MemoryLimiter, RefusesAboveTheSoftLimitAndRecovers) {
  processor::MemoryLimiterProcessorConfig c;
  c.limit_mib = 100;
  c.spike_limit_mib = 20;
  c.check_interval = std::chrono::nanoseconds(1);  // re-read on every batch
  std::uint64_t rss = 50ull << 20;
  MemoryLimiter m(c, [&] { return rss; });
  EXPECT_EQ(m.soft_limit_bytes(), 80ull << 20);
  pdata::LogsData d;
  EXPECT_TRUE(m.process(d).accepted());
  rss = 81ull << 20;
  auto r = m.process(d);
  EXPECT_EQ(r.code, component::ConsumeCode::kRetryLater);
  EXPECT_NE(r.message.find("memory limit"), std::string::npos);
  EXPECT_GT(r.retry_after.count(), 0);
  EXPECT_EQ(m.refused(), 1u);
  rss = 10ull << 20;
  EXPECT_TRUE(m.process(d).accepted());
}

// limit_percentage is of the container's memory: its cgroup's limit (v2, else v1), at most
// the physical RAM; without one, the RAM.
TEST(MemoryLimiter, TotalMemoryIsTheCgroupLimit) {
  const auto dir = std::filesystem::temp_directory_path() / ("tern-cgroup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string v2 = write("memory.max", "536870912\n"), v2_max = write("max", "max\n"),
                    v1 = write("limit_in_bytes", "268435456\n"),
                    v1_none = write("huge", "9223372036854771712\n");
  const std::string missing = (dir / "missing").string();
  const std::uint64_t ram = total_memory_bytes(missing.c_str(), missing.c_str());
  ASSERT_GT(ram, 0u);
  EXPECT_EQ(total_memory_bytes(v2.c_str(), v1.c_str()), std::min<std::uint64_t>(536870912, ram));
  EXPECT_EQ(total_memory_bytes(v2_max.c_str(), v1.c_str()), std::min<std::uint64_t>(268435456, ram));
  EXPECT_EQ(total_memory_bytes(missing.c_str(), v1_none.c_str()), ram);  // v1's "no limit"
  std::filesystem::remove_all(dir);
}

TEST(MemoryLimiter, DefaultSpikeIsAFifthAndZeroLimitMeansOff) {
  processor::MemoryLimiterProcessorConfig c;
  c.limit_mib = 100;
  MemoryLimiter m(c, [] { return std::uint64_t{0}; });
  EXPECT_EQ(m.soft_limit_bytes(), 80ull << 20);
  MemoryLimiter off(processor::MemoryLimiterProcessorConfig{}, [] { return ~std::uint64_t{0}; });
  pdata::LogsData d;
  EXPECT_TRUE(off.process(d).accepted());
  EXPECT_GT(MemoryLimiter::read_rss(), 0u);
}

}  // namespace
}  // namespace tern::processor
