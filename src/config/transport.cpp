#include "config/transport.h"

namespace tern::config {
namespace {

// The files a `tls` block names must be readable where the config runs.
void check_files(DecodeContext& ctx, MapReader& r,
                 std::initializer_list<std::pair<const char*, std::string>> files) {
  for (const auto& [key, file] : files) {
    if (file.empty()) continue;
    ctx.check_environment(r.mark(key),
                          [path = r.sub_path(key), file = file] { return file_unreadable(path, file); });
  }
}

}  // namespace

// `min_version` and `max_version` of a `tls` block (the Collector's configtls keys). `grpc`:
// the block configures gRPC, whose grpc++ (1.51) always offers TLS 1.2 and 1.3 and has no
// way to narrow that: a bound that would narrow it is an error there, not a silent no-op.
void decode_tls_versions(DecodeContext& ctx, MapReader& r, net::TlsVersion& min, net::TlsVersion& max,
                         bool grpc) {
  const auto one = [&](std::string_view key, net::TlsVersion& out) {
    const bool present = r.has(key);
    std::string text;
    r.str(key, text);
    if (!present) return;
    if (const auto v = net::parse_tls_version(text)) {
      out = *v;
    } else if (text == "1.0" || text == "1.1") {
      ctx.error(r.mark(key), fmt::format("{}: TLS {} is not supported: Tern speaks TLS 1.2 and 1.3",
                                         r.sub_path(key), text));
    } else {
      ctx.error(r.mark(key),
                fmt::format("{}: invalid value \"{}\" (expected one of: 1.2, 1.3)", r.sub_path(key), text));
    }
  };
  one("min_version", min);
  one("max_version", max);
  if (min == net::TlsVersion::k1_3 && max == net::TlsVersion::k1_2) {
    ctx.error(r.mark("max_version"),
              fmt::format("{}: \"1.2\" is below min_version \"1.3\"", r.sub_path("max_version")));
  } else if (grpc && (min == net::TlsVersion::k1_3 || max == net::TlsVersion::k1_2)) {
    const char* key = min == net::TlsVersion::k1_3 ? "min_version" : "max_version";
    ctx.error(r.mark(key), fmt::format("{}: gRPC always offers TLS 1.2 and 1.3 (its library cannot narrow "
                                       "that); a single TLS version can be required over OTLP/HTTP only",
                                       r.sub_path(key)));
  }
}

// A receiver protocol's `tls`: on when cert_file and key_file are set.
void decode_server_tls(DecodeContext& ctx, MapReader& parent, TlsServerConfig& t, bool grpc) {
  if (!parent.has("tls")) return;
  YAML::Node n = parent.get("tls");
  MapReader r(ctx, n, parent.sub_path("tls"));
  r.str("cert_file", t.cert_file);
  r.str("key_file", t.key_file);
  r.str("client_ca_file", t.client_ca_file);
  decode_tls_versions(ctx, r, t.min_version, t.max_version, grpc);
  if (t.cert_file.empty() || t.key_file.empty()) {
    ctx.error(n.Mark(), fmt::format("{}: cert_file and key_file are required for TLS", r.path()));
  }
  check_files(ctx, r,
              {{"cert_file", t.cert_file}, {"key_file", t.key_file}, {"client_ca_file", t.client_ca_file}});
}

void decode_tls(DecodeContext& ctx, MapReader& parent, TlsClientConfig& t, bool with_insecure, bool grpc) {
  YAML::Node n = parent.get("tls");
  MapReader r(ctx, n, parent.sub_path("tls"));
  if (with_insecure) r.boolean("insecure", t.insecure);
  r.str("ca_file", t.ca_file);
  r.str("cert_file", t.cert_file);
  r.str("key_file", t.key_file);
  r.boolean("insecure_skip_verify", t.insecure_skip_verify);
  r.str("server_name_override", t.server_name_override);
  decode_tls_versions(ctx, r, t.min_version, t.max_version, grpc);
  if (t.cert_file.empty() != t.key_file.empty()) {
    ctx.error(n.Mark(), fmt::format("{}: cert_file and key_file must be set together", r.path()));
  }
  check_files(ctx, r, {{"ca_file", t.ca_file}, {"cert_file", t.cert_file}, {"key_file", t.key_file}});
}

}  // namespace tern::config
