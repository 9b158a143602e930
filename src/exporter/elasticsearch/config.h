#pragma once
// The `elasticsearch` exporter's settings (see docs/exporter-elasticsearch.md).
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

namespace tern::exporter::es {

using namespace std::chrono_literals;
using config::Compression;
using config::Duration;
using config::TlsClientConfig;
using config::TlsServerConfig;

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

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
// `id` and `storage`: its queue's storage extension, if it names one.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            ElasticsearchExporterConfig& c, const config::ComponentId& id,
            std::vector<config::StorageRequest>& storage);

}  // namespace tern::exporter::es
