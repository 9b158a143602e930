#pragma once
// Settings shared by the components that talk over the network: TLS (the Collector's
// configtls keys) and request compression, with their decoders.
#include "config/reader.h"
#include "net/tls.h"

namespace tern::config {

// `tls` of a receiver protocol: TLS is on when cert_file is set (key_file with it);
// client_ca_file makes client certificates required (mutual TLS). The servers' own settings.
using TlsServerConfig = net::TlsServerOptions;

// `tls` of an exporter: the clients' own settings, plus `insecure` (plaintext), which only
// means something for OTLP/gRPC, whose endpoint has no scheme; URLs say it with http:// or
// https://.
struct TlsClientConfig : net::TlsClientOptions {
  TlsClientConfig() = default;  // not an aggregate: GCC 12 misreports its aggregate copies as uninitialized
  bool insecure = false;
};

// kZstd: otlphttp only (Content-Encoding: zstd); the loader refuses it elsewhere.
enum class Compression { kNone, kGzip, kZstd };

// `min_version` and `max_version` of a `tls` block. `grpc`: the block configures gRPC, whose
// grpc++ (1.51) always offers TLS 1.2 and 1.3 and cannot narrow that.
void decode_tls_versions(DecodeContext& ctx, MapReader& r, net::TlsVersion& min, net::TlsVersion& max,
                         bool grpc);
// A receiver protocol's `tls` (under `parent`): on when cert_file and key_file are set.
void decode_server_tls(DecodeContext& ctx, MapReader& parent, TlsServerConfig& t, bool grpc);
// An exporter's `tls`. `with_insecure`: the `insecure` key (plaintext), as the OTLP exporters have.
void decode_tls(DecodeContext& ctx, MapReader& parent, TlsClientConfig& t, bool with_insecure = false,
                bool grpc = false);

}  // namespace tern::config
