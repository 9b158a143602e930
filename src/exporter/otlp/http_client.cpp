// OTLP/HTTP client: one keep-alive connection on a private io_context. The calls are
// blocking for the caller but use Beast's async operations underneath, because only
// those honour a timeout (tcp_stream::expires_after).
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "compression/gzip.h"
#include "compression/zstd.h"
#include "exporter/otlp/otlp_client.h"
#include "net/stream_timeout.h"
#include "net/string_body.h"
#include "net/tls_context.h"
#include "text/endpoint.h"
#include "text/retry_after.h"

namespace tern::exporter::otlp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct ParsedEndpoint {
  std::string host;
  std::string port;
  std::string path;
  bool tls = false;
  // host:port as a URL's authority and the Host header write it: an IPv6 address in
  // brackets (RFC 3986 3.2.2), "::1:4318" being no address at all.
  std::string authority() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  }
};

// "http[s]://host[:port][/path]" or "host[:port][/path]"; without a scheme, TLS iff
// `tls_options`. What is usable is text::http_endpoint_error's to say (the config loader
// and the SDK agree with it that way).
ParsedEndpoint parse_http_endpoint(std::string_view ep, bool tls_options) {
  if (const std::string why = text::http_endpoint_error(ep, /*require_scheme=*/false); !why.empty())
    throw std::invalid_argument("bad OTLP/HTTP endpoint [" + std::string(ep) + "]: " + why);
  ParsedEndpoint out;
  out.tls = tls_options;
  bool had_scheme = true;
  if (ep.starts_with("http://")) {
    ep.remove_prefix(7);
    out.tls = false;
  } else if (ep.starts_with("https://")) {
    ep.remove_prefix(8);
    out.tls = true;
  } else {
    had_scheme = false;
  }
  // The authority ends where the checked one does; a query stays in the request target
  // (after a '/'), a fragment is not sent.
  if (const auto end = ep.find_first_of("/?#"); end != std::string_view::npos) {
    std::string_view rest = ep.substr(end);
    rest = rest.substr(0, rest.find('#'));
    if (!rest.empty()) out.path = (rest.front() == '/' ? "" : "/") + std::string(rest);
    ep = ep.substr(0, end);
  }
  // No port: the scheme's (80, 443), as the Collector's Go HTTP client does; 4318 only for
  // the "host" form without a scheme (OTLP/HTTP's port, as before).
  std::string_view host = ep;
  std::string_view port = had_scheme ? (out.tls ? "443" : "80") : "4318";
  if (ep.starts_with('[')) {  // [v6][:port], checked above
    const auto close = ep.find(']');
    host = ep.substr(1, close - 1);
    if (close + 1 < ep.size()) port = ep.substr(close + 2);
  } else if (const auto colon = ep.rfind(':'); colon != std::string_view::npos) {
    host = ep.substr(0, colon);
    port = ep.substr(colon + 1);
  }
  out.host = std::string(host);
  out.port = std::string(port);
  return out;
}

// Best effort for OTLP/JSON answers: {"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"..."}}.
// What an error response says: the google.rpc.Status message when the body is one (OTLP
// answers errors in the request's encoding), else the start of the body with anything
// unprintable escaped (a proxy's HTML page, a binary body).
template <class Response>
std::string error_text(const Response& res) {
  const std::string_view body = res.body();
  const auto type = res[http::field::content_type];
  const bool json = type.starts_with("application/json");
  if (json || type.starts_with("application/x-protobuf") || type.starts_with("application/protobuf"))
    if (std::string m = status_message(body, json); !m.empty()) return m;
  std::string out;
  for (const char c : body.substr(0, 200)) {
    if (c >= 0x20 && c < 0x7f) {
      out += c;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[static_cast<unsigned char>(c) >> 4];
      out += kHex[static_cast<unsigned char>(c) & 15];
    }
  }
  return out;
}

class HttpClient final : public OtlpClient {
 public:
  explicit HttpClient(const OtlpClientOptions& o)
      : options_(o), endpoint_(parse_http_endpoint(o.endpoint, o.tls.has_value())) {
    // "v1/logs" made the request line "POST v1/logs HTTP/1.1"; a URL path starts with '/'.
    if (!options_.url_path.empty() && options_.url_path.front() != '/') options_.url_path.insert(0, "/");
    if (endpoint_.tls) {
      tls_options_ = o.tls.value_or(net::TlsClientOptions{});  // https:// alone: the defaults
      tls_.emplace(net::make_client_context(tls_options_));
    }
    req_.method(http::verb::post);
    req_.version(11);
    req_.set(http::field::host, endpoint_.authority());
    req_.set(http::field::user_agent, o.user_agent.empty() ? "Tern/" TERN_VERSION : o.user_agent);
    req_.set(http::field::content_type,
             o.encoding == Encoding::Json ? "application/json" : "application/x-protobuf");
    if (o.gzip)
      req_.set(http::field::content_encoding, "gzip");
    else if (o.zstd)
      req_.set(http::field::content_encoding, "zstd");
    for (const auto& [k, v] : o.headers) req_.set(k, v);
  }

  ExportStatus export_request(pdata::Signal signal, std::string_view body) override {
    ExportStatus st;
    if (cancelled_.load()) {
      st.ok = false;
      st.code = -1;
      st.message = "POST " + url(default_http_path(signal)) + ": cancelled (shutting down)";
      return st;
    }
    const std::string_view path = !options_.url_path.empty() ? std::string_view(options_.url_path)
                                  : !endpoint_.path.empty()  ? std::string_view(endpoint_.path)
                                                             : default_http_path(signal);
    if (req_.target() != path) req_.target(path);
    std::string_view payload = body;
    if (options_.gzip) {
      gzip_.compress(body, gz_);
      payload = gz_;
    } else if (options_.zstd) {
      if (!zstd_) zstd_ = std::make_unique<compression::ZstdCompressor>();
      zstd_->compress(body, gz_);
      payload = gz_;
    }
    req_.body() = http::span_body<const char>::value_type(payload.data(), payload.size());
    req_.prepare_payload();

    std::chrono::milliseconds backoff{100};
    int retries_left = options_.max_retries;
    bool stale_retry_used = false;
    int redirects = 0;
    for (;;) {
      ++st.attempts;
      const bool reused = connected_ && requests_on_connection_ > 0;
      http::response<net::AppendStringBody> res;
      beast::error_code ec = round_trip(res);
      if (ec) {
        close();
        // A keep-alive connection the server closed while idle fails on first use;
        // that is not the server's answer, so reconnect once without counting a retry.
        // Only that: the connection closed or reset before a byte of answer. A timeout
        // (or an answer cut short) may mean the server has the request: sent again at
        // once and silently, it was ingested twice; it goes to the caller's retries.
        if (reused && !stale_retry_used && !answered_ && closed_by_peer(ec)) {
          stale_retry_used = true;
          continue;
        }
        st.ok = false;
        st.code = -1;
        st.message = "POST " + url(path) + ": " + ec.message();
        return st;
      }
      ++requests_on_connection_;
      if (!res.keep_alive()) close();
      const int status = static_cast<int>(res.result_int());
      st.code = status;
      if (status >= 200 && status < 300) {
        st.ok = true;
        st.message.clear();
        if (options_.encoding == Encoding::Json)
          parse_json_export_response(res.body(), st.rejected, st.message);
        else
          parse_export_response(res.body(), st.rejected, st.message);
        return st;
      }
      if ((status == 307 || status == 308) && redirects < kMaxRedirects) {
        // Followed as Go's client (the Collector's) does for a POST: the same method and
        // body, to the Location. Only on this server (same scheme, host and port): the
        // connection, TLS settings and headers (credentials included) are this endpoint's.
        const auto location = res[http::field::location];
        if (auto target = same_origin_target(location); !target.empty()) {
          ++redirects;
          req_.target(target);
          if (!res.keep_alive()) close();
          continue;
        }
        st.ok = false;
        st.message = "HTTP " + std::to_string(status) + " from " + url(req_.target()) + ": redirect to \"" +
                     std::string(location) + "\" not followed (another server, or no Location)";
        return st;
      }
      const bool retryable = status == 429 || status == 502 || status == 503 || status == 504;
      st.retry_after = {};
      if (auto ra = res.find(http::field::retry_after); ra != res.end()) {
        // An HTTP-date counts from the server's clock (its Date header) when it sent one: a
        // clock skew would otherwise be waited out too.
        std::optional<std::chrono::system_clock::time_point> now;
        if (auto date = res.find(http::field::date); date != res.end())
          now = text::parse_http_date(date->value());
        st.retry_after = text::retry_after_wait(ra->value(), now.value_or(std::chrono::system_clock::now()));
      }
      if (retryable && retries_left-- > 0) {
        std::chrono::milliseconds wait = st.retry_after.count() > 0 ? st.retry_after : backoff;
        backoff = std::min(backoff * 2, options_.max_retry_wait);
        if (!sleep_unless_cancelled(std::min(wait, options_.max_retry_wait))) {
          st.ok = false;
          st.code = -1;
          st.message = "POST " + url(path) + ": cancelled (shutting down)";
          return st;
        }
        continue;
      }
      st.ok = false;
      std::string why = error_text(res);
      st.message = "HTTP " + std::to_string(status) + " from " + url(path) + (why.empty() ? "" : ": " + why);
      return st;
    }
  }

  ~HttpClient() override { close(); }

  void cancel() override {
    cancelled_.store(true);
    // The socket belongs to the exporting thread: it is closed there, by a handler that its
    // run_io() runs next (at once if it is waiting now: the pending connect / write / read
    // then ends with operation_aborted). Posted while no run_io() runs, the handler waits
    // for the next one, and export_request sees cancelled_ before that anyway.
    asio::post(ioc_, [this] {
      resolver_.cancel();
      if (plain_ || secure_) {
        beast::error_code ec;
        lowest().socket().close(ec);
      }
    });
  }

 private:
  static constexpr int kMaxRedirects = 10;  // Go's http.Client stops after 10 too

  // A Location as a request target on this server: an absolute path, or an absolute URL
  // with this endpoint's scheme and authority (a default port may be left out). Empty: it
  // points elsewhere, or is not one.
  std::string same_origin_target(std::string_view location) const {
    if (location.starts_with("/") && !location.starts_with("//")) return std::string(location);
    const std::string_view scheme = endpoint_.tls ? "https://" : "http://";
    if (!location.starts_with(scheme)) return {};
    location.remove_prefix(scheme.size());
    const auto slash = location.find('/');
    const std::string_view authority = location.substr(0, slash);
    const std::string_view target = slash == std::string_view::npos ? "/" : location.substr(slash);
    const std::string with_port = endpoint_.authority();
    const std::string without_port = with_port.substr(0, with_port.rfind(':'));
    const bool default_port = endpoint_.port == (endpoint_.tls ? "443" : "80");
    if (authority == with_port || (default_port && authority == without_port)) return std::string(target);
    return {};
  }

  // A retry's back-off: false (cut short) once cancel() was called, so that a shutdown's
  // cancel does not wait out a Retry-After. Polled in short slices: cancel() stays a store
  // and a post, and a back-off is rare.
  bool sleep_unless_cancelled(std::chrono::milliseconds wait) const {
    const auto until = std::chrono::steady_clock::now() + wait;
    while (!cancelled_.load()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) return true;
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(10)));
    }
    return false;
  }

  // Runs the io_context until the one pending operation completed.
  void run_io() {
    ioc_.restart();
    ioc_.run();
  }

  std::string url(std::string_view path) const {
    return (endpoint_.tls ? "https://" : "http://") + endpoint_.authority() + std::string(path);
  }

  beast::tcp_stream& lowest() { return secure_ ? beast::get_lowest_layer(*secure_) : *plain_; }

  beast::error_code connect() {
    beast::error_code result;
    // Asynchronous, as the rest: cancel() can end a name lookup that hangs too.
    tcp::resolver::results_type results;
    resolver_.async_resolve(endpoint_.host, endpoint_.port,
                            [&](beast::error_code e, tcp::resolver::results_type r) {
                              result = e;
                              results = std::move(r);
                            });
    run_io();
    if (result) return result;
    if (cancelled_.load()) return asio::error::operation_aborted;  // see round_trip()
    beast::error_code ec;
    if (tls_) {
      secure_.emplace(ioc_, *tls_);
      net::prepare_client_stream(*secure_, endpoint_.host, tls_options_);
    } else {
      plain_.emplace(ioc_);
    }
    auto& low = lowest();
    net::arm_timeout(low, options_.timeout);
    low.async_connect(results, [&](beast::error_code e, const tcp::endpoint&) { result = e; });
    run_io();
    if (result) return result;
    if (cancelled_.load()) return asio::error::operation_aborted;
    low.socket().set_option(tcp::no_delay(true), ec);
    if (secure_) {
      net::arm_timeout(low, options_.timeout);
      secure_->async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { result = e; });
      run_io();
    }
    return result;
  }

  template <class Stream>
  beast::error_code exchange(Stream& stream, http::response<net::AppendStringBody>& res) {
    beast::error_code result;
    answered_ = false;
    net::arm_timeout(lowest(), options_.timeout);
    http::async_write(stream, req_, [&](beast::error_code e, std::size_t) {
      result = e;
      if (e) return;
      buffer_.reserve(net::kReadBufferReserve);  // Beast reads only the free capacity per recv
      http::async_read(stream, buffer_, res, [&](beast::error_code e2, std::size_t n) {
        result = e2;
        answered_ = n > 0 || buffer_.size() > 0;
      });
    });
    run_io();
    return result;
  }

  beast::error_code round_trip(http::response<net::AppendStringBody>& res) {
    // cancel()'s handler closes the socket there is when it runs; one that ran between two
    // steps (the name lookup done, no socket yet) closed nothing, so each step looks at the
    // flag too. Every attempt (a retry, a redirect, a stale-connection resend) comes here.
    if (cancelled_.load()) return asio::error::operation_aborted;
    if (!connected_) {
      if (beast::error_code ec = connect()) return ec;
      connected_ = true;
      requests_on_connection_ = 0;
    }
    return secure_ ? exchange(*secure_, res) : exchange(*plain_, res);
  }

  void close() {
    if (plain_ || secure_) {
      beast::error_code ec;
      lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
      lowest().socket().close(ec);
    }
    plain_.reset();
    secure_.reset();
    buffer_.clear();
    connected_ = false;
  }

  static bool closed_by_peer(const beast::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::eof ||
           ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
           ec == asio::error::connection_aborted;
  }

  std::atomic<bool> cancelled_{false};
  bool answered_ = false;  // the last exchange read some of an answer
  OtlpClientOptions options_;
  ParsedEndpoint endpoint_;
  asio::io_context ioc_{1};
  tcp::resolver resolver_{ioc_};
  net::TlsClientOptions tls_options_;      // https: what tls_ was made from
  std::optional<asio::ssl::context> tls_;  // https: built once, shared by reconnections
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure_;
  beast::flat_buffer buffer_;
  http::request<http::span_body<const char>> req_;
  compression::GzipCompressor gzip_;
  std::unique_ptr<compression::ZstdCompressor> zstd_;  // made at the first zstd request
  std::string gz_;
  bool connected_ = false;
  std::uint64_t requests_on_connection_ = 0;
};

}  // namespace

std::unique_ptr<OtlpClient> make_http_client(const OtlpClientOptions& options) {
  return std::make_unique<HttpClient>(options);
}

}  // namespace tern::exporter::otlp
