// Interop with the OpenTelemetry JavaScript SDK (@opentelemetry/otlp-transformer and the
// SDKs, pinned in package-lock.json; installed by the ctest fixture tern_interop_js_setup).
//
// JS -> Tern: produce.mjs builds known logs, spans and metrics with the real JS SDK and
// serializes them with the transformer (protobuf and JSON), plus expected.json: the same
// data in a canonical form built from the SDK's own records. Tern decodes every file and
// the result, turned into the same canonical form, must equal expected.json field for
// field (every field of every message, defaults included).
//
// Tern -> JS: Tern encodes what it decoded (protobuf from the JSON-decoded batch, JSON from
// the protobuf-decoded one) and consume.mjs decodes those files on the JS side (protobufjs,
// JSON.parse) and checks them against expected.json too.
//
// node and npm are required: without them these tests fail, they do not skip.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"

namespace tern::otlp {
namespace {

using nlohmann::json;
using namespace tern::pdata;
namespace fs = std::filesystem;

const fs::path kJsDir = TERN_INTEROP_JS_DIR;

// ------------------------------------------------------------------ running node

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CommandResult run(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    r.output = "popen failed";
    return r;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool have_node() { return run("command -v node").exit_code == 0; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// ------------------------------------------------------------------ canonical form
// The form of canon.mjs: every field present, ids as hex ("" when zero), 64-bit integers as
// decimal strings, AnyValue as a one-key object naming its kind.

template <std::size_t N>
std::string hex_id(const std::array<std::uint8_t, N>& id) {
  if (is_zero(id)) return "";
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (auto b : id) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string hex_bytes(Str bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string str(Str s) { return std::string(s); }
std::string u64(std::uint64_t v) { return std::to_string(v); }

json attrs(const Attributes& a);

json value(const AnyValue& v) {
  switch (v.kind) {
    case ValueKind::Empty:
      return json::object();
    case ValueKind::String:
      return {{"s", str(v.string_value)}};
    case ValueKind::Bool:
      return {{"b", v.bool_value}};
    case ValueKind::Int:
      return {{"i", std::to_string(v.int_value)}};
    case ValueKind::Double:
      return {{"d", v.double_value}};
    case ValueKind::Bytes:
      return {{"x", hex_bytes(v.string_value)}};
    case ValueKind::Array: {
      json a = json::array();
      if (v.array != nullptr)
        for (const auto& e : *v.array) a.push_back(value(e));
      return {{"a", a}};
    }
    case ValueKind::KvList:
      return {{"kv", v.kvlist != nullptr ? attrs(*v.kvlist) : json::array()}};
  }
  return {{"invalid kind", static_cast<int>(v.kind)}};
}

json attrs(const Attributes& a) {
  json out = json::array();
  for (const auto& kv : a) out.push_back({{"key", str(kv.key)}, {"value", value(kv.value)}});
  return out;
}

json resource(const Resource& r) {
  return {{"attributes", attrs(r.attributes)}, {"droppedAttributesCount", r.dropped_attributes_count}};
}

json scope(const InstrumentationScope& s) {
  return {{"name", str(s.name)},
          {"version", str(s.version)},
          {"attributes", attrs(s.attributes)},
          {"droppedAttributesCount", s.dropped_attributes_count}};
}

json canon(const LogsData& data) {
  json rls = json::array();
  for (const auto& rl : data.resource_logs) {
    json sls = json::array();
    for (const auto& sl : rl.scope_logs) {
      json recs = json::array();
      for (const auto& r : sl.log_records)
        recs.push_back({{"timeUnixNano", u64(r.time_unix_nano)},
                        {"observedTimeUnixNano", u64(r.observed_time_unix_nano)},
                        {"severityNumber", r.severity_number},
                        {"severityText", str(r.severity_text)},
                        {"body", value(r.body)},
                        {"attributes", attrs(r.attributes)},
                        {"droppedAttributesCount", r.dropped_attributes_count},
                        {"flags", r.flags},
                        {"traceId", hex_id(r.trace_id)},
                        {"spanId", hex_id(r.span_id)},
                        {"eventName", str(r.event_name)}});
      sls.push_back({{"scope", scope(sl.scope)}, {"schemaUrl", str(sl.schema_url)}, {"logRecords", recs}});
    }
    rls.push_back(
        {{"resource", resource(rl.resource)}, {"schemaUrl", str(rl.schema_url)}, {"scopeLogs", sls}});
  }
  return {{"resourceLogs", rls}};
}

json canon(const TracesData& data) {
  json rss = json::array();
  for (const auto& rs : data.resource_spans) {
    json sss = json::array();
    for (const auto& ss : rs.scope_spans) {
      json spans = json::array();
      for (const auto& s : ss.spans) {
        json events = json::array();
        for (const auto& e : s.events)
          events.push_back({{"timeUnixNano", u64(e.time_unix_nano)},
                            {"name", str(e.name)},
                            {"attributes", attrs(e.attributes)},
                            {"droppedAttributesCount", e.dropped_attributes_count}});
        json links = json::array();
        for (const auto& l : s.links)
          links.push_back({{"traceId", hex_id(l.trace_id)},
                           {"spanId", hex_id(l.span_id)},
                           {"traceState", str(l.trace_state)},
                           {"attributes", attrs(l.attributes)},
                           {"droppedAttributesCount", l.dropped_attributes_count},
                           {"flags", l.flags}});
        spans.push_back(
            {{"traceId", hex_id(s.trace_id)},
             {"spanId", hex_id(s.span_id)},
             {"traceState", str(s.trace_state)},
             {"parentSpanId", hex_id(s.parent_span_id)},
             {"flags", s.flags},
             {"name", str(s.name)},
             {"kind", static_cast<int>(s.kind)},
             {"startTimeUnixNano", u64(s.start_time_unix_nano)},
             {"endTimeUnixNano", u64(s.end_time_unix_nano)},
             {"attributes", attrs(s.attributes)},
             {"droppedAttributesCount", s.dropped_attributes_count},
             {"events", events},
             {"droppedEventsCount", s.dropped_events_count},
             {"links", links},
             {"droppedLinksCount", s.dropped_links_count},
             {"status", {{"code", static_cast<int>(s.status.code)}, {"message", str(s.status.message)}}}});
      }
      sss.push_back({{"scope", scope(ss.scope)}, {"schemaUrl", str(ss.schema_url)}, {"spans", spans}});
    }
    rss.push_back(
        {{"resource", resource(rs.resource)}, {"schemaUrl", str(rs.schema_url)}, {"scopeSpans", sss}});
  }
  return {{"resourceSpans", rss}};
}

json opt_double(bool has, double v) { return has ? json(v) : json(nullptr); }

json u64_array(const Vec<std::uint64_t>& v) {
  json a = json::array();
  for (auto x : v) a.push_back(u64(x));
  return a;
}

void set_number(json& j, NumberType type, double d, std::int64_t i) {
  switch (type) {
    case NumberType::Int:
      j["valueType"] = "int";
      j["value"] = std::to_string(i);
      return;
    case NumberType::Double:
      j["valueType"] = "double";
      j["value"] = d;
      return;
    case NumberType::None:
      j["valueType"] = "none";
      j["value"] = nullptr;
      return;
  }
}

json exemplars(const Vec<Exemplar>& list) {
  json out = json::array();
  for (const auto& e : list) {
    json j = {{"filteredAttributes", attrs(e.filtered_attributes)},
              {"timeUnixNano", u64(e.time_unix_nano)},
              {"spanId", hex_id(e.span_id)},
              {"traceId", hex_id(e.trace_id)}};
    set_number(j, e.value_type, e.as_double, e.as_int);
    out.push_back(j);
  }
  return out;
}

template <class Point>
json point_base(const Point& p) {
  return {{"attributes", attrs(p.attributes)},
          {"startTimeUnixNano", u64(p.start_time_unix_nano)},
          {"timeUnixNano", u64(p.time_unix_nano)}};
}

json buckets(const ExponentialBuckets& b) {
  return {{"offset", b.offset}, {"bucketCounts", u64_array(b.bucket_counts)}};
}

json canon_metric(const Metric& m) {
  static constexpr const char* kTypes[] = {"empty",  "gauge", "sum", "histogram", "exponentialHistogram",
                                           "summary"};
  json points = json::array();
  for (const auto& p : m.number_points) {
    json j = point_base(p);
    set_number(j, p.value_type, p.as_double, p.as_int);
    j["exemplars"] = exemplars(p.exemplars);
    j["flags"] = p.flags;
    points.push_back(j);
  }
  for (const auto& p : m.histogram_points) {
    json j = point_base(p);
    json bounds = json::array();
    for (double b : p.explicit_bounds) bounds.push_back(b);
    j.update({{"count", u64(p.count)},
              {"sum", opt_double(p.has_sum, p.sum)},
              {"bucketCounts", u64_array(p.bucket_counts)},
              {"explicitBounds", bounds},
              {"exemplars", exemplars(p.exemplars)},
              {"flags", p.flags},
              {"min", opt_double(p.has_min, p.min)},
              {"max", opt_double(p.has_max, p.max)}});
    points.push_back(j);
  }
  for (const auto& p : m.exponential_histogram_points) {
    json j = point_base(p);
    j.update({{"count", u64(p.count)},
              {"sum", opt_double(p.has_sum, p.sum)},
              {"scale", p.scale},
              {"zeroCount", u64(p.zero_count)},
              {"positive", buckets(p.positive)},
              {"negative", buckets(p.negative)},
              {"flags", p.flags},
              {"exemplars", exemplars(p.exemplars)},
              {"min", opt_double(p.has_min, p.min)},
              {"max", opt_double(p.has_max, p.max)},
              {"zeroThreshold", p.zero_threshold}});
    points.push_back(j);
  }
  for (const auto& p : m.summary_points) {
    json j = point_base(p);
    json q = json::array();
    for (const auto& v : p.quantile_values) q.push_back({{"quantile", v.quantile}, {"value", v.value}});
    j.update({{"count", u64(p.count)}, {"sum", p.sum}, {"quantileValues", q}, {"flags", p.flags}});
    points.push_back(j);
  }
  return {{"name", str(m.name)},
          {"description", str(m.description)},
          {"unit", str(m.unit)},
          {"type", kTypes[static_cast<int>(m.type)]},
          {"temporality", static_cast<int>(m.temporality)},
          {"isMonotonic", m.is_monotonic},
          {"dataPoints", points},
          {"metadata", attrs(m.metadata)}};
}

json canon(const MetricsData& data) {
  json rms = json::array();
  for (const auto& rm : data.resource_metrics) {
    json sms = json::array();
    for (const auto& sm : rm.scope_metrics) {
      json metrics = json::array();
      for (const auto& m : sm.metrics) metrics.push_back(canon_metric(m));
      sms.push_back({{"scope", scope(sm.scope)}, {"schemaUrl", str(sm.schema_url)}, {"metrics", metrics}});
    }
    rms.push_back(
        {{"resource", resource(rm.resource)}, {"schemaUrl", str(rm.schema_url)}, {"scopeMetrics", sms}});
  }
  return {{"resourceMetrics", rms}};
}

// ------------------------------------------------------------------ comparison

// Field-by-field comparison; one "path: expected X, got Y" line per difference. Numbers
// compare by value (JSON.stringify writes 17 for the double 17.0); doubles exactly.
void diff(const json& want, const json& got, const std::string& path, std::vector<std::string>& out) {
  if (out.size() > 50) return;
  auto mismatch = [&] { out.push_back(path + ": expected " + want.dump() + ", got " + got.dump()); };
  if (want.is_number() && got.is_number()) {
    if (want.is_number_float() || got.is_number_float()) {
      double a = want.get<double>(), b = got.get<double>();
      if (!(a == b || (std::isnan(a) && std::isnan(b)))) mismatch();
    } else if (want != got) {
      mismatch();
    }
    return;
  }
  if (want.type() != got.type()) return mismatch();
  if (want.is_array()) {
    if (want.size() != got.size())
      out.push_back(path + ": expected " + std::to_string(want.size()) + " elements, got " +
                    std::to_string(got.size()) + ": " + got.dump().substr(0, 300));
    for (std::size_t i = 0; i < std::min(want.size(), got.size()); ++i)
      diff(want[i], got[i], path + "[" + std::to_string(i) + "]", out);
  } else if (want.is_object()) {
    for (const auto& [k, v] : want.items()) {
      if (!got.contains(k))
        out.push_back(path + "." + k + ": missing (expected " + v.dump() + ")");
      else
        diff(v, got[k], path + "." + k, out);
    }
    for (const auto& [k, v] : got.items())
      if (!want.contains(k)) out.push_back(path + "." + k + ": unexpected " + v.dump());
  } else if (want != got) {
    mismatch();
  }
}

std::string differences(const json& want, const json& got) {
  std::vector<std::string> out;
  diff(want, got, "$", out);
  std::string s;
  for (const auto& line : out) s += "  " + line + "\n";
  return s;
}

// ------------------------------------------------------------------ fixture

class JsInterop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/tern-interop-js-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      setup_error_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    if (!have_node()) {
      setup_error_ =
          "node not found on PATH: the JS interop test needs Node.js >= 20.6 (scripts/setup.sh installs it)";
      return;
    }
    if (!fs::exists(kJsDir / "node_modules")) {
      setup_error_ = "no " + (kJsDir / "node_modules").string() + ": run " + (kJsDir / "setup.sh").string() +
                     " (the ctest fixture tern_interop_js_setup does)";
      return;
    }
    auto r = run("node " + shell_quote((kJsDir / "produce.mjs").string()) + " " + shell_quote(dir_.string()));
    if (r.exit_code != 0) {
      setup_error_ = "node produce.mjs failed (exit " + std::to_string(r.exit_code) + "):\n" + r.output;
      return;
    }
    try {
      expected_ = json::parse(read_file(dir_ / "expected.json"));
    } catch (const std::exception& e) {
      setup_error_ = std::string("expected.json: ") + e.what();
    }
  }

  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    if (::testing::UnitTest::GetInstance()->Failed()) {
      std::fprintf(stderr, "JS interop files kept in %s\n", dir_.c_str());
    } else {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }

  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  // Decodes DIR/name with `decode`, keeping the input alive in the batch (zero-copy).
  template <class Data, class Decode>
  static void decode_file(const std::string& name, Decode decode, Data& out) {
    std::string body = read_file(dir_ / name);
    ASSERT_FALSE(body.empty()) << name << " is empty or missing";
    auto in = out.arena.hold(std::move(body));
    auto err = decode(in, out, DecodeOptions{.max_depth = 64, .validate_utf8 = true});
    ASSERT_FALSE(err) << name << ": " << err->to_string();
  }

  template <class Data, class Decode>
  static void check_decoded(const std::string& name, const char* signal, Decode decode) {
    Data data;
    ASSERT_NO_FATAL_FAILURE(decode_file(name, decode, data));
    std::string d = differences(expected_.at(signal), canon(data));
    EXPECT_TRUE(d.empty()) << "Tern's decoding of the JS SDK's " << name << " differs from expected.json:\n"
                           << d;
  }

  static inline fs::path dir_;
  static inline std::string setup_error_;
  static inline json expected_;
};

// ------------------------------------------------------------------ JS -> Tern, every field

TEST_F(JsInterop, LogsProtoEveryField) { check_decoded<LogsData>("logs.pb", "logs", decode_logs_proto); }
TEST_F(JsInterop, LogsJsonEveryField) { check_decoded<LogsData>("logs.json", "logs", decode_logs_json); }
TEST_F(JsInterop, TracesProtoEveryField) {
  check_decoded<TracesData>("traces.pb", "traces", decode_traces_proto);
}
TEST_F(JsInterop, TracesJsonEveryField) {
  check_decoded<TracesData>("traces.json", "traces", decode_traces_json);
}
TEST_F(JsInterop, MetricsProtoEveryField) {
  check_decoded<MetricsData>("metrics.pb", "metrics", decode_metrics_proto);
}
TEST_F(JsInterop, MetricsJsonEveryField) {
  check_decoded<MetricsData>("metrics.json", "metrics", decode_metrics_json);
}

// ------------------------------------------------------------------ JS -> Tern, spot checks
// Values produce.mjs sets, asserted directly on Tern's model (not through expected.json), so
// a wrong expected.json cannot hide a wrong decoder.

TEST_F(JsInterop, LogsKnownValues) {
  for (const char* name : {"logs.pb", "logs.json"}) {
    SCOPED_TRACE(name);
    LogsData logs;
    if (std::string(name).ends_with(".pb"))
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_logs_proto, logs));
    else
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_logs_json, logs));
    ASSERT_EQ(logs.resource_logs.size(), 1u);
    const auto& rl = logs.resource_logs[0];
    EXPECT_EQ(rl.schema_url, "https://opentelemetry.io/schemas/1.26.0");
    const AnyValue* svc = find_attribute(rl.resource.attributes, "service.name");
    ASSERT_NE(svc, nullptr);
    EXPECT_EQ(svc->string_value, "tern-interop");
    ASSERT_EQ(rl.scope_logs.size(), 2u);
    const auto& sl = rl.scope_logs[0];
    EXPECT_EQ(sl.scope.name, "tern.interop.logs");
    EXPECT_EQ(sl.scope.version, "1.2.3");
    EXPECT_EQ(sl.schema_url, "https://opentelemetry.io/schemas/1.27.0");
    ASSERT_EQ(sl.log_records.size(), 3u);
    EXPECT_EQ(rl.scope_logs[1].log_records.size(), 3u);

    const LogRecord& r = sl.log_records[0];
    EXPECT_EQ(r.time_unix_nano, 1700000000123456789ull);
    EXPECT_EQ(r.observed_time_unix_nano, 1700000000987654321ull);
    EXPECT_EQ(r.severity_number, 9);
    EXPECT_EQ(r.severity_text, "INFO");
    EXPECT_EQ(r.body.kind, ValueKind::String);
    EXPECT_EQ(r.body.string_value, "user logged in: h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac");
    EXPECT_EQ(r.event_name, "user.login");
    EXPECT_EQ(r.flags, 1u);
    EXPECT_EQ(hex_id(r.trace_id), "5b8efff798038103d269b633813fc60c");
    EXPECT_EQ(hex_id(r.span_id), "eee19b7ec3c1b174");
    const AnyValue* v = find_attribute(r.attributes, "int.max_safe");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Int);
    EXPECT_EQ(v->int_value, 9007199254740991);
    v = find_attribute(r.attributes, "int.min_safe");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Int);
    EXPECT_EQ(v->int_value, -9007199254740991);
    v = find_attribute(r.attributes, "int.negative");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Int);
    EXPECT_EQ(v->int_value, -7);
    v = find_attribute(r.attributes, "double.negative");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Double);
    EXPECT_EQ(v->double_value, -0.000123);
    v = find_attribute(r.attributes, "bool.false");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Bool);
    EXPECT_FALSE(v->bool_value);
    v = find_attribute(r.attributes, "bytes");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, ValueKind::Bytes);
    EXPECT_EQ(hex_bytes(v->string_value), "00017f80feff");
    v = find_attribute(r.attributes, "map");
    ASSERT_NE(v, nullptr);
    ASSERT_EQ(v->kind, ValueKind::KvList);
    const AnyValue* nested = find_attribute(*v->kvlist, "nested");
    ASSERT_NE(nested, nullptr);
    ASSERT_EQ(nested->kind, ValueKind::KvList);
    const AnyValue* deep = find_attribute(*nested->kvlist, "deep");
    ASSERT_NE(deep, nullptr);
    ASSERT_EQ(deep->kind, ValueKind::Array);
    ASSERT_EQ(deep->array->size(), 2u);
    EXPECT_EQ((*deep->array)[1].kind, ValueKind::KvList);

    const LogRecord& limited = sl.log_records[2];
    EXPECT_EQ(limited.attributes.size(), 16u);
    EXPECT_EQ(limited.dropped_attributes_count, 2u);
    EXPECT_EQ(limited.body.kind, ValueKind::Bytes);
    EXPECT_EQ(hex_bytes(limited.body.string_value), "deadbeef");
    EXPECT_EQ(limited.severity_number, 0);
    EXPECT_TRUE(is_zero(limited.trace_id));
  }
}

TEST_F(JsInterop, TracesKnownValues) {
  for (const char* name : {"traces.pb", "traces.json"}) {
    SCOPED_TRACE(name);
    TracesData traces;
    if (std::string(name).ends_with(".pb"))
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_traces_proto, traces));
    else
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_traces_json, traces));
    ASSERT_EQ(traces.span_count(), 5u);
    const auto& spans = traces.resource_spans[0].scope_spans[0].spans;
    ASSERT_EQ(spans.size(), 3u);
    const Span& root = spans[0];
    EXPECT_EQ(hex_id(root.trace_id), "0af7651916cd43dd8448eb211c80319c");
    EXPECT_EQ(hex_id(root.span_id), "b7ad6b7169203331");
    EXPECT_TRUE(is_zero(root.parent_span_id));
    EXPECT_EQ(root.name, "GET /users/{id}");
    EXPECT_EQ(root.kind, SpanKind::Server);
    EXPECT_EQ(root.start_time_unix_nano, 1700000100000001000ull);
    EXPECT_EQ(root.end_time_unix_nano, 1700000101999999999ull);
    EXPECT_EQ(root.flags, 0x101u);
    EXPECT_EQ(root.status.code, StatusCode::Error);
    EXPECT_EQ(root.status.message, "upstream failed: \xe2\x9c\x97");
    ASSERT_EQ(root.events.size(), 2u);
    EXPECT_EQ(root.events[0].name, "cache.miss");
    EXPECT_EQ(root.events[0].time_unix_nano, 1700000100000002000ull);
    ASSERT_EQ(root.links.size(), 2u);
    EXPECT_EQ(hex_id(root.links[0].trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_EQ(root.links[0].trace_state, "vendor1=opaque,vendor2=x:y");
    EXPECT_EQ(root.links[0].flags, 0x301u);
    const AnyValue* arr = find_attribute(root.attributes, "array.double");
    ASSERT_NE(arr, nullptr);
    ASSERT_EQ(arr->kind, ValueKind::Array);
    ASSERT_EQ(arr->array->size(), 2u);
    EXPECT_EQ((*arr->array)[1].kind, ValueKind::Double);
    EXPECT_EQ((*arr->array)[1].double_value, -2.5);

    const Span& client = spans[1];
    EXPECT_EQ(client.kind, SpanKind::Client);
    EXPECT_EQ(hex_id(client.parent_span_id), "fedcba9876543210");
    EXPECT_EQ(client.trace_state, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    EXPECT_EQ(client.flags, 0x301u);
    EXPECT_EQ(client.status.code, StatusCode::Ok);

    const Span& limited = spans[2];
    EXPECT_EQ(hex_id(limited.parent_span_id), "b7ad6b7169203331");
    EXPECT_EQ(limited.attributes.size(), 12u);
    EXPECT_EQ(limited.dropped_attributes_count, 2u);
    EXPECT_EQ(limited.events.size(), 3u);
    EXPECT_EQ(limited.dropped_events_count, 1u);
    EXPECT_EQ(limited.links.size(), 2u);
    EXPECT_EQ(limited.dropped_links_count, 1u);

    const auto& other = traces.resource_spans[0].scope_spans[1];
    EXPECT_EQ(other.scope.name, "tern.interop.other-tracer");
    ASSERT_EQ(other.spans.size(), 2u);
    EXPECT_EQ(other.spans[0].kind, SpanKind::Producer);
    EXPECT_EQ(other.spans[1].kind, SpanKind::Consumer);
  }
}

TEST_F(JsInterop, MetricsKnownValues) {
  for (const char* name : {"metrics.pb", "metrics.json"}) {
    SCOPED_TRACE(name);
    MetricsData metrics;
    if (std::string(name).ends_with(".pb"))
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_metrics_proto, metrics));
    else
      ASSERT_NO_FATAL_FAILURE(decode_file(name, decode_metrics_json, metrics));
    ASSERT_EQ(metrics.resource_metrics.size(), 1u);
    ASSERT_EQ(metrics.resource_metrics[0].scope_metrics.size(), 1u);
    const auto& list = metrics.resource_metrics[0].scope_metrics[0].metrics;
    auto find = [&](std::string_view n) -> const Metric* {
      for (const auto& m : list)
        if (m.name == n) return &m;
      return nullptr;
    };
    const Metric* m = find("tern.requests");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::Sum);
    EXPECT_EQ(m->temporality, AggregationTemporality::Delta);
    EXPECT_TRUE(m->is_monotonic);
    EXPECT_EQ(m->unit, "{request}");
    ASSERT_EQ(m->number_points.size(), 2u);
    EXPECT_EQ(m->number_points[0].value_type, NumberType::Int);
    EXPECT_EQ(m->number_points[0].as_int, 5);
    EXPECT_EQ(m->number_points[1].as_int, 4);

    m = find("tern.queue.depth");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::Sum);
    EXPECT_EQ(m->temporality, AggregationTemporality::Cumulative);
    EXPECT_FALSE(m->is_monotonic);
    ASSERT_EQ(m->number_points.size(), 1u);
    EXPECT_EQ(m->number_points[0].as_int, -5);

    m = find("tern.bytes");
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(m->number_points.size(), 1u);
    EXPECT_EQ(m->number_points[0].value_type, NumberType::Double);
    EXPECT_EQ(m->number_points[0].as_double, 3.75);

    m = find("tern.latency");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::Histogram);
    EXPECT_EQ(m->temporality, AggregationTemporality::Delta);
    ASSERT_EQ(m->histogram_points.size(), 2u);
    const auto& h = m->histogram_points[0];
    EXPECT_EQ(h.count, 5u);
    EXPECT_TRUE(h.has_sum);
    EXPECT_EQ(h.sum, 17.0);
    EXPECT_EQ(std::vector<std::uint64_t>(h.bucket_counts.begin(), h.bucket_counts.end()),
              (std::vector<std::uint64_t>{1, 2, 0, 1, 1}));
    EXPECT_EQ(std::vector<double>(h.explicit_bounds.begin(), h.explicit_bounds.end()),
              (std::vector<double>{0.5, 1, 2.5, 10}));
    EXPECT_TRUE(h.has_min);
    EXPECT_EQ(h.min, 0.1);
    EXPECT_TRUE(h.has_max);
    EXPECT_EQ(h.max, 12.5);

    m = find("tern.payload.size");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::ExponentialHistogram);
    ASSERT_EQ(m->exponential_histogram_points.size(), 1u);
    const auto& e = m->exponential_histogram_points[0];
    EXPECT_EQ(e.count, 7u);
    EXPECT_EQ(e.zero_count, 1u);
    EXPECT_EQ(e.scale, 1);
    EXPECT_EQ(e.positive.offset, -20);
    EXPECT_EQ(e.positive.bucket_counts.size(), 5u);
    EXPECT_TRUE(e.negative.bucket_counts.empty());
    EXPECT_EQ(e.max, 0.0041);

    m = find("tern.temperature");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::Gauge);
    ASSERT_EQ(m->number_points.size(), 2u);
    EXPECT_EQ(m->number_points[1].as_double, -3.75);
    m = find("tern.cores");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->type, MetricType::Gauge);
    ASSERT_EQ(m->number_points.size(), 1u);
    EXPECT_EQ(m->number_points[0].value_type, NumberType::Int);
    EXPECT_EQ(m->number_points[0].as_int, 8);
  }
}

// ------------------------------------------------------------------ Tern -> JS

// Tern encodes protobuf from the batch it decoded from the JS side's JSON, and JSON from
// the batch it decoded from protobuf; consume.mjs decodes both with the JS side and checks
// every field against expected.json.
template <class Data, class DecodeJson, class DecodeProto, class EncodeProto, class EncodeJson>
void encode_for_js(const fs::path& dir, const std::string& signal, DecodeJson decode_json,
                   DecodeProto decode_proto, EncodeProto encode_proto, EncodeJson encode_json) {
  {
    Data data;
    std::string body = read_file(dir / (signal + ".json"));
    auto err = decode_json(body, data, DecodeOptions{});
    ASSERT_FALSE(err) << signal << ".json: " << err->to_string();
    std::string out;
    encode_proto(data, out);
    ASSERT_NO_FATAL_FAILURE(write_file(dir / ("tern-" + signal + ".pb"), out));
  }
  {
    Data data;
    auto in = data.arena.hold(read_file(dir / (signal + ".pb")));
    auto err = decode_proto(in, data, DecodeOptions{});
    ASSERT_FALSE(err) << signal << ".pb: " << err->to_string();
    std::string out;
    encode_json(data, out);
    ASSERT_NO_FATAL_FAILURE(write_file(dir / ("tern-" + signal + ".json"), out));
  }
}

TEST_F(JsInterop, TernEncodesJsDecodesEveryField) {
  ASSERT_NO_FATAL_FAILURE((encode_for_js<LogsData>(dir_, "logs", decode_logs_json, decode_logs_proto,
                                                   encode_logs_proto, encode_logs_json)));
  ASSERT_NO_FATAL_FAILURE((encode_for_js<TracesData>(dir_, "traces", decode_traces_json, decode_traces_proto,
                                                     encode_traces_proto, encode_traces_json)));
  ASSERT_NO_FATAL_FAILURE(
      (encode_for_js<MetricsData>(dir_, "metrics", decode_metrics_json, decode_metrics_proto,
                                  encode_metrics_proto, encode_metrics_json)));
  auto r = run("node " + shell_quote((kJsDir / "consume.mjs").string()) + " " + shell_quote(dir_.string()));
  EXPECT_EQ(r.exit_code, 0) << "the JS side rejected what Tern encoded:\n" << r.output;
  // Six files checked, one OK line each.
  std::size_t oks = 0;
  for (std::size_t pos = 0; (pos = r.output.find(": OK", pos)) != std::string::npos; ++pos) ++oks;
  EXPECT_EQ(oks, 6u) << r.output;
}

// The JS decoder is itself checked against the transformer's own output, and it must catch
// a wrong value: a single flipped byte in Tern's JSON is reported, not passed.
TEST_F(JsInterop, JsDecoderChecksItself) {
  auto consume = "node " + shell_quote((kJsDir / "consume.mjs").string()) + " " + shell_quote(dir_.string());
  auto own = run(consume + " --prefix=");
  EXPECT_EQ(own.exit_code, 0) << "consume.mjs rejects the transformer's own output:\n" << own.output;

  LogsData data;
  auto in = data.arena.hold(read_file(dir_ / "logs.pb"));
  auto err = decode_logs_proto(in, data, DecodeOptions{});
  ASSERT_FALSE(err) << err->to_string();
  ASSERT_FALSE(data.resource_logs.empty());
  ASSERT_FALSE(data.resource_logs[0].scope_logs.empty());
  ASSERT_FALSE(data.resource_logs[0].scope_logs[0].log_records.empty());
  data.resource_logs[0].scope_logs[0].log_records[0].severity_number = 10;  // was 9
  std::string out;
  encode_logs_json(data, out);
  fs::create_directories(dir_ / "mutated");
  ASSERT_NO_FATAL_FAILURE(write_file(dir_ / "mutated" / "tern-logs.json", out));
  auto bad = run("node " + shell_quote((kJsDir / "consume.mjs").string()) + " " +
                 shell_quote((dir_ / "mutated").string()) + " --formats=json --signals=logs --expected=" +
                 shell_quote((dir_ / "expected.json").string()));
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("severityNumber: expected 9, got 10"), std::string::npos) << bad.output;
}

// The C++ comparison catches a wrong value too: one changed field of a decoded batch is
// reported with its path.
TEST_F(JsInterop, CanonicalComparisonCatchesAChange) {
  TracesData traces;
  ASSERT_NO_FATAL_FAILURE(decode_file("traces.pb", decode_traces_proto, traces));
  ASSERT_TRUE(differences(expected_.at("traces"), canon(traces)).empty());
  ASSERT_FALSE(traces.resource_spans.empty());
  ASSERT_FALSE(traces.resource_spans[0].scope_spans.empty());
  ASSERT_FALSE(traces.resource_spans[0].scope_spans[0].spans.empty());
  traces.resource_spans[0].scope_spans[0].spans[0].links.pop_back();
  std::string d = differences(expected_.at("traces"), canon(traces));
  EXPECT_NE(d.find("$.resourceSpans[0].scopeSpans[0].spans[0].links: expected 2 elements, got 1"),
            std::string::npos)
      << d;
}

}  // namespace
}  // namespace tern::otlp
