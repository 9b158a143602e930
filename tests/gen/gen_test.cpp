// `tern gen` against recording in-test OTLP endpoints on loopback: counts, content and
// structure of what arrives, failure handling, and the CLI's exit code and report.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <set>
#include <thread>

#include "exporter/otlp/test_servers.h"
#include "gen/generator.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "support/process.h"

namespace tern::gen {
namespace {

using exporter::otlp::Protocol;

std::string str(const pdata::AnyValue* v) {
  return v && v->kind == pdata::ValueKind::String ? std::string(v->string_value) : "<none>";
}

Attr attr(const std::string& text) {
  std::string err;
  auto a = parse_attribute(text, err);
  EXPECT_TRUE(a) << err;
  return *a;
}

GenOptions http_options(const test::RecordingHttpServer& s, pdata::Signal signal) {
  GenOptions o;
  o.signal = signal;
  o.client.protocol = Protocol::Http;
  o.client.endpoint = s.endpoint();
  return o;
}

ClientFactory factory(const GenOptions& o) {
  return [o](unsigned) { return exporter::otlp::make_otlp_client(o.client); };
}

TEST(GenLogs, EveryWorkerSendsItsCountWithTheRequestedContent) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Logs);
  o.workers = 3;
  o.count = 10;
  o.batch_size = 4;  // 4 + 4 + 2 per worker
  o.service = "svc";
  o.resource_attributes = {attr("env=\"test\""), attr("replicas=3")};
  o.telemetry_attributes = {attr("k=\"v\""), attr("flag=true"), attr("list=[1, 2]")};
  o.body = "hello";
  o.severity_text = "Warn";
  o.severity_number = 13;
  o.trace_id_hex = "0102030405060708090a0b0c0d0e0f10";
  o.span_id_hex = "1112131415161718";
  ASSERT_EQ(validate(o), "");
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  for (const auto& w : r.workers) {
    EXPECT_EQ(w.items, 10u);
    EXPECT_EQ(w.requests, 3u);
  }
  std::size_t records = 0;
  for (const auto& req : server.store().requests()) {
    EXPECT_EQ(req.path, "/v1/logs");
    pdata::LogsData d;
    ASSERT_FALSE(otlp::decode_logs_proto(req.body, d).has_value());
    for (const auto& rl : d.resource_logs) {
      EXPECT_EQ(str(pdata::find_attribute(rl.resource.attributes, "service.name")), "svc");
      EXPECT_EQ(str(pdata::find_attribute(rl.resource.attributes, "env")), "test");
      auto* rep = pdata::find_attribute(rl.resource.attributes, "replicas");
      ASSERT_NE(rep, nullptr);
      EXPECT_EQ(rep->int_value, 3);
      for (const auto& sl : rl.scope_logs)
        for (const auto& rec : sl.log_records) {
          ++records;
          EXPECT_EQ(str(&rec.body), "hello");
          EXPECT_EQ(rec.severity_text, "Warn");
          EXPECT_EQ(rec.severity_number, 13);
          EXPECT_EQ(rec.trace_id[0], 0x01);
          EXPECT_EQ(rec.trace_id[15], 0x10);
          EXPECT_EQ(rec.span_id[7], 0x18);
          EXPECT_NE(rec.time_unix_nano, 0u);
          EXPECT_EQ(str(pdata::find_attribute(rec.attributes, "k")), "v");
          EXPECT_EQ(str(pdata::find_attribute(rec.attributes, "app")), "server");  // as telemetrygen's
          EXPECT_EQ(rec.attributes[0].key, "app");
          auto* flag = pdata::find_attribute(rec.attributes, "flag");
          ASSERT_NE(flag, nullptr);
          EXPECT_TRUE(flag->bool_value);
          auto* list = pdata::find_attribute(rec.attributes, "list");
          ASSERT_NE(list, nullptr);
          ASSERT_EQ(list->kind, pdata::ValueKind::Array);
          EXPECT_EQ(list->array->size(), 2u);
        }
    }
  }
  EXPECT_EQ(records, 30u);
  EXPECT_EQ(server.store().size(), 9u);
}

TEST(GenLogs, ServiceNameAttributeOverridesServiceAndJsonAndGzipWork) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Logs);
  o.count = 3;
  o.client.encoding = exporter::otlp::Encoding::Json;
  o.client.gzip = true;
  o.resource_attributes = {attr("service.name=\"other\"")};
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  std::size_t records = 0;
  for (const auto& req : server.store().requests()) {
    EXPECT_TRUE(req.was_gzip);
    EXPECT_EQ(req.headers.at("content-type"), "application/json");
    pdata::LogsData d;
    ASSERT_FALSE(otlp::decode_logs_json(req.body, d).has_value()) << req.body;
    records += d.record_count();
    EXPECT_EQ(d.resource_logs[0].resource.attributes.size(), 1u);
    EXPECT_EQ(str(pdata::find_attribute(d.resource_logs[0].resource.attributes, "service.name")), "other");
  }
  EXPECT_EQ(records, 3u);
}

TEST(GenLogs, GrpcWorkersEachSendTheirCount) {
  test::RecordingGrpcServer server;
  GenOptions o;
  o.signal = pdata::Signal::Logs;
  o.client.endpoint = server.endpoint();
  o.client.headers = {{"authorization", "Bearer x"}};
  o.workers = 2;
  o.count = 7;
  o.batch_size = 3;
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  std::size_t records = 0;
  for (const auto& req : server.store().requests()) {
    EXPECT_EQ(req.headers.at("authorization"), "Bearer x");
    pdata::LogsData d;
    ASSERT_FALSE(otlp::decode_logs_proto(req.body, d).has_value());
    records += d.record_count();
  }
  EXPECT_EQ(records, 14u);
}

TEST(GenTraces, ParentChildStructure) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Traces);
  o.workers = 2;
  o.count = 3;
  o.batch_size = 2;
  o.child_spans = 2;
  o.status_code = 2;
  o.span_duration = std::chrono::microseconds(500);
  o.telemetry_attributes = {attr("k=\"v\"")};
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.total(&WorkerResult::items), 6u);
  EXPECT_EQ(r.total(&WorkerResult::events), 18u);
  std::map<pdata::TraceId, std::vector<pdata::Span>> traces;
  std::vector<std::unique_ptr<pdata::TracesData>> keep;
  // Decoding is zero-copy: the spans' strings view into the request bodies, so the
  // requests must outlive `traces`.
  const auto requests = server.store().requests();
  for (const auto& req : requests) {
    EXPECT_EQ(req.path, "/v1/traces");
    auto d = std::make_unique<pdata::TracesData>();
    ASSERT_FALSE(otlp::decode_traces_proto(req.body, *d).has_value());
    for (const auto& rs : d->resource_spans)
      for (const auto& ss : rs.scope_spans)
        for (const auto& sp : ss.spans) traces[sp.trace_id].push_back(sp);
    keep.push_back(std::move(d));  // spans view into the data's arena
  }
  ASSERT_EQ(traces.size(), 6u);
  std::set<pdata::SpanId> span_ids;
  for (const auto& [tid, spans] : traces) {
    EXPECT_FALSE(pdata::is_zero(tid));
    ASSERT_EQ(spans.size(), 3u);
    const pdata::Span* root = nullptr;
    for (const auto& sp : spans)
      if (pdata::is_zero(sp.parent_span_id)) root = &sp;
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->name, "lets-go");
    EXPECT_EQ(root->kind, pdata::SpanKind::Client);
    // telemetrygen's timing: children one after another, the root spanning them.
    EXPECT_EQ(root->end_time_unix_nano - root->start_time_unix_nano, 2 * 500'000u);
    for (const auto& sp : spans) {
      span_ids.insert(sp.span_id);
      EXPECT_EQ(sp.status.code, pdata::StatusCode::Error);
      EXPECT_EQ(str(pdata::find_attribute(sp.attributes, "k")), "v");
      if (&sp == root) continue;
      EXPECT_EQ(sp.end_time_unix_nano - sp.start_time_unix_nano, 500'000u);
      EXPECT_EQ(sp.parent_span_id, root->span_id);
      EXPECT_EQ(sp.kind, pdata::SpanKind::Server);
      ASSERT_EQ(sp.name.substr(0, 11), "okey-dokey-");
      const std::uint64_t i = std::stoull(std::string(sp.name.substr(11)));
      EXPECT_EQ(sp.start_time_unix_nano, root->start_time_unix_nano + i * 500'000u) << sp.name;
    }
  }
  EXPECT_EQ(span_ids.size(), 18u);  // unique across workers and requests
}

// --size N, as telemetrygen: N string attributes load-0..load-N-1 of 1 MiB of NUL characters
// on every log record, on each trace's root span (not its children) and on every data point.
TEST(GenLoad, SizeAddsMibAttributesWhereTelemetrygenDoes) {
  const std::string mib(std::size_t{1} << 20, '\0');
  // The number of load-<j> attributes, each checked to be the 1 MiB string.
  const auto loads = [&](const pdata::Attributes& attrs) {
    std::size_t n = 0;
    for (const auto& kv : attrs) {
      if (!kv.key.starts_with("load-")) continue;
      EXPECT_EQ(kv.key, "load-" + std::to_string(n));
      EXPECT_TRUE(kv.value.kind == pdata::ValueKind::String && kv.value.string_value == mib) << kv.key;
      ++n;
    }
    return n;
  };
  for (auto signal : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics}) {
    SCOPED_TRACE(std::string(pdata::to_string(signal)));
    test::RecordingHttpServer server;
    GenOptions o = http_options(server, signal);
    o.count = 2;
    o.batch_size = 2;
    o.load_size_mib = 2;
    o.telemetry_attributes = {attr("k=\"v\"")};
    ASSERT_EQ(validate(o), "");
    auto r = run_generator(o, factory(o));
    ASSERT_FALSE(r.failed) << r.error;
    const auto requests = server.store().requests();  // outlive the data that views into them
    ASSERT_EQ(requests.size(), 1u);
    std::size_t items = 0;
    if (signal == pdata::Signal::Logs) {
      pdata::LogsData d;
      ASSERT_FALSE(otlp::decode_logs_proto(requests[0].body, d).has_value());
      for (const auto& rec : d.resource_logs.at(0).scope_logs.at(0).log_records) {
        ++items;
        EXPECT_EQ(loads(rec.attributes), 2u);
        EXPECT_EQ(rec.attributes[0].key, "app");  // telemetrygen's order: app, telemetry, load
        EXPECT_EQ(rec.attributes[1].key, "k");
      }
    } else if (signal == pdata::Signal::Traces) {
      pdata::TracesData d;
      ASSERT_FALSE(otlp::decode_traces_proto(requests[0].body, d).has_value());
      for (const auto& sp : d.resource_spans.at(0).scope_spans.at(0).spans) {
        const bool root = pdata::is_zero(sp.parent_span_id);
        items += root ? 1 : 0;
        EXPECT_EQ(loads(sp.attributes), root ? 2u : 0u) << sp.name;
      }
    } else {
      pdata::MetricsData d;
      ASSERT_FALSE(otlp::decode_metrics_proto(requests[0].body, d).has_value());
      for (const auto& m : d.resource_metrics.at(0).scope_metrics.at(0).metrics) {
        ++items;
        EXPECT_EQ(loads(m.number_points.at(0).attributes), 2u);
      }
    }
    EXPECT_EQ(items, 2u);
  }
  GenOptions o;
  o.load_size_mib = 1024;
  o.batch_size = 3;  // 3 GiB in one request
  EXPECT_EQ(validate(o),
            "--size times --batch-size must be at most 2048 (MiB of load attributes in one request)");
}

TEST(GenMetrics, EachMetricType) {
  for (auto kind :
       {MetricKind::Gauge, MetricKind::Sum, MetricKind::Histogram, MetricKind::ExponentialHistogram}) {
    test::RecordingHttpServer server;
    GenOptions o = http_options(server, pdata::Signal::Metrics);
    o.workers = 2;
    o.count = 5;
    o.batch_size = 2;
    o.metric_type = kind;
    o.metric_name = "my.metric";
    o.telemetry_attributes = {attr("k=\"v\"")};
    auto r = run_generator(o, factory(o));
    ASSERT_FALSE(r.failed) << r.error;
    std::size_t points = 0;
    for (const auto& req : server.store().requests()) {
      EXPECT_EQ(req.path, "/v1/metrics");
      pdata::MetricsData d;
      ASSERT_FALSE(otlp::decode_metrics_proto(req.body, d).has_value());
      points += d.data_point_count();
      for (const auto& m : d.resource_metrics[0].scope_metrics[0].metrics) {
        EXPECT_EQ(m.name, "my.metric");
        switch (kind) {
          case MetricKind::Gauge:
            EXPECT_EQ(m.type, pdata::MetricType::Gauge);
            break;
          case MetricKind::Sum:
            EXPECT_EQ(m.type, pdata::MetricType::Sum);
            EXPECT_TRUE(m.is_monotonic);
            EXPECT_EQ(m.temporality, pdata::AggregationTemporality::Cumulative);
            break;
          case MetricKind::Histogram:
            ASSERT_EQ(m.type, pdata::MetricType::Histogram);
            EXPECT_EQ(m.histogram_points[0].bucket_counts.size(),
                      m.histogram_points[0].explicit_bounds.size() + 1);
            EXPECT_EQ(str(pdata::find_attribute(m.histogram_points[0].attributes, "k")), "v");
            break;
          case MetricKind::ExponentialHistogram:
            EXPECT_EQ(m.type, pdata::MetricType::ExponentialHistogram);
            break;
        }
      }
    }
    EXPECT_EQ(points, 10u);
  }
}

TEST(GenMetrics, DeltaTemporalityCoversTheLastSecondAndIdsBecomeExemplars) {
  for (auto kind :
       {MetricKind::Gauge, MetricKind::Sum, MetricKind::Histogram, MetricKind::ExponentialHistogram}) {
    test::RecordingHttpServer server;
    GenOptions o = http_options(server, pdata::Signal::Metrics);
    o.count = 3;
    o.metric_type = kind;
    o.delta_temporality = true;
    o.trace_id_hex = "0102030405060708090a0b0c0d0e0f10";
    o.span_id_hex = "a1a2a3a4a5a6a7a8";
    ASSERT_EQ(validate(o), "");
    auto r = run_generator(o, factory(o));
    ASSERT_FALSE(r.failed) << r.error;
    ASSERT_EQ(server.store().requests().size(), 3u);
    for (const auto& req : server.store().requests()) {
      pdata::MetricsData d;
      ASSERT_FALSE(otlp::decode_metrics_proto(req.body, d).has_value());
      const auto& m = d.resource_metrics[0].scope_metrics[0].metrics.at(0);
      std::uint64_t start = 0, time = 0;
      const pdata::Vec<pdata::Exemplar>* exemplars = nullptr;
      switch (kind) {
        case MetricKind::Gauge:
        case MetricKind::Sum:
          start = m.number_points.at(0).start_time_unix_nano;
          time = m.number_points.at(0).time_unix_nano;
          exemplars = &m.number_points.at(0).exemplars;
          break;
        case MetricKind::Histogram:
          start = m.histogram_points.at(0).start_time_unix_nano;
          time = m.histogram_points.at(0).time_unix_nano;
          exemplars = &m.histogram_points.at(0).exemplars;
          break;
        case MetricKind::ExponentialHistogram:
          start = m.exponential_histogram_points.at(0).start_time_unix_nano;
          time = m.exponential_histogram_points.at(0).time_unix_nano;
          exemplars = &m.exponential_histogram_points.at(0).exemplars;
          break;
      }
      if (kind == MetricKind::Gauge) {
        EXPECT_EQ(m.temporality, pdata::AggregationTemporality::Unspecified);  // gauges have none
        EXPECT_LT(start, time);  // the worker's start, as before
      } else {
        EXPECT_EQ(m.temporality, pdata::AggregationTemporality::Delta);
        EXPECT_EQ(time - start, 1'000'000'000u);  // the second before the point
      }
      ASSERT_EQ(exemplars->size(), 1u);
      const auto& e = (*exemplars)[0];
      EXPECT_EQ(e.value_type, pdata::NumberType::Int);
      EXPECT_EQ(e.as_int, 1);
      EXPECT_EQ(e.trace_id, (pdata::TraceId{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
      EXPECT_EQ(e.span_id, (pdata::SpanId{0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8}));
    }
  }
}

TEST(GenMetrics, CumulativeByDefaultWithoutExemplars) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Metrics);
  o.count = 2;
  o.metric_type = MetricKind::Histogram;
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  std::set<std::uint64_t> starts;
  for (const auto& req : server.store().requests()) {
    pdata::MetricsData d;
    ASSERT_FALSE(otlp::decode_metrics_proto(req.body, d).has_value());
    const auto& m = d.resource_metrics[0].scope_metrics[0].metrics.at(0);
    EXPECT_EQ(m.temporality, pdata::AggregationTemporality::Cumulative);
    EXPECT_TRUE(m.histogram_points.at(0).exemplars.empty());
    starts.insert(m.histogram_points.at(0).start_time_unix_nano);
  }
  EXPECT_EQ(starts.size(), 1u);  // every point counts from the worker's start
}

TEST(GenRate, ThrottledRunSendsAboutRateTimesDuration) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Logs);
  o.workers = 2;
  o.rate = 20;
  o.duration = std::chrono::milliseconds(500);
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  // Counts only, never timing: a 20/s bucket holding 1 + 20 * 0.05 tokens cannot exceed
  // 2 + 20 * 0.5 s per worker, whatever the machine's speed; unthrottled it would be
  // thousands. The lower bound only says the run did something.
  for (const auto& w : r.workers) {
    EXPECT_GE(w.items, 1u);
    EXPECT_LE(w.items, 12u);
  }
}

// --rate counts spans for traces, as telemetrygen's limiter (a wait for the root and one per
// child): a trace of 1 + 3 spans takes 4 tokens. Counts only, never timing: the bucket holds
// 4 + 20 * 0.05 tokens and gains 20 * 0.5 in the run, so at most 15 spans (3 traces) get
// through per worker; counting traces it would have been about 11.
TEST(GenRate, TracesAreThrottledBySpans) {
  test::RecordingHttpServer server;
  GenOptions o = http_options(server, pdata::Signal::Traces);
  o.child_spans = 3;
  o.rate = 20;
  o.duration = std::chrono::milliseconds(500);
  auto r = run_generator(o, factory(o));
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_GE(r.workers[0].items, 1u);
  EXPECT_LE(r.workers[0].items, 3u);
  EXPECT_EQ(r.workers[0].events, 4 * r.workers[0].items);
}

TEST(GenFailures, FirstFailureEndsTheRun) {
  GenOptions o;
  o.signal = pdata::Signal::Logs;
  o.client.protocol = Protocol::Http;
  o.client.endpoint = "127.0.0.1:1";
  o.workers = 2;
  o.count = 100;
  auto r = run_generator(o, factory(o));
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.error.find("refused"), std::string::npos) << r.error;
  EXPECT_EQ(r.total(&WorkerResult::items), 0u);
  EXPECT_LE(r.total(&WorkerResult::requests), 2u);
}

TEST(GenFailures, AllowExportFailuresKeepsGoing) {
  test::RecordingHttpServer server;
  server.script({{500, "", {}}, {500, "", {}}});
  GenOptions o = http_options(server, pdata::Signal::Logs);
  o.count = 5;
  o.allow_export_failures = true;
  auto r = run_generator(o, factory(o));
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.workers[0].requests, 5u);
  EXPECT_EQ(r.workers[0].failures, 2u);
  EXPECT_EQ(r.workers[0].items, 3u);
  auto report = format_report(o, r);
  EXPECT_NE(report.find("{\"worker\": 0, \"logs\": 3}"), std::string::npos) << report;
  EXPECT_NE(report.find("\"failures\": 2"), std::string::npos) << report;
}

TEST(GenParse, AttributesAndDurations) {
  std::string err;
  EXPECT_FALSE(parse_attribute("k=v", err));  // strings need quotes, as in telemetrygen
  EXPECT_FALSE(parse_attribute("novalue", err));
  EXPECT_FALSE(parse_attribute("k=[1, \"a\"]", err));
  auto a = parse_attribute("k=[\"a,b\", \"c\"]", err);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->second.items.size(), 2u);
  EXPECT_EQ(a->second.items[0].s, "a,b");
  EXPECT_EQ(parse_attribute("n=-5", err)->second.i, -5);
  EXPECT_EQ(parse_attribute("n=+5", err)->second.i, 5);  // Go's Atoi takes the sign
  EXPECT_FALSE(parse_attribute("n=+-5", err));
  EXPECT_EQ(parse_go_duration("1m30s", err)->count(), 90'000'000'000);
  EXPECT_EQ(parse_go_duration("123us", err)->count(), 123'000);
  EXPECT_EQ(parse_go_duration("1.5s", err)->count(), 1'500'000'000);
  EXPECT_FALSE(parse_go_duration("inf", err));
  EXPECT_TRUE(err.empty());
  EXPECT_FALSE(parse_go_duration("5", err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(parse_go_duration("5x", err));
  // Every digit and dot before a unit is the number: two radix points are an error, not
  // "1.2" seconds with ".3s" left over.
  err.clear();
  EXPECT_FALSE(parse_go_duration("1.2.3s", err));
  EXPECT_NE(err.find("invalid duration"), std::string::npos);
  EXPECT_FALSE(parse_attribute("n=12abc", err));  // not a number, and not a quoted string
  // As Go: "inf" in any case, a sign, and nothing beyond an int64 of nanoseconds.
  EXPECT_FALSE(parse_go_duration("INF", err));
  EXPECT_TRUE(err.empty());
  EXPECT_EQ(parse_go_duration("-5s", err)->count(), -5'000'000'000);
  EXPECT_EQ(parse_go_duration("+2ms", err)->count(), 2'000'000);
  EXPECT_EQ(parse_go_duration("2562047h", err)->count(), 2562047LL * 3600 * 1'000'000'000);
  EXPECT_FALSE(parse_go_duration("3000000h", err));
  EXPECT_NE(err.find("too large"), std::string::npos) << err;
  EXPECT_FALSE(parse_go_duration("-", err));
}

// telemetrygen's checks: a severity text of the well-known six must name its number's range.
TEST(GenValidate, SeverityTextMatchesItsNumber) {
  GenOptions o;
  o.severity_text = "Info";
  o.severity_number = 17;
  EXPECT_EQ(validate(o),
            "severity text \"Info\" does not match severity number 17, the valid range is [9,12]");
  o.severity_text = "Error";
  EXPECT_EQ(validate(o), "");
  o.severity_text = "custom";  // not one of the six: any number
  o.severity_number = 3;
  EXPECT_EQ(validate(o), "");
  o.rate = std::nan("");
  EXPECT_NE(validate(o), "");
  o.rate = 0;
  o.workers = kMaxWorkers + 1;
  EXPECT_NE(validate(o), "");
}

// Headers are checked before anything is sent: gRPC aborted on a metadata key it refuses,
// HTTP sent a CR LF in a value as a header line of its own.
TEST(GenClient, BadHeadersPortsAndPaths) {
  for (auto protocol : {Protocol::Http, Protocol::Grpc}) {
    exporter::otlp::OtlpClientOptions o;
    o.protocol = protocol;
    o.endpoint = "127.0.0.1:4318";
    o.headers = {{"bad key", "v"}};
    EXPECT_THROW(exporter::otlp::make_otlp_client(o), std::invalid_argument);
    o.headers = {{"", "v"}};
    EXPECT_THROW(exporter::otlp::make_otlp_client(o), std::invalid_argument);
    o.headers = {{"a", "b\r\nX-Injected: y"}};
    EXPECT_THROW(exporter::otlp::make_otlp_client(o), std::invalid_argument);
    o.headers = {{"x-api-key", "secret value"}};
    EXPECT_NO_THROW(exporter::otlp::make_otlp_client(o));
  }
  exporter::otlp::OtlpClientOptions o;
  o.protocol = Protocol::Http;
  o.endpoint = "127.0.0.1:99999";
  EXPECT_THROW(exporter::otlp::make_otlp_client(o), std::invalid_argument);
  // A path without its leading slash still makes a valid request line.
  test::RecordingHttpServer server;
  o.endpoint = server.endpoint();
  o.url_path = "v1/custom";
  ASSERT_TRUE(exporter::otlp::make_otlp_client(o)->export_request(pdata::Signal::Logs, "").ok);
  EXPECT_EQ(server.store().requests().at(0).path, "/v1/custom");
}

TEST(GenLatency, HistogramQuantiles) {
  LatencyHistogram h;
  for (std::uint64_t i = 1; i <= 1000; ++i) h.record(i * 1000);  // 1..1000 us
  const auto p50 = static_cast<double>(h.quantile(0.5));
  const auto p99 = static_cast<double>(h.quantile(0.99));
  EXPECT_NEAR(p50, 500'000, 500'000 * 0.07);
  EXPECT_NEAR(p99, 990'000, 990'000 * 0.07);
}

TEST(GenCli, ReportLinesAndFailureExitCode) {
  test::RecordingHttpServer server;
  const std::string tern = std::string(TERN_BIN_DIR) + "/tern";
  {
    test::Process p({tern, "gen", "logs", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--workers", "2", "--logs", "6", "--batch-size", "4", "--otlp-header",
                     "x-test=\"1\"", "--otlp-attributes", "env=\"ci\""});
    ASSERT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
    auto lines = p.lines();
    ASSERT_EQ(lines.size(), 3u) << p.output();
    EXPECT_EQ(lines[0], "{\"worker\": 0, \"logs\": 6}");
    EXPECT_EQ(lines[1], "{\"worker\": 1, \"logs\": 6}");
    EXPECT_NE(lines[2].find("\"total\": {\"logs\": 12"), std::string::npos) << lines[2];
    EXPECT_NE(lines[2].find("\"p99\""), std::string::npos) << lines[2];
    std::size_t records = 0;
    for (const auto& req : server.store().requests()) {
      EXPECT_EQ(req.headers.at("x-test"), "1");
      pdata::LogsData d;
      ASSERT_FALSE(otlp::decode_logs_proto(req.body, d).has_value());
      records += d.record_count();
    }
    EXPECT_EQ(records, 12u);
  }
  {
    test::Process p(
        {tern, "gen", "logs", "--otlp-http", "--otlp-insecure", "--otlp-endpoint", "127.0.0.1:1"});
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 1) << p.output();
    EXPECT_NE(p.output().find("export failed"), std::string::npos) << p.output();
  }
  {
    test::Process p({tern, "gen", "traces", "--otlp-insecure", "--otlp-endpoint", "127.0.0.1:1", "--traces",
                     "3", "--allow-export-failures", "--otlp-timeout", "2s"});
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
    EXPECT_NE(p.output().find("\"failures\": 3"), std::string::npos) << p.output();
  }
  {
    test::Process p({tern, "gen", "metrics", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--metric-type", "Sum", "--aggregation-temporality", "delta",
                     "--otlp-metric-name", "requests", "--span-id", "a1a2a3a4a5a6a7a8"});
    ASSERT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
    // The decoded data views into the request's body: the requests must outlive it.
    const auto requests = server.store().requests();
    pdata::MetricsData d;
    ASSERT_FALSE(otlp::decode_metrics_proto(requests.back().body, d).has_value());
    EXPECT_EQ(requests.back().headers.at("user-agent").rfind("tern-gen/", 0), 0u);
    const auto& m = d.resource_metrics[0].scope_metrics[0].metrics.at(0);
    EXPECT_EQ(m.name, "requests");
    EXPECT_EQ(m.temporality, pdata::AggregationTemporality::Delta);
    ASSERT_EQ(m.number_points.at(0).exemplars.size(), 1u);
    EXPECT_EQ(m.number_points.at(0).exemplars[0].span_id[0], 0xa1);
  }
  {
    test::Process p({tern, "gen", "metrics", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--aggregation-temporality", "weekly"});
    EXPECT_NE(p.wait(std::chrono::seconds(30)), 0) << p.output();
    EXPECT_NE(p.output().find("--aggregation-temporality"), std::string::npos) << p.output();
  }
  {
    test::Process p({tern, "gen", "metrics", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--trace-id", "xyz"});
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 2) << p.output();
    EXPECT_NE(p.output().find("--trace-id must be 32 hex digits"), std::string::npos) << p.output();
  }
  // Bad flags: exit 2 with a message, never a crash (an abort, 134) or a run without end.
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"logs", "--batch-size", "-1"}, "--batch-size must be at least 1"},
      {{"logs", "--logs", "-1"}, "either `logs` or `duration` must be greater than 0"},
      {{"logs", "--otlp-header", "bad key=\"v\""}, "header \"bad key\""},
      {{"logs", "--otlp-http", "--otlp-header", "a=\"b\r\nX-Injected: y\""}, "header \"a\""},
      {{"logs", "--severity-text", "Info", "--severity-number", "17"}, "does not match severity number 17"},
      {{"logs", "--duration", "3000000h"}, "too large"},
      {{"logs", "--rate", "nan"}, "--rate"},
      {{"logs", "--no-such-flag"}, "--no-such-flag"},
  };
  for (const auto& [args, message] : bad) {
    std::vector<std::string> argv = {tern, "gen"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--otlp-insecure", "--otlp-endpoint", server.endpoint()});
    test::Process p(argv);
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 2) << args[1] << ": " << p.output();
    EXPECT_NE(p.output().find(message), std::string::npos) << p.output();
  }
  {
    // telemetrygen's status codes in any case.
    test::Process p({tern, "gen", "traces", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--status-code", "error"});
    ASSERT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
    const auto requests = server.store().requests();  // outlives the data that views into it
    pdata::TracesData d;
    ASSERT_FALSE(otlp::decode_traces_proto(requests.back().body, d).has_value());
    EXPECT_EQ(d.resource_spans[0].scope_spans[0].spans.at(0).status.code, pdata::StatusCode::Error);
  }
  {
    // SIGINT ends a run that waits for its rate at once (the sleep for the next token, 20 s
    // at this rate, ignored it), and nothing more is sent after it.
    const std::size_t before = server.store().size();
    test::Process p({tern, "gen", "logs", "--otlp-http", "--otlp-insecure", "--otlp-endpoint",
                     server.endpoint(), "--rate", "0.05", "--duration", "inf"});
    for (int i = 0; i < 3000 && server.store().size() == before; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(server.store().size(), before + 1) << p.output();
    p.signal(SIGINT);
    EXPECT_EQ(p.wait(std::chrono::seconds(10)), 0) << "still waiting for its rate: " << p.output();
    EXPECT_EQ(server.store().size(), before + 1);
  }
  {
    // Without --otlp-insecure the connection is TLS (as telemetrygen's), which this
    // plaintext server cannot speak: the export fails, nothing is sent in the clear.
    test::Process p({tern, "gen", "logs", "--otlp-http", "--otlp-endpoint", server.endpoint()});
    EXPECT_EQ(p.wait(std::chrono::seconds(30)), 1) << p.output();
    EXPECT_NE(p.output().find(": POST https://"), std::string::npos) << p.output();
  }
}

// telemetrygen's --batch, --size and --interval: taken as telemetrygen takes them (exit 2
// "unknown option" before), --interval said to be ignored.
TEST(GenCli, TelemetrygenBatchSizeAndIntervalFlags) {
  test::RecordingHttpServer server;
  const std::string tern = std::string(TERN_BIN_DIR) + "/tern";
  const auto gen = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {tern, "gen"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--otlp-http", "--otlp-insecure", "--otlp-endpoint", server.endpoint()});
    return std::make_unique<test::Process>(argv);
  };
  // The records per request of the requests received from here on.
  const auto batches = [&](std::size_t from) {
    std::vector<std::size_t> out;
    const auto requests = server.store().requests();
    for (std::size_t i = from; i < requests.size(); ++i) {
      pdata::LogsData d;
      EXPECT_FALSE(otlp::decode_logs_proto(requests[i].body, d).has_value());
      out.push_back(d.record_count());
    }
    return out;
  };
  {
    auto p = gen({"logs", "--logs", "5", "--batch", "--batch-size", "5"});
    ASSERT_EQ(p->wait(std::chrono::seconds(30)), 0) << p->output();
    EXPECT_EQ(batches(0), (std::vector<std::size_t>{5}));
  }
  {
    const std::size_t before = server.store().size();
    auto p = gen({"logs", "--logs", "3", "--batch=false"});
    ASSERT_EQ(p->wait(std::chrono::seconds(30)), 0) << p->output();
    EXPECT_EQ(batches(before), (std::vector<std::size_t>{1, 1, 1}));
  }
  {
    const std::size_t before = server.store().size();
    auto p = gen({"logs", "--logs", "2", "--batch-size", "2", "--size", "1"});
    ASSERT_EQ(p->wait(std::chrono::seconds(30)), 0) << p->output();
    const auto requests = server.store().requests();
    ASSERT_EQ(requests.size(), before + 1);
    pdata::LogsData d;
    ASSERT_FALSE(otlp::decode_logs_proto(requests.back().body, d).has_value());
    for (const auto& rec : d.resource_logs.at(0).scope_logs.at(0).log_records) {
      const auto* load = pdata::find_attribute(rec.attributes, "load-0");
      ASSERT_NE(load, nullptr);
      EXPECT_EQ(load->string_value.size(), std::size_t{1} << 20);
    }
  }
  {
    auto p = gen({"traces", "--traces", "1", "--interval", "5s", "--marshal"});
    ASSERT_EQ(p->wait(std::chrono::seconds(30)), 0) << p->output();
    EXPECT_NE(p->output().find("tern gen: --interval is accepted for telemetrygen compatibility and ignored"),
              std::string::npos)
        << p->output();
    EXPECT_NE(p->output().find("tern gen: --marshal is accepted for telemetrygen compatibility and ignored"),
              std::string::npos)
        << p->output();
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"logs", "--batch=false", "--batch-size", "10"}, "--batch=false sends one item per request"},
      {{"logs", "--size", "-1"}, "--size must be from 0 to 2048"},
      {{"metrics", "--size", "2048", "--batch-size", "2"}, "--size times --batch-size must be at most 2048"},
      {{"logs", "--interval", "soon"}, "--interval"},
  };
  for (const auto& [args, message] : bad) {
    auto p = gen(args);
    EXPECT_EQ(p->wait(std::chrono::seconds(30)), 2) << args[1] << ": " << p->output();
    EXPECT_NE(p->output().find(message), std::string::npos) << p->output();
  }
}

// The help says what --otlp-retries retries, as the code and gen.md do: gRPC's
// RESOURCE_EXHAUSTED too, not UNAVAILABLE alone.
TEST(GenCli, RetriesHelpNamesBothGrpcCodes) {
  test::Process p({std::string(TERN_BIN_DIR) + "/tern", "gen", "logs", "--help"});
  ASSERT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
  EXPECT_NE(p.output().find("UNAVAILABLE/RESOURCE_EXHAUSTED (gRPC)"), std::string::npos) << p.output();
}

}  // namespace
}  // namespace tern::gen
