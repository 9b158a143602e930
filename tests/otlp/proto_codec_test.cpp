// OTLP/protobuf codec: every field through proto and back (checked against the
// independent JSON codec), byte-exact re-encoding, zero-copy views, wire-format
// leniency (unknown fields, unpacked repeated scalars, groups) and every error path
// with its message, offset and field.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "otlp/json_codec.h"
#include "otlp/otlp_fixtures.h"
#include "otlp/proto_codec.h"

namespace tern::otlp {
namespace {

using namespace tern::pdata;
using namespace tern::otlp::fixtures;

// ---- a tiny protobuf writer for hand-made inputs ----
std::string varint(std::uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  s += static_cast<char>(v);
  return s;
}
std::string tag(std::uint32_t field, std::uint32_t wt) { return varint((std::uint64_t{field} << 3) | wt); }
std::string len(std::uint32_t field, std::string_view body) {
  return tag(field, 2) + varint(body.size()) + std::string(body);
}
std::string vint(std::uint32_t field, std::uint64_t v) { return tag(field, 0) + varint(v); }
std::string fixed64(std::uint32_t field, std::uint64_t v) {
  std::string s = tag(field, 1);
  s.append(reinterpret_cast<const char*>(&v), 8);
  return s;
}
std::string dbl(std::uint32_t field, double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, 8);
  return fixed64(field, v);
}
std::string fixed32(std::uint32_t field, std::uint32_t v) {
  std::string s = tag(field, 5);
  s.append(reinterpret_cast<const char*>(&v), 4);
  return s;
}
// LogsData{resource_logs{scope_logs{log_records{<record>}}}}
std::string logs_with_record(std::string_view record) { return len(1, len(2, len(2, record))); }

// JSON fixture -> pdata -> proto -> pdata -> JSON.
template <class Data>
std::string via_proto(std::string_view json, auto decode_json, auto encode_proto, auto decode_proto,
                      auto encode_json, std::string* proto_out = nullptr) {
  Data from_json;
  auto err = decode_json(json, from_json, DecodeOptions{});
  EXPECT_FALSE(err) << err->to_string();
  std::string proto;
  encode_proto(from_json, proto);
  Data from_proto;
  err = decode_proto(proto, from_proto, DecodeOptions{});
  EXPECT_FALSE(err) << err->to_string();
  std::string back;
  encode_json(from_proto, back);
  // Re-encoding what was decoded gives the same bytes (the encoding is canonical).
  std::string again;
  encode_proto(from_proto, again);
  EXPECT_EQ(again, proto);
  if (proto_out) *proto_out = proto;
  return back;
}

// `n` empty log records: 2 bytes each on the wire, a whole LogRecord each once decoded.
std::string empty_log_records_proto(std::size_t n) {
  const auto varint = [](std::string& out, std::size_t v) {
    while (v >= 0x80) {
      out += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  };
  std::string records;
  for (std::size_t i = 0; i < n; ++i) records += std::string("\x12\x00", 2);  // log_records {}
  std::string scope_logs = "\x12";                                            // scope_logs
  varint(scope_logs, records.size());
  scope_logs += records;
  std::string req = "\x0a";  // resource_logs
  varint(req, scope_logs.size());
  return req + scope_logs;
}

TEST(OtlpProto, MaxDecodedBytesRefusesARequestOfMillionsOfEmptyItems) {
  const std::string in = empty_log_records_proto(200000);  // 400 KB on the wire
  LogsData unbounded;
  ASSERT_FALSE(decode_logs_proto(in, unbounded).has_value());
  EXPECT_EQ(unbounded.record_count(), 200000u);
  EXPECT_GT(unbounded.arena.bytes_held(), 40u * in.size());  // what the bound is for

  LogsData bounded;
  auto err = decode_logs_proto(in, bounded, DecodeOptions{.max_decoded_bytes = 4u << 20});
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message, decoded_size_message(4u << 20));
  EXPECT_LE(bounded.arena.bytes_held(), (4u << 20) + in.size());
  // The limit lasts only while decoding: the batch's arena is usable afterwards.
  EXPECT_NO_THROW(bounded.arena.copy(std::string(8u << 20, 'x')));

  // A bound the request stays under changes nothing.
  LogsData roomy;
  ASSERT_FALSE(decode_logs_proto(in, roomy, DecodeOptions{.max_decoded_bytes = 256u << 20}).has_value());
  EXPECT_EQ(roomy.record_count(), 200000u);
}

TEST(OtlpProto, LogsEveryFieldRoundTrip) {
  EXPECT_EQ(
      via_proto<LogsData>(kLogs, decode_logs_json, encode_logs_proto, decode_logs_proto, encode_logs_json),
      kLogs);
}
TEST(OtlpProto, TracesEveryFieldRoundTrip) {
  EXPECT_EQ(via_proto<TracesData>(kTraces, decode_traces_json, encode_traces_proto, decode_traces_proto,
                                  encode_traces_json),
            kTraces);
}
TEST(OtlpProto, MetricsEveryFieldRoundTrip) {
  EXPECT_EQ(via_proto<MetricsData>(kMetrics, decode_metrics_json, encode_metrics_proto, decode_metrics_proto,
                                   encode_metrics_json),
            kMetrics);
}

TEST(OtlpProto, EncodeAppendsAndEmptyIsEmpty) {
  LogsData empty;
  std::string out = "prefix";
  encode_logs_proto(empty, out);
  EXPECT_EQ(out, "prefix");
  LogsData d;
  ASSERT_FALSE(decode_logs_proto("", d));
  EXPECT_TRUE(d.resource_logs.empty());
}

// The encoder grows its output without a zero fill. Whatever the string's capacity (none,
// a little short, plenty), the result is exactly the prefix plus the encoding: GCC 12's
// resize_and_overwrite reports the grown capacity to its operation, and an encoder that
// trusted it left garbage bytes after the message.
TEST(OtlpProto, EncodeAppendsExactlyWhateverTheCapacity) {
  LogsData d;
  ASSERT_FALSE(decode_logs_json(kLogs, d));
  std::string ref;
  encode_logs_proto(d, ref);
  ASSERT_FALSE(ref.empty());
  for (std::size_t cap :
       {std::size_t{0}, ref.size() / 2, ref.size() * 3 / 4, ref.size() + 3, ref.size() * 3}) {
    std::string out;
    out.reserve(cap);
    out = "ab";
    encode_logs_proto(d, out);
    EXPECT_EQ(out, "ab" + ref) << "capacity " << cap;
    LogsData back;
    EXPECT_FALSE(decode_logs_proto(std::string_view(out).substr(2), back)) << cap;
  }
}

TEST(OtlpProto, KnownBytesForASimpleRecord) {
  // Hand-computed: the encoder writes exactly these bytes, in field-number order.
  LogsData d;
  auto& lr = d.resource_logs.emplace_back(d.arena).scope_logs.emplace_back(d.arena).log_records.emplace_back(
      d.arena);
  lr.time_unix_nano = 5;
  lr.severity_number = -1;  // int32 enums are sign-extended to 10-byte varints
  lr.body = AnyValue::string("hi");
  lr.flags = 1;
  std::string out;
  encode_logs_proto(d, out);
  const std::string record = fixed64(1, 5) + vint(2, ~0ull) + len(5, len(1, "hi")) + fixed32(8, 1);
  // resource (empty message) then scope_logs{scope (empty), log_records}.
  EXPECT_EQ(out, len(1, len(1, "") + len(2, len(1, "") + len(2, record))));
  LogsData back;
  ASSERT_FALSE(decode_logs_proto(out, back));
  const auto& r = back.resource_logs[0].scope_logs[0].log_records[0];
  EXPECT_EQ(r.severity_number, -1);
  EXPECT_EQ(r.body.string_value, "hi");
}

TEST(OtlpProto, DecodedStringsAreViewsIntoTheInput) {
  std::string proto;
  {
    LogsData d;
    ASSERT_FALSE(decode_logs_json(kLogs, d));
    encode_logs_proto(d, proto);
  }
  LogsData d;
  const std::string_view in = d.arena.hold(proto);
  ASSERT_FALSE(decode_logs_proto(in, d));
  const auto& lr = d.resource_logs[0].scope_logs[0].log_records[0];
  for (std::string_view s : {lr.severity_text, lr.event_name, lr.attributes[0].key,
                             lr.attributes[0].value.string_value, d.resource_logs[0].schema_url}) {
    EXPECT_GE(s.data(), in.data());
    EXPECT_LE(s.data() + s.size(), in.data() + in.size());
  }
}

TEST(OtlpProto, UnknownFieldsOfEveryWireTypeAreSkipped) {
  const std::string unknown = vint(90, 7) + fixed64(91, 1) + fixed32(92, 2) + len(93, "zzz") + tag(94, 3) +
                              vint(1, 1) + len(2, "in group") + tag(94, 4);
  const std::string record = unknown + fixed64(1, 42) + unknown + len(3, "WARN") + unknown;
  const std::string in = unknown + len(1, unknown + len(2, unknown + len(2, record)));
  LogsData d;
  auto err = decode_logs_proto(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& lr = d.resource_logs.at(0).scope_logs.at(0).log_records.at(0);
  EXPECT_EQ(lr.time_unix_nano, 42u);
  EXPECT_EQ(lr.severity_text, "WARN");
}

TEST(OtlpProto, PackedAndUnpackedRepeatedScalarsAreEqual) {
  auto point = [](bool packed) {
    std::string p = fixed64(4, 6);
    if (packed) {
      std::string counts, bounds;
      for (std::uint64_t v : {1, 2, 3}) counts.append(reinterpret_cast<const char*>(&v), 8);
      for (double v : {1.0, 2.5}) bounds.append(reinterpret_cast<const char*>(&v), 8);
      p += len(6, counts) + len(7, bounds);
    } else {
      p += fixed64(6, 1) + fixed64(6, 2) + fixed64(6, 3) + dbl(7, 1.0) + dbl(7, 2.5);
    }
    return p;
  };
  auto exp_point = [](bool packed) {
    std::string buckets = vint(1, 3);  // zigzag(-2)
    buckets += packed ? len(2, varint(3) + varint(300)) : vint(2, 3) + vint(2, 300);
    return fixed64(4, 303) + len(8, buckets);
  };
  for (bool packed : {true, false}) {
    const std::string metric = len(1, "h") + len(9, len(1, point(packed)) + vint(2, 1));
    const std::string emetric = len(1, "e") + len(10, len(1, exp_point(packed)) + vint(2, 1));
    const std::string in = len(1, len(2, len(2, metric) + len(2, emetric)));
    MetricsData d;
    auto err = decode_metrics_proto(in, d);
    ASSERT_FALSE(err) << err->to_string();
    const auto& ms = d.resource_metrics[0].scope_metrics[0].metrics;
    const auto& hp = ms[0].histogram_points.at(0);
    EXPECT_EQ(std::vector<std::uint64_t>(hp.bucket_counts.begin(), hp.bucket_counts.end()),
              (std::vector<std::uint64_t>{1, 2, 3}))
        << "packed=" << packed;
    EXPECT_EQ(std::vector<double>(hp.explicit_bounds.begin(), hp.explicit_bounds.end()),
              (std::vector<double>{1.0, 2.5}));
    const auto& ep = ms[1].exponential_histogram_points.at(0);
    EXPECT_EQ(ep.positive.offset, -2);
    EXPECT_EQ(std::vector<std::uint64_t>(ep.positive.bucket_counts.begin(), ep.positive.bucket_counts.end()),
              (std::vector<std::uint64_t>{3, 300}));
  }
}

TEST(OtlpProto, InvalidUtf8IsKeptUnlessValidationIsAsked) {
  const std::string in = logs_with_record(len(3, "bad\xff"));
  LogsData kept;
  ASSERT_FALSE(decode_logs_proto(in, kept));
  EXPECT_EQ(kept.resource_logs[0].scope_logs[0].log_records[0].severity_text, "bad\xff");
  // The JSON encoder never writes invalid UTF-8, whatever the batch holds.
  std::string json;
  encode_logs_json(kept, json);
  LogsData reparsed;
  EXPECT_FALSE(decode_logs_json(json, reparsed));

  LogsData strict;
  DecodeOptions opt;
  opt.validate_utf8 = true;
  auto err = decode_logs_proto(in, strict, opt);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "invalid UTF-8 in string");
  EXPECT_EQ(err->field, "resource_logs.scope_logs.log_records.severity_text");
  EXPECT_EQ(err->offset, in.size() - 1);
}

// Decodes `in` as logs and returns "field: message @offset".
std::string logs_error(std::string_view in, DecodeOptions opt = {}) {
  LogsData d;
  auto err = decode_logs_proto(in, d, opt);
  if (!err) return "no error";
  return err->field + ": " + err->message + " @" + std::to_string(err->offset);
}

TEST(OtlpProto, Errors) {
  // Truncated varint in a tag.
  EXPECT_EQ(logs_error("\x80"), ": truncated varint @0");
  // Length past the end, inside a record.
  const std::string past = logs_with_record(tag(3, 2) + varint(50) + "ab");
  EXPECT_EQ(
      logs_error(past),
      "resource_logs.scope_logs.log_records.severity_text: length 50 past end of message (2 bytes left) @7");
  // A known field with the wrong wire type.
  EXPECT_EQ(logs_error(logs_with_record(vint(1, 5))),
            "resource_logs.scope_logs.log_records.time_unix_nano: wrong wire type: expected fixed64, got "
            "varint @6");
  // Truncated fixed64.
  EXPECT_EQ(logs_error(logs_with_record(tag(1, 1) + "abc")),
            "resource_logs.scope_logs.log_records.time_unix_nano: truncated fixed64 (3 bytes left) @7");
  // A trace id that is neither 16 bytes nor empty.
  EXPECT_EQ(logs_error(logs_with_record(len(9, "12345"))),
            "resource_logs.scope_logs.log_records.trace_id: trace_id must be 16 bytes or empty, got 5 @7");
  // Field number 0 and wire types 6/7.
  EXPECT_EQ(logs_error(std::string("\x00\x01", 2)), ": invalid field number 0 @0");
  EXPECT_EQ(logs_error("\x0e"), ": invalid wire type 6 @0");
  // An end-group with no group, and an unterminated group.
  EXPECT_EQ(logs_error(tag(5, 4)), ": unexpected end-group tag (field 5) @1");
  EXPECT_EQ(logs_error(tag(5, 3) + vint(1, 1)), ": unterminated group (field 5) @1");
  // A varint longer than 10 bytes.
  EXPECT_EQ(logs_error(tag(7, 0) + std::string(11, '\xff')), ": varint longer than 10 bytes @1");
}

// Runs of a repeated field are read on without the field loop while the next byte is the
// field's tag again; a run cut by other fields, or by the end of its message, goes on where
// the field comes back, in wire order, and an error inside a run names its field.
TEST(OtlpProto, RepeatedFieldsInRunsAndInterleaved) {
  auto attr = [](std::string_view key, std::uint64_t v) { return len(6, len(1, key) + len(2, vint(3, v))); };
  const std::string record1 =
      attr("a", 1) + attr("b", 2) + len(3, "WARN") + attr("c", 3) + attr("d", 4) + vint(2, 13) + attr("e", 5);
  const std::string record2 = attr("x", 9);
  // scope_logs: records, then its schema_url, then another record: the run of records is cut.
  const std::string scope = len(2, record1) + len(2, record2) + len(3, "url") + len(2, record2);
  const std::string in = len(1, len(2, scope));
  LogsData d;
  auto err = decode_logs_proto(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& sl = d.resource_logs.at(0).scope_logs.at(0);
  ASSERT_EQ(sl.log_records.size(), 3u);
  EXPECT_EQ(sl.schema_url, "url");
  const auto& r = sl.log_records[0];
  EXPECT_EQ(r.severity_text, "WARN");
  EXPECT_EQ(r.severity_number, 13);
  ASSERT_EQ(r.attributes.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.attributes[i].key, std::string(1, static_cast<char>('a' + i)));
    EXPECT_EQ(r.attributes[i].value.int_value, static_cast<std::int64_t>(i + 1));
  }
  EXPECT_EQ(sl.log_records[2].attributes.at(0).key, "x");

  // The third attribute of a run says its length runs past the record: an error there.
  const std::string broken = attr("a", 1) + attr("b", 2) + tag(6, 2) + varint(40) + "short";
  EXPECT_EQ(
      logs_error(logs_with_record(broken)),
      "resource_logs.scope_logs.log_records.attributes: length 40 past end of message (5 bytes left) @" +
          std::to_string(6 + 9 + 9 + 1));  // 3 wrappers' tag and length, 2 attributes, the tag
}

// Spans and data points are sized from the one before them (attributes) or counted when a
// rare field first appears (events, links, exemplars, quantiles); items of every shape in
// one batch, and those fields interleaved, decode whole.
TEST(OtlpProto, ItemsOfDifferentShapesInOneBatch) {
  auto attr = [](std::uint32_t field, std::string_view key, std::uint64_t v) {
    return len(field, len(1, key) + len(2, vint(3, v)));
  };
  auto attrs = [&](std::uint32_t field, int n) {
    std::string a;
    for (int i = 0; i < n; ++i) {
      std::string key(1, 'k');  // not "k" + std::to_string(i): GCC 12 warns (-Wrestrict) on it
      key += std::to_string(i);
      a += attr(field, key, static_cast<std::uint64_t>(i));
    }
    return a;
  };
  const auto event = [](std::string_view name) { return len(11, len(2, name)); };
  const auto link = [](std::uint64_t dropped) { return len(13, vint(5, dropped)); };
  // span: name = 5, attributes = 9, events = 11, links = 13
  const std::string span1 = len(5, "one") + attrs(9, 3) + event("e1") + event("e2") + link(1);
  const std::string span2 = len(5, "two");
  const std::string span3 =
      len(5, "three") + event("a") + link(2) + attrs(9, 5) + event("b") + link(3) + event("c");
  const std::string in = len(1, len(2, len(2, span1) + len(2, span2) + len(2, span3) + len(2, span1)));
  TracesData d;
  auto err = decode_traces_proto(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& spans = d.resource_spans.at(0).scope_spans.at(0).spans;
  ASSERT_EQ(spans.size(), 4u);
  const std::size_t want_attrs[] = {3, 0, 5, 3}, want_events[] = {2, 0, 3, 2}, want_links[] = {1, 0, 2, 1};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(spans[i].attributes.size(), want_attrs[i]) << i;
    EXPECT_EQ(spans[i].events.size(), want_events[i]) << i;
    EXPECT_EQ(spans[i].links.size(), want_links[i]) << i;
    for (std::size_t k = 0; k < spans[i].attributes.size(); ++k)
      EXPECT_EQ(spans[i].attributes[k].value.int_value, static_cast<std::int64_t>(k));
  }
  EXPECT_EQ(spans[2].events[0].name, "a");
  EXPECT_EQ(spans[2].events[2].name, "c");
  EXPECT_EQ(spans[2].links[1].dropped_attributes_count, 3u);

  // Data points: number points (attributes = 7, exemplars = 5) of 2, 0 and 4 attributes,
  // exemplars on the last only, around its attributes.
  const auto point = [&](int n_attrs, int n_exemplars) {
    std::string p = fixed64(3, 1);
    for (int i = 0; i < n_exemplars; ++i) p += len(5, fixed64(2, static_cast<std::uint64_t>(i)));
    p += attrs(7, n_attrs);
    if (n_exemplars) p += len(5, fixed64(2, 99));
    return len(1, p);
  };
  // metric: name = 1, gauge = 5 { data_points = 1 }
  const std::string metric = len(1, "m") + len(5, point(2, 0) + point(0, 0) + point(4, 2));
  const std::string min = len(1, len(2, len(2, metric)));
  MetricsData m;
  err = decode_metrics_proto(min, m);
  ASSERT_FALSE(err) << err->to_string();
  const auto& points = m.resource_metrics.at(0).scope_metrics.at(0).metrics.at(0).number_points;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].attributes.size(), 2u);
  EXPECT_EQ(points[1].attributes.size(), 0u);
  EXPECT_EQ(points[2].attributes.size(), 4u);
  ASSERT_EQ(points[2].exemplars.size(), 3u);
  EXPECT_EQ(points[2].exemplars[2].time_unix_nano, 99u);
}

TEST(OtlpProto, NestingDeeperThanTheLimitIsAnError) {
  // body = array{array{...{int 1}}}: each level is AnyValue{array_value=5: ArrayValue{values=1: AnyValue}}.
  auto nested = [](int depth) {
    std::string v = vint(3, 1);
    for (int i = 0; i < depth; ++i) v = len(5, len(1, v));
    return logs_with_record(len(5, v));
  };
  EXPECT_EQ(logs_error(nested(10)), "no error");
  DecodeOptions opt;
  opt.max_depth = 8;
  const std::string deep = nested(9);
  const std::string msg = logs_error(deep, opt);
  EXPECT_NE(msg.find("nesting exceeds max_depth 8"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("resource_logs.scope_logs.log_records.body.array_value", 0), 0u) << msg;
  // The default limit (64) stops a hostile 5000-deep input without exhausting the stack.
  EXPECT_NE(logs_error(nested(5000)).find("nesting exceeds max_depth 64"), std::string::npos);
}

TEST(OtlpProto, DepthLimitIsTheSameInBothDecoders) {
  // An int inside `levels` array_value (AnyValue 5 { values = 1 }) or kvlist_value
  // (AnyValue 6 { values = 1 { key = 1, value = 2 } }) levels.
  auto nested = [](int levels, bool kvlist) {
    std::string v = vint(3, 1);
    for (int i = 0; i < levels; ++i) v = kvlist ? len(6, len(1, len(1, "k") + len(2, v))) : len(5, len(1, v));
    return v;
  };
  for (bool kvlist : {false, true}) {
    for (bool attribute : {false, true}) {
      for (int levels : {63, 64, 65}) {
        SCOPED_TRACE(std::string(kvlist ? "kvlist" : "array") + (attribute ? " attribute " : " body ") +
                     std::to_string(levels));
        const std::string value = nested(levels, kvlist);
        // log record: body = 5, attributes = 6 { key = 1, value = 2 }
        const std::string proto =
            logs_with_record(attribute ? len(6, len(1, "a") + len(2, value)) : len(5, value));
        LogsData lenient;
        ASSERT_FALSE(decode_logs_proto(proto, lenient, DecodeOptions{.max_depth = 100}));
        std::string json;
        encode_logs_json(lenient, json);
        LogsData from_proto, from_json;
        const auto proto_err = decode_logs_proto(proto, from_proto);
        const auto json_err = decode_logs_json(json, from_json);
        if (levels <= 64) {
          ASSERT_FALSE(proto_err) << proto_err->to_string();
          ASSERT_FALSE(json_err) << json_err->to_string();
          std::string a, b;
          encode_logs_json(from_proto, a);
          encode_logs_json(from_json, b);
          EXPECT_EQ(a, json);
          EXPECT_EQ(b, json);
        } else {
          ASSERT_TRUE(proto_err);
          ASSERT_TRUE(json_err);
          EXPECT_EQ(proto_err->message, "AnyValue nesting exceeds max_depth 64");
          EXPECT_EQ(json_err->message, "AnyValue nesting exceeds max_depth 64");
          const std::string start = std::string("resource_logs.scope_logs.log_records.") +
                                    (attribute ? "attributes.value." : "body.") +
                                    (kvlist ? "kvlist_value" : "array_value");
          EXPECT_EQ(proto_err->field.rfind(start, 0), 0u) << proto_err->field;
          EXPECT_EQ(json_err->field.rfind(start, 0), 0u) << json_err->field;
        }
      }
    }
  }
}

TEST(OtlpProto, EveryTruncationOfAValidRequestFailsCleanly) {
  std::string proto;
  {
    TracesData d;
    ASSERT_FALSE(decode_traces_json(kTraces, d));
    encode_traces_proto(d, proto);
  }
  int errors = 0;
  for (std::size_t n = 0; n < proto.size(); ++n) {
    TracesData d;
    const std::string cut = proto.substr(0, n);  // an exact-size copy, so ASan sees any overread
    if (auto err = decode_traces_proto(cut, d)) {
      ++errors;
      EXPECT_LE(err->offset, n);
      EXPECT_FALSE(err->message.empty());
    }
  }
  // Most prefixes cut a message in half; a few end exactly between two fields.
  EXPECT_GT(errors, static_cast<int>(proto.size()) / 2);
}

TEST(OtlpProto, OneofMembersWithDefaultValuesArePreserved) {
  LogsData d;
  auto& attrs = d.resource_logs.emplace_back(d.arena).resource.attributes;
  attrs.push_back({"s", AnyValue::string("")});
  attrs.push_back({"b", AnyValue::boolean(false)});
  attrs.push_back({"i", AnyValue::integer(0)});
  attrs.push_back({"d", AnyValue::dbl(0.0)});
  attrs.push_back({"e", AnyValue{}});
  std::string out;
  encode_logs_proto(d, out);
  LogsData back;
  ASSERT_FALSE(decode_logs_proto(out, back));
  const auto& got = back.resource_logs[0].resource.attributes;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].value.kind, ValueKind::String);
  EXPECT_EQ(got[1].value.kind, ValueKind::Bool);
  EXPECT_EQ(got[2].value.kind, ValueKind::Int);
  EXPECT_EQ(got[3].value.kind, ValueKind::Double);
  EXPECT_EQ(got[4].value.kind, ValueKind::Empty);
}

// Attribute values take a shortcut when they are one small scalar; everything around the
// shortcut's edges must decode exactly as the general AnyValue path does.
TEST(OtlpProto, ScalarAttributeValuesAtTheFastPathEdges) {
  const std::string long_str(200, 'x');  // a two-byte length: the shortcut's longer form
  // record.attributes (field 6) = KeyValue{key = 1, value = 2 (AnyValue)}
  auto attr = [](std::string_view key, const std::string& any) { return len(6, len(1, key) + len(2, any)); };
  const std::string record =
      attr("s", len(1, "abc")) + attr("long", len(1, long_str)) + attr("b", vint(2, 1)) +
      attr("i1", vint(3, 127)) + attr("i2", vint(3, 300)) + attr("i3", vint(3, 1u << 20)) +
      attr("neg", vint(3, static_cast<std::uint64_t>(-5))) + attr("d", dbl(4, 2.5)) +
      attr("two", len(1, "first") + vint(3, 7)) +  // a later oneof member replaces the earlier
      attr("merged", len(1, "a")) + len(6, len(1, "merged") + len(2, len(1, "b")) + len(2, vint(2, 0))) +
      attr("empty", "") + attr("unknown", vint(9, 1) + len(1, "k")) +
      len(6, len(2, len(1, "v")) + len(1, "rev")) +               // value before key
      attr(std::string(130, 'k'), vint(3, 9)) +                   // two-byte key length
      len(6, len(1, "extra") + len(2, vint(2, 1)) + vint(5, 3));  // a field after the value
  const std::string input = logs_with_record(record);             // decoded strings are views into it
  LogsData d;
  ASSERT_FALSE(decode_logs_proto(input, d));
  const auto& a = d.resource_logs[0].scope_logs[0].log_records[0].attributes;
  ASSERT_EQ(a.size(), 16u);
  EXPECT_EQ(a[0].value.kind, ValueKind::String);
  EXPECT_EQ(a[0].value.string_value, "abc");
  EXPECT_EQ(a[1].value.string_value, long_str);
  EXPECT_EQ(a[2].value.kind, ValueKind::Bool);
  EXPECT_TRUE(a[2].value.bool_value);
  EXPECT_EQ(a[3].value.int_value, 127);
  EXPECT_EQ(a[4].value.int_value, 300);
  EXPECT_EQ(a[5].value.int_value, 1 << 20);
  EXPECT_EQ(a[6].value.int_value, -5);
  EXPECT_EQ(a[7].value.kind, ValueKind::Double);
  EXPECT_EQ(a[7].value.double_value, 2.5);
  EXPECT_EQ(a[8].value.kind, ValueKind::Int);
  EXPECT_EQ(a[8].value.int_value, 7);
  EXPECT_EQ(a[9].value.string_value, "a");
  EXPECT_EQ(a[10].key, "merged");  // its value field twice: merged, the later member wins
  EXPECT_EQ(a[10].value.kind, ValueKind::Bool);
  EXPECT_FALSE(a[10].value.bool_value);
  EXPECT_EQ(a[11].value.kind, ValueKind::Empty);
  EXPECT_EQ(a[12].value.kind, ValueKind::String);
  EXPECT_EQ(a[12].value.string_value, "k");
  EXPECT_EQ(a[13].key, "rev");
  EXPECT_EQ(a[13].value.string_value, "v");
  EXPECT_EQ(a[14].key, std::string(130, 'k'));
  EXPECT_EQ(a[14].value.int_value, 9);
  EXPECT_EQ(a[15].key, "extra");
  EXPECT_TRUE(a[15].value.bool_value);

  // UTF-8 validation still applies to short attribute strings.
  DecodeOptions strict;
  strict.validate_utf8 = true;
  const std::string bad = logs_with_record(attr("u", len(1, "\xff")));
  EXPECT_EQ(logs_error(bad, strict),
            "resource_logs.scope_logs.log_records.attributes.value.string_value: invalid UTF-8 in string @" +
                std::to_string(bad.size() - 1));
}

// Log bodies take the attribute values' shortcut, strings with a two-byte length too (up to
// 16 KiB); everything around its edges decodes as the general AnyValue path does.
TEST(OtlpProto, LogBodiesAtTheFastPathEdges) {
  const std::size_t lengths[] = {0, 1, 127, 128, 129, 16383, 16384, 70000};
  std::string records;
  for (const std::size_t n : lengths) records += len(2, len(5, len(1, std::string(n, 'b'))));
  const std::string padded_len = tag(1, 2) + std::string("\x85\x00", 2) + "hello";  // 5 in two bytes
  records += len(2, len(5, padded_len));
  records += len(2, len(5, len(1, std::string(300, 'x')) + vint(3, 7)));  // a later member wins
  records += len(2, len(5, vint(3, 300)));
  records += len(2, len(5, len(6, len(1, len(1, "k") + len(2, len(1, "v"))))));  // a map
  // resource_logs = 1 { scope_logs = 2 { log_records = 2 ... } }
  const std::string input = len(1, len(2, records));  // decoded strings are views into it
  LogsData ok;
  ASSERT_FALSE(decode_logs_proto(input, ok));
  LogsData cut;  // a body whose two-byte length is cut short: an error, as on the general path
  EXPECT_TRUE(decode_logs_proto(len(1, len(2, records + len(2, len(5, std::string("\x0a\x80", 2))))), cut));
  const auto& r = ok.resource_logs[0].scope_logs[0].log_records;
  ASSERT_EQ(r.size(), std::size(lengths) + 4);
  for (std::size_t i = 0; i < std::size(lengths); ++i) {
    EXPECT_EQ(r[i].body.kind, ValueKind::String) << lengths[i];
    EXPECT_EQ(r[i].body.string_value.size(), lengths[i]);
    EXPECT_TRUE(r[i].body.string_value == std::string(lengths[i], 'b')) << lengths[i];
  }
  const std::size_t k = std::size(lengths);
  EXPECT_EQ(r[k].body.string_value, "hello");
  EXPECT_EQ(r[k + 1].body.kind, ValueKind::Int);
  EXPECT_EQ(r[k + 1].body.int_value, 7);
  EXPECT_EQ(r[k + 2].body.int_value, 300);
  ASSERT_EQ(r[k + 3].body.kind, ValueKind::KvList);
  ASSERT_EQ(r[k + 3].body.kvlist->size(), 1u);
  EXPECT_EQ((*r[k + 3].body.kvlist)[0].value.string_value, "v");
}

// Found by the fuzzer: an empty packed run must not memcpy into an empty vector.
TEST(OtlpProto, EmptyPackedRepeatedScalarsDecodeToNothing) {
  const std::string point = len(6, "") + len(7, "") + fixed64(4, 0);
  const std::string in = len(1, len(2, len(2, len(1, "h") + len(9, len(1, point)))));
  MetricsData d;
  auto err = decode_metrics_proto(in, d);
  ASSERT_FALSE(err) << err->to_string();
  const auto& p = d.resource_metrics[0].scope_metrics[0].metrics[0].histogram_points.at(0);
  EXPECT_TRUE(p.bucket_counts.empty());
  EXPECT_TRUE(p.explicit_bounds.empty());
}

}  // namespace
}  // namespace tern::otlp
