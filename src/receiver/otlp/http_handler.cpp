#include "receiver/otlp/http_handler.h"

#include <algorithm>
#include <optional>

#include "compression/gzip.h"
#include "compression/zstd.h"
#include "text/ascii.h"

namespace tern::receiver::otlp {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "application/json; charset=utf-8" -> "application/json".
std::string_view media_type(std::string_view content_type) {
  return trim(content_type.substr(0, content_type.find(';')));
}

struct Wire {
  Encoding encoding;
  std::string content_type;  // answered with the same media type the client sent
};

std::optional<Wire> wire_for(std::string_view content_type) {
  auto mt = media_type(content_type);
  if (tern::text::ascii_iequals(mt, "application/x-protobuf") ||
      tern::text::ascii_iequals(mt, "application/protobuf"))
    return Wire{Encoding::kProto, std::string(mt)};
  if (tern::text::ascii_iequals(mt, "application/json")) return Wire{Encoding::kJson, "application/json"};
  return std::nullopt;
}

// Errors carry a google.rpc.Status in the request's encoding (OTLP/HTTP "Failures");
// when the request's encoding is not OTLP's, plain text is all we can do.
net::HttpResponse error_response(int http_status, int rpc, std::string_view message,
                                 const std::optional<Wire>& wire) {
  net::HttpResponse res;
  res.status = http_status;
  if (!wire) {
    res.content_type = "text/plain; charset=utf-8";
    res.body = std::string(message) + "\n";
  } else {
    res.content_type = wire->content_type;
    res.body = wire->encoding == Encoding::kProto ? status_proto(rpc, message) : status_json(rpc, message);
  }
  return res;
}

std::string retry_after_seconds(std::chrono::milliseconds after) {
  auto secs = (after.count() + 999) / 1000;  // round up: never ask for an earlier retry than advised
  return std::to_string(std::max<long long>(1, secs));
}

thread_local compression::GzipDecompressor t_gunzip;  // reusable, one per io thread
thread_local compression::ZstdDecompressor t_unzstd;

}  // namespace

OtlpHttpHandler::OtlpHttpHandler(const receiver::otlp::OtlpReceiverConfig::Http& config, ExportCore& core)
    : max_body_(config.max_request_body_size),
      logs_path_(config.logs_url_path),
      traces_path_(config.traces_url_path),
      metrics_path_(config.metrics_url_path),
      cors_origins_(config.cors_allowed_origins),
      cors_max_age_(config.cors_max_age),
      core_(core) {
  // Always allowed, as in the OpenTelemetry Collector (the CORS-safelisted request headers).
  cors_headers_ = {"accept", "accept-language", "content-type", "content-language"};
  for (const auto& h : config.cors_allowed_headers) {
    if (h == "*") cors_any_header_ = true;
    cors_headers_.push_back(tern::text::ascii_lower(trim(h)));
  }
}

bool OtlpHttpHandler::origin_allowed(std::string_view origin) const {
  if (origin.empty()) return false;
  for (const auto& allowed : cors_origins_) {
    if (allowed == "*") return true;
    auto star = allowed.find('*');
    if (star == std::string::npos) {
      if (tern::text::ascii_iequals(allowed, origin)) return true;
      continue;
    }
    // One wildcard, e.g. "https://*.example.com".
    std::string_view prefix(allowed.data(), star),
        suffix(allowed.data() + star + 1, allowed.size() - star - 1);
    if (origin.size() >= prefix.size() + suffix.size() &&
        tern::text::ascii_iequals(origin.substr(0, prefix.size()), prefix) &&
        tern::text::ascii_iequals(origin.substr(origin.size() - suffix.size()), suffix))
      return true;
  }
  return false;
}

bool OtlpHttpHandler::headers_allowed(std::string_view requested) const {
  if (cors_any_header_) return true;
  while (!requested.empty()) {
    auto comma = requested.find(',');
    auto name = trim(requested.substr(0, comma));
    requested = comma == std::string_view::npos ? std::string_view{} : requested.substr(comma + 1);
    if (name.empty()) continue;
    if (std::none_of(cors_headers_.begin(), cors_headers_.end(),
                     [&](const std::string& h) { return tern::text::ascii_iequals(h, name); }))
      return false;
  }
  return true;
}

net::HttpResponse OtlpHttpHandler::preflight(const net::HttpRequest& req) const {
  net::HttpResponse res;
  res.status = 204;
  res.headers.emplace_back("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
  auto origin = req.header("Origin");
  auto method = req.header("Access-Control-Request-Method");
  auto headers = req.header("Access-Control-Request-Headers");
  // A refused preflight is a 204 without the Access-Control-Allow-* headers: the browser
  // then blocks the real request (this is what CORS libraries do).
  if (!origin_allowed(origin) || !tern::text::ascii_iequals(trim(method), "POST") ||
      !headers_allowed(headers))
    return res;
  res.headers.emplace_back("Access-Control-Allow-Origin", std::string(origin));
  res.headers.emplace_back("Access-Control-Allow-Methods", "POST");
  if (!trim(headers).empty())
    res.headers.emplace_back("Access-Control-Allow-Headers", std::string(trim(headers)));
  if (cors_max_age_ > 0) res.headers.emplace_back("Access-Control-Max-Age", std::to_string(cors_max_age_));
  return res;
}

// Exact matches, as the Collector's ServeMux routes them (no prefix, no trailing-slash
// variant).
std::optional<Signal> OtlpHttpHandler::signal_for_path(std::string_view path) const {
  if (path == logs_path_) return Signal::Logs;
  if (path == traces_path_) return Signal::Traces;
  if (path == metrics_path_) return Signal::Metrics;
  return std::nullopt;
}

net::HttpResponse OtlpHttpHandler::handle(net::HttpRequest& req) {
  auto& counters = core_.counters();
  OtlpReceiverCounters::add(counters.http_requests, 1);
  const bool cors = !cors_origins_.empty();
  std::string_view path = req.target.substr(0, req.target.find('?'));
  auto wire = wire_for(req.header("Content-Type"));

  net::HttpResponse res = [&]() -> net::HttpResponse {
    auto signal = signal_for_path(path);
    if (!signal) return error_response(404, rpc_code::kNotFound, "unknown path " + std::string(path), wire);
    if (cors && req.method == "OPTIONS" && !req.header("Access-Control-Request-Method").empty())
      return preflight(req);
    if (req.method != "POST") {
      auto r = error_response(405, rpc_code::kUnimplemented,
                              std::string(req.method) + " is not supported, use POST", wire);
      r.headers.emplace_back("Allow", cors ? "POST, OPTIONS" : "POST");
      return r;
    }
    // Before the Content-Type check: Beast stops parsing the header at an oversized
    // Content-Length, so later fields (Content-Type among them) may be missing.
    if (req.body_too_large) {
      core_.count_bad_request(*signal);
      return error_response(
          413, rpc_code::kInvalidArgument,
          "request body is larger than max_request_body_size (" + std::to_string(max_body_) + " bytes)",
          wire);
    }
    if (!wire)
      return error_response(415, rpc_code::kInvalidArgument,
                            "unsupported Content-Type '" + std::string(req.header("Content-Type")) +
                                "', use application/x-protobuf or application/json",
                            wire);
    OtlpReceiverCounters::add(counters.bytes_received, req.body.size());

    auto content_encoding = trim(req.header("Content-Encoding"));
    const bool gzip = tern::text::ascii_iequals(content_encoding, "gzip") ||
                      tern::text::ascii_iequals(content_encoding, "x-gzip");
    // zstd: what the Collector's otlphttp exporter sends with `compression: zstd`.
    const bool zstd = !gzip && tern::text::ascii_iequals(content_encoding, "zstd");
    // deflate (RFC 9110: the zlib format) and zlib: the Collector's `compression: deflate` /
    // `zlib`, both zlib streams, as its confighttp decodes them.
    const bool zlib = !gzip && !zstd &&
                      (tern::text::ascii_iequals(content_encoding, "deflate") ||
                       tern::text::ascii_iequals(content_encoding, "zlib"));
    if (gzip || zstd || zlib) {
      std::string plain, error;
      const bool ok = gzip   ? t_gunzip.decompress(req.body, plain, max_body_, &error)
                      : zstd ? t_unzstd.decompress(req.body, plain, max_body_, &error)
                             : t_gunzip.decompress_zlib(req.body, plain, max_body_, &error);
      if (!ok) {
        core_.count_bad_request(*signal);
        const char* what = gzip ? "gzip: " : zstd ? "zstd: " : "deflate: ";
        // The decompressors all report the size cap as "decompressed body exceeds N bytes".
        if (error.find("exceeds") != std::string::npos)
          return error_response(413, rpc_code::kInvalidArgument, what + error + " (max_request_body_size)",
                                wire);
        return error_response(400, rpc_code::kInvalidArgument, what + error, wire);
      }
      req.body = std::move(plain);
    } else if (!content_encoding.empty() && !tern::text::ascii_iequals(content_encoding, "identity")) {
      core_.count_bad_request(*signal);
      return error_response(
          415, rpc_code::kInvalidArgument,
          "unsupported Content-Encoding '" + std::string(content_encoding) + "', use gzip, zstd or deflate",
          wire);
    }

    ExportOutcome out = core_.export_request(*signal, wire->encoding, std::move(req.body));
    using Kind = ExportOutcome::Kind;
    switch (out.kind) {
      case Kind::kOk: {
        net::HttpResponse ok;
        ok.content_type = wire->content_type;
        ok.body = wire->encoding == Encoding::kProto
                      ? export_response_proto(out.rejected, out.message)
                      : export_response_json(*signal, out.rejected, out.message);
        return ok;
      }
      case Kind::kBadData:
        return error_response(400, rpc_code::kInvalidArgument, out.message, wire);
      case Kind::kTooLarge:  // not retryable (OTLP/HTTP clients retry 429, 502, 503, 504 only)
        return error_response(413, rpc_code::kInvalidArgument, out.message, wire);
      case Kind::kRetryLater: {
        // OTLP/HTTP throttling: 429 + Retry-After (clients retry 429, 502, 503, 504).
        auto r = error_response(429, rpc_code::kResourceExhausted, out.message, wire);
        r.headers.emplace_back("Retry-After", retry_after_seconds(out.retry_after));
        return r;
      }
      case Kind::kUnavailable: {
        // The spec's answer for a full disk queue: 503 + Retry-After; the connection stays.
        auto r = error_response(503, rpc_code::kUnavailable, out.message, wire);
        r.headers.emplace_back("Retry-After", retry_after_seconds(out.retry_after));
        return r;
      }
      case Kind::kShutdown: {
        auto r = error_response(503, rpc_code::kUnavailable, out.message, wire);
        r.headers.emplace_back("Retry-After", retry_after_seconds(out.retry_after));
        r.close = true;
        return r;
      }
      case Kind::kInternal:
        break;
    }
    return error_response(500, rpc_code::kInternal, out.message, wire);
  }();

  if (cors) {
    auto origin = req.header("Origin");
    if (res.status != 204 && origin_allowed(origin)) {
      res.headers.emplace_back("Access-Control-Allow-Origin", std::string(origin));
      res.headers.emplace_back("Vary", "Origin");
    }
  }
  return res;
}

}  // namespace tern::receiver::otlp
