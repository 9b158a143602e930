#include "exporter/otlp/config.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "text/endpoint.h"

#include "config/reader.h"
#include "config/transport.h"
#include "exporter/helper/storage.h"

namespace tern::exporter::otlp {

using config::check_backoff;
using config::DecodeContext;
using config::MapReader;

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, OtlpExporterConfig& c,
            const config::ComponentId& id, std::vector<config::StorageRequest>& storage) {
  r.str("endpoint", c.endpoint);
  decode_tls(ctx, r, c.tls, /*with_insecure=*/true,  // otlphttp: the URL scheme decides
             /*grpc=*/c.protocol == OtlpExporterConfig::Protocol::kGrpc);
  // gRPC: what grpc++ compresses messages with here (its zstd is not in Debian 12's).
  if (c.protocol == OtlpExporterConfig::Protocol::kHttp)
    r.choice("compression", c.compression,
             {{"gzip", Compression::kGzip}, {"zstd", Compression::kZstd}, {"none", Compression::kNone}});
  else
    r.choice("compression", c.compression, {{"gzip", Compression::kGzip}, {"none", Compression::kNone}});
  r.string_map("headers", c.headers);
  r.duration("timeout", c.timeout);
  {
    MapReader rt(ctx, r.get("retry_on_failure"), r.sub_path("retry_on_failure"));
    auto& p = c.retry_on_failure;
    rt.boolean("enabled", p.enabled);
    rt.duration("initial_interval", p.initial_interval);
    rt.duration("max_interval", p.max_interval);
    rt.number("multiplier", p.multiplier, 1.0, 100.0);
    rt.duration("max_elapsed_time", p.max_elapsed_time);
    rt.number("randomization_factor", p.randomization_factor, 0.0, 1.0);
    check_backoff(ctx, rt, p.initial_interval, p.max_interval);
  }
  {
    MapReader q(ctx, r.get("sending_queue"), r.sub_path("sending_queue"));
    auto& sq = c.sending_queue;
    bool enabled = true;
    q.boolean("enabled", enabled);
    q.uint("num_consumers", sq.num_consumers, 1024);
    q.uint("queue_size", sq.queue_size);
    // `storage: file_storage[/name]`: the Collector's persistent queue (resolved to a
    // directory once the extensions are read).
    q.str("storage", sq.storage);
    if (q.has("storage") && sq.storage.empty())
      ctx.error(q.mark("storage"),
                fmt::format("{}: storage must name a file_storage extension", q.sub_path("storage")));
    helper::request_queue_storage(ctx, q, id, sq.storage, sq.directory, storage);
    q.size("max_size", sq.max_size);
    if (q.has("max_size") && !q.has("storage"))
      ctx.error(
          q.mark("max_size"),
          fmt::format("{}: max_size bounds the persistent queue; it needs storage (a file_storage extension)",
                      q.sub_path("max_size")));
    else if (sq.max_size == 0)
      ctx.error(q.mark("max_size"),
                fmt::format("{}: max_size must be greater than 0", q.sub_path("max_size")));
    if (!enabled) {
      ctx.warning(q.mark("enabled"), fmt::format("{}: the queue stays on (requests are encoded into it as "
                                                 "they arrive); queue_size bounds it",
                                                 q.path()));
    }
    if (sq.num_consumers == 0)
      ctx.error(q.mark("num_consumers"), fmt::format("{}: num_consumers must be greater than 0", q.path()));
    if (sq.queue_size == 0)
      ctx.error(q.mark("queue_size"), fmt::format("{}: queue_size must be greater than 0", q.path()));
  }
  const bool http = c.protocol == OtlpExporterConfig::Protocol::kHttp;
  // What `tern run` refuses when it builds the exporter's clients is an error here too, at
  // its place in the file: `tern validate` said "valid" for a config that could not start.
  auto check_url = [&](std::string_view key, const std::string& url) {
    const std::string why = tern::text::http_endpoint_error(url, /*require_scheme=*/true);
    if (!why.empty()) ctx.error(r.mark(key), fmt::format("{}: {}, got \"{}\"", r.sub_path(key), why, url));
  };
  if (http) {
    r.str("logs_endpoint", c.logs_endpoint);
    r.str("traces_endpoint", c.traces_endpoint);
    r.str("metrics_endpoint", c.metrics_endpoint);
    r.choice(
        "encoding", c.encoding,
        {{"proto", OtlpExporterConfig::Encoding::kProto}, {"json", OtlpExporterConfig::Encoding::kJson}});
    for (const auto& [key, url] :
         {std::pair{"logs_endpoint", &c.logs_endpoint}, std::pair{"traces_endpoint", &c.traces_endpoint},
          std::pair{"metrics_endpoint", &c.metrics_endpoint}})
      if (r.has(key)) check_url(key, *url);
  }
  const bool every_signal =
      http && !c.logs_endpoint.empty() && !c.traces_endpoint.empty() && !c.metrics_endpoint.empty();
  if (c.endpoint.empty()) {
    if (!every_signal)
      ctx.error(r.has("endpoint") ? r.mark("endpoint") : at,
                fmt::format("{}: endpoint must be set{}", r.path(),
                            http ? " (or logs_endpoint, traces_endpoint and metrics_endpoint)" : ""));
  } else if (http) {
    check_url("endpoint", c.endpoint);
  } else if (const std::string why = tern::text::grpc_endpoint_error(c.endpoint); !why.empty()) {
    ctx.error(r.mark("endpoint"),
              fmt::format("{}: {} (expected host:port, e.g. \"127.0.0.1:4317\"), got \"{}\"",
                          r.sub_path("endpoint"), why, c.endpoint));
  }
  for (const auto& [key, value] : c.headers)
    if (const std::string why = tern::text::header_error(key, value, !http); !why.empty())
      ctx.error(r.mark("headers"), fmt::format("{}: {}", r.sub_path("headers"), why));
  // The TLS files are read when the exporter starts, and only when TLS is on: gRPC unless
  // tls.insecure or an http:// endpoint, OTLP/HTTP for an https:// URL.
  const bool tls_on = http ? c.endpoint.starts_with("https://") || c.logs_endpoint.starts_with("https://") ||
                                 c.traces_endpoint.starts_with("https://") ||
                                 c.metrics_endpoint.starts_with("https://")
                           : !c.tls.insecure && !c.endpoint.starts_with("http://");
  if (tls_on) {
    const YAML::Node t = r.get("tls");  // read by decode_tls: only the positions are needed here
    for (const auto& [key, file] :
         {std::pair{"ca_file", &c.tls.ca_file}, std::pair{"cert_file", &c.tls.cert_file},
          std::pair{"key_file", &c.tls.key_file}}) {
      if (file->empty()) continue;
      // A directory opens as an ifstream on Linux; reading it is what fails at start.
      std::error_code dir_ec;
      const bool is_dir = std::filesystem::is_directory(*file, dir_ec);
      std::ifstream in;
      if (!is_dir) in.open(*file);
      if (!is_dir && in) continue;
      const int err = is_dir ? EISDIR : errno;
      const YAML::Mark m = t.IsMap() && t[key] ? t[key].Mark() : r.mark("tls");
      ctx.error(m, fmt::format("{}.{}: cannot read \"{}\": {}", r.sub_path("tls"), key, *file,
                               std::error_code(err, std::generic_category()).message()));
    }
  }
}

}  // namespace tern::exporter::otlp
