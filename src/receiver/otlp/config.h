#pragma once
// The `otlp` receiver's settings (the Collector's keys; see docs/configuration.md).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/reader.h"
#include "config/transport.h"
#include "config/units.h"

namespace tern::receiver::otlp {

using namespace std::chrono_literals;
using config::Compression;
using config::Duration;
using config::TlsClientConfig;
using config::TlsServerConfig;

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

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at, OtlpReceiverConfig& c);

}  // namespace tern::receiver::otlp
