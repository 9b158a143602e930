#pragma once
// Options of the Elasticsearch-compatible test sink (`tern sink`).
#include <cstddef>
#include <cstdint>
#include <string>

#include "net/tls.h"

namespace tern::sink {

struct SinkOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9200;  // 0 = any free port (start() returns the bound one)
  int threads = 2;
  std::string dump_path;  // empty = no dump
  uint64_t seed = 1;      // fault decisions are a pure function of seed and arrival order
  double item_429_rate = 0;
  double request_429_rate = 0;
  double request_503_rate = 0;
  double drop_connection_rate = 0;
  std::size_t max_content_length = 100u << 20;  // uncompressed, like http.max_content_length
  int latency_ms = 0;
  std::string mapping_error_field;
  net::TlsServerOptions tls;  // https, as Elasticsearch 8 serves by default
};

}  // namespace tern::sink
