#include <gtest/gtest.h>

#include <string>

#include "tern/sdk/logs/log_record.h"

namespace tern::sdk::logs {
namespace {

TEST(LogRecordTest, SettersAndValueKinds) {
  LogRecord r;
  EXPECT_NE(r.observed_timestamp(), 0u);
  TraceId trace{};
  trace[0] = 0xab;
  SpanId span{};
  span[7] = 0x01;
  r.SetTimestamp(42).SetSeverity(Severity::kWarn, "WARN").SetBody("hello").SetEventName("ev");
  r.SetTraceContext(trace, span, 1);
  r.AddAttribute("s", "str").AddAttribute("i", 7).AddAttribute("d", 1.5).AddAttribute("b", true);
  EXPECT_EQ(r.timestamp(), 42u);
  EXPECT_EQ(r.severity(), Severity::kWarn);
  EXPECT_EQ(r.severity_text(), "WARN");
  EXPECT_EQ(r.body().kind(), ValueKind::kString);
  EXPECT_EQ(r.body().as_string(), "hello");
  EXPECT_EQ(r.event_name(), "ev");
  EXPECT_EQ(r.trace_id(), trace);
  EXPECT_EQ(r.span_id(), span);
  EXPECT_EQ(r.trace_flags(), 1);
  ASSERT_EQ(r.attributes().size(), 4u);
  EXPECT_EQ(r.attributes()[0].value.as_string(), "str");
  EXPECT_EQ(r.attributes()[1].value.kind(), ValueKind::kInt);
  EXPECT_EQ(r.attributes()[1].value.as_int(), 7);
  EXPECT_EQ(r.attributes()[2].value.kind(), ValueKind::kDouble);
  EXPECT_DOUBLE_EQ(r.attributes()[2].value.as_double(), 1.5);
  EXPECT_EQ(r.attributes()[3].value.kind(), ValueKind::kBool);
  EXPECT_TRUE(r.attributes()[3].value.as_bool());
}

TEST(LogRecordTest, IntegerTypesBecomeInt) {
  EXPECT_EQ(Value('a').kind(), ValueKind::kInt);
  EXPECT_EQ(Value(std::uint8_t{7}).as_int(), 7);
  EXPECT_EQ(Value(-3L).as_int(), -3);
  EXPECT_EQ(Value(2.5f).kind(), ValueKind::kDouble);
  EXPECT_EQ(Value().kind(), ValueKind::kEmpty);
  const std::string s = "kept";
  EXPECT_EQ(Value(s).as_string(), "kept");
}

TEST(LogRecordTest, ExtraAttributesAreCountedAsDropped) {
  LogRecord r;
  for (int i = 0; i < 11; ++i) r.AddAttribute("k", i);
  EXPECT_EQ(r.attributes().size(), LogRecord::kMaxAttributes);
  EXPECT_EQ(r.dropped_attributes_count(), 11u - LogRecord::kMaxAttributes);
  EXPECT_EQ(r.attributes().back().value.as_int(), 7);
}

TEST(LogRecordTest, DataCopyOutlivesSourceStrings) {
  LogRecordData data;
  {
    std::string body = "a body longer than the small string buffer";
    std::string key = "some.attribute.key.that.is.long";
    LogRecord r;
    r.SetBody(body).SetSeverity(Severity::kError, "ERROR").AddAttribute(key, body).SetTimestamp(5);
    for (int i = 0; i < 9; ++i) r.AddAttribute("x", i);
    data.Assign(r);
    body.assign(body.size(), 'z');
    key.assign(key.size(), 'z');
  }
  const LogRecord v = data.view();
  EXPECT_EQ(v.body().as_string(), "a body longer than the small string buffer");
  EXPECT_EQ(v.severity_text(), "ERROR");
  EXPECT_EQ(v.timestamp(), 5u);
  ASSERT_EQ(v.attributes().size(), LogRecord::kMaxAttributes);
  EXPECT_EQ(v.attributes()[0].key, "some.attribute.key.that.is.long");
  EXPECT_EQ(v.dropped_attributes_count(), 2u);
}

}  // namespace
}  // namespace tern::sdk::logs
