#pragma once
// Reading a request body whose length the header gave (Content-Length) from the socket
// straight into the request's string, for the Beast servers (net::HttpServer, `tern sink`).
// Through Beast's parser each byte is received into the connection's buffer and then copied
// into the body; this skips the copy (3 % of the collector's CPU on 1,000-record OTLP
// requests). Include after Beast's http headers (net/beast_http.h).
//
// The string grows as the bytes arrive, never to the declared length up front: a header
// alone must not make the server allocate what it declares (a 500 GB Content-Length under a
// 1 TiB limit was a std::bad_alloc that ended the process; 150 connections declaring 20 MiB
// each and sending one byte took 3 GB of address space).
#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "text/string_growth.h"

namespace tern::net {

// Bodies from this size on are read directly; smaller ones usually arrived with their
// header and gain nothing from it.
inline constexpr std::size_t kDirectBodyMin = 16 * 1024;

// The room a body of known length gets before any of its bytes past the header's buffer have
// arrived. Bodies up to this size (OTLP requests of some thousand records) take one
// allocation of their exact length and one read, as before; larger ones double what has
// arrived each time it fills (about log2(length / 1 MiB) reallocations, copying less than
// the body's size in all).
inline constexpr std::size_t kBodyFirstRoom = 1024 * 1024;

// The size `body` grows to next when `filled` bytes of a `length`-byte body are in it: never
// more than the length, nor more than max(kBodyFirstRoom, twice what has arrived).
inline constexpr std::size_t known_length_body_room(std::size_t filled, std::size_t length) {
  return std::min(length, std::max(kBodyFirstRoom, filled * 2));
}

// The body length to read directly for a request whose header `parser` has parsed: its
// Content-Length when that is at least kDirectBodyMin (and within the parser's body limit,
// which Beast checked with the header), nothing for chunked or small bodies.
template <class Parser>
std::optional<std::size_t> known_length_body(const Parser& parser) {
  const auto length = parser.content_length();
  if (!length || *length < kDirectBodyMin || parser.chunked()) return std::nullopt;
  return static_cast<std::size_t>(*length);
}

namespace detail {
// The composed read: fills the string's room, grows it, reads again, until `length`.
template <class Stream, class Handler>
struct KnownLengthBodyRead {
  Stream& stream;
  std::string& body;
  std::size_t length;
  std::size_t filled;       // bytes of the body in `body` (its size is the room)
  std::size_t from_stream;  // bytes read from the stream so far
  std::chrono::milliseconds idle;  // > 0: re-arm the stream's timer with it whenever bytes come
  Handler handler;

  void read_more() {
    const std::size_t room = known_length_body_room(filled, length);
    text::grow_for_overwrite(body, room);  // the stream writes every byte past `filled`
    const std::size_t want = room - filled;
    boost::asio::async_read(
        stream, boost::asio::buffer(body.data() + filled, want),
        // Called before each receive: asks for all that is missing, and keeps the deadline
        // `idle` ahead of the last progress, so that a slow body that keeps coming is not cut.
        [s = &stream, idle = idle, want](const boost::beast::error_code& ec, std::size_t n) -> std::size_t {
          if (ec || n >= want) return 0;
          if (idle.count() > 0) boost::beast::get_lowest_layer(*s).expires_after(idle);
          return want - n;
        },
        std::move(*this));
  }
  void operator()(boost::beast::error_code ec, std::size_t n) {
    filled += n;
    from_stream += n;
    if (ec || filled == length) {
      body.resize(filled);
      return handler(ec, from_stream);
    }
    read_more();
  }
};
}  // namespace detail

// Reads `length` body bytes into `body`: first what `buffer` already holds past the header,
// then the rest from `stream`, growing `body` as they arrive (known_length_body_room). Bytes
// past the body stay in `buffer` for the next request. The handler gets the error of the
// read (a peer that closes early is one) and the count read from the stream. Runs the
// handler's continuation on the stream's executor, as asio::async_read does.
//
// `idle` > 0 (a Beast stream's lowest layer): the deadline is re-armed to `idle` from each
// receive, so it bounds a pause in the body, not the whole body (which a slow link may need
// minutes for); 0 leaves the deadline the caller set.
template <class Stream, class Handler>
void async_read_known_length_body(Stream& stream, boost::beast::flat_buffer& buffer, std::string& body,
                                  std::size_t length, Handler&& handler,
                                  std::chrono::milliseconds idle = std::chrono::milliseconds{0}) {
  const std::size_t have = std::min(buffer.size(), length);
  body.reserve(known_length_body_room(have, length));
  body.assign(static_cast<const char*>(buffer.data().data()), have);
  buffer.consume(have);
  detail::KnownLengthBodyRead<Stream, std::decay_t<Handler>>{
      stream, body, length, have, 0, idle, std::forward<Handler>(handler)}
      .read_more();
}

}  // namespace tern::net
