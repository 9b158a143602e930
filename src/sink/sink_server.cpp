// The only Beast translation unit of the sink (Beast is heavy to compile).
#include "sink/sink_server.h"

#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "net/accept_backoff.h"
#include "net/known_length_body.h"
#include "net/listener.h"
#include "net/request_target.h"
#include "net/run_io_context.h"
#include "net/string_body.h"
#include "net/tls_context.h"

namespace tern::sink {
namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One connection; `Stream` is beast::tcp_stream, or beast::ssl_stream over one for
// `--tls-cert` (a server handshake first, then the same exchange).
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;
  using std::enable_shared_from_this<Session<Stream>>::shared_from_this;

 public:
  template <class... StreamArgs>
  Session(SinkCore& core, std::size_t body_limit, StreamArgs&&... stream_args)
      : stream_(std::forward<StreamArgs>(stream_args)...),
        timer_(stream_.get_executor()),
        core_(core),
        body_limit_(body_limit) {}
  void start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if constexpr (kTls) {
        self->handshake();
      } else {
        self->read_header();
      }
    });
  }

 private:
  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream_); }

  // A client that does not finish it in time, or fails it, loses its own connection only.
  void handshake() {
    tcp().expires_after(std::chrono::seconds(10));
    stream_.async_handshake(asio::ssl::stream_base::server,
                            [self = shared_from_this()](beast::error_code ec) {
                              self->tcp().expires_never();
                              if (ec) return self->close();
                              self->read_header();
                            });
  }

  void read_header() {
    parser_.emplace();
    // Bodies are capped at the wire; max_content_length (uncompressed) is checked by SinkCore.
    parser_->body_limit(body_limit_);
    parser_->header_limit(64 * 1024);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }
  void on_header(beast::error_code ec) {
    // A Content-Length over the wire cap is known from the header: answer 413 instead of
    // sending 100 Continue (or resetting), so the client learns to split the batch.
    if (ec == http::error::body_limit) return reject_too_large();
    if (ec == http::error::header_limit) return reject_header_too_large();
    if (ec) return close();
    auto& req = parser_->get();
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      cont_.emplace(http::status::continue_, req.version());
      http::async_write(stream_, *cont_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }
  void read_body() {
    // A body of known length goes from the socket straight into the request's string.
    if (const auto length = net::known_length_body(*parser_))
      return net::async_read_known_length_body(
          stream_, buffer_, parser_->get().body(), *length,
          [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    // Each recv takes up to 64 KiB of the body (see net::kReadBufferReserve).
    buffer_.reserve(net::kReadBufferReserve);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }
  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) return reject_too_large();
    if (ec) return close();
    auto& req = parser_->get();
    // Absolute-form ("http://host:9200/_bulk") is routed on its path, as origin-form is.
    Request r{req.method_string(), net::origin_form_target(req.target()), req[http::field::content_encoding],
              std::move(req.body())};
    Reply reply;
    try {
      reply = core_.handle(r);
    } catch (const std::exception& e) {
      // An exception escaping a handler would end the io_context thread (and the process).
      spdlog::error("tern sink: {} {}: {}", req.method_string(), req.target(), e.what());
      reply =
          Reply{500, R"({"error":{"type":"exception","reason":"tern sink internal error"},"status":500})"};
    }
    keep_alive_ = req.keep_alive();
    head_ = req.method() == http::verb::head;
    int version = req.version();
    if (reply.drop_connection) return close();
    if (reply.delay_ms > 0) {
      pending_.emplace(std::move(reply));
      timer_.expires_after(std::chrono::milliseconds(pending_->delay_ms));
      timer_.async_wait([self = shared_from_this(), version](beast::error_code ec) {
        if (ec) return self->close();
        Reply rep = std::move(*self->pending_);
        self->pending_.reset();
        self->respond(std::move(rep), version);
      });
      return;
    }
    respond(std::move(reply), version);
  }
  void reject_too_large() {
    // The unread rest of the body would be parsed as the next request: close after answering.
    keep_alive_ = false;
    head_ = false;
    respond(
        Reply{
            413,
            R"({"error":{"root_cause":[{"type":"content_too_long_exception","reason":"request body is too large"}],)"
            R"("type":"content_too_long_exception","reason":"request body is too large"},"status":413})"},
        parser_ && parser_->is_header_done() ? parser_->get().version() : 11);
  }
  // A header block over 64 KiB: Elasticsearch (Netty) answers 400 too_long_frame_exception
  // and closes; so does the sink (it used to close without an answer).
  void reject_header_too_large() {
    keep_alive_ = false;
    head_ = false;
    respond(
        Reply{
            400,
            R"({"error":{"root_cause":[{"type":"too_long_frame_exception","reason":"HTTP header is larger than )"
            R"(65536 bytes."}],"type":"too_long_frame_exception","reason":"HTTP header is larger than 65536 )"
            R"(bytes."},"status":400})"},
        11);
  }
  // The answer to a HEAD request has the Content-Length a GET's would have, and no body
  // (RFC 9110 §9.3.2): bytes after it would be read as the next response on the connection.
  void respond(Reply reply, int version) {
    res_.emplace(static_cast<http::status>(reply.status), version);
    res_->set(http::field::server, "tern-sink");
    res_->set("X-Elastic-Product", "Elasticsearch");
    res_->set(http::field::content_type, reply.content_type);
    res_->body() = std::move(reply.body);
    res_->keep_alive(keep_alive_);
    res_->prepare_payload();
    if (head_) res_->body().clear();  // after prepare_payload: Content-Length stays the body's
    http::async_write(stream_, *res_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->keep_alive_) return self->close();
      self->res_.reset();
      self->read_header();
    });
  }
  void close() {
    beast::error_code ec;
    tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
    tcp().socket().close(ec);
  }

  Stream stream_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<net::AppendStringBody>> parser_;
  std::optional<http::response<http::empty_body>> cont_;
  std::optional<http::response<http::string_body>> res_;
  std::optional<Reply> pending_;
  SinkCore& core_;
  std::size_t body_limit_;
  bool keep_alive_ = true;
  bool head_ = false;  // the request being answered is a HEAD
};

}  // namespace

struct SinkServer::Impl {
  std::optional<asio::ssl::context> tls;  // set by start() for --tls-cert
  asio::io_context ioc;
  tcp::acceptor acceptor{asio::make_strand(ioc)};
  asio::steady_timer flush_timer{ioc};
  asio::steady_timer accept_retry{acceptor.get_executor()};  // on the acceptor's strand,
  net::AcceptBackoff accept_backoff;                         // as is this
  std::uint16_t port = 0;
  std::vector<std::thread> threads;
  bool running = false;
};

SinkServer::SinkServer(SinkOptions options) : core_(options), impl_(std::make_unique<Impl>()) {
  impl_->running = false;
  options_threads_ = std::max(1, options.threads);
  options_host_ = options.host;
  options_port_ = options.port;
  tls_ = options.tls;
  // Wire cap: generous over the uncompressed limit so oversize plain bodies are still read
  // and answered 413 on a kept-alive connection, but bounded against abuse.
  body_limit_ = std::min<std::size_t>(std::max<std::size_t>(options.max_content_length, 1) * 2 + (1u << 20),
                                      2ull << 30);
}

SinkServer::~SinkServer() { stop(); }

uint16_t SinkServer::start() {
  auto& im = *impl_;
  if (tls_.enabled()) im.tls.emplace(net::make_server_context(tls_));  // throws naming the file
  net::open_listener(im.acceptor, options_host_, options_port_);
  uint16_t port = im.acceptor.local_endpoint().port();
  im.port = port;
  do_accept();
  schedule_flush();
  im.running = true;
  for (int i = 0; i < options_threads_; ++i)
    im.threads.emplace_back([&im] { net::run_io_context(im.ioc, "tern sink"); });
  return port;
}

void SinkServer::do_accept() {
  impl_->acceptor.async_accept(
      asio::make_strand(impl_->ioc), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !impl_->acceptor.is_open()) return;
        auto& im = *impl_;
        if (ec) {
          // e.g. EMFILE: wait (5 ms doubling to 1 s, see net/accept_backoff.h), do not spin.
          const auto delay = im.accept_backoff.failed();
          if (im.accept_backoff.should_log())
            spdlog::warn(
                "tern sink: accept on port {} failed: {} ({} failure(s) in a row; retrying in {} ms)",
                im.port, ec.message(), im.accept_backoff.failures(), delay.count());
          im.accept_retry.expires_after(delay);
          im.accept_retry.async_wait([this](beast::error_code wait_ec) {
            if (!wait_ec && impl_->acceptor.is_open()) do_accept();
          });
          return;
        }
        if (const auto failures = im.accept_backoff.succeeded())
          spdlog::info("tern sink: accept on port {} works again after {} failure(s)", im.port, failures);
        {
          socket.set_option(tcp::no_delay(true), ec);
          if (impl_->tls) {
            std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(core_, body_limit_,
                                                                            std::move(socket), *impl_->tls)
                ->start();
          } else {
            std::make_shared<Session<beast::tcp_stream>>(core_, body_limit_, std::move(socket))->start();
          }
        }
        do_accept();
      });
}

void SinkServer::schedule_flush() {
  impl_->flush_timer.expires_after(std::chrono::seconds(1));
  impl_->flush_timer.async_wait([this](beast::error_code ec) {
    if (ec) return;
    core_.flush_dump();
    schedule_flush();
  });
}

void SinkServer::stop() {
  auto& im = *impl_;
  if (im.running) {
    asio::post(im.acceptor.get_executor(), [&im] {
      beast::error_code ec;
      im.acceptor.close(ec);
      im.accept_retry.cancel();
    });
    im.ioc.stop();
    for (auto& t : im.threads) t.join();
    im.threads.clear();
    // The posted close may not have run before the threads stopped: close here (no thread
    // left to race with), or the port keeps listening and clients hang instead of being refused.
    beast::error_code ec;
    im.acceptor.close(ec);
    im.running = false;
  }
  // Pending sessions die with the io_context (impl_ is reset in the destructor order below).
  core_.flush_dump();
}

}  // namespace tern::sink
