#pragma once
// The collector configuration model: typed, defaulted settings for every component
// Tern has, in a shape that follows the OpenTelemetry Collector's config file.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/units.h"
#include "net/tls.h"

namespace tern::config {

using namespace std::chrono_literals;

enum class Signal { kLogs, kTraces, kMetrics };

// `type` or `type/name`, e.g. "otlp/2".
struct ComponentId {
  std::string type;
  std::string name;
  std::string str() const { return name.empty() ? type : type + "/" + name; }
};

// `tls` of a receiver protocol: TLS is on when cert_file is set (key_file with it);
// client_ca_file makes client certificates required (mutual TLS). The servers' own settings.
using TlsServerConfig = net::TlsServerOptions;

struct OtlpReceiverConfig {
  struct Grpc {
    bool enabled = false;  // set when protocols.grpc is present
    std::string endpoint = "127.0.0.1:4317";
    std::uint64_t max_recv_msg_size_mib = 4;
    TlsServerConfig tls;
  } grpc;
  struct Http {
    bool enabled = false;  // set when protocols.http is present
    std::string endpoint = "127.0.0.1:4318";
    TlsServerConfig tls;
    std::uint64_t max_request_body_size = 20 * 1024 * 1024;
    std::vector<std::string> cors_allowed_origins;
    std::vector<std::string> cors_allowed_headers;
    std::uint64_t cors_max_age = 7200;  // seconds: a preflight answer's Access-Control-Max-Age; 0: none
    // The paths each signal is posted to (the Collector's traces_url_path, ...): absolute,
    // without query, distinct.
    std::string logs_url_path = "/v1/logs";
    std::string traces_url_path = "/v1/traces";
    std::string metrics_url_path = "/v1/metrics";
  } http;
};

// One entry of a filelog receiver's `operators` (the Collector's stanza operators, the
// subset Tern runs; see docs/receivers.md). Fields are `body` or `attributes.<key>`.
struct FilelogOperatorConfig {
  enum class Type {
    kRegexParser,
    kJsonParser,
    kKeyValueParser,
    kTimeParser,
    kSeverityParser,
    kRemove,
    kMove,
    kCopy,
    kAdd,
    kRetain,
    kContainer,
    kTraceParser,
    kCsvParser
  };
  enum class OnError { kSend, kSendQuiet, kDrop, kDropQuiet };
  struct Timestamp {
    std::string parse_from;
    bool epoch = false;  // layout_type: epoch (else strptime)
    std::string layout;
    bool utc = false;  // location: UTC (else the local zone, the Collector's default)
  };
  // A severity mapping entry: a text value (lower-cased) or an inclusive integer range.
  struct SeverityMatch {
    std::int32_t number = 0;  // 1-24, what a match maps to
    std::string text;         // empty: the range applies
    std::int64_t min = 0, max = -1;
  };
  struct Severity {
    std::string parse_from;
    std::vector<SeverityMatch> mapping;  // the preset's entries first, then the config's
    bool overwrite_text = false;
  };
  Type type = Type::kRegexParser;
  std::string id;  // the operator's id (default: its type), in metrics and logs
  OnError on_error = OnError::kSend;
  std::string regex;                   // regex_parser
  std::string delimiter = "=";         // key_value_parser: between key and value
  std::string pair_delimiter;          // key_value_parser: between pairs (empty: whitespace)
  std::string parse_from = "body";     // parsers
  std::optional<Timestamp> timestamp;  // parsers' `timestamp` block, or time_parser's own fields
  std::optional<Severity> severity;    // parsers' `severity` block, or severity_parser's own
  std::string field;                   // remove, add
  std::string from, to;                // move, copy
  std::vector<std::string> fields;     // retain: the attributes kept
  std::string format = "auto";         // container: auto, docker, crio or containerd
  bool add_metadata_from_filepath = true;  // container: k8s.* resource attributes from log.file.path
  std::uint64_t max_log_size = 0;          // container: bound on a joined partial line; 0 = the receiver's
  // trace_parser: where the hex trace id, span id and trace flags are read from.
  std::string trace_id_from = "attributes.trace_id", span_id_from = "attributes.span_id",
              trace_flags_from = "attributes.trace_flags";
  std::string value;                   // add
  // csv_parser: the column names (from `header`), and how quotes are read.
  std::vector<std::string> csv_header;
  bool lazy_quotes = false, ignore_quotes = false;
};

struct FilelogReceiverConfig {
  enum class StartAt { kBeginning, kEnd };
  enum class Parse { kNone, kJson };
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  StartAt start_at = StartAt::kEnd;
  std::uint64_t max_log_size = 1024 * 1024;
  std::string encoding = "utf-8";
  Parse parse = Parse::kNone;
  std::map<std::string, std::string> attributes;
  std::string storage;                    // checkpoint directory; empty = offsets not persisted
  Duration poll_interval = 200ms;         // how often the include globs are re-scanned
  std::uint64_t fingerprint_size = 1000;  // leading bytes hashed to recognise a file
  bool include_file_name = true;          // adds the log.file.name attribute
  bool include_file_path = false;         // adds the log.file.path attribute
  bool include_file_name_resolved = false;      // log.file.name_resolved: the name after symlinks
  bool include_file_path_resolved = false;      // log.file.path_resolved: the path after symlinks
  std::map<std::string, std::string> resource;  // resource attributes of every record
  std::uint64_t max_concurrent_files = 1024;    // accepted (the Collector's); see docs
  Duration exclude_older_than = 0s;  // files not modified for this long are not started on (0: all)
  // Set by preserve_leading/trailing_whitespaces: false. Tern keeps the text as it is by
  // default (the Collector trims by default).
  bool trim_leading = false, trim_trailing = false;
  // A batch goes to the pipeline at this many lines or bytes of line text (or when the
  // files have nothing more to read). Larger batches mean fewer, larger disk-queue frames
  // and fsyncs; with a memory queue, up to 32 unsettled batches are held encoded.
  std::uint64_t max_batch_lines = 1000;
  std::uint64_t max_batch_size = 1024 * 1024;
  // Run in order on each record after it is read (and `parse`d).
  std::vector<FilelogOperatorConfig> operators;
  // `multiline`: lines gathered into one record (joined by '\n'). A line matching the start
  // pattern begins a record, or one matching the end pattern ends it (set one of the two).
  std::string multiline_start, multiline_end;
  // A gathered record that got no new line for this long is sent (0: only when the next
  // one starts or the file is closed). The Collector's force_flush_period.
  Duration force_flush_period = 500ms;
};

struct BatchProcessorConfig {
  std::uint64_t send_batch_size = 8192;
  std::uint64_t send_batch_max_size = 0;  // 0 = no upper bound
  Duration timeout = 200ms;
  std::uint64_t send_batch_max_bytes = 0;  // 0 = no byte bound
};

struct MemoryLimiterProcessorConfig {
  Duration check_interval = 0s;
  std::uint64_t limit_mib = 0;
  std::uint64_t spike_limit_mib = 0;  // 0 = 20% of limit_mib
  std::uint64_t limit_percentage = 0;
  std::uint64_t spike_limit_percentage = 0;
};

// Shared by the `attributes` (record attributes) and `resource` processors.
struct AttributesProcessorConfig {
  enum class Action { kInsert, kUpdate, kUpsert, kDelete, kConvert };
  enum class Type { kString, kInt, kDouble, kBool };
  struct Entry {
    Entry() = default;
    Entry(std::string k, std::string v, Action a) : key(std::move(k)), value(std::move(v)), action(a) {}
    std::string key;
    std::string value;
    Action action = Action::kUpsert;
    Type value_type = Type::kString;      // `value` as YAML types it: 2245 an int, "2245" a string
    std::string from_attribute;           // insert/update/upsert: that attribute's value instead
    std::string pattern;                  // delete: also the keys this regex (RE2) matches
    Type converted_type = Type::kString;  // convert
  };
  std::vector<Entry> actions;
};

// `resourcedetection`: resource attributes detected once at start-up and set on the
// resource of every batch (the Collector's processor, with its `env` and `system` detectors).
struct ResourceDetectionProcessorConfig {
  // Defaults in a constructor: GCC 12 crashes (ICE) on `v = T{}` into the variant when
  // these lists are default member initializers.
  ResourceDetectionProcessorConfig()
      : hostname_sources{"dns", "os"}, system_attributes{"host.name", "os.type"} {}
  // In order; when two detect the same attribute, the first one's value is kept.
  std::vector<std::string> detectors;
  bool override_existing = true;               // `override`: detected values replace what a resource has
  std::vector<std::string> hostname_sources;   // system: where host.name comes from
  std::vector<std::string> system_attributes;  // system: the enabled ones
};

// `filter`: drops the items any of its OTTL conditions match (the Collector's filter
// processor; the conditions are checked by the loader, see ottl/condition.h).
struct FilterProcessorConfig {
  // What an error evaluating a condition does. Tern's conditions have no run-time errors
  // (a comparison of values of different types is false), so this is accepted and kept.
  enum class ErrorMode { kPropagate, kIgnore, kSilent } error_mode = ErrorMode::kPropagate;
  std::vector<std::string> log_record, span, spanevent, metric, datapoint;
};

// `transform`: OTTL statements that change items in place (the Collector's transform
// processor; checked by the loader, see ottl/statement.h). Groups run in order.
struct TransformProcessorConfig {
  enum class ErrorMode { kPropagate, kIgnore, kSilent } error_mode = ErrorMode::kPropagate;  // accepted
  struct Group {
    std::string context;                  // log, span, spanevent, metric, datapoint, resource, scope
    std::vector<std::string> conditions;  // the group runs on items any of them matches (all if none)
    std::vector<std::string> statements;
  };
  std::vector<Group> log_statements, trace_statements, metric_statements;
};

// `tls` of an exporter: the clients' own settings, plus `insecure` (plaintext), which only
// means something for OTLP/gRPC, whose endpoint has no scheme; URLs say it with http:// or
// https://.
struct TlsClientConfig : net::TlsClientOptions {
  TlsClientConfig() = default;  // not an aggregate: GCC 12 misreports its aggregate copies as uninitialized
  bool insecure = false;
};

// kZstd: otlphttp only (Content-Encoding: zstd); the loader refuses it elsewhere.
enum class Compression { kNone, kGzip, kZstd };

struct ElasticsearchExporterConfig {
  std::vector<std::string> endpoints;  // `endpoint` is folded in here
  std::uint64_t num_workers = 0;       // 0 = number of cores
  struct Flush {
    std::uint64_t bytes = 5000000;
    Duration interval = 1s;
  } flush;
  struct Retry {
    bool enabled = true;
    std::uint64_t max_retries = 0;
    Duration initial_interval = 100ms;
    Duration max_interval = 30s;
    std::vector<std::uint64_t> retry_on_status{429, 500, 502, 503, 504};
  } retry;
  Compression compression = Compression::kGzip;
  std::uint64_t compression_level = 1;
  std::map<std::string, std::string> headers;
  std::string user;
  std::string password;
  std::string api_key;
  TlsClientConfig tls;
  std::string mapping_mode = "otel";  // otel | bodymap | none | raw | ecs (encoding::es::MappingMode)
  // Modes a scope's `elastic.mapping.mode` attribute may ask for; empty: every mode.
  std::vector<std::string> mapping_allowed_modes;
  std::string logs_index;
  std::string metrics_index;
  std::string traces_index;
  bool logs_dynamic_id = false;
  bool logs_dynamic_pipeline = false;  // elasticsearch.ingest_pipeline -> the action's `pipeline`
  std::string pipeline;
  // The bulk request's include_source_on_error (Elasticsearch 8.18+); unset: not sent.
  std::optional<bool> include_source_on_error;
  // Query parameters sent with every bulk request: the first endpoint's URL query, as the
  // Collector takes it (raw, without '?'; the endpoints themselves are kept without).
  std::string bulk_query;
  Duration timeout = 90s;
  std::string dead_letter_path;
  enum class Encoding { kEarly, kLate } encoding = Encoding::kEarly;
  struct SendingQueue {
    enum class Type { kMemory, kDisk };
    enum class Sync { kBatch, kInterval, kNone };
    bool enabled = false;
    Type type = Type::kMemory;
    std::uint64_t queue_size = 1000;  // items
    std::uint64_t max_bytes = 0;      // 0 = no byte bound
    std::string directory;
    // The Collector's persistent queue: the id of a file_storage extension. The loader
    // turns it into a disk queue in a directory of that extension (storage_directory()).
    std::string storage;
    std::uint64_t max_size = 1024ull * 1024 * 1024;
    std::uint64_t segment_size = 64ull * 1024 * 1024;
    Sync sync = Sync::kBatch;
    Duration sync_interval = 1s;  // fsync period when sync is kInterval
    bool compress = false;        // disk queue frames compressed with zstd (`compression: zstd`)
  } sending_queue;
};

struct OtlpExporterConfig {
  // Chosen by the exporter type, as in the OpenTelemetry Collector: `otlp` sends OTLP/gRPC
  // to host:port, `otlphttp` sends OTLP/HTTP protobuf to a URL (paths /v1/<signal> appended).
  enum class Protocol { kGrpc, kHttp } protocol = Protocol::kGrpc;
  std::string endpoint;
  // otlphttp, as the Collector's: a signal's full URL, used as it is (no /v1/<signal>
  // appended); empty: `endpoint` + /v1/<signal>.
  std::string logs_endpoint, traces_endpoint, metrics_endpoint;
  // otlphttp: the request body's encoding (application/x-protobuf or application/json).
  enum class Encoding { kProto, kJson } encoding = Encoding::kProto;
  TlsClientConfig tls;
  Compression compression = Compression::kGzip;
  std::map<std::string, std::string> headers;
  Duration timeout = 5s;
  // The Collector's exporterhelper blocks. Defaults are Tern's: retry until delivered or
  // shut down (the Collector gives up after 300 s), from 100 ms (its 5 s).
  struct RetryOnFailure {
    bool enabled = true;
    Duration initial_interval = 100ms;
    Duration max_interval = 30s;
    double multiplier = 2.0;
    double randomization_factor = 0.5;  // each back-off × [1 - f, 1 + f], as the Collector's
    Duration max_elapsed_time = 0s;  // 0: no limit
  } retry_on_failure;
  struct SendingQueue {
    std::uint64_t num_consumers = 4;  // sender threads, each with its own connection
    std::uint64_t queue_size = 1000;  // requests waiting; a full queue is back-pressure
    // The Collector's persistent queue: the id of a file_storage extension. The loader sets
    // `directory` to this exporter's directory there; requests then wait on disk.
    std::string storage;
    std::string directory;
    std::uint64_t max_size = 1024ull * 1024 * 1024;  // bytes on disk (Tern's key)
  } sending_queue;
};

struct DebugExporterConfig {
  enum class Verbosity { kBasic, kNormal, kDetailed } verbosity = Verbosity::kBasic;
};

struct HealthCheckExtensionConfig {
  std::string endpoint = "127.0.0.1:13133";
  std::string path = "/";
};

template <class... Ts>
struct Component {
  ComponentId id;
  std::variant<Ts...> settings;
};
using Receiver = Component<OtlpReceiverConfig, FilelogReceiverConfig>;
using Processor =
    Component<BatchProcessorConfig, MemoryLimiterProcessorConfig, AttributesProcessorConfig,
              ResourceDetectionProcessorConfig, FilterProcessorConfig, TransformProcessorConfig>;
using Exporter = Component<ElasticsearchExporterConfig, OtlpExporterConfig, DebugExporterConfig>;
// `file_storage` (the Collector's storage extension): a directory a component keeps its
// state in. A filelog receiver whose `storage` names one keeps its checkpoint there.
struct FileStorageExtensionConfig {
  std::string directory = "/var/lib/otelcol/file_storage";  // the Collector's default on Linux
};

using Extension = Component<HealthCheckExtensionConfig, FileStorageExtensionConfig>;

struct Pipeline {
  Signal signal = Signal::kLogs;
  std::string name;                    // "logs/foo" -> "foo"
  std::vector<std::string> receivers;  // component ids as written, e.g. "otlp/2"
  std::vector<std::string> processors;
  std::vector<std::string> exporters;
};

struct Telemetry {
  enum class Level { kDebug, kInfo, kWarn, kError } log_level = Level::kInfo;
  enum class Encoding { kConsole, kJson } log_encoding = Encoding::kConsole;
  std::string metrics_address = "127.0.0.1:8888";
};

struct Config {
  std::vector<Receiver> receivers;
  std::vector<Processor> processors;
  std::vector<Exporter> exporters;
  std::vector<Extension> extensions;
  std::vector<std::string> service_extensions;
  std::vector<Pipeline> pipelines;
  Telemetry telemetry;
  Duration shutdown_timeout = 10s;  // service.shutdown_timeout: how long a shutdown may drain
};

}  // namespace tern::config
