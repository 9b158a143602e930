#include "receiver/otlp/config.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/reader.h"
#include "config/transport.h"

namespace tern::receiver::otlp {

using config::check_host_port;
using config::DecodeContext;
using config::MapReader;

namespace {

// The largest protocols.http.max_request_body_size (see its check).
constexpr std::uint64_t kMaxHttpRequestBody = std::uint64_t{2} << 30;

// protocols.http.{logs,traces,metrics}_url_path, as the Collector reads them: empty is the
// default, a relative path gets its leading '/'. What the Collector would route oddly or not
// at all is an error here: a query (it drops it), a fragment, percent-escapes (it matches
// the decoded path), a trailing '/' or braces (a prefix or a wildcard there), bytes a request
// line cannot carry, and two signals on one path (its ServeMux refuses the second at start).
// profiles_url_path is read and unused: Tern has no profiles signal.
void decode_url_paths(DecodeContext& ctx, MapReader& h, OtlpReceiverConfig::Http& c) {
  h.get("profiles_url_path");
  const std::pair<const char*, std::string*> keys[] = {{"logs_url_path", &c.logs_url_path},
                                                       {"traces_url_path", &c.traces_url_path},
                                                       {"metrics_url_path", &c.metrics_url_path}};
  for (const auto& [key, path] : keys) {
    if (!h.has(key)) continue;
    std::string v;
    h.str(key, v);
    if (v.empty()) continue;  // omitempty: the default
    if (v.front() != '/') v.insert(v.begin(), '/');
    const auto bad = std::find_if(v.begin(), v.end(), [](char ch) {
      const auto u = static_cast<unsigned char>(ch);
      return u <= 0x20 || u >= 0x7f || ch == '?' || ch == '#' || ch == '%' || ch == '{' || ch == '}';
    });
    if (bad != v.end()) {
      ctx.error(h.mark(key), fmt::format("{}: \"{}\": a URL path without query, fragment, percent-escapes, "
                                         "braces, spaces or control characters is required",
                                         h.sub_path(key), v));
      continue;
    }
    // The Collector's ServeMux reads a pattern ending in '/' as a prefix and {x} as a
    // wildcard; Tern matches exact paths, so neither is taken rather than read differently.
    if (v.back() == '/') {
      ctx.error(h.mark(key),
                fmt::format("{}: \"{}\": a path ending in '/' (a prefix in the Collector) is not "
                            "supported; give the exact path",
                            h.sub_path(key), v));
      continue;
    }
    *path = std::move(v);
  }
  for (std::size_t i = 0; i < std::size(keys); ++i)
    for (std::size_t j = i + 1; j < std::size(keys); ++j)
      if (*keys[i].second == *keys[j].second) {
        // Said at the key that was set (the other may be a default).
        const bool j_set = h.has(keys[j].first);
        const char* set = j_set ? keys[j].first : keys[i].first;
        const char* other = j_set ? keys[i].first : keys[j].first;
        ctx.error(h.mark(set), fmt::format("{}: \"{}\" is also {}: each signal needs a path of its own",
                                           h.sub_path(set), *keys[j].second, h.sub_path(other)));
      }
}

}  // namespace

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, OtlpReceiverConfig& c) {
  MapReader protocols(ctx, r.get("protocols"), r.sub_path("protocols"));
  r.get("include_metadata");  // accepted for compatibility, ignored
  // Read both up front so that a misspelt protocol gets a "did you mean" suggestion.
  YAML::Node grpc = protocols.get("grpc");
  YAML::Node http = protocols.get("http");
  if (protocols.has("grpc")) {
    c.grpc.enabled = true;
    MapReader g(ctx, grpc, protocols.sub_path("grpc"));
    g.str("endpoint", c.grpc.endpoint);
    check_host_port(ctx, g, "endpoint", c.grpc.endpoint);
    // gRPC counts a message's size in an int: 2047 MiB at most. 0: the default (the Collector's
    // 0 leaves gRPC's own 4 MiB).
    g.uint("max_recv_msg_size_mib", c.grpc.max_recv_msg_size_mib, 2047);
    if (c.grpc.max_recv_msg_size_mib == 0)
      c.grpc.max_recv_msg_size_mib = OtlpReceiverConfig{}.grpc.max_recv_msg_size_mib;
    g.get("include_metadata");
    decode_server_tls(ctx, g, c.grpc.tls, /*grpc=*/true);
  }
  if (protocols.has("http")) {
    c.http.enabled = true;
    MapReader h(ctx, http, protocols.sub_path("http"));
    h.str("endpoint", c.http.endpoint);
    check_host_port(ctx, h, "endpoint", c.http.endpoint);
    h.size("max_request_body_size", c.http.max_request_body_size);
    // A body is held whole in memory (twice while gunzipped), and gRPC, the other protocol,
    // takes at most 2047 MiB: anything over 2 GiB is a typo or "no limit", which a server
    // that buffers requests cannot offer.
    if (c.http.max_request_body_size > kMaxHttpRequestBody) {
      ctx.error(h.mark("max_request_body_size"),
                fmt::format("{}: {} bytes is over the largest allowed, 2GiB",
                            h.sub_path("max_request_body_size"), c.http.max_request_body_size));
      c.http.max_request_body_size = kMaxHttpRequestBody;
    }
    // 0: the default, as in the Collector's confighttp (not "refuse every body").
    if (c.http.max_request_body_size == 0)
      c.http.max_request_body_size = OtlpReceiverConfig{}.http.max_request_body_size;
    h.get("include_metadata");
    decode_server_tls(ctx, h, c.http.tls, /*grpc=*/false);
    MapReader cors(ctx, h.get("cors"), h.sub_path("cors"));
    cors.strings("allowed_origins", c.http.cors_allowed_origins);
    cors.strings("allowed_headers", c.http.cors_allowed_headers);
    // The Collector's key (its README's example sets 7200, Tern's default).
    cors.uint("max_age", c.http.cors_max_age, INT32_MAX);
    decode_url_paths(ctx, h, c.http);
  }
  if (!c.grpc.enabled && !c.http.enabled) {
    ctx.error(at, fmt::format("{}: at least one protocol (grpc or http) must be configured under protocols",
                              r.path()));
  }
}

}  // namespace tern::receiver::otlp
