// The only Beast translation unit of tern_net (Beast is heavy to compile).
#include "net/http_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "net/accept_backoff.h"
#include "net/known_length_body.h"
#include "net/listener.h"
#include "net/request_target.h"
#include "net/run_io_context.h"
#include "net/string_body.h"
#include "net/tls_context.h"

namespace tern::net {
namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
}  // namespace

std::string_view HttpRequest::header(std::string_view name) const {
  if (!fields_) return {};
  const auto& f = *static_cast<const http::fields*>(fields_);
  auto it = f.find(name);
  return it == f.end() ? std::string_view{} : std::string_view(it->value());
}

std::pair<std::string, std::uint16_t> split_host_port(std::string_view endpoint) {
  auto colon = endpoint.rfind(':');
  if (colon == std::string_view::npos)
    throw std::invalid_argument("endpoint '" + std::string(endpoint) + "' has no port");
  std::string host(endpoint.substr(0, colon));
  std::string_view port_str = endpoint.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";  // Go-style ":4318" means every interface
  unsigned long port = 0;
  if (port_str.empty() || port_str.size() > 5 ||
      !std::all_of(port_str.begin(), port_str.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      (port = std::stoul(std::string(port_str))) > 65535)
    throw std::invalid_argument("endpoint '" + std::string(endpoint) + "' has a bad port");
  return {host, static_cast<std::uint16_t>(port)};
}

std::string join_host_port(std::string_view host, std::uint16_t port) {
  const bool v6 = host.find(':') != std::string_view::npos && !host.starts_with('[');
  return (v6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
}

namespace {
// What the server needs of a connection, whatever its stream type.
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void stop() = 0;
};
}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;

  // Declared before the io_context: sessions still owned by queued handlers deregister
  // themselves when the io_context is destroyed.
  std::mutex mu;
  std::condition_variable idle_cv;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions;
  std::atomic<bool> stopping{false};

  // Built once by start() when options.tls is enabled; shared by every TLS session.
  std::optional<asio::ssl::context> tls;

  asio::io_context ioc;
  tcp::acceptor acceptor{asio::make_strand(ioc)};
  std::vector<std::thread> threads;
  std::uint16_t port = 0;
  bool started = false;
  bool stopped = false;

  // Accepting backs off while it fails (see on_accept_error); both only touched on the
  // acceptor's strand.
  asio::steady_timer accept_retry{acceptor.get_executor()};
  AcceptBackoff accept_backoff;

  void do_accept();
  void on_accept_error(const beast::error_code& ec);
};

namespace {

// One connection. `Stream` is beast::tcp_stream (plain HTTP) or
// beast::ssl_stream<beast::tcp_stream> (HTTPS: a server handshake first, then the same
// HTTP/1.1 exchange); timeouts and the socket are always the lowest layer's.
template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  template <class... Args>
  Session(HttpServer::Impl& server, Args&&... stream_args)
      : stream_(std::forward<Args>(stream_args)...), server_(server) {}
  ~Session() override {
    std::lock_guard lock(server_.mu);
    server_.sessions.erase(this);
    if (server_.sessions.empty()) server_.idle_cv.notify_all();
  }

  void start() {
    {
      std::lock_guard lock(server_.mu);
      server_.sessions.emplace(static_cast<SessionBase*>(this), this->weak_from_this());
    }
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->handshake();
      } else {
        self->read_header();
      }
    });
  }

  // Posted by HttpServer::shutdown: an idle connection is closed now; a busy one
  // finishes its request (read_header checks `stopping` before waiting for another).
  void stop() override {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->idle_) self->close();
    });
  }

 private:
  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream_); }

  // TLS only. A client that fails it (plaintext HTTP, no or an untrusted certificate under
  // mutual TLS, a stall) only loses its own connection.
  void handshake() {
    idle_ = true;  // no request yet: a shutdown closes it
    tcp().expires_after(std::min(server_.options.request_timeout, server_.options.tls_handshake_timeout));
    stream_.async_handshake(
        asio::ssl::stream_base::server,
        [self = this->shared_from_this()](beast::error_code ec) { self->on_handshake(ec); });
  }

  void on_handshake(beast::error_code ec) {
    idle_ = false;
    if (ec) {
      spdlog::debug("http server on port {}: TLS handshake failed: {}", server_.port, ec.message());
      return close();
    }
    read_header();
  }

  void read_header() {
    if (server_.stopping) return end();
    idle_ = true;
    parser_.emplace();
    parser_->body_limit(server_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.header_limit));
    tcp().expires_after(server_.options.idle_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    idle_ = false;
    // A Content-Length over the limit is reported while parsing the header.
    if (ec == http::error::body_limit) return too_large();
    if (ec == http::error::header_limit) return header_too_large();
    if (malformed(ec)) return bad_request(ec);
    if (ec) return close();
    auto& req = parser_->get();
    // A Transfer-Encoding that does not end in chunked leaves the body's length unknown: RFC
    // 9112 §6.3 requires a 400 and closing. Beast took such a request as one without a body,
    // and the body the client sent as the next request on the connection (smuggled past
    // whatever judged the first one). In an HTTP/1.0 request a Transfer-Encoding is faulty
    // framing whatever it says (§6.1): it was read as chunked on a connection kept open.
    if (req.find(http::field::transfer_encoding) != req.end() && (req.version() < 11 || !parser_->chunked()))
      return bad_request(http::make_error_code(http::error::bad_transfer_encoding));
    tcp().expires_after(server_.options.request_timeout);
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      cont_.emplace(http::status::continue_, req.version());
      http::async_write(stream_, *cont_,
                        [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                          if (ec) return self->close();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  void read_body() {
    if (const auto length = known_length_body(*parser_)) {
      // The body grows as it arrives, but growing may still fail (memory is short): that
      // request gets a 500, the server goes on.
      try {
        return read_body_direct(*length);
      } catch (const std::exception& e) {
        spdlog::error("http server on port {}: cannot read a body of {} bytes: {}", server_.port, *length,
                      e.what());
        parser_->get().body() = std::string();
        return respond(internal_error(), parser_->get().version(), /*keep_alive=*/false, /*linger=*/true,
                       /*head=*/false);
      }
    }
    // Beast reads max(512, free capacity) bytes per recv and moves body bytes out of the
    // buffer, so an unreserved buffer reads a 1 MB body in ~2000 recv calls (each with
    // an epoll wait and a timer update). 64 KiB per connection reading a body makes it ~16.
    if (parser_->content_length().value_or(kReadBufferReserve) > 4096) buffer_.reserve(kReadBufferReserve);
    read_body_some();
  }

  // The rest of a chunked or small body, a piece at a time: request_timeout bounds a pause in
  // the body (re-armed at each piece), not the whole body, which a slow link may need minutes
  // for (a 1.6 MB body at 20 KB/s was cut at 60 s without an answer, and the client's
  // retries were cut the same way). A body that stops coming still times out.
  void read_body_some() {
    if (parser_->is_done()) return on_read({});
    tcp().expires_after(server_.options.request_timeout);
    http::async_read_some(stream_, buffer_, *parser_,
                          [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) return self->on_read(ec);
                            self->read_body_some();
                          });
  }

  // A body of known length goes from the socket straight into the request's string
  // (net/known_length_body.h), its deadline re-armed as it arrives, as above.
  void read_body_direct(std::size_t length) {
    async_read_known_length_body(
        stream_, buffer_, parser_->get().body(), length,
        [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); },
        server_.options.request_timeout);
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) return too_large();
    if (malformed(ec)) return bad_request(ec);
    if (ec) return close();
    tcp().expires_never();  // the handler may take a while (back-pressure, encoding)
    auto& req = parser_->get();
    HttpRequest r;
    r.method = req.method_string();
    r.target = origin_form_target(req.target());
    r.version = req.version();
    r.body = std::move(req.body());
    r.fields_ = static_cast<const http::fields*>(&req);
    bool keep_alive = req.keep_alive();
    respond(call_handler(r), r.version, keep_alive, /*linger=*/false, req.method() == http::verb::head);
  }

  // The body is over the limit and still (partly) on the wire: answer from the header
  // alone, then close without resetting the connection (see linger()).
  void too_large() {
    auto& req = parser_->get();
    HttpRequest r;
    r.method = req.method_string();
    r.target = origin_form_target(req.target());
    r.version = req.version();
    r.body_too_large = true;
    r.fields_ = static_cast<const http::fields*>(&req);
    respond(call_handler(r), r.version, /*keep_alive=*/false, /*linger=*/true,
            req.method() == http::verb::head);
  }

  // The header block is over header_limit: 431 (as Go's net/http answers), without asking
  // the handler (the header is incomplete), then close as for a body too large (the rest of
  // the header may still be on the wire).
  void header_too_large() {
    HttpResponse res;
    res.status = 431;
    res.content_type = "text/plain; charset=utf-8";
    res.body =
        "request header fields are larger than " + std::to_string(server_.options.header_limit) + " bytes\n";
    respond(std::move(res), 11, /*keep_alive=*/false, /*linger=*/true, /*head=*/false);
  }

  // A request the parser refuses (a bad request line or header field, an invalid or
  // conflicting Content-Length, an unsupported Transfer-Encoding, a bad chunk). RFC 9112
  // §6.3 requires a 400 for an invalid Content-Length (Go's net/http answers every one of
  // them so); closing without a word left the client with "empty reply from server". Not
  // a connection that ends or stalls (end_of_stream, partial_message, timeouts): those are
  // closed silently as before.
  static bool malformed(const beast::error_code& ec) {
    static const auto& category = http::make_error_code(http::error::bad_method).category();
    if (ec.category() != category) return false;
    switch (static_cast<http::error>(ec.value())) {
      case http::error::bad_line_ending:
      case http::error::bad_method:
      case http::error::bad_target:
      case http::error::bad_version:
      case http::error::bad_field:
      case http::error::bad_value:
      case http::error::bad_content_length:
      case http::error::bad_transfer_encoding:
      case http::error::bad_chunk:
      case http::error::bad_chunk_extension:
      case http::error::bad_obs_fold:
        return true;
      default:
        return false;
    }
  }

  // 400 without asking the handler (the request is not one), then close as for a body too
  // large: the rest of the request may still be on the wire, and its framing is unknown.
  void bad_request(const beast::error_code& ec) {
    HttpResponse res;
    res.status = 400;
    res.content_type = "text/plain; charset=utf-8";
    res.body = "malformed HTTP request: " + ec.message() + "\n";
    respond(std::move(res), 11, /*keep_alive=*/false, /*linger=*/true, /*head=*/false);
  }

  static HttpResponse internal_error() {
    HttpResponse res;
    res.status = 500;
    res.content_type = "text/plain";
    res.body = "internal error\n";
    res.close = true;
    return res;
  }

  HttpResponse call_handler(HttpRequest& r) {
    try {
      return server_.handler(r);
    } catch (const std::exception& e) {
      spdlog::error("http handler for {} {} failed: {}", r.method, r.target, e.what());
      return internal_error();
    }
  }

  // `head`: the answer to a HEAD request has the header a GET would get (its Content-Length
  // is the body's) but no body (RFC 9110 §9.3.2); body bytes after it would be taken for the
  // start of the next response on the connection.
  void respond(HttpResponse reply, unsigned version, bool keep_alive, bool linger, bool head) {
    keep_alive_ = keep_alive && !reply.close && !server_.stopping;
    res_.emplace(static_cast<http::status>(reply.status), version);
    res_->set(http::field::server, server_.options.server_name);
    if (!reply.content_type.empty()) res_->set(http::field::content_type, reply.content_type);
    for (auto& [name, value] : reply.headers) res_->set(name, value);
    res_->body() = std::move(reply.body);
    res_->keep_alive(keep_alive_);
    res_->prepare_payload();
    if (head) res_->body().clear();  // after prepare_payload: Content-Length stays the body's
    tcp().expires_after(server_.options.request_timeout);
    http::async_write(stream_, *res_,
                      [self = this->shared_from_this(), linger](beast::error_code ec, std::size_t) {
                        self->res_.reset();
                        if (ec) return self->close();
                        if (linger) return self->linger();
                        if (!self->keep_alive_) return self->end();
                        self->read_header();
                      });
  }

  // Closing a socket with unread data makes the kernel send a reset, which can destroy
  // the response before the client reads it. So: send FIN, discard what the client
  // still sends for a bounded time, then close.
  //
  // Under TLS this is the same on the TCP layer (no close_notify): the response is complete
  // (it has a Content-Length) before the FIN, and the drained bytes need no decrypting.
  void linger() {
    beast::error_code ec;
    tcp().socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    tcp().expires_after(std::chrono::seconds(2));
    drain();
  }
  void drain() {
    if (!scratch_) scratch_ = std::make_unique<char[]>(kScratch);
    tcp().async_read_some(asio::buffer(scratch_.get(), kScratch),
                          [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                            self->drained_ += n;
                            if (ec || self->drained_ > kMaxDrain) return self->close();
                            self->drain();
                          });
  }

  // The connection ends in good order (the response said `Connection: close`, or the
  // server stops between requests). TLS: send close_notify and wait a bounded time for the
  // client's (asynchronously: no thread waits), then close the socket.
  void end() {
    if constexpr (kTls) {
      tcp().expires_after(kTlsShutdown);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->close(); });
    } else {
      close();
    }
  }

  // Closes the socket at once (after an error, or an idle connection at shutdown, whose
  // read it cancels).
  void close() {
    beast::error_code ec;
    tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
    tcp().socket().close(ec);
  }

  static constexpr std::size_t kScratch = 64 * 1024;
  static constexpr std::size_t kMaxDrain = 256ull * 1024 * 1024;
  static constexpr std::chrono::seconds kTlsShutdown{2};

  Stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<AppendStringBody>> parser_;
  std::optional<http::response<http::empty_body>> cont_;
  std::optional<http::response<http::string_body>> res_;
  std::unique_ptr<char[]> scratch_;
  std::size_t drained_ = 0;
  bool keep_alive_ = true;
  bool idle_ = false;  // waiting for the next request's header (only touched on the strand)
};

}  // namespace

void HttpServer::Impl::do_accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open() || stopping) return;
    if (ec) return on_accept_error(ec);
    if (const auto failures = accept_backoff.succeeded())
      spdlog::info("http accept on port {} works again after {} failure(s)", port, failures);
    {
      socket.set_option(tcp::no_delay(true), ec);
      if (tls) {
        std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(*this, std::move(socket), *tls)
            ->start();
      } else {
        std::make_shared<Session<beast::tcp_stream>>(*this, std::move(socket))->start();
      }
    }
    do_accept();
  });
}

// e.g. EMFILE: the connection stays in the backlog and the listener stays readable, so
// accepting again at once would spin (it did: 235,000 log lines a second). Wait as Go's
// net/http does (5 ms, doubling to 1 s), and log the first failure of a run and then one
// line a minute at most.
void HttpServer::Impl::on_accept_error(const beast::error_code& ec) {
  const auto delay = accept_backoff.failed();
  if (accept_backoff.should_log())
    spdlog::warn("http accept on port {} failed: {} ({} failure(s) in a row; retrying in {} ms)", port,
                 ec.message(), accept_backoff.failures(), delay.count());
  accept_retry.expires_after(delay);
  accept_retry.async_wait([this](beast::error_code wait_ec) {
    if (wait_ec || !acceptor.is_open() || stopping) return;
    do_accept();
  });
}

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() { shutdown(); }

std::uint16_t HttpServer::start() {
  auto& im = *impl_;
  if (im.started) throw std::logic_error("HttpServer::start called twice");
  // Before binding: a certificate that cannot be loaded fails start() with its message.
  if (im.options.tls.enabled()) im.tls.emplace(make_server_context(im.options.tls));
  open_listener(im.acceptor, im.options.host, im.options.port);
  im.port = im.acceptor.local_endpoint().port();
  im.started = true;
  im.do_accept();
  unsigned n = im.options.threads ? im.options.threads : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < n; ++i)
    im.threads.emplace_back(
        [&im] { run_io_context(im.ioc, "http server on port " + std::to_string(im.port)); });
  return im.port;
}

std::uint16_t HttpServer::port() const { return impl_->port; }

void HttpServer::shutdown() {
  auto& im = *impl_;
  if (!im.started || im.stopped) return;
  im.stopped = true;
  im.stopping = true;
  asio::post(im.acceptor.get_executor(), [&im] {
    beast::error_code ec;
    im.acceptor.close(ec);
    im.accept_retry.cancel();
  });
  std::vector<std::shared_ptr<SessionBase>> live;
  {
    std::lock_guard lock(im.mu);
    for (auto& [raw, weak] : im.sessions)
      if (auto s = weak.lock()) live.push_back(std::move(s));
  }
  for (auto& s : live) s->stop();
  live.clear();  // a session must be able to die while we wait
  {
    std::unique_lock lock(im.mu);
    if (!im.idle_cv.wait_for(lock, im.options.shutdown_grace, [&im] { return im.sessions.empty(); }))
      spdlog::warn("http server on port {}: {} connection(s) still busy after the shutdown grace period",
                   im.port, im.sessions.size());
  }
  im.ioc.stop();
  for (auto& t : im.threads) t.join();
  im.threads.clear();
  // The close posted above does not run when the io threads stop first (no session to wait
  // for): the port would keep listening, and clients' connections would sit in its backlog
  // until their timeout instead of being refused. With the threads gone this is safe.
  beast::error_code ec;
  im.acceptor.close(ec);
}

}  // namespace tern::net
