#include "exporter/elasticsearch/config.h"

#include <fmt/format.h>

#include <algorithm>

#include <re2/re2.h>

#include "encoding/elasticsearch/encoder.h"
#include "text/ascii.h"
#include "text/base64.h"
#include "text/endpoint.h"

#include "config/reader.h"
#include "config/transport.h"
#include "exporter/elasticsearch/config_queue.h"

namespace tern::exporter::es {

using config::check_backoff;
using config::DecodeContext;
using config::join;
using config::MapReader;

namespace {

// The Elasticsearch URL of an Elastic Cloud ID, "<name>:<base64 of host[:port]$es-id[$kibana-id]>",
// as go-elasticsearch reads it: https://<es-id>.<host>[:port]. Empty, with `why`, when it is
// not one.
std::string cloud_id_url(std::string_view id, std::string& why) {
  const auto colon = id.find(':');
  if (colon == std::string_view::npos) {
    why = "expected <name>:<base64 text>";
    return {};
  }
  const std::optional<std::string> decoded = tern::text::base64_decode(id.substr(colon + 1));
  if (!decoded) {
    why = "the part after the first ':' is not base64";
    return {};
  }
  const std::string_view text = *decoded;
  const auto dollar = text.find('$');
  const std::string_view host = text.substr(0, dollar);
  const std::string_view es = dollar == std::string_view::npos ? std::string_view() : text.substr(dollar + 1);
  const std::string_view es_id = es.substr(0, es.find('$'));
  if (host.empty() || es_id.empty()) {
    why = "its decoded text is not <host>$<elasticsearch id>[$<kibana id>]";
    return {};
  }
  return "https://" + std::string(es_id) + "." + std::string(host);
}

// Why an Elasticsearch URL's query cannot go with the bulk requests; "" when it can. Its
// bytes are sent as written, so they must be a URL query's (RFC 3986: a '%' starts two hex
// digits; Elasticsearch answers 400 to the whole request otherwise, which is retried for
// ever). The parameters the exporter sets itself are left to their own keys, and `format`
// is JSON only: Tern must read the answer. Names are compared decoded, as Elasticsearch
// reads them (a later repeat wins there, so `filter%5Fpath` would replace Tern's).
std::string bulk_query_error(std::string_view query) {
  constexpr std::string_view kAllowed = "-._~!$&'()*+,;=:@/?%";
  const auto hex = [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; };
  for (std::size_t i = 0; i < query.size(); ++i) {
    const char ch = query[i];
    if (!std::isalnum(static_cast<unsigned char>(ch)) && kAllowed.find(ch) == std::string_view::npos)
      return ch > 0x20 && ch < 0x7f
                 ? fmt::format("'{}' cannot be in a URL query (percent-encode it)", ch)
                 : fmt::format("byte 0x{:02x} cannot be in a URL query (percent-encode it)",
                               static_cast<unsigned char>(ch));
    if (ch == '%' && (i + 2 >= query.size() || !hex(query[i + 1]) || !hex(query[i + 2])))
      return "'%' must start a percent-escape of two hex digits";
  }
  const auto decoded = [](std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += s[i] == '+' ? ' ' : s[i];
      }
    }
    return out;
  };
  const std::pair<std::string_view, std::string_view> own[] = {
      {"filter_path", "Tern reads bulk responses through its own filter"},
      {"require_data_stream", "the mapping mode decides it"},
      {"pipeline", "set the pipeline key"},
      {"include_source_on_error", "set the include_source_on_error key"}};
  for (std::string_view rest = query; !rest.empty();) {
    const std::size_t amp = rest.find('&');
    const std::string_view param = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const std::size_t eq = param.find('=');
    const std::string name = decoded(param.substr(0, eq));
    for (const auto& [key, hint] : own)
      if (name == key) return fmt::format("the query parameter {} is set by the exporter: {}", key, hint);
    if (name == "format" && (eq == std::string_view::npos || decoded(param.substr(eq + 1)) != "json"))
      return "the query parameter format must be json: the exporter reads the bulk response as JSON";
  }
  return "";
}

// Each URL is checked where it is written, so the error points at the bad entry.
void check_url(DecodeContext& ctx, const std::string& url, const YAML::Mark& m, const std::string& path) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    ctx.error(m, fmt::format("{}: \"{}\" must start with http:// or https://", path, url));
    return;
  }
  const std::size_t host = url.find("://") + 3;
  if (url.size() == host) {
    ctx.error(m, fmt::format("{}: \"{}\" has no host", path, url));
    return;
  }
  // What the exporter refuses when `tern run` builds it (parse_endpoint), or could never
  // connect to (a port over 65535), is an error here too: validate said "valid" for them.
  const std::string_view authority =
      std::string_view(url).substr(host, url.find_first_of("/?#", host) - host);
  const std::size_t query = url.find('?', host);
  if (url.find('#', host) != std::string::npos) {
    // The exporter appends /_bulk?... to the URL's path: a fragment would end up inside
    // the host or the path (and every request fail, for ever).
    ctx.error(m, fmt::format("{}: \"{}\": a fragment is not supported in an Elasticsearch URL", path, url));
  } else if (const std::string why = bulk_query_error(
                 std::string_view(url).substr(query == std::string::npos ? url.size() : query + 1));
             !why.empty()) {
    ctx.error(m, fmt::format("{}: \"{}\": {}", path, url, why));
  } else if (authority.find('@') != std::string_view::npos) {
    ctx.error(m, fmt::format("{}: \"{}\": credentials in the URL are not supported (set user and password)",
                             path, url));
  } else if (const std::string why =
                 tern::text::http_endpoint_error(url.substr(0, query), /*require_scheme=*/true);
             !why.empty()) {
    ctx.error(m, fmt::format("{}: {}, got \"{}\"", path, why, url));
  }
}

// endpoint, endpoints and cloudid as written, each written URL checked; `endpoint` goes
// first in c.endpoints. Returns cloudid's text, which resolve_endpoints turns into a URL.
std::string read_endpoints(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  std::string endpoint, cloudid;
  r.str("endpoint", endpoint);
  r.strings("endpoints", c.endpoints);
  r.str("cloudid", cloudid);
  if (!endpoint.empty()) check_url(ctx, endpoint, r.mark("endpoint"), r.sub_path("endpoint"));
  // c.endpoints[i] is list[i] only when every entry was read (a bad one is reported already).
  if (YAML::Node list = r.get("endpoints"); list.IsSequence() && list.size() == c.endpoints.size()) {
    for (std::size_t i = 0; i < c.endpoints.size(); ++i) {
      check_url(ctx, c.endpoints[i], list[i].Mark(), fmt::format("{}[{}]", r.sub_path("endpoints"), i));
    }
  }
  if (!endpoint.empty()) {
    if (!c.endpoints.empty())
      ctx.error(r.mark("endpoint"), fmt::format("{}: set endpoint or endpoints, not both", r.path()));
    c.endpoints.insert(c.endpoints.begin(), endpoint);
  }
  return cloudid;
}

// $ELASTICSEARCH_URL, a comma-separated list, when no endpoint key is written (as in the
// Collector). It has no place in the file: problems point at the exporter (`at`).
void endpoints_from_env(DecodeContext& ctx, MapReader& r, const YAML::Mark& at,
                        std::vector<std::string>& endpoints) {
  const std::optional<std::string> env = ctx.env()("ELASTICSEARCH_URL");
  if (!env || env->empty()) {
    ctx.error(
        at, fmt::format("{}: endpoint, endpoints or cloudid must be set (or $ELASTICSEARCH_URL)", r.path()));
    return;
  }
  for (std::string_view rest = *env; !rest.empty();) {
    const auto comma = rest.find(',');
    std::string_view url = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!url.empty() && url.front() == ' ') url.remove_prefix(1);
    while (!url.empty() && url.back() == ' ') url.remove_suffix(1);
    check_url(ctx, std::string(url), at, r.path() + " ($ELASTICSEARCH_URL)");
    endpoints.emplace_back(url);
  }
}

// As in the Collector: exactly one of endpoint, endpoints and cloudid; without any,
// $ELASTICSEARCH_URL.
void resolve_endpoints(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, ElasticsearchExporterConfig& c,
                       const std::string& cloudid) {
  if (r.has("cloudid")) {
    if (r.has("endpoint") || r.has("endpoints")) {
      ctx.error(r.mark("cloudid"), fmt::format("{}: set endpoint, endpoints or cloudid, not more", r.path()));
    } else if (std::string why, url = cloud_id_url(cloudid, why); url.empty()) {
      ctx.error(r.mark("cloudid"),
                fmt::format("{}: not an Elastic Cloud ID: {}", r.sub_path("cloudid"), why));
    } else {
      check_url(ctx, url, r.mark("cloudid"), r.sub_path("cloudid"));
      c.endpoints = {url};
    }
  } else if (!r.has("endpoint") && !r.has("endpoints")) {
    endpoints_from_env(ctx, r, at, c.endpoints);
  } else if (c.endpoints.empty()) {
    ctx.error(r.mark(r.has("endpoints") ? "endpoints" : "endpoint"),
              fmt::format("{}: endpoint or endpoints must not be empty", r.path()));
  }
}

// The bulk request's own query parameters: the endpoints' URL queries and
// include_source_on_error.
void decode_bulk_query(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  // As in the Collector: the first endpoint's query goes with every bulk request; the
  // other endpoints' queries are not read (a different one gets a warning).
  for (std::size_t i = 0; i < c.endpoints.size(); ++i) {
    const std::size_t q = c.endpoints[i].find('?');
    const std::string query = q == std::string::npos ? "" : c.endpoints[i].substr(q + 1);
    if (i == 0)
      c.bulk_query = query;
    else if (query != c.bulk_query)
      ctx.warning(r.mark(r.has("endpoints") ? "endpoints" : "endpoint"),
                  fmt::format("{}: endpoint {} has the query \"{}\", the first one \"{}\": only the first "
                              "endpoint's query is sent (as in the Collector)",
                              r.path(), i, query, c.bulk_query));
    if (q != std::string::npos) c.endpoints[i].resize(q);
  }
  // Unset (absent or `key:`) is not sending the parameter, which is not the same as false.
  if (r.has("include_source_on_error")) {
    bool include = false;
    r.boolean("include_source_on_error", include);
    if (YAML::Node n = r.get("include_source_on_error"); !n.IsNull()) c.include_source_on_error = include;
  }
}

// num_workers and when a bulk request is sent (flush: bytes, interval).
void decode_flush(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  r.uint("num_workers", c.num_workers, 1024);
  MapReader f(ctx, r.get("flush"), r.sub_path("flush"));
  f.size("bytes", c.flush.bytes);
  f.duration("interval", c.flush.interval);
  if (c.flush.bytes == 0)
    ctx.error(f.mark("bytes"), fmt::format("{}: bytes must be greater than 0", f.path()));
  if (c.flush.interval <= Duration{0}) {
    ctx.error(f.mark("interval"), fmt::format("{}: interval must be greater than 0", f.path()));
  }
}

void decode_retry(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig::Retry& retry) {
  MapReader rt(ctx, r.get("retry"), r.sub_path("retry"));
  rt.boolean("enabled", retry.enabled);
  rt.uint("max_retries", retry.max_retries);
  // The Collector's deprecated count of attempts: max_retries = max_requests - 1 (there,
  // 0 retries; here 0 means no limit, so 1 request turns retries off).
  std::uint64_t max_requests = 0;
  rt.uint("max_requests", max_requests);
  if (rt.has("max_requests")) {
    ctx.warning(rt.mark("max_requests"), fmt::format("{}: deprecated (as in the Collector): use max_retries",
                                                     rt.sub_path("max_requests")));
    if (rt.has("max_retries"))
      ctx.error(rt.mark("max_requests"),
                fmt::format("{}: set max_retries or max_requests, not both", rt.path()));
    else if (max_requests == 1)
      retry.enabled = false;
    else if (max_requests > 1)
      retry.max_retries = max_requests - 1;
  }
  rt.duration("initial_interval", retry.initial_interval);
  rt.duration("max_interval", retry.max_interval);
  rt.uints("retry_on_status", retry.retry_on_status, 599);
  check_backoff(ctx, rt, retry.initial_interval, retry.max_interval);
}

// What every request carries: compression (and its level) and headers.
void decode_compression_and_headers(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  r.choice("compression", c.compression, {{"gzip", Compression::kGzip}, {"none", Compression::kNone}});
  {
    MapReader cp(ctx, r.get("compression_params"), r.sub_path("compression_params"));
    cp.uint("level", c.compression_level, 9);
  }
  r.string_map("headers", c.headers);
  // A header name that is not a token, or a value with CR LF, made a malformed request (or a
  // second header line) that every retry sent again.
  for (const auto& [key, value] : c.headers)
    if (const std::string why = tern::text::header_error(key, value, /*grpc=*/false); !why.empty())
      ctx.error(r.mark("headers"), fmt::format("{}: {}", r.sub_path("headers"), why));
}

// user/password or api_key.
void decode_auth(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  r.str("user", c.user);
  r.str("password", c.password);
  r.str("api_key", c.api_key);
  // Both become an Authorization header; only one can be sent.
  if (!c.api_key.empty() && !c.user.empty()) {
    ctx.error(r.mark("api_key"), fmt::format("{}: set user/password or api_key, not both", r.path()));
  }
  if (!c.password.empty() && c.user.empty()) {
    ctx.error(r.mark("password"), fmt::format("{}: password is set but user is not", r.path()));
  }
}

// mapping: mode, and the modes a scope's elastic.mapping.mode attribute may ask for.
void decode_mapping(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  MapReader m(ctx, r.get("mapping"), r.sub_path("mapping"));
  const std::vector<std::string> modes = {"otel", "bodymap", "none", "raw", "ecs"};  // the encoder's
  // Mode names as the Collector reads them: in any case, "" and "no" meaning none. Kept
  // in their canonical form.
  const auto canonical = [](const std::string& name) {
    std::string lower = tern::text::ascii_lower(name);
    return lower.empty() || lower == "no" ? std::string("none") : lower;
  };
  m.one_of("mode", c.mapping_mode, modes, canonical);
  m.strings("allowed_modes", c.mapping_allowed_modes);
  for (auto& name : c.mapping_allowed_modes) {
    if (std::find(modes.begin(), modes.end(), canonical(name)) == modes.end())
      m.invalid_value(m.mark("allowed_modes"), "allowed_modes", name, modes);
    else
      name = canonical(name);
  }
  if (!c.mapping_allowed_modes.empty() &&
      std::find(c.mapping_allowed_modes.begin(), c.mapping_allowed_modes.end(), c.mapping_mode) ==
          c.mapping_allowed_modes.end())
    ctx.error(m.mark("allowed_modes"),
              fmt::format("{}: mode \"{}\" is not one of allowed_modes ({})", r.sub_path("mapping"),
                          c.mapping_mode, join(c.mapping_allowed_modes)));
}

// The static indices: logs_index (or the deprecated index), metrics_index, traces_index.
void decode_indices(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  r.str("logs_index", c.logs_index);
  bool logs_index_from_index = false;  // warnings about it then name `index`
  // The Collector's deprecated name for the logs index, which wins over logs_index there.
  if (std::string index; r.has("index")) {
    r.str("index", index);
    ctx.warning(r.mark("index"),
                fmt::format("{}: deprecated (as in the Collector): use logs_index", r.sub_path("index")));
    if (!index.empty()) {
      c.logs_index = index;
      logs_index_from_index = true;
    }
  }
  r.str("metrics_index", c.metrics_index);
  r.str("traces_index", c.traces_index);
  // otel mode sends require_data_stream=true (the spec, as the Collector): Elasticsearch then
  // refuses every document for an index that is not a data stream. Only an index template
  // makes one; Elasticsearch's built-in ones cover <type>-<dataset>-<namespace>.
  if (c.mapping_mode != "otel") return;
  static const RE2 kDataStreamName(R"((logs|metrics|traces)-[^-]+-[^-]+)");
  // The logs index may have come from the deprecated `index` key: that is the one named.
  const char* logs_key = logs_index_from_index ? "index" : "logs_index";
  for (const auto& [key, index] : {std::pair<const char*, const std::string&>{logs_key, c.logs_index},
                                   {"metrics_index", c.metrics_index},
                                   {"traces_index", c.traces_index}}) {
    if (index.empty() || RE2::FullMatch(index, kDataStreamName)) continue;
    ctx.warning(r.mark(key), fmt::format("{}: \"{}\" must be a data stream: the otel mapping mode sends "
                                         "require_data_stream=true, and Elasticsearch refuses documents for "
                                         "any other index (its built-in templates make "
                                         "<type>-<dataset>-<namespace> names data streams, e.g. "
                                         "logs-myapp-default)",
                                         r.sub_path(key), index));
  }
}

// Per-document routing: logs_dynamic_id, logs_dynamic_pipeline, the deprecated
// *_dynamic_index keys, and the static pipeline.
void decode_routing(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  {
    MapReader d(ctx, r.get("logs_dynamic_id"), r.sub_path("logs_dynamic_id"));
    d.boolean("enabled", c.logs_dynamic_id);
  }
  {
    MapReader d(ctx, r.get("logs_dynamic_pipeline"), r.sub_path("logs_dynamic_pipeline"));
    d.boolean("enabled", c.logs_dynamic_pipeline);
  }
  // Deprecated in the Collector, where they no longer do anything: accepted with a warning
  // so that older configs load, and their users learn how routing works here.
  for (const char* key : {"logs_dynamic_index", "metrics_dynamic_index", "traces_dynamic_index"}) {
    if (!r.has(key)) {
      r.get(key);
      continue;
    }
    const YAML::Mark at_key = r.mark(key);
    MapReader d(ctx, r.get(key), r.sub_path(key));
    bool enabled = false;
    d.boolean("enabled", enabled);
    ctx.warning(at_key,
                fmt::format("{}: has no effect (deprecated in the OpenTelemetry Collector): documents "
                            "are routed by their data_stream.* or elasticsearch.index attributes "
                            "unless a static logs_index/metrics_index/traces_index is set",
                            r.sub_path(key)));
  }
  r.str("pipeline", c.pipeline);
}

// timeout, dead_letter and encoding (early or late); the queue's checks read encoding.
void decode_delivery(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c) {
  using E = ElasticsearchExporterConfig;
  r.duration("timeout", c.timeout);
  {
    MapReader d(ctx, r.get("dead_letter"), r.sub_path("dead_letter"));
    d.str("path", c.dead_letter_path);
  }
  r.choice("encoding", c.encoding, {{"early", E::Encoding::kEarly}, {"late", E::Encoding::kLate}});
}

}  // namespace

// The sections in the order the keys have always been read (MapReader's "unknown key" and
// "did you mean" depend on it); the queue comes last, as it checks num_workers and encoding.
void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, ElasticsearchExporterConfig& c,
            const config::ComponentId& id, std::vector<config::StorageRequest>& storage) {
  const std::string cloudid = read_endpoints(ctx, r, c);
  resolve_endpoints(ctx, r, at, c, cloudid);
  decode_bulk_query(ctx, r, c);
  decode_flush(ctx, r, c);
  decode_retry(ctx, r, c.retry);
  decode_compression_and_headers(ctx, r, c);
  decode_auth(ctx, r, c);
  decode_tls(ctx, r, c.tls);
  decode_mapping(ctx, r, c);
  decode_indices(ctx, r, c);
  decode_routing(ctx, r, c);
  decode_delivery(ctx, r, c);
  decode_sending_queue(ctx, r, c, id, storage);
}

}  // namespace tern::exporter::es
