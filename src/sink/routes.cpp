// SinkCore::handle: which endpoint a request is for, and the `_bulk` route's request-level
// work (faults, body decoding, URL parameters) before SinkCore::bulk reads the items.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compression/gzip.h"
#include "sink/es_json.h"
#include "sink/sink_core.h"
#include "sink/store.h"
#include "sink/strings.h"
#include "text/ascii.h"

namespace tern::sink {

namespace {

constexpr std::string_view kRootInfo =
    R"({"name":"tern-sink","cluster_name":"tern","cluster_uuid":"tern-sink-0000000000",)"
    R"("version":{"number":"8.15.0","build_flavor":"default","build_type":"tar",)"
    R"("build_hash":"tern","build_date":"2024-08-05T10:05:34.233336849Z","build_snapshot":false,)"
    R"("lucene_version":"9.11.1","minimum_wire_compatibility_version":"7.17.0",)"
    R"("minimum_index_compatibility_version":"7.0.0"},"tagline":"You Know, for Search"})";

compression::GzipDecompressor& gunzip() {
  // One per server thread, destroyed with the thread (LeakSanitizer checks the sink).
  thread_local compression::GzipDecompressor decompressor;
  return decompressor;
}

// Inflates the gzip body `b` into `plain`; the error reply when it cannot.
std::optional<Reply> gunzip_body(const std::string& b, std::string& plain, size_t max_content_length) {
  // The decompressor stops at max_content_length, so neither a zip bomb nor an oversize
  // body costs more than the limit. The gzip trailer's ISIZE is not trusted to tell the
  // two failures apart: in a truncated body those 4 bytes are arbitrary deflate data.
  // GzipDecompressor sizes its first output buffer from ISIZE (up to the limit, zero-filled),
  // so garbage would cost a 100 MB allocation per request. Deflate cannot expand more than
  // ~1032:1, so a larger ISIZE is corrupt: refuse it (and non-gzip bytes) up front.
  uint64_t isize = 0;
  if (b.size() >= 18) {
    for (int i = 0; i < 4; ++i) isize |= uint64_t(static_cast<unsigned char>(b[b.size() - 4 + i])) << (8 * i);
  }
  if (!compression::looks_gzipped(b) || b.size() < 18)
    return es_error(400, "illegal_argument_exception", "invalid gzip body: not gzip data");
  if (isize > uint64_t(b.size()) * 1100 + 4096)
    return es_error(400, "illegal_argument_exception", "invalid gzip body: corrupt gzip trailer");
  std::string err;
  if (!gunzip().decompress(b, plain, max_content_length, &err)) {
    if (err.rfind("decompressed body exceeds", 0) == 0)
      return es_error(413, "content_too_long_exception", "request body is too large");
    return es_error(400, "illegal_argument_exception", "invalid gzip body: " + err);
  }
  return std::nullopt;
}

// The URL's `pipeline`, `require_alias` and `require_data_stream`; the error reply when a
// flag is not a boolean.
std::optional<Reply> read_bulk_defaults(std::string_view query, BulkDefaults& defaults) {
  defaults.pipeline = query_param(query, "pipeline");
  std::string bad;
  for (auto [name, out] : {std::pair{"require_alias", &defaults.require_alias},
                           std::pair{"require_data_stream", &defaults.require_data_stream}}) {
    if (!has_query_param(query, name)) continue;
    // As RestRequest.paramAsBoolean: present without a value means true.
    std::string v = query_param(query, name);
    auto b = v.empty() ? std::optional<bool>(true) : parse_es_bool(v);
    if (b)
      *out = *b;
    else
      bad = v;
  }
  if (bad.empty()) return std::nullopt;
  return es_error(400, "illegal_argument_exception",
                  fmt::format("Failed to parse value [{}] as only [true] or [false] are allowed.", bad));
}

}  // namespace

Reply SinkCore::handle(Request& req) {
  requests_.fetch_add(1, std::memory_order_relaxed);
  std::string_view target = req.target;
  size_t q = target.find('?');
  std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  std::string path = percent_decode(target.substr(0, q), false);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::vector<std::string_view> parts;
  for (auto p : split(path, '/')) {
    if (!p.empty()) parts.push_back(p);
  }
  const std::string_view m = req.method;
  const bool head = m == "HEAD";
  auto finish = [&](Reply r) {
    if (head) r.body.clear();
    return r;
  };
  // `/{x}/{name}` or `/{name}`: an endpoint with an optional index (pattern) before it.
  auto endpoint = [&](std::string_view name) {
    return (parts.size() == 1 && parts[0] == name) || (parts.size() == 2 && parts[1] == name);
  };

  if (parts.empty()) {
    if (m != "GET" && !head) return es_error(405, "illegal_argument_exception", "method not allowed on /");
    return finish(Reply{200, std::string(kRootInfo)});
  }
  const std::string_view p0 = parts[0];
  if (p0 == "_index_template" || p0 == "_component_template" || p0 == "_data_stream" ||
      (p0 == "_ilm" && parts.size() >= 2 && parts[1] == "policy")) {
    return finish(Reply{200, R"({"acknowledged":true})"});
  }
  if (p0 == "_sink" && parts.size() == 2 && parts[1] == "stats") return finish(Reply{200, stats_json()});
  if (p0 == "_cluster" && parts.size() == 2 && parts[1] == "health") {
    return finish(
        Reply{200, R"({"cluster_name":"tern","status":"green","timed_out":false,"number_of_nodes":1})"});
  }
  if (p0 == "_cat" && parts.size() >= 2 && parts[1] == "indices") {
    std::string pattern = parts.size() >= 3 ? std::string(parts[2]) : "*";
    bool json = query_param(query, "format") == "json";
    Reply r{200, store_->cat_indices(pattern, json)};
    if (!json) r.content_type = "text/plain; charset=UTF-8";
    return finish(std::move(r));
  }
  if (endpoint("_bulk")) return bulk_route(req, parts.size() == 2 ? p0 : std::string_view(), query);
  if (endpoint("_count")) {
    std::string_view pattern = parts.size() == 2 ? p0 : std::string_view("*");
    int64_t c = count(pattern);
    if (c < 0) {
      return finish(es_error(404, "index_not_found_exception", fmt::format("no such index [{}]", pattern)));
    }
    return finish(Reply{
        200,
        fmt::format(R"({{"count":{},"_shards":{{"total":1,"successful":1,"skipped":0,"failed":0}}}})", c)});
  }
  if (endpoint("_refresh")) {
    return finish(Reply{200, R"({"_shards":{"total":1,"successful":1,"failed":0}})"});
  }
  // Elasticsearch answers unknown endpoints with 400, not 404 (RestController#handleBadRequest).
  return finish(es_error(400, "illegal_argument_exception",
                         fmt::format("no handler found for uri [{}] and method [{}]", path, m)));
}

Reply SinkCore::bulk_route(Request& req, std::string_view index, std::string_view query) {
  if (req.method != "POST" && req.method != "PUT")
    return es_error(405, "illegal_argument_exception", "_bulk needs POST or PUT");
  bulk_requests_.fetch_add(1, std::memory_order_relaxed);
  if (roll(request_rolls_, 2, opt_.drop_connection_rate)) {
    Reply r;
    r.drop_connection = true;
    note_bulk_status(0);
    return r;
  }
  Reply r = bulk_request(req, index, query);
  note_bulk_status(r.status);
  r.delay_ms = opt_.latency_ms;
  return r;
}

Reply SinkCore::bulk_request(Request& req, std::string_view index, std::string_view query) {
  if (roll(request_rolls_, 3, opt_.request_429_rate)) {
    return es_error(429, "es_rejected_execution_exception",
                    "rejected execution of bulk request [tern sink fault injection]");
  }
  if (roll(request_rolls_, 4, opt_.request_503_rate)) {
    return es_error(503, "unavailable_shards_exception",
                    "primary shard is not active [tern sink fault injection]");
  }
  bytes_c_.fetch_add(req.body.size(), std::memory_order_relaxed);
  const bool gz = tern::text::ascii_iequals(req.content_encoding, "gzip") ||
                  tern::text::ascii_iequals(req.content_encoding, "x-gzip");
  if (!gz && !req.content_encoding.empty() && !tern::text::ascii_iequals(req.content_encoding, "identity")) {
    return es_error(400, "illegal_argument_exception",
                    fmt::format("unsupported Content-Encoding [{}]", req.content_encoding));
  }
  std::string plain;
  if (gz) {
    if (auto error = gunzip_body(req.body, plain, opt_.max_content_length)) return std::move(*error);
  }
  std::string& body = gz ? plain : req.body;
  if (body.size() > opt_.max_content_length)
    return es_error(413, "content_too_long_exception", "request body is too large");
  bytes_u_.fetch_add(body.size(), std::memory_order_relaxed);
  std::string filter = query_param(query, "filter_path");
  BulkDefaults defaults;
  if (auto error = read_bulk_defaults(query, defaults)) return std::move(*error);
  return bulk(body, index, filter, defaults);
}

}  // namespace tern::sink
