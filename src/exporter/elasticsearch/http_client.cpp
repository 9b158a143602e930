// The only Beast/Asio translation unit of the exporter (Beast is heavy to compile).
#include "exporter/elasticsearch/http_client.h"

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <stdexcept>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "net/stream_timeout.h"
#include "net/string_body.h"
#include "net/tls_context.h"

namespace tern::exporter::es {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {
// A request body sent straight from the caller's buffers (gathered writes): a bulk body
// goes out from the encoded batches where they are, not from a copy of them.
struct GatherBody {
  using value_type = std::vector<asio::const_buffer>;
  static std::uint64_t size(const value_type& v) { return asio::buffer_size(v); }
  class writer {
   public:
    using const_buffers_type = value_type;
    template <bool isRequest, class Fields>
    writer(const http::header<isRequest, Fields>&, const value_type& v) : v_(v) {}
    void init(beast::error_code& ec) { ec = {}; }
    boost::optional<std::pair<const_buffers_type, bool>> get(beast::error_code& ec) {
      ec = {};
      if (done_) return boost::none;
      done_ = true;
      return std::make_pair(v_, false);
    }

   private:
    const value_type& v_;
    bool done_ = false;
  };
};
}  // namespace

std::optional<Endpoint> parse_endpoint(std::string_view url, std::string* error) {
  Endpoint ep;
  ep.url = std::string(url);
  std::string_view rest = url;
  auto scheme_end = rest.find("://");
  if (scheme_end != std::string_view::npos) {
    std::string_view scheme = rest.substr(0, scheme_end);
    if (scheme == "https") {
      ep.tls = true;
    } else if (scheme != "http") {
      if (error) *error = "unsupported scheme [" + std::string(scheme) + "] in endpoint " + ep.url;
      return std::nullopt;
    }
    rest.remove_prefix(scheme_end + 3);
  }
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    ep.path_prefix = std::string(path);
  }
  if (authority.find('@') != std::string_view::npos) {
    if (error) *error = "credentials in the endpoint URL are not supported (use user/password): " + ep.url;
    return std::nullopt;
  }
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) {
      if (error) *error = "unterminated IPv6 address in endpoint " + ep.url;
      return std::nullopt;
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    if (error) *error = "missing host in endpoint " + ep.url;
    return std::nullopt;
  }
  ep.host = std::string(host);
  ep.port = port.empty() ? (ep.tls ? "443" : "80") : std::string(port);
  return ep;
}

class TlsContext {
 public:
  explicit TlsContext(const TlsClientOptions& o) : ctx(net::make_client_context(o)), options(o) {}
  ssl::context ctx;
  TlsClientOptions options;  // for each connection's name check (net::prepare_client_stream)
};

std::shared_ptr<TlsContext> make_tls_context(const TlsClientOptions& options) {
  return std::make_shared<TlsContext>(options);
}

struct HttpClient::Impl {
  // Declared first so it is destroyed last: handlers still queued when an exchange was
  // aborted are destroyed (never run) together with it, after the sockets are closed.
  asio::io_context ioc;
  std::vector<Endpoint> endpoints;
  HttpClientOptions opt;
  std::shared_ptr<TlsContext> tls;
  std::atomic<bool> aborted{false};
  tcp::resolver resolver{ioc};

  struct Conn {
    std::unique_ptr<beast::tcp_stream> plain;
    std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure;
    beast::flat_buffer buffer;
    bool open = false;
    beast::tcp_stream& lowest() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
  };
  std::vector<Conn> conns;

  // Runs one asynchronous step to completion on this worker's io_context.
  template <class Start>
  beast::error_code run(Start&& start) {
    if (aborted.load()) return asio::error::operation_aborted;
    beast::error_code result;
    bool done = false;
    start([&](beast::error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    ioc.restart();
    // An abort() between the check above and restart() would have its stop() undone.
    if (!aborted.load()) ioc.run();
    if (!done) {
      // abort() stopped the loop: the handler above is still queued and refers to this
      // frame, so the io_context must never run again (aborted stays set).
      return asio::error::operation_aborted;
    }
    return result;
  }

  void close(Conn& c) {
    beast::error_code ec;
    if (c.plain || c.secure) {
      c.lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
      c.lowest().socket().close(ec);
    }
    c.plain.reset();
    c.secure.reset();
    c.buffer.clear();
    c.open = false;
  }

  beast::error_code connect(const Endpoint& ep, Conn& c) {
    close(c);
    tcp::resolver::results_type results;
    auto ec = run([&](auto h) {
      resolver.async_resolve(ep.host, ep.port,
                             [&results, h](beast::error_code e, tcp::resolver::results_type r) {
                               results = std::move(r);
                               h(e);
                             });
    });
    if (ec) return ec;
    if (ep.tls) {
      if (!tls) return asio::error::no_protocol_option;
      c.secure = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc, tls->ctx);
      net::prepare_client_stream(*c.secure, ep.host, tls->options);
    } else {
      c.plain = std::make_unique<beast::tcp_stream>(ioc);
    }
    auto& low = c.lowest();
    low.expires_after(opt.connect_timeout);
    ec = run([&](auto h) {
      low.async_connect(results, [h](beast::error_code e, const tcp::endpoint&) { h(e); });
    });
    if (ec) return ec;
    low.socket().set_option(tcp::no_delay(true), ec);
    if (c.secure) {
      low.expires_after(opt.connect_timeout);
      ec = run([&](auto h) { c.secure->async_handshake(ssl::stream_base::client, h); });
      if (ec) return ec;
    }
    low.expires_never();
    c.open = true;
    return {};
  }

  template <class Stream>
  beast::error_code exchange(Stream& s, Conn& c, http::request<GatherBody>& req,
                             http::response_parser<net::AppendStringBody>& parser) {
    net::arm_timeout(c.lowest(), opt.request_timeout);
    const auto write_ec = run([&](auto h) { http::async_write(s, req, h); });
    // A server may answer before it has read the whole body and close the connection: a 413
    // for a Content-Length over its limit (Elasticsearch's http.max_content_length, a proxy's
    // body size limit). The write then fails (broken pipe, reset), but the answer arrived
    // before that: read it. Without it, a request too large for a proxy was a connection
    // error, sent again whole forever instead of split.
    if (write_ec && write_ec != asio::error::broken_pipe && write_ec != asio::error::connection_reset)
      return write_ec;
    // Beast reads only the buffer's free capacity (at least 512 bytes) per recv, and the
    // body moves out of it: reserve, or a 100 KB bulk response takes ~200 recv calls.
    c.buffer.reserve(net::kReadBufferReserve);
    auto ec = run([&](auto h) { http::async_read(s, c.buffer, parser, h); });
    c.lowest().expires_never();
    if (write_ec) {
      // The connection is unusable after a failed write, whatever the answer said.
      if (!ec) close(c);
      return ec ? write_ec : ec;
    }
    return ec;
  }
};

HttpClient::HttpClient(std::vector<Endpoint> endpoints, HttpClientOptions options,
                       std::shared_ptr<TlsContext> tls)
    : impl_(std::make_unique<Impl>()) {
  impl_->endpoints = std::move(endpoints);
  impl_->opt = std::move(options);
  impl_->tls = std::move(tls);
  impl_->conns.resize(impl_->endpoints.size());
}

HttpClient::~HttpClient() {
  for (auto& c : impl_->conns) impl_->close(c);
}

void HttpClient::abort() {
  impl_->aborted.store(true);
  impl_->ioc.stop();
}

bool HttpClient::post(std::size_t index, std::string_view target, std::span<const std::string_view> body,
                      std::string_view content_encoding, HttpResponse& response, std::string& error) {
  auto& im = *impl_;
  const Endpoint& ep = im.endpoints[index];
  auto& c = im.conns[index];

  http::request<GatherBody> req{http::verb::post, ep.path_prefix + std::string(target), 11};
  const bool v6 = ep.host.find(':') != std::string::npos;
  req.set(http::field::host, (v6 ? "[" + ep.host + "]" : ep.host) + ":" + ep.port);
  for (const auto& [k, v] : im.opt.headers) req.set(k, v);
  if (!content_encoding.empty()) req.set(http::field::content_encoding, content_encoding);
  req.keep_alive(true);
  req.body().reserve(body.size());
  for (auto part : body) {
    if (!part.empty()) req.body().emplace_back(part.data(), part.size());
  }
  req.prepare_payload();

  beast::error_code ec;
  response.resends = 0;
  // One extra attempt only when a reused keep-alive connection turns out to be closed by
  // the server before any response byte arrived (the classic stale-connection race).
  for (int attempt = 0; attempt < 2; ++attempt) {
    response.resends = attempt;
    const bool reused = c.open;
    if (!c.open) {
      ec = im.connect(ep, c);
      if (ec) {
        im.close(c);
        break;
      }
    }
    http::response_parser<net::AppendStringBody> parser;
    parser.body_limit(im.opt.max_response_bytes);
    ec = c.secure ? im.exchange(*c.secure, c, req, parser) : im.exchange(*c.plain, c, req, parser);
    if (!ec) {
      auto& res = parser.get();
      response.status = static_cast<int>(res.result_int());
      response.body = std::move(res.body());
      if (!res.keep_alive()) im.close(c);
      break;
    }
    im.close(c);
    const bool stale = reused && !parser.got_some() &&
                       (ec == http::error::end_of_stream || ec == asio::error::eof ||
                        ec == asio::error::connection_reset || ec == asio::error::broken_pipe);
    if (!stale || im.aborted.load()) break;
  }
  if (ec) {
    error = ec == beast::error::timeout ? std::string("timeout") : ec.message();
    return false;
  }
  return true;
}

}  // namespace tern::exporter::es
