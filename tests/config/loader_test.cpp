// The loader: every key of every component, defaults, named instances, substitution, and
// every kind of problem with its exact position and message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "config/loader.h"
#include "exporter/debug/config.h"
#include "exporter/elasticsearch/config.h"
#include "exporter/otlp/config.h"
#include "extension/filestorage/config.h"
#include "extension/healthcheck/config.h"
#include "processor/attributes/config.h"
#include "processor/batch/config.h"
#include "processor/filter/config.h"
#include "processor/memorylimiter/config.h"
#include "processor/resourcedetection/config.h"
#include "processor/transform/config.h"
#include "receiver/filelog/config.h"
#include "receiver/otlp/config.h"
#include "service/components.h"

namespace tern::config {
namespace {

using exporter::debug::DebugExporterConfig;
using exporter::es::ElasticsearchExporterConfig;
using exporter::otlp::OtlpExporterConfig;
using extension::FileStorageExtensionConfig;
using extension::HealthCheckExtensionConfig;
using processor::AttributesProcessorConfig;
using processor::BatchProcessorConfig;
using processor::FilterProcessorConfig;
using processor::MemoryLimiterProcessorConfig;
using processor::ResourceDetectionProcessorConfig;
using processor::TransformProcessorConfig;
using receiver::filelog::FilelogOperatorConfig;
using receiver::filelog::FilelogReceiverConfig;
using receiver::otlp::OtlpReceiverConfig;

using service::load_config_file;
using service::load_config_string;

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Tests write YAML as R"(<newline>...)"; the leading newline is dropped so that the
// first YAML line is line 1.
LoadResult load(std::string_view yaml, std::map<std::string, std::string> vars = {}) {
  if (!yaml.empty() && yaml.front() == '\n') yaml.remove_prefix(1);
  EnvLookup env = [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  return load_config_string(yaml, "t.yaml", env);
}

std::vector<std::string> messages(const LoadResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics.items) out.push_back(d.format());
  return out;
}

std::vector<std::string> errors(const LoadResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics.items) {
    if (d.severity == Severity::kError) out.push_back(d.format());
  }
  return out;
}

template <class T, class C>
const T& settings(const std::vector<C>& comps, const std::string& id) {
  for (const auto& c : comps) {
    if (c.id.str() == id) return c.template settings<T>();
  }
  // GoogleTest reports an exception escaping a test as that test's failure.
  throw std::runtime_error("no component " + id);
}

// ---------------------------------------------------------------- defaults

TEST(Loader, DefaultsOfEveryComponent) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      grpc:
      http:
  filelog:
    include: [/var/log/*.log]
processors:
  batch:
  memory_limiter:
    check_interval: 1s
    limit_mib: 512
  attributes:
    actions:
      - {key: env, value: prod, action: insert}
  resource:
    actions:
      - {key: host.name, action: delete}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9200
  otlp:
    endpoint: collector:4317
  debug:
extensions:
  health_check:
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [otlp, filelog]
      processors: [memory_limiter, batch, attributes, resource]
      exporters: [elasticsearch, otlp, debug]
)");
  ASSERT_THAT(messages(r), IsEmpty());
  ASSERT_TRUE(r.ok());
  const auto& c = r.config;

  const auto& otlp = settings<OtlpReceiverConfig>(c.receivers, "otlp");
  EXPECT_TRUE(otlp.grpc.enabled);
  EXPECT_EQ(otlp.grpc.endpoint, "127.0.0.1:4317");
  EXPECT_EQ(otlp.grpc.max_recv_msg_size_mib, 4u);
  EXPECT_TRUE(otlp.http.enabled);
  EXPECT_EQ(otlp.http.endpoint, "127.0.0.1:4318");
  EXPECT_EQ(otlp.http.max_request_body_size, 20u * 1024 * 1024);
  EXPECT_THAT(otlp.http.cors_allowed_origins, IsEmpty());
  EXPECT_THAT(otlp.http.cors_allowed_headers, IsEmpty());
  EXPECT_EQ(otlp.http.cors_max_age, 7200u);

  const auto& fl = settings<FilelogReceiverConfig>(c.receivers, "filelog");
  EXPECT_THAT(fl.include, ElementsAre("/var/log/*.log"));
  EXPECT_THAT(fl.exclude, IsEmpty());
  EXPECT_EQ(fl.start_at, FilelogReceiverConfig::StartAt::kEnd);
  EXPECT_EQ(fl.max_log_size, 1024u * 1024);
  EXPECT_EQ(fl.encoding, "utf-8");
  EXPECT_EQ(fl.parse, FilelogReceiverConfig::Parse::kNone);
  EXPECT_THAT(fl.attributes, IsEmpty());
  EXPECT_EQ(fl.storage, "");
  EXPECT_EQ(fl.poll_interval, 200ms);
  EXPECT_EQ(fl.fingerprint_size, 1000u);
  EXPECT_TRUE(fl.include_file_name);
  EXPECT_FALSE(fl.include_file_path);
  EXPECT_EQ(fl.max_batch_lines, 1000u);
  EXPECT_EQ(fl.max_batch_size, 1024u * 1024);

  const auto& batch = settings<BatchProcessorConfig>(c.processors, "batch");
  EXPECT_EQ(batch.send_batch_size, 8192u);
  EXPECT_EQ(batch.send_batch_max_size, 0u);
  EXPECT_EQ(batch.timeout, 200ms);
  EXPECT_EQ(batch.send_batch_max_bytes, 0u);

  const auto& ml = settings<MemoryLimiterProcessorConfig>(c.processors, "memory_limiter");
  EXPECT_EQ(ml.check_interval, 1s);
  EXPECT_EQ(ml.limit_mib, 512u);
  EXPECT_EQ(ml.spike_limit_mib, 0u);
  EXPECT_EQ(ml.limit_percentage, 0u);
  EXPECT_EQ(ml.spike_limit_percentage, 0u);

  const auto& attrs = settings<AttributesProcessorConfig>(c.processors, "attributes");
  ASSERT_EQ(attrs.actions.size(), 1u);
  EXPECT_EQ(attrs.actions[0].key, "env");
  EXPECT_EQ(attrs.actions[0].value, "prod");
  EXPECT_EQ(attrs.actions[0].action, AttributesProcessorConfig::Action::kInsert);
  const auto& res = settings<AttributesProcessorConfig>(c.processors, "resource");
  ASSERT_EQ(res.actions.size(), 1u);
  EXPECT_EQ(res.actions[0].key, "host.name");
  EXPECT_EQ(res.actions[0].action, AttributesProcessorConfig::Action::kDelete);

  const auto& es = settings<ElasticsearchExporterConfig>(c.exporters, "elasticsearch");
  using E = ElasticsearchExporterConfig;
  EXPECT_THAT(es.endpoints, ElementsAre("http://127.0.0.1:9200"));
  EXPECT_EQ(es.num_workers, 0u);
  EXPECT_EQ(es.flush.bytes, 5000000u);
  EXPECT_EQ(es.flush.interval, 1s);
  EXPECT_TRUE(es.retry.enabled);
  EXPECT_EQ(es.retry.max_retries, 0u);
  EXPECT_EQ(es.retry.initial_interval, 100ms);
  EXPECT_EQ(es.retry.max_interval, 30s);
  EXPECT_THAT(es.retry.retry_on_status, ElementsAre(429, 500, 502, 503, 504));
  EXPECT_EQ(es.compression, Compression::kGzip);
  EXPECT_EQ(es.compression_level, 1u);
  EXPECT_THAT(es.headers, IsEmpty());
  EXPECT_EQ(es.user, "");
  EXPECT_EQ(es.password, "");
  EXPECT_EQ(es.api_key, "");
  EXPECT_EQ(es.tls.ca_file, "");
  EXPECT_EQ(es.tls.cert_file, "");
  EXPECT_EQ(es.tls.key_file, "");
  EXPECT_FALSE(es.tls.insecure_skip_verify);
  EXPECT_EQ(es.mapping_mode, "otel");
  EXPECT_EQ(es.logs_index, "");
  EXPECT_EQ(es.metrics_index, "");
  EXPECT_EQ(es.traces_index, "");
  EXPECT_FALSE(es.logs_dynamic_id);
  EXPECT_FALSE(es.logs_dynamic_pipeline);
  EXPECT_EQ(es.pipeline, "");
  EXPECT_EQ(es.timeout, 90s);
  EXPECT_EQ(es.dead_letter_path, "");
  EXPECT_EQ(es.encoding, E::Encoding::kEarly);
  EXPECT_FALSE(es.sending_queue.enabled);
  EXPECT_EQ(es.sending_queue.type, E::SendingQueue::Type::kMemory);
  EXPECT_EQ(es.sending_queue.queue_size, 1000u);
  EXPECT_EQ(es.sending_queue.max_bytes, 0u);
  EXPECT_EQ(es.sending_queue.directory, "");
  EXPECT_EQ(es.sending_queue.max_size, 1024ull * 1024 * 1024);
  EXPECT_EQ(es.sending_queue.segment_size, 64ull * 1024 * 1024);
  EXPECT_EQ(es.sending_queue.sync, E::SendingQueue::Sync::kBatch);
  EXPECT_EQ(es.sending_queue.sync_interval, 1s);

  const auto& ox = settings<OtlpExporterConfig>(c.exporters, "otlp");
  EXPECT_EQ(ox.endpoint, "collector:4317");
  EXPECT_FALSE(ox.tls.insecure);
  EXPECT_EQ(ox.compression, Compression::kGzip);
  EXPECT_THAT(ox.headers, IsEmpty());
  EXPECT_EQ(ox.timeout, 5s);

  EXPECT_EQ(settings<DebugExporterConfig>(c.exporters, "debug").verbosity,
            DebugExporterConfig::Verbosity::kBasic);

  const auto& hc = settings<HealthCheckExtensionConfig>(c.extensions, "health_check");
  EXPECT_EQ(hc.endpoint, "127.0.0.1:13133");
  EXPECT_EQ(hc.path, "/");
  EXPECT_THAT(c.service_extensions, ElementsAre("health_check"));

  EXPECT_EQ(c.telemetry.log_level, Telemetry::Level::kInfo);
  EXPECT_EQ(c.telemetry.log_encoding, Telemetry::Encoding::kConsole);
  EXPECT_EQ(c.telemetry.metrics_address, "127.0.0.1:8888");
  EXPECT_EQ(c.shutdown_timeout, 10s);

  ASSERT_EQ(c.pipelines.size(), 1u);
  EXPECT_EQ(c.pipelines[0].signal, Signal::Logs);
  EXPECT_EQ(c.pipelines[0].name, "");
  EXPECT_THAT(c.pipelines[0].receivers, ElementsAre("otlp", "filelog"));
  EXPECT_THAT(c.pipelines[0].processors, ElementsAre("memory_limiter", "batch", "attributes", "resource"));
  EXPECT_THAT(c.pipelines[0].exporters, ElementsAre("elasticsearch", "otlp", "debug"));
}

// A receiver enables only the protocols that are present.
TEST(Loader, OtlpReceiverProtocolsAreOptIn) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      http:
exporters:
  debug:
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& otlp = settings<OtlpReceiverConfig>(r.config.receivers, "otlp");
  EXPECT_FALSE(otlp.grpc.enabled);
  EXPECT_TRUE(otlp.http.enabled);
}

// The Collector's per-signal paths: a relative path gets its '/', empty is the default,
// profiles_url_path is read (Tern has no profiles signal).
TEST(Loader, OtlpReceiverUrlPaths) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      http:
        logs_url_path: ingest/logs
        traces_url_path: /ingest/traces
        metrics_url_path: ""
        profiles_url_path: /ingest/profiles
exporters:
  debug:
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& http = settings<OtlpReceiverConfig>(r.config.receivers, "otlp").http;
  EXPECT_EQ(http.logs_url_path, "/ingest/logs");
  EXPECT_EQ(http.traces_url_path, "/ingest/traces");
  EXPECT_EQ(http.metrics_url_path, "/v1/metrics");
}

TEST(Problems, OtlpReceiverUrlPathsMustBeDistinctPlainPaths) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      http:
        logs_url_path: /v1/traces
        metrics_url_path: /m?x=1
  otlp/b:
    protocols:
      http:
        logs_url_path: "/a b"
        traces_url_path: /t%20
  otlp/c:
    protocols:
      http:
        logs_url_path: /
        traces_url_path: /v1/{x}
exporters:
  debug:
service:
  pipelines:
    traces: {receivers: [otlp, otlp/b, otlp/c], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(HasSubstr("t.yaml:5:24: error: receivers.otlp.protocols.http.logs_url_path: "
                            "\"/v1/traces\" is also receivers.otlp.protocols.http.traces_url_path"),
                  HasSubstr("t.yaml:6:27: error: receivers.otlp.protocols.http.metrics_url_path: "
                            "\"/m?x=1\": a URL path without query"),
                  HasSubstr("receivers.otlp/b.protocols.http.logs_url_path: \"/a b\": a URL path"),
                  HasSubstr("receivers.otlp/b.protocols.http.traces_url_path: \"/t%20\": a URL path"),
                  HasSubstr("receivers.otlp/c.protocols.http.logs_url_path: \"/\": a path ending in '/'"),
                  HasSubstr("receivers.otlp/c.protocols.http.traces_url_path: \"/v1/{x}\": a URL path")));
}

// ---------------------------------------------------------------- every key set

TEST(Loader, EveryKeySet) {
  auto r = load(R"(
receivers:
  otlp:
    include_metadata: true
    protocols:
      grpc:
        endpoint: 0.0.0.0:14317
        max_recv_msg_size_mib: 16
        include_metadata: true
      http:
        endpoint: "[::1]:14318"
        max_request_body_size: 8MiB
        include_metadata: false
        cors:
          allowed_origins: ["https://*.example.com"]
          allowed_headers: [X-Custom]
          max_age: 600
  filelog:
    include: [/var/log/a.log, "/var/log/b/*.log"]
    exclude: ["*.gz"]
    start_at: beginning
    max_log_size: 64KiB
    encoding: nop
    parse: json
    attributes: {service.name: web, team: core}
    storage: /var/lib/tern/filelog
    poll_interval: 50ms
    fingerprint_size: 2KiB
    include_file_name: false
    include_file_path: true
    max_batch_lines: 4096
    max_batch_size: 4MiB
processors:
  batch:
    send_batch_size: 100
    send_batch_max_size: 200
    timeout: 2s
    send_batch_max_bytes: 1MB
  memory_limiter:
    check_interval: 500ms
    limit_mib: 1000
    spike_limit_mib: 200
    limit_percentage: 80
    spike_limit_percentage: 10
  attributes:
    actions:
      - key: a
        value: "1"
        action: insert
      - {key: b, value: two, action: update}
      - {key: c, value: three, action: upsert}
      - {key: d, action: delete}
exporters:
  elasticsearch:
    endpoints: [https://es1:9200, https://es2:9200]
    num_workers: 8
    flush: {bytes: 10MB, interval: 5s}
    retry:
      enabled: false
      max_retries: 5
      initial_interval: 50ms
      max_interval: 1m
      retry_on_status: [429, 503]
    compression: none
    compression_params: {level: 6}
    headers: {X-Tenant: acme}
    user: elastic
    password: changeme
    tls:
      ca_file: /etc/ca.pem
      cert_file: /etc/client.pem
      key_file: /etc/client.key
      insecure_skip_verify: true
    mapping: {mode: otel}
    logs_index: logs-custom-prod
    metrics_index: metrics-custom-prod
    traces_index: traces-custom-prod
    logs_dynamic_id: {enabled: true}
    logs_dynamic_pipeline: {enabled: true}
    pipeline: my-pipeline
    timeout: 30s
    dead_letter: {path: /var/lib/tern/dead.ndjson}
    encoding: late
    sending_queue:
      enabled: true
      type: disk
      queue_size: 5
      max_bytes: 100MB
      directory: /var/lib/tern/queue
      max_size: 2GiB
      segment_size: 32MiB
      sync: interval
      sync_interval: 250ms
  elasticsearch/key:
    endpoint: https://es3:9200
    api_key: abc==
  otlp:
    endpoint: https://collector:4318
    tls: {insecure: true, ca_file: /etc/tern/ca.crt, server_name_override: collector.example}
    compression: none
    headers: {authorization: Bearer x}
    timeout: 3s
  debug:
    verbosity: detailed
extensions:
  health_check:
    endpoint: 0.0.0.0:13134
    path: /health
service:
  shutdown_timeout: 45s
  extensions: [health_check]
  telemetry:
    logs: {level: debug, encoding: json}
    metrics: {address: 0.0.0.0:9888}
  pipelines:
    logs:
      receivers: [otlp, filelog]
      processors: [memory_limiter, batch, attributes]
      exporters: [elasticsearch, elasticsearch/key, otlp, debug]
)");
  // Every key set means late encoding and a disk queue together: the one warning.
  ASSERT_THAT(messages(r), ElementsAre(HasSubstr("encoding: late has no effect with a disk queue")));
  const auto& c = r.config;

  const auto& otlp = settings<OtlpReceiverConfig>(c.receivers, "otlp");
  EXPECT_EQ(otlp.grpc.endpoint, "0.0.0.0:14317");
  EXPECT_EQ(otlp.grpc.max_recv_msg_size_mib, 16u);
  EXPECT_EQ(otlp.http.endpoint, "[::1]:14318");
  EXPECT_EQ(otlp.http.max_request_body_size, 8u * 1024 * 1024);
  EXPECT_THAT(otlp.http.cors_allowed_origins, ElementsAre("https://*.example.com"));
  EXPECT_THAT(otlp.http.cors_allowed_headers, ElementsAre("X-Custom"));
  EXPECT_EQ(otlp.http.cors_max_age, 600u);  // the Collector's key (was an unknown-key error)

  const auto& fl = settings<FilelogReceiverConfig>(c.receivers, "filelog");
  EXPECT_THAT(fl.include, ElementsAre("/var/log/a.log", "/var/log/b/*.log"));
  EXPECT_THAT(fl.exclude, ElementsAre("*.gz"));
  EXPECT_EQ(fl.start_at, FilelogReceiverConfig::StartAt::kBeginning);
  EXPECT_EQ(fl.max_log_size, 64u * 1024);
  EXPECT_EQ(fl.encoding, "nop");
  EXPECT_EQ(fl.parse, FilelogReceiverConfig::Parse::kJson);
  EXPECT_EQ(fl.attributes, (std::map<std::string, std::string>{{"service.name", "web"}, {"team", "core"}}));
  EXPECT_EQ(fl.storage, "/var/lib/tern/filelog");
  EXPECT_EQ(fl.poll_interval, 50ms);
  EXPECT_EQ(fl.fingerprint_size, 2048u);
  EXPECT_FALSE(fl.include_file_name);
  EXPECT_TRUE(fl.include_file_path);
  EXPECT_EQ(fl.max_batch_lines, 4096u);
  EXPECT_EQ(fl.max_batch_size, 4u * 1024 * 1024);

  const auto& batch = settings<BatchProcessorConfig>(c.processors, "batch");
  EXPECT_EQ(batch.send_batch_size, 100u);
  EXPECT_EQ(batch.send_batch_max_size, 200u);
  EXPECT_EQ(batch.timeout, 2s);
  EXPECT_EQ(batch.send_batch_max_bytes, 1000000u);

  const auto& ml = settings<MemoryLimiterProcessorConfig>(c.processors, "memory_limiter");
  EXPECT_EQ(ml.check_interval, 500ms);
  EXPECT_EQ(ml.limit_mib, 1000u);
  EXPECT_EQ(ml.spike_limit_mib, 200u);
  EXPECT_EQ(ml.limit_percentage, 80u);
  EXPECT_EQ(ml.spike_limit_percentage, 10u);

  using A = AttributesProcessorConfig::Action;
  const auto& attrs = settings<AttributesProcessorConfig>(c.processors, "attributes");
  ASSERT_EQ(attrs.actions.size(), 4u);
  EXPECT_EQ(attrs.actions[0].key, "a");
  EXPECT_EQ(attrs.actions[0].value, "1");
  EXPECT_EQ(attrs.actions[0].action, A::kInsert);
  EXPECT_EQ(attrs.actions[1].action, A::kUpdate);
  EXPECT_EQ(attrs.actions[2].action, A::kUpsert);
  EXPECT_EQ(attrs.actions[2].value, "three");
  EXPECT_EQ(attrs.actions[3].action, A::kDelete);

  using E = ElasticsearchExporterConfig;
  const auto& es = settings<E>(c.exporters, "elasticsearch");
  EXPECT_THAT(es.endpoints, ElementsAre("https://es1:9200", "https://es2:9200"));
  EXPECT_EQ(es.num_workers, 8u);
  EXPECT_EQ(es.flush.bytes, 10000000u);
  EXPECT_EQ(es.flush.interval, 5s);
  EXPECT_FALSE(es.retry.enabled);
  EXPECT_EQ(es.retry.max_retries, 5u);
  EXPECT_EQ(es.retry.initial_interval, 50ms);
  EXPECT_EQ(es.retry.max_interval, 1min);
  EXPECT_THAT(es.retry.retry_on_status, ElementsAre(429, 503));
  EXPECT_EQ(es.compression, Compression::kNone);
  EXPECT_EQ(es.compression_level, 6u);
  EXPECT_EQ(es.headers, (std::map<std::string, std::string>{{"X-Tenant", "acme"}}));
  EXPECT_EQ(es.user, "elastic");
  EXPECT_EQ(es.password, "changeme");
  EXPECT_EQ(es.tls.ca_file, "/etc/ca.pem");
  EXPECT_EQ(es.tls.cert_file, "/etc/client.pem");
  EXPECT_EQ(es.tls.key_file, "/etc/client.key");
  EXPECT_TRUE(es.tls.insecure_skip_verify);
  EXPECT_EQ(es.mapping_mode, "otel");
  EXPECT_EQ(es.logs_index, "logs-custom-prod");
  EXPECT_EQ(es.metrics_index, "metrics-custom-prod");
  EXPECT_EQ(es.traces_index, "traces-custom-prod");
  EXPECT_TRUE(es.logs_dynamic_id);
  EXPECT_TRUE(es.logs_dynamic_pipeline);
  EXPECT_EQ(es.pipeline, "my-pipeline");
  EXPECT_EQ(es.timeout, 30s);
  EXPECT_EQ(es.dead_letter_path, "/var/lib/tern/dead.ndjson");
  EXPECT_EQ(es.encoding, E::Encoding::kLate);
  EXPECT_TRUE(es.sending_queue.enabled);
  EXPECT_EQ(es.sending_queue.type, E::SendingQueue::Type::kDisk);
  EXPECT_EQ(es.sending_queue.queue_size, 5u);
  EXPECT_EQ(es.sending_queue.max_bytes, 100000000u);
  EXPECT_EQ(es.sending_queue.directory, "/var/lib/tern/queue");
  EXPECT_EQ(es.sending_queue.max_size, 2ull * 1024 * 1024 * 1024);
  EXPECT_EQ(es.sending_queue.segment_size, 32u * 1024 * 1024);
  EXPECT_EQ(es.sending_queue.sync, E::SendingQueue::Sync::kInterval);
  EXPECT_EQ(es.sending_queue.sync_interval, 250ms);

  const auto& es_key = settings<E>(c.exporters, "elasticsearch/key");
  EXPECT_THAT(es_key.endpoints, ElementsAre("https://es3:9200"));
  EXPECT_EQ(es_key.api_key, "abc==");

  const auto& ox = settings<OtlpExporterConfig>(c.exporters, "otlp");
  EXPECT_EQ(ox.endpoint, "https://collector:4318");
  EXPECT_TRUE(ox.tls.insecure);
  EXPECT_EQ(ox.tls.ca_file, "/etc/tern/ca.crt");
  EXPECT_EQ(ox.tls.server_name_override, "collector.example");
  EXPECT_EQ(ox.compression, Compression::kNone);
  EXPECT_EQ(ox.headers, (std::map<std::string, std::string>{{"authorization", "Bearer x"}}));
  EXPECT_EQ(ox.timeout, 3s);

  EXPECT_EQ(settings<DebugExporterConfig>(c.exporters, "debug").verbosity,
            DebugExporterConfig::Verbosity::kDetailed);

  const auto& hc = settings<HealthCheckExtensionConfig>(c.extensions, "health_check");
  EXPECT_EQ(hc.endpoint, "0.0.0.0:13134");
  EXPECT_EQ(hc.path, "/health");

  EXPECT_EQ(c.telemetry.log_level, Telemetry::Level::kDebug);
  EXPECT_EQ(c.telemetry.log_encoding, Telemetry::Encoding::kJson);
  EXPECT_EQ(c.telemetry.metrics_address, "0.0.0.0:9888");
  EXPECT_EQ(c.shutdown_timeout, 45s);
}

TEST(Loader, EnumValues) {
  for (auto [text, want] :
       std::vector<std::pair<std::string, Telemetry::Level>>{{"debug", Telemetry::Level::kDebug},
                                                             {"info", Telemetry::Level::kInfo},
                                                             {"warn", Telemetry::Level::kWarn},
                                                             {"error", Telemetry::Level::kError}}) {
    auto r = load(
        "exporters: {debug: {verbosity: normal}}\n"
        "service:\n  telemetry: {logs: {level: " +
        text +
        "}}\n"
        "  pipelines: {logs: {receivers: [r], exporters: [debug]}}\n"
        "receivers: {otlp/r: {protocols: {grpc: }}}\n");
    // The pipeline says `r`, not `otlp/r`: the enum values themselves raise nothing.
    EXPECT_THAT(
        messages(r),
        ElementsAre("t.yaml:4:34: error: pipeline \"logs\" references receiver \"r\" which is not defined in "
                    "receivers",
                    "t.yaml:5:13: warning: receiver \"otlp/r\" is defined but not used in any pipeline"));
    EXPECT_EQ(r.config.telemetry.log_level, want) << text;
    EXPECT_EQ(settings<DebugExporterConfig>(r.config.exporters, "debug").verbosity,
              DebugExporterConfig::Verbosity::kNormal);
  }
}

// ---------------------------------------------------------------- named instances

TEST(Loader, NamedInstances) {
  auto r = load(R"(
receivers:
  otlp:
    protocols: {grpc: }
  otlp/2:
    protocols:
      http: {endpoint: 127.0.0.1:5318}
exporters:
  elasticsearch/logs:
    endpoint: http://a:9200
  elasticsearch/traces:
    endpoint: http://b:9200
service:
  pipelines:
    logs:
      receivers: [otlp, otlp/2]
      exporters: [elasticsearch/logs]
    traces/main:
      receivers: [otlp/2]
      exporters: [elasticsearch/traces]
)");
  ASSERT_THAT(messages(r), IsEmpty());
  ASSERT_EQ(r.config.receivers.size(), 2u);
  EXPECT_EQ(r.config.receivers[1].id.type, "otlp");
  EXPECT_EQ(r.config.receivers[1].id.name, "2");
  EXPECT_EQ(r.config.receivers[1].id.str(), "otlp/2");
  EXPECT_EQ(settings<OtlpReceiverConfig>(r.config.receivers, "otlp/2").http.endpoint, "127.0.0.1:5318");
  EXPECT_EQ(settings<OtlpReceiverConfig>(r.config.receivers, "otlp").grpc.endpoint, "127.0.0.1:4317");
  EXPECT_THAT(settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/traces").endpoints,
              ElementsAre("http://b:9200"));
  ASSERT_EQ(r.config.pipelines.size(), 2u);
  EXPECT_EQ(r.config.pipelines[1].signal, Signal::Traces);
  EXPECT_EQ(r.config.pipelines[1].name, "main");
}

// ---------------------------------------------------------------- substitution

constexpr std::string_view kEnvConfig = R"(
receivers:
  otlp:
    protocols:
      http:
        endpoint: ${env:HOST}:${PORT}
exporters:
  elasticsearch:
    endpoint: ${env:ES_URL:-http://127.0.0.1:9200}
    api_key: "${env:ES_API_KEY}"
    flush:
      interval: ${FLUSH:-2s}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)";

TEST(Loader, EnvSubstitution) {
  auto r =
      load(kEnvConfig, {{"HOST", "0.0.0.0"}, {"PORT", "9999"}, {"ES_API_KEY", "secret"}, {"FLUSH", "250ms"}});
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(settings<OtlpReceiverConfig>(r.config.receivers, "otlp").http.endpoint, "0.0.0.0:9999");
  const auto& es = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_THAT(es.endpoints, ElementsAre("http://127.0.0.1:9200"));  // the default
  EXPECT_EQ(es.api_key, "secret");
  EXPECT_EQ(es.flush.interval, 250ms);  // substituted values are parsed like literal ones
}

TEST(Loader, EnvSubstitutionDefaultsAndOverrides) {
  auto r =
      load(kEnvConfig, {{"HOST", "h"}, {"PORT", "1"}, {"ES_API_KEY", "k"}, {"ES_URL", "https://es:443"}});
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& es = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_THAT(es.endpoints, ElementsAre("https://es:443"));
  EXPECT_EQ(es.flush.interval, 2s);
}

TEST(Loader, EnvSubstitutionMissingVariables) {
  auto r = load(kEnvConfig, {{"PORT", "x"}, {"FLUSH", "soon"}});
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:5:19: error: receivers.otlp.protocols.http.endpoint: environment variable \"HOST\" "
          "is not set (write ${HOST:-default} to give a default)",
          "t.yaml:9:14: error: exporters.elasticsearch.api_key: environment variable \"ES_API_KEY\" is "
          "not set (write ${ES_API_KEY:-default} to give a default)",
          "t.yaml:11:17: error: exporters.elasticsearch.flush.interval: invalid duration \"soon\": "
          "expected a number (e.g. \"200ms\", \"1s\", \"1m30s\")"));
  EXPECT_FALSE(r.ok());
}

// ---------------------------------------------------------------- problems

// The smallest valid service section, appended to component-level error tests.
constexpr std::string_view kService = R"(service:
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)";

LoadResult load_with_service(std::string_view components) {
  std::string text(components);
  if (!text.empty() && text.front() == '\n') text.erase(0, 1);
  text += kService;
  return load(text);
}

TEST(Problems, UnknownKeys) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols:
      grpc:
        endpont: 0.0.0.0:4317
      htp:
exporters:
  debug:
    verbose: true
  elasticsearch:
    endpoint: http://x:9200
    flush: {byte: 1}
    sending_queue: {enable: true}
extensions:
  health_check: {endpoint: 127.0.0.1:1, pth: /}
color: blue
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:5:9: error: unknown key \"endpont\" in receivers.otlp.protocols.grpc (did you mean "
          "\"endpoint\"?)",
          "t.yaml:6:7: error: unknown key \"htp\" in receivers.otlp.protocols (did you mean \"http\"?)",
          "t.yaml:9:5: error: unknown key \"verbose\" in exporters.debug",
          "t.yaml:12:13: error: unknown key \"byte\" in exporters.elasticsearch.flush (did you mean "
          "\"bytes\"?)",
          "t.yaml:13:21: error: unknown key \"enable\" in exporters.elasticsearch.sending_queue (did you "
          "mean \"enabled\"?)",
          "t.yaml:15:41: error: unknown key \"pth\" in extensions.health_check (did you mean \"path\"?)",
          "t.yaml:16:1: error: unknown key \"color\" in the config",
          "t.yaml:10:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline",
          "t.yaml:15:3: warning: extension \"health_check\" is defined but not used in service.extensions"));
}

TEST(Problems, WrongTypes) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols:
      grpc: {max_recv_msg_size_mib: lots}
      http: {cors: {allowed_origins: "*"}, endpoint: [a]}
processors:
  batch:
    send_batch_size: -1
    timeout: 5
  memory_limiter: [1]
exporters:
  debug:
    verbosity: loud
  elasticsearch:
    endpoints: [http://x:9200]
    retry: {enabled: yes, retry_on_status: [429, 600]}
    compression_params: {level: 10}
    headers: [a]
    num_workers: 2000
    tls: true
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:4:37: error: receivers.otlp.protocols.grpc.max_recv_msg_size_mib: expected an integer from "
          "0 to 2047, got \"lots\"",
          "t.yaml:5:38: error: receivers.otlp.protocols.http.cors.allowed_origins: expected a list",
          "t.yaml:5:54: error: receivers.otlp.protocols.http.endpoint: expected a scalar value",
          "t.yaml:8:22: error: processors.batch.send_batch_size: expected a non-negative integer, got \"-1\"",
          "t.yaml:9:14: error: processors.batch.timeout: invalid duration \"5\": missing unit (one of ns, "
          "us, ms, s, m, h)",
          "t.yaml:10:3: error: processors.memory_limiter: one of limit_mib or limit_percentage must be set",
          "t.yaml:10:19: error: processors.memory_limiter: expected a mapping",
          "t.yaml:10:19: error: processors.memory_limiter: check_interval must be greater than 0",
          "t.yaml:13:16: error: exporters.debug.verbosity: invalid value \"loud\" (expected one of: basic, "
          "normal, detailed)",
          "t.yaml:16:22: error: exporters.elasticsearch.retry.enabled: expected true or false, got \"yes\"",
          "t.yaml:16:50: error: exporters.elasticsearch.retry.retry_on_status: expected an integer from 0 to "
          "599, got \"600\"",
          "t.yaml:17:33: error: exporters.elasticsearch.compression_params.level: expected an integer from 0 "
          "to 9, got \"10\"",
          "t.yaml:18:14: error: exporters.elasticsearch.headers: expected a mapping",
          "t.yaml:19:18: error: exporters.elasticsearch.num_workers: expected an integer from 0 to 1024, got "
          "\"2000\"",
          "t.yaml:20:10: error: exporters.elasticsearch.tls: expected a mapping",
          "t.yaml:7:3: warning: processor \"batch\" is defined but not used in any pipeline",
          "t.yaml:10:3: warning: processor \"memory_limiter\" is defined but not used in any pipeline",
          "t.yaml:14:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline"));
}

TEST(Problems, BadDurationsAndSizes) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols:
      http: {max_request_body_size: 20 megs}
exporters:
  debug:
  elasticsearch:
    endpoint: http://x:9200
    timeout: -5s
    flush: {interval: 1 minute, bytes: 5XB}
    retry: {initial_interval: 10s, max_interval: 1s}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:4:37: error: receivers.otlp.protocols.http.max_request_body_size: invalid size "
                  "\"20 megs\": unknown unit \"megs\" (one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)",
                  "t.yaml:9:14: error: exporters.elasticsearch.timeout: invalid duration \"-5s\": must not "
                  "be negative",
                  "t.yaml:10:23: error: exporters.elasticsearch.flush.interval: invalid duration \"1 "
                  "minute\": unknown unit \" minute\" (one of ns, us, ms, s, m, h)",
                  "t.yaml:10:40: error: exporters.elasticsearch.flush.bytes: invalid size \"5XB\": unknown "
                  "unit \"XB\" (one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)",
                  "t.yaml:11:50: error: exporters.elasticsearch.retry: max_interval must not be smaller than "
                  "initial_interval",
                  "t.yaml:7:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline"));
}

// Endpoints `tern run` refused when it built the exporter (or could never reach), and headers
// that made a malformed request, were "valid" for `tern validate`.
// The Collector's other ways to name the cluster: an Elastic Cloud ID, and
// $ELASTICSEARCH_URL when no endpoint is configured; and its deprecated keys.
TEST(Problems, ElasticsearchCloudIdEnvironmentUrlAndDeprecatedKeys) {
  const std::string head = R"(
receivers:
  otlp:
    protocols: {grpc: }
exporters:
  elasticsearch:
)";
  const std::string tail = R"(
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)";
  const auto es = [](const LoadResult& r) {
    return r.config.exporters[0].settings<ElasticsearchExporterConfig>();
  };
  // "my-deployment:" + base64("us-east-1.aws.found.io:9243$es-uuid$kibana-uuid")
  auto r = load(
      head +
      "    cloudid: my-deployment:dXMtZWFzdC0xLmF3cy5mb3VuZC5pbzo5MjQzJGVzLXV1aWQka2liYW5hLXV1aWQ=" + tail);
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(es(r).endpoints, std::vector<std::string>{"https://es-uuid.us-east-1.aws.found.io:9243"});
  // base64("host$es") without a Kibana id; padding "=="
  r = load(head + "    cloudid: x:aG9zdCRlcw==" + tail);
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(es(r).endpoints, std::vector<std::string>{"https://es.host"});
  for (const std::string bad :
       {"no-colon", "x:!!!!", "x:aG9zdA==" /* "host": no $ */, "x:aG9zdCQ=" /* "host$" */}) {
    r = load(head + "    cloudid: \"" + bad + "\"" + tail);
    ASSERT_EQ(messages(r).size(), 1u) << bad;
    EXPECT_THAT(messages(r)[0], HasSubstr("exporters.elasticsearch.cloudid: not an Elastic Cloud ID")) << bad;
  }
  r = load(head + "    endpoint: http://x:9200\n    cloudid: x:aG9zdCRlcw==" + tail);
  EXPECT_THAT(messages(r), ElementsAre(HasSubstr("set endpoint, endpoints or cloudid, not more")));

  r = load(head + "    flush: {interval: 1s}" + tail,
           {{"ELASTICSEARCH_URL", "http://a:9200, https://b:9243"}});
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(es(r).endpoints, (std::vector<std::string>{"http://a:9200", "https://b:9243"}));
  r = load(head + "    flush: {interval: 1s}" + tail, {{"ELASTICSEARCH_URL", "a:9200"}});
  EXPECT_THAT(messages(r),
              ElementsAre(HasSubstr("($ELASTICSEARCH_URL): \"a:9200\" must start with http://")));
  r = load(head + "    endpoint: http://x:9200" + tail, {{"ELASTICSEARCH_URL", "http://ignored:9200"}});
  EXPECT_EQ(es(r).endpoints, std::vector<std::string>{"http://x:9200"});

  r = load(head +
           "    endpoint: http://x:9200\n    index: logs-old-default\n    logs_index: logs-new-default\n    "
           "retry: {max_requests: 4}" +
           tail);
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          HasSubstr("exporters.elasticsearch.index: deprecated (as in the Collector): use logs_index"),
          HasSubstr("retry.max_requests: deprecated (as in the Collector): use max_retries")));
  EXPECT_EQ(es(r).logs_index, "logs-old-default");  // the Collector's index wins over logs_index
  EXPECT_EQ(es(r).retry.max_retries, 3u);
  EXPECT_TRUE(es(r).retry.enabled);
  // A warning about the index it set names `index`, where it is written.
  r = load(head + "    endpoint: http://x:9200\n    index: foo\n    logs_index: bar" + tail);
  EXPECT_THAT(messages(r),
              Contains(HasSubstr(
                  "t.yaml:7:12: warning: exporters.elasticsearch.index: \"foo\" must be a data stream")));
  r = load(head + "    endpoint: http://x:9200\n    retry: {max_requests: 1}" + tail);
  EXPECT_FALSE(es(r).retry.enabled);  // one request, no retry (max_retries 0 would be no limit)
  r = load(head + "    endpoint: http://x:9200\n    retry: {max_requests: 2, max_retries: 5}" + tail);
  EXPECT_THAT(messages(r), Contains(HasSubstr("set max_retries or max_requests, not both")));
}

TEST(Problems, ElasticsearchEndpointsAndHeadersTheExporterCannotUse) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {http: }
exporters:
  debug:
  elasticsearch/a:
    endpoint: http://user:pw@x:9200
  elasticsearch/b:
    endpoints: [http://x:99999, "http://[::1", https://x:9200/prefix]
  elasticsearch/c:
    endpoint: http://x:9200
    headers: {Bad Header: x, X-Ok: "a\r\nInjected: 1", X-Fine: ok}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:7:15: error: exporters.elasticsearch/a.endpoint: \"http://user:pw@x:9200\": credentials in "
          "the URL are not supported (set user and password)",
          "t.yaml:9:17: error: exporters.elasticsearch/b.endpoints[0]: port \"99999\" is not a number "
          "1-65535, got \"http://x:99999\"",
          "t.yaml:9:33: error: exporters.elasticsearch/b.endpoints[1]: an IPv6 address without its closing "
          "']', got \"http://[::1\"",
          "t.yaml:12:14: error: exporters.elasticsearch/c.headers: header \"Bad Header\": a header name "
          "cannot hold ' '",
          "t.yaml:12:14: error: exporters.elasticsearch/c.headers: header \"X-Ok\": its value cannot hold "
          "the byte 13",
          "t.yaml:6:3: warning: exporter \"elasticsearch/a\" is defined but not used in any pipeline",
          "t.yaml:8:3: warning: exporter \"elasticsearch/b\" is defined but not used in any pipeline",
          "t.yaml:10:3: warning: exporter \"elasticsearch/c\" is defined but not used in any pipeline"));
}

// An Elasticsearch URL's query goes with every bulk request, as the Collector sends the
// first endpoint's; the endpoints are kept without it (the exporter's parse_endpoint would
// read "9200?pretty" as the port). A fragment, bytes a query cannot carry and the
// parameters the exporter sets itself are refused.
TEST(Loader, ElasticsearchEndpointQueryGoesWithEveryBulkRequest) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {http: }
exporters:
  debug:
  elasticsearch/q:
    endpoints: ["http://a:9200/p?refresh=false&timeout=30s", "http://b:9200?other=1"]
    include_source_on_error: false
  elasticsearch/unset:
    endpoint: http://a:9200?
    include_source_on_error:
)");
  EXPECT_THAT(errors(r), IsEmpty());
  EXPECT_THAT(messages(r), Contains(HasSubstr("warning: exporters.elasticsearch/q: endpoint 1 has the query "
                                              "\"other=1\", the first one \"refresh=false&timeout=30s\"")));
  const auto& q = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/q");
  EXPECT_THAT(q.endpoints, ElementsAre("http://a:9200/p", "http://b:9200"));
  EXPECT_EQ(q.bulk_query, "refresh=false&timeout=30s");
  EXPECT_EQ(q.include_source_on_error, std::optional<bool>(false));
  const auto& unset = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/unset");
  EXPECT_THAT(unset.endpoints, ElementsAre("http://a:9200"));
  EXPECT_EQ(unset.bulk_query, "");
  EXPECT_EQ(unset.include_source_on_error, std::nullopt);
}

TEST(Problems, ElasticsearchEndpointFragmentsAndQueriesTheExporterCannotSend) {
  const std::pair<std::string, std::string> cases[] = {
      {"http://x:9200/prefix#frag", "a fragment is not supported"},
      {"http://x:9200?filter_path=took", "the query parameter filter_path is set by the exporter"},
      {"http://x:9200?a=1&pipeline=p",
       "the query parameter pipeline is set by the exporter: set the pipeline key"},
      {"http://x:9200?q=\"a\"", "'\"' cannot be in a URL query"},
      {"http://x:9200?a=%zz", "'%' must start a percent-escape of two hex digits"},
      {"http://x:9200?a=%", "'%' must start a percent-escape of two hex digits"},
      {"http://x:9200?filter%5Fpath=took", "the query parameter filter_path is set by the exporter"},
      {"http://x:9200?format=yaml", "the query parameter format must be json"},
      {"http://x:9200?format=json&a=%41", ""},
      {"https://x?u=a@b", ""},  // '@' in a query is a query's byte, not credentials
  };
  for (const auto& [url, why] : cases) {
    auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {http: }
exporters:
  debug:
  elasticsearch/q:
    endpoint: ')" + url + "'\n");
    if (why.empty())
      EXPECT_THAT(errors(r), IsEmpty()) << url;
    else
      EXPECT_THAT(errors(r),
                  Contains(HasSubstr("error: exporters.elasticsearch/q.endpoint: \"" + url + "\": " + why)))
          << url;
  }
}

TEST(Problems, MissingComponentsAndSignals) {
  auto r = load(R"(
receivers:
  otlp:
    protocols: {grpc: }
  filelog:
    include: [/tmp/*.log]
processors:
  batch:
exporters:
  debug:
  elasticsearch:
    endpoint: http://x:9200
extensions:
  health_check:
service:
  extensions: [health_check, healthcheck, health_check]
  pipelines:
    traces:
      receivers: [otlp, filelog, otlp/3]
      processors: [batch, batch, bacth]
      exporters: [debug, elasticsearch/x]
    metrics:
      receivers: [otlp]
    logs:
      exporters: [debug]
    logs/empty:
      receivers: []
      exporters: []
    logs/:
      receivers: [otlp]
    event:
      receivers: [otlp]
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:15:30: error: service.extensions references extension \"healthcheck\" which is not defined "
          "in extensions (did you mean \"health_check\"?)",
          "t.yaml:15:43: error: extension \"health_check\" is listed twice in service.extensions",
          "t.yaml:18:25: error: receiver \"filelog\" does not support traces (pipeline \"traces\")",
          "t.yaml:18:34: error: pipeline \"traces\" references receiver \"otlp/3\" which is not defined in "
          "receivers (did you mean \"otlp\"?)",
          "t.yaml:19:27: error: processor \"batch\" is listed twice in pipeline \"traces\"",
          "t.yaml:19:34: error: pipeline \"traces\" references processor \"bacth\" which is not defined in "
          "processors (did you mean \"batch\"?)",
          "t.yaml:20:26: error: pipeline \"traces\" references exporter \"elasticsearch/x\" which is not "
          "defined in exporters (did you mean \"elasticsearch\"?)",
          "t.yaml:21:5: error: pipeline \"metrics\" has no exporters",
          "t.yaml:23:5: error: pipeline \"logs\" has no receivers",
          "t.yaml:25:5: error: pipeline \"logs/empty\" has no receivers",
          "t.yaml:25:5: error: pipeline \"logs/empty\" has no exporters",
          "t.yaml:28:5: error: invalid pipeline id \"logs/\" (expected signal or signal/name)",
          "t.yaml:30:5: error: unknown pipeline signal type \"event\" in service.pipelines (expected logs, "
          "traces or metrics)",
          "t.yaml:10:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline"));
}

TEST(Problems, BodyMapExportersTakeLogsOnly) {
  const std::string config = R"(
receivers:
  otlp:
    protocols: {grpc: }
exporters:
  elasticsearch:
    endpoint: http://x:9200
    mapping: {mode: bodymap}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)";
  auto r = load(config);
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(r.config.exporters[0].settings<ElasticsearchExporterConfig>().mapping_mode, "bodymap");
  r = load(config + "    traces: {receivers: [otlp], exporters: [elasticsearch]}\n" +
           "    metrics: {receivers: [otlp], exporters: [elasticsearch]}\n");
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:11:45: error: exporter \"elasticsearch\" does not support traces (pipeline "
                  "\"traces\"): mapping.mode bodymap encodes logs only",
                  "t.yaml:12:46: error: exporter \"elasticsearch\" does not support metrics (pipeline "
                  "\"metrics\"): mapping.mode bodymap encodes logs only"));
}

TEST(Problems, NoneRawAndEcsExportersTakeLogsAndTraces) {
  for (const std::string mode : {"none", "raw", "ecs"}) {
    const std::string config = R"(
receivers:
  otlp:
    protocols: {grpc: }
exporters:
  elasticsearch:
    endpoint: http://x:9200
    mapping: {mode: )" + mode + R"(}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
    traces: {receivers: [otlp], exporters: [elasticsearch]}
)";
    auto r = load(config);
    ASSERT_THAT(messages(r), IsEmpty());
    EXPECT_EQ(r.config.exporters[0].settings<ElasticsearchExporterConfig>().mapping_mode, mode);
    r = load(config + "    metrics: {receivers: [otlp], exporters: [elasticsearch]}\n");
    EXPECT_THAT(messages(r), ElementsAre("t.yaml:12:46: error: exporter \"elasticsearch\" does not support "
                                         "metrics (pipeline \"metrics\"): mapping.mode " +
                                         mode + " encodes logs and traces only"));
  }
}

TEST(Problems, MappingAllowedModesAreKnownModesIncludingTheConfiguredOne) {
  const std::string head = R"(
receivers:
  otlp:
    protocols: {grpc: }
exporters:
  elasticsearch:
    endpoint: http://x:9200
)";
  const std::string tail = R"(
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)";
  auto r = load(head + "    mapping: {mode: none, allowed_modes: [none, otel]}" + tail);
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(r.config.exporters[0].settings<ElasticsearchExporterConfig>().mapping_allowed_modes,
            (std::vector<std::string>{"none", "otel"}));
  // Names in any case, "" and "no" for none, as the Collector reads them; kept canonical.
  r = load(head + "    mapping: {mode: ECS, allowed_modes: [Ecs, OTel, no, \"\"]}" + tail);
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& es = r.config.exporters[0].settings<ElasticsearchExporterConfig>();
  EXPECT_EQ(es.mapping_mode, "ecs");
  EXPECT_EQ(es.mapping_allowed_modes, (std::vector<std::string>{"ecs", "otel", "none", "none"}));
  r = load(head + "    mapping: {mode: \"\"}" + tail);
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(r.config.exporters[0].settings<ElasticsearchExporterConfig>().mapping_mode, "none");
  r = load(head + "    mapping: {mode: }" + tail);  // null: the default
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(r.config.exporters[0].settings<ElasticsearchExporterConfig>().mapping_mode, "otel");
  r = load(head + "    mapping: {allowed_modes: [otel, ecs, logsdb, bodymapp]}" + tail);
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:7:30: error: exporters.elasticsearch.mapping.allowed_modes: invalid value \"logsdb\" "
          "(expected one of: otel, bodymap, none, raw, ecs)",
          "t.yaml:7:30: error: exporters.elasticsearch.mapping.allowed_modes: invalid value "
          "\"bodymapp\" (expected one of: otel, bodymap, none, raw, ecs) (did you mean \"bodymap\"?)"));
  r = load(head + "    mapping: {allowed_modes: [bodymap]}" + tail);
  EXPECT_THAT(messages(r),
              ElementsAre("t.yaml:7:30: error: exporters.elasticsearch.mapping: mode \"otel\" is not "
                          "one of allowed_modes (bodymap)"));
}

TEST(Problems, UnusedComponentsAreWarningsOnly) {
  auto r = load(R"(
receivers:
  otlp:
    protocols: {grpc: }
  otlp/spare:
    protocols: {http: }
processors:
  batch:
exporters:
  debug:
  debug/2:
extensions:
  health_check:
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:4:3: warning: receiver \"otlp/spare\" is defined but not used in any pipeline",
          "t.yaml:7:3: warning: processor \"batch\" is defined but not used in any pipeline",
          "t.yaml:10:3: warning: exporter \"debug/2\" is defined but not used in any pipeline",
          "t.yaml:12:3: warning: extension \"health_check\" is defined but not used in service.extensions"));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.diagnostics.error_count(), 0);
  EXPECT_EQ(r.diagnostics.warning_count(), 4);
}

TEST(Problems, UnknownComponentTypesAndIds) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {grpc: }
  otpl/x:
    protocols: {grpc: }
  /x:
processors:
  batch/:
exporters:
  debug:
  kafka:
extensions:
  pprof:
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:4:3: error: unknown receiver type \"otpl\" in receivers (known types: otlp, filelog) (did "
          "you mean \"otlp\"?)",
          "t.yaml:6:3: error: invalid receiver id \"/x\" (expected type or type/name)",
          "t.yaml:8:3: error: invalid processor id \"batch/\" (expected type or type/name)",
          "t.yaml:11:3: error: unknown exporter type \"kafka\" in exporters (known types: elasticsearch, "
          "otlp, otlphttp, debug)",
          "t.yaml:13:3: error: unknown extension type \"pprof\" in extensions (known types: health_check, "
          "file_storage)"));
}

TEST(Problems, ComponentRules) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols:
      grpc: {endpoint: "4317"}
      http: {endpoint: "http://0.0.0.0:4318"}
  otlp/none:
    protocols:
  filelog:
    max_log_size: 0
    poll_interval: 0s
    fingerprint_size: 0
    encoding: latin1
  filelog/2:
    include: []
processors:
  batch: {send_batch_size: 100, send_batch_max_size: 10}
  memory_limiter:
    check_interval: 1s
    limit_mib: 100
    spike_limit_mib: 100
    limit_percentage: 50
    spike_limit_percentage: 60
  attributes:
    actions:
      - {key: a}
      - {value: x, action: insert}
      - {key: b, action: upsert}
      - {key: c, action: remove, value: y}
  resource:
exporters:
  debug:
  elasticsearch:
  elasticsearch/2:
    endpoint: localhost:9200
    endpoints: ["http://", https://ok:9200]
    user: ""
    password: p
    tls: {cert_file: /c.pem}
    sending_queue: {enabled: true, queue_size: 0}
  elasticsearch/3:
    endpoints: []
    user: u
    api_key: k
    mapping: {mode: logsdb}
    sending_queue: {enabled: true, type: disk, directory: /q, max_size: 1MB, segment_size: 2MB, sync: interval,
                    sync_interval: 0s}
  otlp:
extensions:
  health_check: {endpoint: localhost, path: health}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:4:24: error: receivers.otlp.protocols.grpc.endpoint: expected host:port (e.g. "
          "\"127.0.0.1:4318\"), got \"4317\"",
          "t.yaml:5:24: error: receivers.otlp.protocols.http.endpoint: expected host:port (e.g. "
          "\"127.0.0.1:4318\"), got \"http://0.0.0.0:4318\"",
          "t.yaml:6:3: error: receivers.otlp/none: at least one protocol (grpc or http) must be configured "
          "under protocols",
          "t.yaml:8:3: error: receivers.filelog: include must list at least one file pattern",
          "t.yaml:9:19: error: receivers.filelog: max_log_size must be greater than 0",
          "t.yaml:10:20: error: receivers.filelog: poll_interval must be greater than 0",
          "t.yaml:11:23: error: receivers.filelog: fingerprint_size must be greater than 0",
          "t.yaml:12:15: error: receivers.filelog.encoding: invalid value \"latin1\" (expected one of: "
          "utf-8, ascii, nop)",
          "t.yaml:14:14: error: receivers.filelog/2: include must list at least one file pattern",
          "t.yaml:16:54: error: processors.batch: send_batch_max_size must be 0 or at least send_batch_size",
          "t.yaml:20:22: error: processors.memory_limiter: spike_limit_mib must be smaller than limit_mib",
          "t.yaml:22:29: error: processors.memory_limiter: spike_limit_percentage must be smaller than "
          "limit_percentage",
          "t.yaml:25:9: error: processors.attributes.actions[0]: action is required",
          "t.yaml:26:9: error: processors.attributes.actions[1]: key is required",
          "t.yaml:27:9: error: processors.attributes.actions[2]: value (or from_attribute) is required for "
          "this "
          "action",
          "t.yaml:28:26: error: processors.attributes.actions[3].action: invalid value \"remove\" (expected "
          "one of: insert, update, upsert, delete, convert)",
          "t.yaml:29:3: error: processors.resource: attributes must list at least one action",
          "t.yaml:32:3: error: exporters.elasticsearch: endpoint, endpoints or cloudid must be set (or "
          "$ELASTICSEARCH_URL)",
          "t.yaml:34:15: error: exporters.elasticsearch/2.endpoint: \"localhost:9200\" must start with "
          "http:// or https://",
          "t.yaml:34:15: error: exporters.elasticsearch/2: set endpoint or endpoints, not both",
          "t.yaml:35:17: error: exporters.elasticsearch/2.endpoints[0]: \"http://\" has no host",
          "t.yaml:37:15: error: exporters.elasticsearch/2: password is set but user is not",
          "t.yaml:38:10: error: exporters.elasticsearch/2.tls: cert_file and key_file must be set together",
          "t.yaml:39:48: error: exporters.elasticsearch/2.sending_queue: queue_size must be greater than 0",
          "t.yaml:41:16: error: exporters.elasticsearch/3: endpoint or endpoints must not be empty",
          "t.yaml:43:14: error: exporters.elasticsearch/3: set user/password or api_key, not both",
          "t.yaml:44:21: error: exporters.elasticsearch/3.mapping.mode: invalid value \"logsdb\" (expected "
          "one "
          "of: otel, bodymap, none, raw, ecs)",
          "t.yaml:45:92: error: exporters.elasticsearch/3.sending_queue: segment_size must not be larger "
          "than max_size",
          "t.yaml:46:36: error: exporters.elasticsearch/3.sending_queue: sync_interval must be greater than "
          "0",
          "t.yaml:47:3: error: exporters.otlp: endpoint must be set",
          "t.yaml:49:28: error: extensions.health_check.endpoint: expected host:port (e.g. "
          "\"127.0.0.1:4318\"), got \"localhost\"",
          "t.yaml:49:45: error: extensions.health_check.path: path must start with /"));
}

TEST(Problems, FilelogBatchBoundsMustBePositive) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {grpc: }
  filelog:
    include: [/var/log/a.log]
    max_batch_lines: 0
    max_batch_size: 0
exporters:
  debug:
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:6:22: error: receivers.filelog: max_batch_lines must be greater than 0",
                          "t.yaml:7:21: error: receivers.filelog: max_batch_size must be greater than 0"));
}

TEST(Problems, DuplicateKeys) {
  auto r = load_with_service(R"(
receivers:
  otlp:
    protocols: {grpc: }
exporters:
  debug:
  debug:
    verbosity: basic
)");
  EXPECT_THAT(messages(r), ElementsAre("t.yaml:6:3: error: duplicate key \"debug\" in exporters"));
}

TEST(Problems, ServiceSection) {
  EXPECT_THAT(messages(load("receivers:\n  otlp: {protocols: {grpc: }}\n")),
              ElementsAre("t.yaml:1:1: error: the config has no service section (it defines the pipelines)",
                          "t.yaml:2:3: warning: receiver \"otlp\" is defined but not used in any pipeline"));
  EXPECT_THAT(messages(load("service:\n  pipelines:\n")),
              ElementsAre("t.yaml:2:3: error: service.pipelines must define at least one pipeline"));
  EXPECT_THAT(
      messages(load("service:\n  extensions: health_check\n  pipelines: {}\n  shutdown_timeout: 1\n")),
      ElementsAre(
          "t.yaml:2:15: error: service.extensions: expected a list",
          "t.yaml:3:14: error: service.pipelines must define at least one pipeline",
          "t.yaml:4:21: error: service.shutdown_timeout: invalid duration \"1\": missing unit (one of "
          "ns, us, ms, s, m, h)"));
  EXPECT_THAT(
      messages(load(R"(
service:
  telemetry:
    logs: {level: verbose, encoding: text, output: stderr}
    metrics: {address: ":8888x"}
  pipelines:
    logs: {}
)")),
      ElementsAre("t.yaml:3:19: error: service.telemetry.logs.level: invalid value \"verbose\" (expected one "
                  "of: debug, info, warn, error)",
                  "t.yaml:3:38: error: service.telemetry.logs.encoding: invalid value \"text\" (expected one "
                  "of: console, json)",
                  "t.yaml:3:44: error: unknown key \"output\" in service.telemetry.logs",
                  "t.yaml:4:24: error: service.telemetry.metrics.address: expected host:port (e.g. "
                  "\"127.0.0.1:4318\"), got \":8888x\"",
                  "t.yaml:6:5: error: pipeline \"logs\" has no receivers",
                  "t.yaml:6:5: error: pipeline \"logs\" has no exporters"));
}

TEST(Problems, DocumentShape) {
  EXPECT_THAT(messages(load("")), ElementsAre("t.yaml: error: the config is empty"));
  EXPECT_THAT(messages(load("# only a comment\n")), ElementsAre("t.yaml: error: the config is empty"));
  EXPECT_THAT(messages(load("hello\n")), ElementsAre("t.yaml:1:1: error: the config: expected a mapping"));
  EXPECT_THAT(messages(load("- a\n- b\n")), ElementsAre("t.yaml:1:1: error: the config: expected a mapping"));
  EXPECT_THAT(messages(load("receivers: [otlp]\nservice: {pipelines: {logs: {}}}\n")),
              ElementsAre("t.yaml:1:12: error: receivers: expected a mapping",
                          "t.yaml:2:23: error: pipeline \"logs\" has no receivers",
                          "t.yaml:2:23: error: pipeline \"logs\" has no exporters"));
}

TEST(Problems, YamlSyntax) {
  EXPECT_THAT(messages(load("receivers:\n  otlp: [1,\n")),
              ElementsAre("t.yaml:3:1: error: YAML syntax error: end of sequence flow not found"));
  EXPECT_THAT(messages(load("receivers:\n\totlp: {}\n")),
              ElementsAre("t.yaml:2:6: error: YAML syntax error: illegal map value"));
  EXPECT_THAT(messages(load("a: b: c\n")),
              ElementsAre("t.yaml:1:5: error: YAML syntax error: illegal map value"));
  EXPECT_THAT(messages(load("a: \"x\\q\"\n")),
              ElementsAre("t.yaml:1:8: error: YAML syntax error: unknown escape character: q"));
  EXPECT_THAT(messages(load("a: *nope\n")),
              ElementsAre("t.yaml:1:4: error: YAML syntax error: the referenced anchor is not defined"));
}

TEST(Loader, AnchorsAndAliasesWork) {
  auto r = load(R"(
x-common: &es
  endpoint: http://127.0.0.1:9200
receivers:
  otlp: {protocols: {grpc: }}
exporters:
  elasticsearch: *es
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  // Unknown top-level keys are errors even when they only hold anchors: there is no
  // extension-key convention in Tern's config.
  EXPECT_THAT(messages(r), ElementsAre("t.yaml:1:1: error: unknown key \"x-common\" in the config"));
  EXPECT_THAT(settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch").endpoints,
              ElementsAre("http://127.0.0.1:9200"));
}

TEST(Loader, Files) {
  auto r = load_config_file(TERN_SOURCE_DIR "/tests/config/data/does-not-exist.yaml");
  EXPECT_THAT(messages(r),
              ElementsAre(TERN_SOURCE_DIR
                          "/tests/config/data/does-not-exist.yaml: error: cannot open the config file: No "
                          "such file or directory"));
  std::string bad = TERN_SOURCE_DIR "/tests/config/data/invalid.yaml";
  auto b = load_config_file(bad, [](std::string_view) { return std::nullopt; });
  EXPECT_THAT(
      messages(b),
      ElementsAre(bad + ":3:3: error: exporters.elasticsearch: endpoint, endpoints or cloudid must be set "
                        "(or $ELASTICSEARCH_URL)",
                  bad + ":4:5: error: unknown key \"endpont\" in exporters.elasticsearch (did you mean "
                        "\"endpoint\"?)",
                  bad +
                      ":9:43: error: pipeline \"logs\" references exporter \"elastic\" which is not defined "
                      "in exporters",
                  bad + ":3:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline"));
}

TEST(Loader, OtlpReceiverTls) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      grpc:
        tls:
          cert_file: /etc/tern/server.crt
          key_file: /etc/tern/server.key
          client_ca_file: /etc/tern/clients-ca.crt
      http:
        tls: {cert_file: /etc/tern/http.crt, key_file: /etc/tern/http.key}
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& otlp = settings<OtlpReceiverConfig>(r.config.receivers, "otlp");
  EXPECT_EQ(otlp.grpc.tls.cert_file, "/etc/tern/server.crt");
  EXPECT_EQ(otlp.grpc.tls.key_file, "/etc/tern/server.key");
  EXPECT_EQ(otlp.grpc.tls.client_ca_file, "/etc/tern/clients-ca.crt");
  EXPECT_EQ(otlp.http.tls.cert_file, "/etc/tern/http.crt");
  EXPECT_EQ(otlp.http.tls.key_file, "/etc/tern/http.key");
  EXPECT_EQ(otlp.http.tls.client_ca_file, "");

  auto plain = load(
      "receivers: {otlp: {protocols: {http: }}}\nexporters: {debug: }\n"
      "service: {pipelines: {logs: {receivers: [otlp], exporters: [debug]}}}\n");
  ASSERT_THAT(messages(plain), IsEmpty());
  EXPECT_EQ(settings<OtlpReceiverConfig>(plain.config.receivers, "otlp").http.tls.cert_file, "");
}

TEST(Problems, OtlpReceiverTlsNeedsCertAndKey) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      http:
        tls:
          cert_file: /etc/tern/server.crt
      grpc:
        tls: {key_file: /etc/tern/server.key, ca_file: /x}
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  // ca_file is a client's key (exporters); a receiver's CA for client certificates is client_ca_file.
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:6:11: error: receivers.otlp.protocols.http.tls: cert_file and key_file are "
                  "required for TLS",
                  "t.yaml:8:14: error: receivers.otlp.protocols.grpc.tls: cert_file and key_file are "
                  "required for TLS",
                  "t.yaml:8:47: error: unknown key \"ca_file\" in receivers.otlp.protocols.grpc.tls"));
}

// `min_version` / `max_version` (the Collector's configtls keys) on every tls block: both
// versions over HTTP, only what gRPC always offers on the gRPC receiver and exporter.
TEST(Loader, TlsVersionBounds) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      grpc:
        tls: {cert_file: /s.crt, key_file: /s.key, min_version: "1.2", max_version: "1.3"}
      http:
        tls: {cert_file: /s.crt, key_file: /s.key, min_version: "1.3"}
exporters:
  elasticsearch:
    endpoint: https://es.example:9200
    tls: {max_version: 1.2}
  otlphttp:
    endpoint: https://collector.example:4318
    tls: {min_version: "1.3", max_version: "1.3"}
  otlp:
    endpoint: collector.example:4317
    tls: {min_version: "1.2"}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, otlphttp, otlp]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  using net::TlsVersion;
  const auto& otlp = settings<OtlpReceiverConfig>(r.config.receivers, "otlp");
  EXPECT_EQ(otlp.grpc.tls.min_version, TlsVersion::k1_2);
  EXPECT_EQ(otlp.grpc.tls.max_version, TlsVersion::k1_3);
  EXPECT_EQ(otlp.http.tls.min_version, TlsVersion::k1_3);
  EXPECT_EQ(otlp.http.tls.max_version, TlsVersion::kDefault);
  const auto& es = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_EQ(es.tls.min_version, TlsVersion::kDefault);
  EXPECT_EQ(es.tls.max_version, TlsVersion::k1_2);
  const auto& oh = settings<OtlpExporterConfig>(r.config.exporters, "otlphttp");
  EXPECT_EQ(oh.tls.min_version, TlsVersion::k1_3);
  EXPECT_EQ(oh.tls.max_version, TlsVersion::k1_3);
  EXPECT_EQ(settings<OtlpExporterConfig>(r.config.exporters, "otlp").tls.min_version, TlsVersion::k1_2);
}

TEST(Problems, TlsVersionBounds) {
  auto r = load(R"(
receivers:
  otlp:
    protocols:
      grpc:
        tls: {cert_file: /s.crt, key_file: /s.key, min_version: "1.3"}
      http:
        tls: {cert_file: /s.crt, key_file: /s.key, min_version: "1.1"}
exporters:
  elasticsearch:
    endpoint: https://es.example:9200
    tls: {min_version: "1.3", max_version: "1.2"}
  otlphttp:
    endpoint: https://collector.example:4318
    tls: {min_version: "TLS13"}
  otlp:
    endpoint: collector.example:4317
    tls: {max_version: "1.2"}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, otlphttp, otlp]}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:5:65: error: receivers.otlp.protocols.grpc.tls.min_version: gRPC always offers TLS 1.2 "
          "and 1.3 (its library cannot narrow that); a single TLS version can be required over OTLP/HTTP "
          "only",
          "t.yaml:7:65: error: receivers.otlp.protocols.http.tls.min_version: TLS 1.1 is not supported: "
          "Tern speaks TLS 1.2 and 1.3",
          "t.yaml:11:44: error: exporters.elasticsearch.tls.max_version: \"1.2\" is below min_version "
          "\"1.3\"",
          "t.yaml:14:24: error: exporters.otlphttp.tls.min_version: invalid value \"TLS13\" (expected one "
          "of: "
          "1.2, 1.3)",
          "t.yaml:17:24: error: exporters.otlp.tls.max_version: gRPC always offers TLS 1.2 and 1.3 (its "
          "library cannot narrow that); a single TLS version can be required over OTLP/HTTP only"));
}

// sending_queue.num_consumers (the Collector's exporterhelper key) is num_workers spelt the
// Collector's way; setting both is an error.
TEST(Loader, ElasticsearchNumConsumersIsNumWorkers) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9200
    sending_queue: {enabled: true, num_consumers: 7, queue_size: 500}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& es = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_EQ(es.num_workers, 7u);
  EXPECT_EQ(es.sending_queue.queue_size, 500u);

  auto both = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9200
    num_workers: 4
    sending_queue: {num_consumers: 7}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  EXPECT_THAT(messages(both),
              ElementsAre("t.yaml:6:36: error: exporters.elasticsearch.sending_queue.num_consumers: set "
                          "num_consumers or num_workers, not both (both are the number of parallel bulk "
                          "senders)"));
}

// The otlp exporters' retry_on_failure and sending_queue (the Collector's exporterhelper
// blocks): read, checked, and Tern's defaults where absent.
TEST(Loader, OtlpExporterRetryAndQueue) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  otlp:
    endpoint: collector.example:4317
    retry_on_failure: {enabled: true, initial_interval: 5s, max_interval: 30s, multiplier: 1.5,
                       max_elapsed_time: 300s, randomization_factor: 0.25}
    sending_queue: {enabled: true, num_consumers: 10, queue_size: 5000}
  otlphttp:
    endpoint: http://127.0.0.1:4318
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlp, otlphttp]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& o = settings<OtlpExporterConfig>(r.config.exporters, "otlp");
  EXPECT_TRUE(o.retry_on_failure.enabled);
  EXPECT_EQ(o.retry_on_failure.initial_interval, 5s);
  EXPECT_EQ(o.retry_on_failure.max_interval, 30s);
  EXPECT_EQ(o.retry_on_failure.multiplier, 1.5);
  EXPECT_EQ(o.retry_on_failure.max_elapsed_time, 300s);
  EXPECT_EQ(o.retry_on_failure.randomization_factor, 0.25);
  EXPECT_EQ(o.sending_queue.num_consumers, 10u);
  EXPECT_EQ(o.sending_queue.queue_size, 5000u);
  const auto& h = settings<OtlpExporterConfig>(r.config.exporters, "otlphttp");
  EXPECT_EQ(h.retry_on_failure.initial_interval, 100ms);
  EXPECT_EQ(h.retry_on_failure.max_elapsed_time, Duration{0});
  EXPECT_EQ(h.retry_on_failure.multiplier, 2.0);
  EXPECT_EQ(h.retry_on_failure.randomization_factor, 0.5);  // the Collector's default
  EXPECT_EQ(h.sending_queue.num_consumers, 4u);
  EXPECT_EQ(h.sending_queue.queue_size, 1000u);
}

TEST(Problems, OtlpExporterRetryAndQueue) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  otlp:
    endpoint: collector.example:4317
    retry_on_failure: {initial_interval: 2s, max_interval: 1s, multiplier: 0.5, randomization_factor: 2}
    sending_queue: {enabled: false, num_consumers: 0, queue_size: 0}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlp]}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:5:60: error: exporters.otlp.retry_on_failure: max_interval must not be smaller than "
          "initial_interval",
          "t.yaml:5:76: error: exporters.otlp.retry_on_failure.multiplier: expected a number from 1 to 100, "
          "got "
          "\"0.5\"",
          "t.yaml:5:103: error: exporters.otlp.retry_on_failure.randomization_factor: expected a number from "
          "0 "
          "to 1, got \"2\"",
          "t.yaml:6:52: error: exporters.otlp.sending_queue: num_consumers must be greater than 0",
          "t.yaml:6:67: error: exporters.otlp.sending_queue: queue_size must be greater than 0",
          "t.yaml:6:30: warning: exporters.otlp.sending_queue: the queue stays on (requests are encoded into "
          "it "
          "as they arrive); queue_size bounds it"));
}

// What `tern run` refuses when it builds the OTLP exporters' clients is an error for `tern
// validate` too, at its place in the file: it said "configuration is valid" for these.
TEST(Problems, OtlpExporterEndpointsHeadersAndTlsFiles) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  otlp/noport: {endpoint: 127.0.0.1}
  otlp/badport: {endpoint: "127.0.0.1:abc"}
  otlp/v6: {endpoint: "[::1]:4317"}
  otlphttp/bigport: {endpoint: "http://127.0.0.1:99999"}
  otlphttp/header: {endpoint: "http://127.0.0.1:4318", headers: {"bad name": x}}
  otlphttp/ca: {endpoint: "https://127.0.0.1:4318", tls: {ca_file: /nonexistent/ca.pem}}
  otlphttp/plain: {endpoint: "http://127.0.0.1:4318", tls: {ca_file: /nonexistent/ca.pem}}
  otlphttp/v6: {endpoint: "http://[::1]", logs_endpoint: "http://127.0.0.1:0/v1/logs"}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlp/noport, otlp/badport, otlp/v6, otlphttp/bigport, otlphttp/header, otlphttp/ca, otlphttp/plain, otlphttp/v6]}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:3:27: error: exporters.otlp/noport.endpoint: no port (expected host:port, e.g. "
          "\"127.0.0.1:4317\"), got \"127.0.0.1\"",
          "t.yaml:4:28: error: exporters.otlp/badport.endpoint: port \"abc\" is not a number 1-65535 "
          "(expected host:port, e.g. \"127.0.0.1:4317\"), got \"127.0.0.1:abc\"",
          "t.yaml:6:32: error: exporters.otlphttp/bigport.endpoint: port \"99999\" is not a number "
          "1-65535, got \"http://127.0.0.1:99999\"",
          "t.yaml:7:65: error: exporters.otlphttp/header.headers: header \"bad name\": a header name "
          "cannot hold ' '",
          "t.yaml:8:68: error: exporters.otlphttp/ca.tls.ca_file: cannot read \"/nonexistent/ca.pem\": No "
          "such file or directory",
          // (otlphttp/plain: an http:// URL never reads its TLS files, as at run time.)
          "t.yaml:10:58: error: exporters.otlphttp/v6.logs_endpoint: port \"0\" is not a number 1-65535, "
          "got \"http://127.0.0.1:0/v1/logs\""));
}

// A directory given as a TLS file opens as an ifstream on Linux but cannot be read: an error
// for `tern validate` as it is at start.
TEST(Problems, OtlpExporterTlsFileThatIsADirectory) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  otlphttp: {endpoint: "https://127.0.0.1:4318", tls: {ca_file: )" +
                dir + R"(}}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlphttp]}
)");
  EXPECT_THAT(messages(r), ElementsAre(HasSubstr("error: exporters.otlphttp.tls.ca_file: cannot read \"" +
                                                 dir + "\": Is a directory")));
}

// The Collector's otlphttp keys for a URL per signal and the body's encoding.
TEST(Loader, OtlpHttpSignalEndpointsAndEncoding) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  otlphttp:
    logs_endpoint: http://a.example:4318/custom/logs
    traces_endpoint: http://a.example:4318/t
    metrics_endpoint: https://b.example/m
    encoding: json
    compression: zstd
  otlphttp/2:
    endpoint: http://a.example:4318
  otlp:
    endpoint: a.example:4317
    encoding: json
    compression: zstd
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [otlphttp, otlphttp/2, otlp]}
)");
  // Only otlphttp's: gRPC always carries protobuf, and its grpc++ has no zstd.
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:13:5: error: unknown key \"encoding\" in exporters.otlp",
                  "t.yaml:14:18: error: exporters.otlp.compression: invalid value \"zstd\" (expected one "
                  "of: gzip, none)"));
  const auto& h = settings<OtlpExporterConfig>(r.config.exporters, "otlphttp");
  EXPECT_EQ(h.logs_endpoint, "http://a.example:4318/custom/logs");
  EXPECT_EQ(h.metrics_endpoint, "https://b.example/m");
  EXPECT_EQ(h.encoding, OtlpExporterConfig::Encoding::kJson);
  EXPECT_EQ(h.compression, Compression::kZstd);
  EXPECT_EQ(settings<OtlpExporterConfig>(r.config.exporters, "otlphttp/2").encoding,
            OtlpExporterConfig::Encoding::kProto);
}

// The resource processor takes its list under `attributes`, as the Collector's does (and
// under `actions`, Tern's first spelling); the attributes processor only under `actions`.
TEST(Loader, ResourceProcessorAttributesList) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
processors:
  resource:
    attributes:
      - {key: deployment.environment, value: production, action: upsert}
      - {key: host.name, action: delete}
  resource/old:
    actions: [{key: a, value: b, action: insert}]
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [otlp], processors: [resource, resource/old], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& a = settings<AttributesProcessorConfig>(r.config.processors, "resource");
  ASSERT_EQ(a.actions.size(), 2u);
  EXPECT_EQ(a.actions[0].key, "deployment.environment");
  EXPECT_EQ(a.actions[0].value, "production");
  EXPECT_EQ(a.actions[1].action, AttributesProcessorConfig::Action::kDelete);
  EXPECT_EQ(settings<AttributesProcessorConfig>(r.config.processors, "resource/old").actions.size(), 1u);

  auto bad = load(R"(
receivers: {otlp: {protocols: {http: }}}
processors:
  resource:
    attributes: [{key: a, value: b, action: insert}]
    actions: [{key: c, value: d, action: insert}]
  resource/empty: {}
  attributes:
    attributes: [{key: a, value: b, action: insert}]
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [otlp], processors: [resource, resource/empty, attributes], exporters: [debug]}
)");
  EXPECT_THAT(
      messages(bad),
      ElementsAre("t.yaml:5:14: error: processors.resource: list the actions under attributes or "
                  "actions, not both",
                  "t.yaml:6:3: error: processors.resource/empty: attributes must list at least one action",
                  "t.yaml:7:3: error: processors.attributes: actions must list at least one action",
                  "t.yaml:8:5: error: unknown key \"attributes\" in processors.attributes"));
}

// logs/metrics/traces_dynamic_index, deprecated no-ops in the Collector: loaded, with a warning.
TEST(Problems, DeprecatedDynamicIndexIsAWarning) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9200
    logs_dynamic_index: {enabled: true}
    traces_dynamic_index:
      enabled: false
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  EXPECT_THAT(
      messages(r),
      ElementsAre(
          "t.yaml:5:25: warning: exporters.elasticsearch.logs_dynamic_index: has no effect (deprecated in "
          "the OpenTelemetry Collector): documents are routed by their data_stream.* or "
          "elasticsearch.index attributes unless a static logs_index/metrics_index/traces_index is set",
          "t.yaml:7:7: warning: exporters.elasticsearch.traces_dynamic_index: has no effect (deprecated "
          "in the OpenTelemetry Collector): documents are routed by their data_stream.* or "
          "elasticsearch.index attributes unless a static logs_index/metrics_index/traces_index is set"));
  EXPECT_TRUE(errors(r).empty());
}

TEST(Problems, LateEncodingWithADiskQueueIsAWarning) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: }}}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:9200
    encoding: late
    sending_queue: {enabled: true, type: disk, directory: /tmp/q}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch]}
)");
  EXPECT_THAT(messages(r), ElementsAre("t.yaml:5:15: warning: exporters.elasticsearch.encoding: late has no "
                                       "effect with a disk queue: its reader loop encodes what it reads from "
                                       "disk (early)"));
  EXPECT_TRUE(errors(r).empty());
}

// A filelog `storage` naming a file_storage extension is that extension's directory; any
// other value is a directory (Tern's form).
TEST(Loader, FilelogStorageFromFileStorageExtension) {
  auto r = load(R"(
receivers:
  filelog: {include: [/var/log/a.log], storage: file_storage/state}
  filelog/plain: {include: [/var/log/b.log], storage: /var/lib/tern}
extensions:
  file_storage/state:
    directory: /var/lib/otelcol/state
    timeout: 1s
  file_storage:
exporters: {debug: }
service:
  extensions: [file_storage/state, file_storage]
  pipelines:
    logs: {receivers: [filelog, filelog/plain], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(settings<FilelogReceiverConfig>(r.config.receivers, "filelog").storage, "/var/lib/otelcol/state");
  EXPECT_EQ(settings<FilelogReceiverConfig>(r.config.receivers, "filelog/plain").storage, "/var/lib/tern");
  EXPECT_EQ(settings<FileStorageExtensionConfig>(r.config.extensions, "file_storage").directory,
            "/var/lib/otelcol/file_storage");
}

// The Collector's persistent queue: an Elasticsearch exporter's sending_queue.storage names a
// file_storage extension and becomes a disk queue in a directory of its own there.
TEST(Loader, ElasticsearchPersistentQueueFromFileStorage) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
extensions:
  file_storage/queue:
    directory: /var/lib/otelcol/queue
exporters:
  elasticsearch:
    endpoints: ["http://127.0.0.1:9200"]
    sending_queue: {storage: file_storage/queue}
  elasticsearch/b:
    endpoints: ["http://127.0.0.1:9200"]
    sending_queue: {storage: file_storage/queue, max_size: 2GiB}
  elasticsearch/off:
    endpoints: ["http://127.0.0.1:9200"]
    sending_queue: {enabled: false, storage: file_storage/queue}
service:
  extensions: [file_storage/queue]
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, elasticsearch/b, elasticsearch/off]}
)");
  ASSERT_THAT(messages(r), IsEmpty());  // the extension is used by the exporters
  using Q = ElasticsearchExporterConfig::SendingQueue;
  const auto& a = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch").sending_queue;
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a.type, Q::Type::kDisk);
  EXPECT_EQ(a.directory, "/var/lib/otelcol/queue/exporter_elasticsearch");
  const auto& b = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/b").sending_queue;
  EXPECT_EQ(b.directory, "/var/lib/otelcol/queue/exporter_elasticsearch_b");
  EXPECT_EQ(b.max_size, 2ull << 30);
  const auto& off =
      settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/off").sending_queue;
  EXPECT_FALSE(off.enabled);  // an explicit enabled: false stays
}

TEST(Problems, PersistentQueueStorage) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
extensions:
  file_storage:
exporters:
  elasticsearch/a:
    endpoint: http://127.0.0.1:9200
    sending_queue: {storage: file_storag}
  elasticsearch/b:
    endpoint: http://127.0.0.1:9200
    sending_queue: {storage: file_storage, directory: /q}
  elasticsearch/c:
    endpoint: http://127.0.0.1:9200
    sending_queue: {storage: file_storage, type: memory}
  otlp:
    endpoint: 127.0.0.1:4317
    sending_queue: {storage: file_storag}
  otlphttp:
    endpoint: http://127.0.0.1:4318
    sending_queue: {max_size: 1GiB}
  otlp/b:
    endpoint: 127.0.0.1:4317
    sending_queue: {storage: "", max_size: 0}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch/a, elasticsearch/b, elasticsearch/c, otlp, otlphttp, otlp/b]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:8:30: error: exporters.elasticsearch/a.sending_queue.storage: \"file_storag\" is not a "
          "file_storage extension defined in extensions (did you mean \"file_storage\"?)",
          "t.yaml:11:30: error: exporters.elasticsearch/b.sending_queue.storage: set storage (a "
          "file_storage extension) or directory, not both",
          "t.yaml:14:30: error: exporters.elasticsearch/c.sending_queue.storage: storage is a disk "
          "queue; it cannot go with type: memory",
          "t.yaml:17:30: error: exporters.otlp.sending_queue.storage: \"file_storag\" is not a file_storage "
          "extension defined in extensions (did you mean \"file_storage\"?)",
          "t.yaml:20:31: error: exporters.otlphttp.sending_queue.max_size: max_size bounds the persistent "
          "queue; it needs storage (a file_storage extension)",
          "t.yaml:23:30: error: exporters.otlp/b.sending_queue.storage: storage must name a file_storage "
          "extension",
          "t.yaml:23:44: error: exporters.otlp/b.sending_queue.max_size: max_size must be greater than 0"));
}

// The OTLP exporters' persistent queue: sending_queue.storage names a file_storage extension,
// the queue's directory is the exporter's own there; max_size bounds it on disk.
TEST(Loader, OtlpPersistentQueueFromFileStorage) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
extensions:
  file_storage:
    directory: /var/lib/otelcol/file_storage
exporters:
  otlp/gateway:
    endpoint: gateway:4317
    sending_queue: {storage: file_storage, max_size: 256MiB}
  otlphttp:
    endpoint: https://gateway:4318
    sending_queue: {storage: file_storage}
  otlp:
    endpoint: gateway:4317
service:
  extensions: [file_storage]
  pipelines:
    logs: {receivers: [otlp], exporters: [otlp/gateway, otlphttp, otlp]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& g = settings<OtlpExporterConfig>(r.config.exporters, "otlp/gateway").sending_queue;
  EXPECT_EQ(g.directory, "/var/lib/otelcol/file_storage/exporter_otlp_gateway");
  EXPECT_EQ(g.max_size, 256ull << 20);
  const auto& h = settings<OtlpExporterConfig>(r.config.exporters, "otlphttp").sending_queue;
  EXPECT_EQ(h.directory, "/var/lib/otelcol/file_storage/exporter_otlphttp");
  EXPECT_EQ(h.max_size, 1ull << 30);
  EXPECT_EQ(settings<OtlpExporterConfig>(r.config.exporters, "otlp").sending_queue.directory, "");
}

// A file_storage extension that a component names is used whether or not service.extensions
// lists it; the Collector refuses the config then, so Tern warns at the key that names it.
// Unlisted and unnamed, it is unused.
TEST(Problems, FileStorageNamedButNotListedIsAWarning) {
  auto r = load(R"(
receivers:
  filelog: {include: [/var/log/a.log], storage: file_storage/offsets}
extensions:
  file_storage/offsets: {directory: /var/lib/tern/offsets}
  file_storage/queue: {directory: /var/lib/tern/queue}
  file_storage/listed: {directory: /var/lib/tern/listed}
  file_storage/idle: {directory: /var/lib/tern/idle}
exporters:
  otlp:
    endpoint: gateway:4317
    sending_queue: {storage: file_storage/queue}
  otlp/b:
    endpoint: gateway:4317
    sending_queue: {storage: file_storage/listed}
service:
  extensions: [file_storage/listed]
  pipelines:
    logs: {receivers: [filelog], exporters: [otlp, otlp/b]}
)");
  EXPECT_THAT(errors(r), IsEmpty());
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:2:49: warning: receivers.filelog.storage names extension \"file_storage/offsets\", "
                  "which service.extensions does not list (Tern uses it anyway; the OpenTelemetry Collector "
                  "refuses this config): add it to service.extensions",
                  "t.yaml:7:3: warning: extension \"file_storage/idle\" is defined but not used in "
                  "service.extensions",
                  "t.yaml:11:30: warning: exporters.otlp.sending_queue.storage names extension "
                  "\"file_storage/queue\", which service.extensions does not list (Tern uses it anyway; the "
                  "OpenTelemetry Collector refuses this config): add it to service.extensions"));
  // Used all the same: the directories are the extensions'.
  EXPECT_EQ(settings<FilelogReceiverConfig>(r.config.receivers, "filelog").storage, "/var/lib/tern/offsets");
  EXPECT_EQ(settings<OtlpExporterConfig>(r.config.exporters, "otlp").sending_queue.directory,
            "/var/lib/tern/queue/exporter_otlp");
}

// `storage` inherited through a merge key (`<<: *anchor`) is not a child of the component's
// node in the YAML tree: the load must not fail looking for its position (it threw
// yaml-cpp's InvalidNode, "invalid node; first invalid key: storage").
TEST(Loader, StorageThroughAMergeKey) {
  auto r = load(R"(
receivers:
  filelog/a: &fl {include: [/var/log/a.log], storage: file_storage}
  filelog/b: {<<: *fl}
extensions:
  file_storage: {directory: /var/lib/tern/state}
exporters:
  otlp/a: {endpoint: "gateway:4317", sending_queue: &q {storage: file_storage}}
  otlp/b:
    endpoint: gateway:4317
    sending_queue: {<<: *q}
service:
  extensions: [file_storage]
  pipelines:
    logs: {receivers: [filelog/a, filelog/b], exporters: [otlp/a, otlp/b]}
)");
  EXPECT_THAT(errors(r), IsEmpty());
  EXPECT_THAT(messages(r), IsEmpty());
  EXPECT_EQ(settings<FilelogReceiverConfig>(r.config.receivers, "filelog/b").storage, "/var/lib/tern/state");
  EXPECT_EQ(settings<OtlpExporterConfig>(r.config.exporters, "otlp/b").sending_queue.directory,
            "/var/lib/tern/state/exporter_otlp_b");
  // Not listed in service.extensions: each warning points at what the file has (the
  // inheriting component's node when the key came through the merge).
  auto unlisted = load(R"(
receivers:
  filelog/a: &fl {include: [/var/log/a.log], storage: file_storage}
  filelog/b: {<<: *fl}
extensions:
  file_storage: {directory: /var/lib/tern/state}
exporters:
  otlp: {endpoint: "gateway:4317"}
service:
  pipelines:
    logs: {receivers: [filelog/a, filelog/b], exporters: [otlp]}
)");
  EXPECT_THAT(errors(unlisted), IsEmpty());
  EXPECT_THAT(messages(unlisted),
              ElementsAre(HasSubstr("t.yaml:2:55: warning: receivers.filelog/a.storage"),
                          HasSubstr("t.yaml:3:14: warning: receivers.filelog/b.storage")));
}

// filelog operators: the Collector's stanza operators Tern runs, read and checked.
TEST(Loader, FilelogOperators) {
  auto r = load(R"(
receivers:
  filelog:
    include: [/var/log/app.log]
    operators:
      - type: regex_parser
        id: head
        regex: '^(?P<time>\S+) \[(?P<sev>\w+)\] (?P<msg>.*)$'
        on_error: drop
        timestamp: {parse_from: attributes.time, layout: '%Y-%m-%dT%H:%M:%S.%L%z', location: UTC}
        severity:
          parse_from: attributes["sev"]
          preset: none
          mapping: {error: [oops, {min: 500, max: 599}], warn: 4xx, info3: Medium}
          overwrite_text: true
      - {type: json_parser, parse_from: attributes.msg}
      - {type: time_parser, parse_from: attributes.ts, layout_type: epoch, layout: s.ms}
      - {type: severity_parser, parse_from: attributes.level}
      - {type: remove, field: attributes.time}
      - {type: move, from: attributes.msg, to: body}
      - {type: add, field: attributes.env, value: prod}
      - {type: key_value_parser, delimiter: ':', pair_delimiter: ';'}
      - {type: copy, from: body, to: attributes.raw}
      - {type: retain, fields: [attributes.env, attributes.raw]}
      - {type: container, format: crio, add_metadata_from_filepath: false, max_log_size: 102400}
      - {type: trace_parser, trace_id: {parse_from: attributes.tid}, span_id: {parse_from: body}}
      - {type: csv_parser, header: 'time|level|msg', header_delimiter: '|', delimiter: ';', lazy_quotes: true}
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [filelog], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  using Op = FilelogOperatorConfig;
  const auto& ops = settings<FilelogReceiverConfig>(r.config.receivers, "filelog").operators;
  ASSERT_EQ(ops.size(), 13u);
  EXPECT_EQ(ops[0].type, Op::Type::kRegexParser);
  EXPECT_EQ(ops[0].id, "head");
  EXPECT_EQ(ops[0].on_error, Op::OnError::kDrop);
  EXPECT_EQ(ops[0].parse_from, "body");
  ASSERT_TRUE(ops[0].timestamp);
  EXPECT_EQ(ops[0].timestamp->parse_from, "attributes.time");
  EXPECT_FALSE(ops[0].timestamp->epoch);
  EXPECT_TRUE(ops[0].timestamp->utc);
  ASSERT_TRUE(ops[0].severity);
  EXPECT_EQ(ops[0].severity->parse_from, "attributes.sev");
  EXPECT_TRUE(ops[0].severity->overwrite_text);
  const auto& m = ops[0].severity->mapping;  // preset none: only the config's entries
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].number, 17);
  EXPECT_EQ(m[0].text, "oops");
  EXPECT_EQ(m[1].min, 500);
  EXPECT_EQ(m[1].max, 599);
  EXPECT_EQ(m[2].number, 13);
  EXPECT_EQ(m[2].min, 400);
  EXPECT_EQ(m[2].max, 499);
  EXPECT_EQ(m[3].number, 11);
  EXPECT_EQ(m[3].text, "medium");  // matched case-insensitively
  EXPECT_EQ(ops[1].type, Op::Type::kJsonParser);
  EXPECT_EQ(ops[1].id, "json_parser");
  EXPECT_EQ(ops[1].parse_from, "attributes.msg");
  EXPECT_TRUE(ops[2].timestamp->epoch);
  EXPECT_EQ(ops[2].timestamp->layout, "s.ms");
  EXPECT_FALSE(ops[2].timestamp->utc);              // Local, the Collector's default
  EXPECT_EQ(ops[3].severity->mapping.size(), 25u);  // the default preset
  EXPECT_EQ(ops[4].field, "attributes.time");
  EXPECT_EQ(ops[5].from, "attributes.msg");
  EXPECT_EQ(ops[5].to, "body");
  EXPECT_EQ(ops[6].value, "prod");
  EXPECT_EQ(ops[7].type, Op::Type::kKeyValueParser);
  EXPECT_EQ(ops[7].delimiter, ":");
  EXPECT_EQ(ops[7].pair_delimiter, ";");
  EXPECT_EQ(ops[8].type, Op::Type::kCopy);
  EXPECT_EQ(ops[8].to, "attributes.raw");
  EXPECT_EQ(ops[9].fields, (std::vector<std::string>{"attributes.env", "attributes.raw"}));
  EXPECT_EQ(ops[10].type, Op::Type::kContainer);
  EXPECT_EQ(ops[10].format, "crio");
  EXPECT_EQ(ops[10].max_log_size, 102400u);  // bounds a line joined from CRI parts
  EXPECT_FALSE(ops[10].add_metadata_from_filepath);
  EXPECT_EQ(ops[12].type, Op::Type::kCsvParser);
  EXPECT_EQ(ops[12].csv_header, (std::vector<std::string>{"time", "level", "msg"}));
  EXPECT_EQ(ops[12].delimiter, ";");
  EXPECT_TRUE(ops[12].lazy_quotes);
  EXPECT_EQ(ops[11].trace_id_from, "attributes.tid");
  EXPECT_EQ(ops[11].span_id_from, "body");
  EXPECT_EQ(ops[11].trace_flags_from, "attributes.trace_flags");  // the default
}

TEST(Problems, FilelogOperators) {
  auto r = load(R"(
receivers:
  filelog:
    include: [/var/log/app.log]
    parse: json
    operators:
      - {type: regex_parser, regex: '(?P<a>['}
      - {type: regex_parser, regex: '(\d+)'}
      - {type: grok_parser}
      - {regex: x}
      - {type: json_parser, if: 'body != nil', output: next, parse_to: body}
      - type: time_parser
        parse_from: resource.x
        layout: '%Y-%Q'
      - {type: time_parser, parse_from: body, layout_type: gotime, layout: '2006'}
      - {type: time_parser, parse_from: body, layout_type: epoch, layout: min, location: Europe/Paris}
      - {type: severity_parser, parse_from: body, mapping: {loud: x, warn: [{min: 5}]}}
      - {type: add, field: body, value: 'EXPR(1)'}
      - {type: move, from: body}
      - {type: key_value_parser, delimiter: '', pair_delimiter: ','}
      - {type: retain, fields: [body]}
      - {type: container, format: podman}
      - {type: csv_parser}
      - {type: csv_parser, header: 'a,,b', delimiter: ';;'}
      - {type: csv_parser, header: a, header_attribute: h, lazy_quotes: true, ignore_quotes: true}
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [filelog], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:4:12: error: receivers.filelog: set parse or operators, not both (a json_parser operator "
          "parses JSON lines)",
          "t.yaml:6:37: error: receivers.filelog.operators[0].regex: missing ]: [",
          "t.yaml:7:37: error: receivers.filelog.operators[1].regex: the regex has no named group "
          "((?P<name>...)) to make an attribute of",
          "t.yaml:8:16: error: receivers.filelog.operators[2].type: invalid value \"grok_parser\" (expected "
          "one of: regex_parser, json_parser, key_value_parser, time_parser, severity_parser, remove, move, "
          "copy, add, retain, container, trace_parser, csv_parser)",
          "t.yaml:9:9: error: receivers.filelog.operators[3]: type is required",
          "t.yaml:10:33: error: receivers.filelog.operators[4].if: if is not supported (operators run in "
          "order, on every record)",
          "t.yaml:10:56: error: receivers.filelog.operators[4].output: output is not supported (operators "
          "run "
          "in order, on every record)",
          "t.yaml:10:72: error: receivers.filelog.operators[4].parse_to: only attributes is supported",
          "t.yaml:12:21: error: receivers.filelog.operators[5].parse_from: \"resource.x\" is not a field "
          "Tern's operators handle (body, attributes.<key> or attributes[\"<key>\"])",
          "t.yaml:13:17: error: receivers.filelog.operators[5].layout: unknown directive %Q",
          "t.yaml:14:60: error: receivers.filelog.operators[6].layout_type: gotime layouts are not "
          "supported; "
          "write the layout with strptime directives (layout_type: strptime)",
          "t.yaml:15:75: error: receivers.filelog.operators[7].layout: invalid epoch layout \"min\" "
          "(expected "
          "one of: s, ms, us, ns, s.ms, s.us, s.ns)",
          "t.yaml:15:90: error: receivers.filelog.operators[7].location: only UTC or Local (the host's zone) "
          "are supported, got \"Europe/Paris\"",
          "t.yaml:16:61: error: receivers.filelog.operators[8].mapping: unknown severity \"loud\" (expected "
          "default, or trace, debug, info, warn, error or fatal, each also with 2, 3 or 4 after it)",
          "t.yaml:16:77: error: receivers.filelog.operators[8].mapping.warn: a range needs min and max",
          "t.yaml:17:41: error: receivers.filelog.operators[9].value: expressions are not supported",
          "t.yaml:18:9: error: receivers.filelog.operators[10]: to is required",
          "t.yaml:19:45: error: receivers.filelog.operators[11].delimiter: delimiter must not be empty",
          "t.yaml:20:32: error: receivers.filelog.operators[12].fields: \"body\": retain keeps "
          "attributes.<key> fields",
          "t.yaml:21:35: error: receivers.filelog.operators[13].format: invalid value \"podman\" (expected "
          "one "
          "of: auto, docker, crio, containerd)",
          "t.yaml:22:9: error: receivers.filelog.operators[14]: header is required (the column names)",
          "t.yaml:23:55: error: receivers.filelog.operators[15].delimiter: must be one character",
          "t.yaml:24:57: error: receivers.filelog.operators[16].header_attribute: a header from an attribute "
          "is not supported; set header",
          "t.yaml:24:94: error: receivers.filelog.operators[16]: set lazy_quotes or ignore_quotes, not "
          "both"));
}

TEST(Loader, FilelogMultiline) {
  auto r = load(R"(
receivers:
  filelog:
    include: [/var/log/app.log]
    multiline: {line_start_pattern: '^\d{4}-'}
    force_flush_period: 2s
  filelog/end:
    include: [/var/log/b.log]
    multiline: {line_end_pattern: ';$'}
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [filelog, filelog/end], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& a = settings<FilelogReceiverConfig>(r.config.receivers, "filelog");
  EXPECT_EQ(a.multiline_start, R"(^\d{4}-)");
  EXPECT_EQ(a.force_flush_period, 2s);
  const auto& b = settings<FilelogReceiverConfig>(r.config.receivers, "filelog/end");
  EXPECT_EQ(b.multiline_end, ";$");
  EXPECT_EQ(b.force_flush_period, 500ms);  // the Collector's default
}

TEST(Problems, FilelogMultiline) {
  auto r = load(R"(
receivers:
  filelog/a:
    include: [/a]
    multiline: {line_start_pattern: '^x', line_end_pattern: 'y$'}
  filelog/b:
    include: [/b]
    multiline: {line_start_pattern: '(unclosed'}
  filelog/c:
    include: [/c]
    multiline: {}
    force_flush_period: -1s
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [filelog/a, filelog/b, filelog/c], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:4:16: error: receivers.filelog/a.multiline: set one of line_start_pattern and "
          "line_end_pattern",
          "t.yaml:7:37: error: receivers.filelog/b.multiline.line_start_pattern: missing ): (unclosed",
          "t.yaml:10:16: error: receivers.filelog/c.multiline: set one of line_start_pattern and "
          "line_end_pattern",
          "t.yaml:11:25: error: receivers.filelog/c.force_flush_period: invalid duration \"-1s\": must "
          "not be negative"));
}

TEST(Loader, FilelogResourceAndResolvedNames) {
  auto r = load(R"(
receivers:
  filelog:
    include: [/var/log/app.log]
    resource: {service.name: shop}
    include_file_name_resolved: true
    include_file_path_resolved: true
    max_concurrent_files: 64
    max_log_size: 102_400
    max_batch_lines: 10_000
    exclude_older_than: 24h
    preserve_leading_whitespaces: false
  filelog/zero:
    include: [/var/log/b.log]
    max_concurrent_files: 0
exporters: {debug: }
service:
  pipelines:
    logs: {receivers: [filelog, filelog/zero], exporters: [debug]}
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:14:27: error: receivers.filelog/zero: max_concurrent_files must be "
                          "greater than 0"));
  const auto& a = settings<FilelogReceiverConfig>(r.config.receivers, "filelog");
  EXPECT_EQ(a.resource, (std::map<std::string, std::string>{{"service.name", "shop"}}));
  EXPECT_TRUE(a.include_file_name_resolved);
  EXPECT_TRUE(a.include_file_path_resolved);
  EXPECT_EQ(a.max_concurrent_files, 64u);
  EXPECT_EQ(a.max_log_size, 102400u);  // YAML 1.1 digit groups
  EXPECT_EQ(a.max_batch_lines, 10000u);
  EXPECT_EQ(a.exclude_older_than, 24h);
  EXPECT_TRUE(a.trim_leading);
  EXPECT_FALSE(a.trim_trailing);  // Tern keeps whitespace unless told
}

}  // namespace
}  // namespace tern::config

namespace tern::config {
namespace {

using service::load_config_file;
using service::load_config_string;

// resourcedetection: the Collector's env and system detectors, override, the system
// detector's hostname_sources and resource_attributes.
TEST(Loader, ResourceDetectionProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  resourcedetection:
    detectors: [env, system]
    timeout: 2s
    override: false
    system:
      hostname_sources: [os]
      resource_attributes:
        host.id: {enabled: true}
        os.type: {enabled: false}
  resourcedetection/defaults:
    detectors: [system]
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [resourcedetection, resourcedetection/defaults], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& d = settings<ResourceDetectionProcessorConfig>(r.config.processors, "resourcedetection");
  EXPECT_EQ(d.detectors, (std::vector<std::string>{"env", "system"}));
  EXPECT_FALSE(d.override_existing);
  EXPECT_EQ(d.hostname_sources, std::vector<std::string>{"os"});
  EXPECT_EQ(d.system_attributes, (std::vector<std::string>{"host.name", "host.id"}));
  const auto& def =
      settings<ResourceDetectionProcessorConfig>(r.config.processors, "resourcedetection/defaults");
  EXPECT_TRUE(def.override_existing);
  EXPECT_EQ(def.hostname_sources, (std::vector<std::string>{"dns", "os"}));
  EXPECT_EQ(def.system_attributes, (std::vector<std::string>{"host.name", "os.type"}));
}

TEST(Problems, ResourceDetectionProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  resourcedetection/a:
    detectors: [env, ec2, sytem]
  resourcedetection/b:
    detectors: [system]
    system:
      hostname_sources: [cname]
      resource_attributes:
        host.ip: {enabled: true}
        host.name: {enabld: false}
  resourcedetection/c:
    override: true
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [resourcedetection/a, resourcedetection/b, resourcedetection/c], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:5:16: error: processors.resourcedetection/a.detectors: detector \"ec2\" is not in Tern, "
          "which "
          "has env and system only (set such attributes with a resource processor)",
          "t.yaml:5:16: error: processors.resourcedetection/a.detectors: unknown detector \"sytem\" (Tern "
          "has: env, system) (did you mean \"system\"?)",
          "t.yaml:9:25: error: processors.resourcedetection/b.system.hostname_sources: hostname source "
          "\"cname\" is not one Tern has (it has: dns, os)",
          "t.yaml:11:9: error: processors.resourcedetection/b.system.resource_attributes: the system "
          "detector "
          "in Tern has no attribute \"host.ip\" (it has: host.name, host.id, host.arch, os.type, "
          "os.description)",
          "t.yaml:12:21: error: unknown key \"enabld\" in "
          "processors.resourcedetection/b.system.resource_attributes.host.name (did you mean \"enabled\"?)",
          "t.yaml:13:3: error: processors.resourcedetection/c: detectors must list at least one detector "
          "(env, "
          "system)"));
}

}  // namespace
}  // namespace tern::config

namespace tern::config {
namespace {

using service::load_config_file;
using service::load_config_string;

// filter: OTTL conditions per context, checked at load time.
TEST(Loader, FilterProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  filter/noise:
    error_mode: ignore
    logs:
      log_record:
        - 'severity_number < SEVERITY_NUMBER_INFO'
        - 'IsMatch(body, "healthz")'
    traces:
      span: ['attributes["http.route"] == "/healthz"']
      spanevent: ['name == "noise"']
    metrics:
      metric: ['IsMatch(name, "^jvm\\.")']
      datapoint: ['attributes["route"] == "/healthz"']
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [filter/noise], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& f = settings<FilterProcessorConfig>(r.config.processors, "filter/noise");
  EXPECT_EQ(f.error_mode, FilterProcessorConfig::ErrorMode::kIgnore);
  EXPECT_EQ(f.log_record.size(), 2u);
  EXPECT_EQ(f.log_record[1], R"(IsMatch(body, "healthz"))");
  EXPECT_EQ(f.span.size(), 1u);
  EXPECT_EQ(f.spanevent.size(), 1u);
  EXPECT_EQ(f.metric, std::vector<std::string>{R"(IsMatch(name, "^jvm\\."))"});  // YAML '' keeps both
  EXPECT_EQ(f.datapoint.size(), 1u);
}

TEST(Problems, FilterProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  filter/a:
    logs:
      log_record: ['body = "x"', 'name == "x"']
  filter/b:
    logs:
      include:
        match_type: strict
        bodies: [x]
  filter/c:
    error_mode: loud
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [filter/a, filter/b, filter/c], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:6:20: error: processors.filter/a.logs.log_record: \"body = \"x\"\": column 6: use == to "
          "compare",
          "t.yaml:6:34: error: processors.filter/a.logs.log_record: \"name == \"x\"\": column 1: path "
          "\"name\" is not one Tern has in the log_record context",
          "t.yaml:10:9: error: processors.filter/b.logs.include: the filter processor's include/exclude form "
          "is not in Tern; write OTTL conditions (logs.log_record, traces.span, metrics.metric, ...)",
          "t.yaml:12:3: error: processors.filter/c: no conditions (logs.log_record, traces.span, "
          "traces.spanevent, metrics.metric, metrics.datapoint)",
          "t.yaml:13:17: error: processors.filter/c.error_mode: invalid value \"loud\" (expected one of: "
          "propagate, ignore, silent)"));
}

}  // namespace
}  // namespace tern::config

namespace tern::config {
namespace {

using service::load_config_file;
using service::load_config_string;

// transform: groups (context, conditions, statements) or flat statements, per signal.
TEST(Loader, TransformProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  transform:
    error_mode: ignore
    log_statements:
      - context: resource
        statements:
          - set(attributes["deployment.environment"], "prod")
      - context: log
        conditions: ['severity_number >= SEVERITY_NUMBER_ERROR']
        statements: ['set(attributes["alert"], true)', 'delete_key(attributes, "password")']
      - 'replace_pattern(log.body, "token=\\w+", "token=***")'
    trace_statements:
      - context: span
        statements: ['set(name, "GET /users/{id}") where IsMatch(name, "^GET /users/")']
    metric_statements:
      - context: datapoint
        statements: ['delete_matching_keys(attributes, "^k8s\\.pod\\.")']
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [transform], exporters: [debug]}
)");
  ASSERT_THAT(messages(r), IsEmpty());
  const auto& t = settings<TransformProcessorConfig>(r.config.processors, "transform");
  ASSERT_EQ(t.log_statements.size(), 3u);
  EXPECT_EQ(t.log_statements[0].context, "resource");
  EXPECT_EQ(t.log_statements[1].conditions.size(), 1u);
  EXPECT_EQ(t.log_statements[1].statements.size(), 2u);
  EXPECT_EQ(t.log_statements[2].context, "log");  // the flat form: the signal's item context
  ASSERT_EQ(t.trace_statements.size(), 1u);
  EXPECT_EQ(t.trace_statements[0].context, "span");
  ASSERT_EQ(t.metric_statements.size(), 1u);
}

TEST(Problems, TransformProcessor) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  transform/a:
    log_statements:
      - context: span
        statements: ['set(attributes["a"], "b")']
      - context: log
        conditions: ['body = "x"']
        statements: ['merge_maps(attributes, attributes, "upsert")']
      - context: log
  transform/b:
    error_mode: ignore
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [transform/a, transform/b], exporters: [debug]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:6:18: error: processors.transform/a.log_statements[0].context: invalid value \"span\" "
          "(expected one of: log, resource, scope)",
          "t.yaml:9:22: error: processors.transform/a.log_statements[1]: \"body = \"x\"\": column 6: use "
          "== to compare",
          "t.yaml:10:22: error: processors.transform/a.log_statements[1]: \"merge_maps(attributes, "
          "attributes, \"upsert\")\": column 1: editor \"merge_maps\" is not one Tern has (it has: set, "
          "delete_key, delete_matching_keys, keep_keys, replace_pattern)",
          "t.yaml:11:9: error: processors.transform/a.log_statements[2]: statements must list what to do",
          "t.yaml:12:3: error: processors.transform/b: no statements (log_statements, trace_statements, "
          "metric_statements)"));
}

}  // namespace
}  // namespace tern::config

namespace tern::config {
namespace {

using service::load_config_file;
using service::load_config_string;

// attributes: values typed as YAML types them, from_attribute, delete by pattern, convert.
TEST(Loader, AttributesProcessorCollectorActions) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  attributes:
    actions:
      - {key: account_id, value: 2245, action: insert}
      - {key: account_code, value: "2245", action: insert}
      - {key: ratio, value: 0.25, action: upsert}
      - {key: redacted, value: true, action: upsert}
      - {key: copy_key, from_attribute: key_original, action: update}
      - {pattern: '^secret\.', action: delete}
      - {key: http.status_code, action: convert, converted_type: int}
  attributes/bad:
    actions:
      - {key: a, value: x, from_attribute: b, action: upsert}
      - {key: a, pattern: '(', action: delete}
      - {key: a, pattern: 'x', action: upsert, value: y}
      - {key: a, action: convert}
      - {key: a, action: delete, value: x, converted_type: int}
      - {action: delete}
exporters:
  debug:
service:
  pipelines:
    logs: {receivers: [otlp], processors: [attributes, attributes/bad], exporters: [debug]}
)");
  using T = AttributesProcessorConfig::Type;
  using A = AttributesProcessorConfig::Action;
  const auto& a = settings<AttributesProcessorConfig>(r.config.processors, "attributes").actions;
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a[0].value_type, T::kInt);
  EXPECT_EQ(a[1].value_type, T::kString);  // quoted
  EXPECT_EQ(a[2].value_type, T::kDouble);
  EXPECT_EQ(a[3].value_type, T::kBool);
  EXPECT_EQ(a[4].from_attribute, "key_original");
  EXPECT_EQ(a[5].pattern, "^secret\\.");
  EXPECT_EQ(a[6].action, A::kConvert);
  EXPECT_EQ(a[6].converted_type, T::kInt);
  EXPECT_THAT(
      errors(r),
      ElementsAre(
          "t.yaml:15:9: error: processors.attributes/bad.actions[0]: set value or from_attribute, not both",
          "t.yaml:16:27: error: processors.attributes/bad.actions[1].pattern: missing ): (",
          "t.yaml:17:27: error: processors.attributes/bad.actions[2].pattern: pattern goes with delete",
          "t.yaml:18:9: error: processors.attributes/bad.actions[3]: converted_type is required (int, "
          "double or string)",
          "t.yaml:19:41: error: processors.attributes/bad.actions[4]: value goes with insert, update or "
          "upsert",
          "t.yaml:19:60: error: processors.attributes/bad.actions[4]: converted_type goes with convert",
          "t.yaml:20:9: error: processors.attributes/bad.actions[5]: key is required (or pattern)"));
}

// ---------------------------------------------------------------- audit 2026-12-06

// A back-off below 1 ms truncates to 0 ms: the exporter retried in a tight loop.
TEST(Loader, RetryIntervalsBelowOneMillisecondAreErrors) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
exporters:
  elasticsearch: {endpoint: http://127.0.0.1:9200, retry: {initial_interval: 0, max_interval: 0}}
  otlphttp: {endpoint: http://127.0.0.1:4318, retry_on_failure: {initial_interval: 500us}}
  otlp: {endpoint: 127.0.0.1:4317, retry_on_failure: {initial_interval: 1ms, multiplier: 1.5}}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, otlphttp, otlp]}
)");
  EXPECT_THAT(
      errors(r),
      ElementsAre("t.yaml:3:78: error: exporters.elasticsearch.retry: initial_interval must be at least 1ms",
                  "t.yaml:4:84: error: exporters.otlphttp.retry_on_failure: initial_interval must be at "
                  "least 1ms"));
}

// Zero means the default, as in the Collector, not "refuse everything" (HTTP) or "no limit"
// (gRPC); sizes that overflow when shifted into bytes are refused.
TEST(Loader, ZeroAndHugeReceiverLimits) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: {max_recv_msg_size_mib: 0}, http: {max_request_body_size: 0}}}
  otlp/big: {protocols: {grpc: {endpoint: "127.0.0.1:0", max_recv_msg_size_mib: 17592186044417}}}
processors:
  memory_limiter: {check_interval: 1s, limit_mib: 17592186044417}
exporters:
  debug: {}
service:
  pipelines:
    logs: {receivers: [otlp, otlp/big], processors: [memory_limiter], exporters: [debug]}
)");
  const auto& otlp = settings<OtlpReceiverConfig>(r.config.receivers, "otlp");
  EXPECT_EQ(otlp.grpc.max_recv_msg_size_mib, 4u);
  EXPECT_EQ(otlp.http.max_request_body_size, 20u * 1024 * 1024);
  const auto e = errors(r);
  EXPECT_THAT(e, ElementsAre("t.yaml:3:81: error: receivers.otlp/big.protocols.grpc.max_recv_msg_size_mib: "
                             "expected an integer from 0 to 2047, got \"17592186044417\"",
                             "t.yaml:5:51: error: processors.memory_limiter.limit_mib: expected an integer "
                             "from 0 to 17592186044415, got \"17592186044417\""));
}

// A limit out of range is that error alone: "one of limit_mib or limit_percentage must be
// set" beside it was false (it was set), and only for a limit that is really missing.
TEST(Problems, MemoryLimiterLimitOutOfRangeIsOneError) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  memory_limiter: {check_interval: 1s, limit_percentage: 101}
  memory_limiter/b: {check_interval: 1s, limit_mib: x, limit_percentage: 50}
  memory_limiter/none: {check_interval: 1s, limit_mib: 0}
exporters:
  debug: {}
service:
  pipelines:
    logs: {receivers: [otlp], processors: [memory_limiter, memory_limiter/b, memory_limiter/none], exporters: [debug]}
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:4:58: error: processors.memory_limiter.limit_percentage: expected "
                          "an integer from 0 to 100, got \"101\"",
                          "t.yaml:5:53: error: processors.memory_limiter/b.limit_mib: expected an "
                          "integer from 0 to 17592186044415, got \"x\"",
                          "t.yaml:6:3: error: processors.memory_limiter/none: one of limit_mib or "
                          "limit_percentage must be set"));
}

// A size counts bytes: a plain fraction is refused where it is written (it was rounded).
TEST(Problems, FractionalByteCounts) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {grpc: }}
processors:
  batch: {send_batch_max_bytes: 1.5}
  batch/b: {send_batch_max_bytes: "1.5 GiB"}
exporters:
  debug: {}
service:
  pipelines:
    logs: {receivers: [otlp], processors: [batch], exporters: [debug]}
    logs/b: {receivers: [otlp], processors: [batch/b], exporters: [debug]}
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:4:33: error: processors.batch.send_batch_max_bytes: invalid size "
                          "\"1.5\": not a whole number of bytes"));
  EXPECT_EQ(settings<BatchProcessorConfig>(r.config.processors, "batch/b").send_batch_max_bytes, 3ull << 29);
}

// max_request_body_size is at most 2 GiB: a body is held in memory whole (a limit of 1TiB
// once let a header alone make the collector reserve 500 GB and abort).
TEST(Loader, MaxRequestBodySizeIsAtMost2GiB) {
  auto r = load(R"(
receivers:
  otlp: {protocols: {http: {max_request_body_size: 2GiB}}}
  otlp/big: {protocols: {http: {endpoint: "127.0.0.1:0", max_request_body_size: 1TiB}}}
exporters:
  debug: {}
service:
  pipelines:
    logs: {receivers: [otlp, otlp/big], exporters: [debug]}
)");
  EXPECT_EQ(settings<OtlpReceiverConfig>(r.config.receivers, "otlp").http.max_request_body_size, 2ull << 30);
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:3:81: error: receivers.otlp/big.protocols.http.max_request_body_size: "
                          "1099511627776 bytes is over the largest allowed, 2GiB"));
}

// A filelog `storage` in the Collector's form that names no defined extension was taken as
// a relative directory of that name.
TEST(Loader, FilelogStorageNamingAnUndefinedExtension) {
  auto r = load(R"(
extensions:
  file_storage: {directory: /tmp}
receivers:
  filelog: {include: [/tmp/x.log], storage: file_storage/checkpoints}
exporters:
  debug: {}
service:
  extensions: [file_storage]
  pipelines:
    logs: {receivers: [filelog], exporters: [debug]}
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:4:45: error: receivers.filelog.storage: \"file_storage/checkpoints\" "
                          "is not a file_storage extension defined in extensions"));
}

// `type: disk` asks for the disk queue; its keys with the disk queue off are pointed out; and
// the memory queue, always there, needs a queue_size whatever `enabled` says.
TEST(Loader, ElasticsearchDiskQueueKeysWithoutEnabled) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
exporters:
  elasticsearch: {endpoint: http://127.0.0.1:9200, sending_queue: {type: disk, directory: /tmp/q}}
  elasticsearch/off: {endpoint: http://127.0.0.1:9200, sending_queue: {enabled: false, type: disk, directory: /tmp/q2}}
  elasticsearch/zero: {endpoint: http://127.0.0.1:9200, sending_queue: {queue_size: 0, max_size: 1GiB}}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, elasticsearch/off, elasticsearch/zero]}
)");
  const auto& on = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_TRUE(on.sending_queue.enabled);
  EXPECT_EQ(on.sending_queue.type, ElasticsearchExporterConfig::SendingQueue::Type::kDisk);
  EXPECT_FALSE(
      settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch/off").sending_queue.enabled);
  EXPECT_THAT(
      messages(r),
      ElementsAre("t.yaml:5:85: error: exporters.elasticsearch/zero.sending_queue: queue_size must be "
                  "greater than 0",
                  "t.yaml:4:111: warning: exporters.elasticsearch/off.sending_queue.directory: has no "
                  "effect: the disk queue is off (it needs enabled: true)",
                  "t.yaml:5:98: warning: exporters.elasticsearch/zero.sending_queue.max_size: has no "
                  "effect: the disk queue is off (it needs type: disk)"));
}

// One queue per exporter: pipelines that batch differently and share an exporter are told.
TEST(Loader, SharedExporterWithDifferentBatching) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
processors:
  batch: {timeout: 3s}
  batch/same: {timeout: 3s}
exporters:
  otlp: {endpoint: 127.0.0.1:4317}
  otlp/t: {endpoint: 127.0.0.1:4317}
  debug: {}
service:
  pipelines:
    logs/first: {receivers: [otlp], exporters: [otlp]}
    logs: {receivers: [otlp], processors: [batch], exporters: [otlp]}
    traces: {receivers: [otlp], processors: [batch], exporters: [otlp/t]}
    metrics: {receivers: [otlp], processors: [batch/same], exporters: [otlp/t]}
    metrics/debug: {receivers: [otlp], processors: [batch], exporters: [debug]}
    logs/debug: {receivers: [otlp], exporters: [debug]}
)");
  EXPECT_THAT(errors(r), IsEmpty());
  const auto m = messages(r);
  EXPECT_THAT(
      m, ::testing::Contains(
             "t.yaml:12:11: warning: pipeline \"logs\" batches differently from pipeline \"logs/first\", "
             "and both export to \"otlp\": Tern batches in the exporter's queue, one per exporter, so "
             "\"otlp\" batches as \"logs/first\" says; give \"logs\" an exporter of its own (e.g. "
             "otlp/logs) to batch it differently"));
  // traces and metrics batch alike (two ids, the same settings), and debug does not batch:
  // nothing to say about them.
  EXPECT_EQ(
      std::count_if(m.begin(), m.end(), [](const std::string& l) { return l.find("batches") != l.npos; }), 1)
      << ::testing::PrintToString(m);
}

TEST(Loader, DuplicateTopLevelKeyNamesTheConfig) {
  auto r = load("exporters: {debug: {}}\nexporters: {debug: {}}\n");
  EXPECT_THAT(messages(r),
              ::testing::Contains("t.yaml:2:1: error: duplicate key \"exporters\" in the config"));
}

// The Collector's log levels in any case; `metrics.level: none` turns /metrics off.
TEST(Loader, TelemetryLevels) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
exporters: {debug: {}}
service:
  telemetry: {logs: {level: WARN}, metrics: {level: none}}
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  EXPECT_THAT(errors(r), IsEmpty());
  EXPECT_EQ(r.config.telemetry.log_level, Telemetry::Level::kWarn);
  EXPECT_EQ(r.config.telemetry.metrics_address, "");
  auto normal = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
exporters: {debug: {}}
service:
  telemetry: {metrics: {level: detailed}}
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  EXPECT_THAT(errors(normal), IsEmpty());
  EXPECT_EQ(normal.config.telemetry.metrics_address, "127.0.0.1:8888");
}

// filelog/a/b and filelog/a_b would keep their offsets in one file, each overwriting the
// other's: after a restart one of them read its files again.
TEST(Loader, FilelogCheckpointNamesMustNotCollide) {
  auto r = load(R"(
receivers:
  filelog/a/b: {include: [/tmp/x/*.log], storage: /tmp/state}
  filelog/a_b: {include: [/tmp/y/*.log], storage: /tmp/state}
exporters:
  debug: {}
service:
  pipelines:
    logs: {receivers: [filelog/a/b, filelog/a_b], exporters: [debug]}
)");
  EXPECT_THAT(errors(r),
              ElementsAre("t.yaml:3:16: error: receivers.filelog/a_b: its checkpoint file "
                          "/tmp/state/filelog-filelog_a_b.json is also that of receivers.filelog/a/b "
                          "(ids that differ only by '/' and '_'); rename one of them"));
}

// YAML merge keys, as Collector configs use them to share settings between components.
TEST(Loader, YamlMergeKeys) {
  auto r = load(R"(
x-es: &es
  endpoint: http://127.0.0.1:9200
  flush: {interval: 2s}
x-retry: &retry
  retry: {max_retries: 7}
receivers: {otlp: {protocols: {http: {}}}}
exporters:
  elasticsearch:
    <<: [*es, *retry]
    flush: {interval: 5s}
  elasticsearch/bad:
    <<: plain
    endpoint: http://127.0.0.1:9200
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, elasticsearch/bad]}
)");
  const auto& es = settings<ElasticsearchExporterConfig>(r.config.exporters, "elasticsearch");
  EXPECT_EQ(es.endpoints, std::vector<std::string>{"http://127.0.0.1:9200"});
  EXPECT_EQ(es.flush.interval, 5s);  // its own key wins over the merged one
  EXPECT_EQ(es.retry.max_retries, 7u);
  EXPECT_THAT(errors(r),
              ::testing::Contains(HasSubstr(
                  "exporters.elasticsearch/bad: a merge key (<<) takes a mapping or a list of mappings")));
}

// An action's plain `value:` is typed as the Collector's YAML decoder (yaml.v3) types it.
TEST(Loader, AttributeValuesTypedAsYamlV3Does) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
processors:
  attributes:
    actions:
      - {key: hex, value: 0x10, action: insert}
      - {key: sep, value: 1_000, action: insert}
      - {key: plus, value: +5, action: insert}
      - {key: bin, value: 0b101, action: insert}
      - {key: oct, value: 0o17, action: insert}
      - {key: inf, value: .inf, action: insert}
      - {key: ninf, value: -.Inf, action: insert}
      - {key: exp, value: 1e3, action: insert}
      - {key: dot, value: .5, action: insert}
      - {key: word, value: inf, action: insert}
      - {key: quoted, value: "0x10", action: insert}
      - {key: min, value: -9223372036854775808, action: insert}
      - {key: big, value: 9223372036854775808, action: insert}
exporters: {debug: {}}
service:
  pipelines:
    logs: {receivers: [otlp], processors: [attributes], exporters: [debug]}
)");
  ASSERT_THAT(errors(r), IsEmpty());
  using T = AttributesProcessorConfig::Type;
  const auto& a = settings<AttributesProcessorConfig>(r.config.processors, "attributes").actions;
  const std::vector<std::pair<T, std::string>> want = {{T::kInt, "16"},
                                                       {T::kInt, "1000"},
                                                       {T::kInt, "5"},
                                                       {T::kInt, "5"},
                                                       {T::kInt, "15"},
                                                       {T::kDouble, "inf"},
                                                       {T::kDouble, "-inf"},
                                                       {T::kDouble, "1e3"},
                                                       {T::kDouble, ".5"},
                                                       {T::kString, "inf"},
                                                       {T::kString, "0x10"},
                                                       {T::kInt, "-9223372036854775808"},
                                                       {T::kDouble, "9223372036854775808"}};
  ASSERT_EQ(a.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(a[i].value_type, want[i].first) << a[i].key;
    EXPECT_EQ(a[i].value, want[i].second) << a[i].key;
  }
}

// otel mode sends require_data_stream=true: a static index that is no data stream gets
// every document refused by Elasticsearch, which the loader says.
TEST(Loader, OtelStaticIndexThatIsNoDataStreamIsWarnedAbout) {
  auto r = load(R"(
receivers: {otlp: {protocols: {http: {}}}}
exporters:
  elasticsearch: {endpoint: http://127.0.0.1:9200, logs_index: my-events, traces_index: traces-app-prod}
  elasticsearch/bodymap: {endpoint: http://127.0.0.1:9200, logs_index: my-events, mapping: {mode: bodymap}}
service:
  pipelines:
    logs: {receivers: [otlp], exporters: [elasticsearch, elasticsearch/bodymap]}
)");
  EXPECT_THAT(messages(r),
              ElementsAre("t.yaml:3:64: warning: exporters.elasticsearch.logs_index: \"my-events\" must "
                          "be a data stream: the otel mapping mode sends require_data_stream=true, and "
                          "Elasticsearch refuses documents for any other index (its built-in templates "
                          "make <type>-<dataset>-<namespace> names data streams, e.g. "
                          "logs-myapp-default)"));
}

}  // namespace
}  // namespace tern::config
