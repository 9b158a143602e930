#pragma once
// The `otlp` and `otlphttp` exporters' settings.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/component.h"
#include "config/reader.h"
#include "config/transport.h"
#include "config/units.h"

namespace tern::exporter::otlp {

using namespace std::chrono_literals;
using config::Compression;
using config::Duration;
using config::TlsClientConfig;
using config::TlsServerConfig;

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
    Duration max_elapsed_time = 0s;     // 0: no limit
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

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
// `id` and `storage`: its queue's storage extension, if it names one.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at, OtlpExporterConfig& c,
            const config::ComponentId& id, std::vector<config::StorageRequest>& storage);

}  // namespace tern::exporter::otlp
