#pragma once
// Reading a request body whose length the header gave (Content-Length) from the socket
// straight into the request's string, for the Beast servers (net::HttpServer, `tern sink`).
// Through Beast's parser each byte is received into the connection's buffer and then copied
// into the body; this skips the copy (3 % of the collector's CPU on 1,000-record OTLP
// requests). Include after Beast's http headers (net/beast_http.h).
#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "text/string_growth.h"

namespace tern::net {

// Bodies from this size on are read directly; smaller ones usually arrived with their
// header and gain nothing from it.
inline constexpr std::size_t kDirectBodyMin = 16 * 1024;

// The body length to read directly for a request whose header `parser` has parsed: its
// Content-Length when that is at least kDirectBodyMin (and within the parser's body limit,
// which Beast checked with the header), nothing for chunked or small bodies.
template <class Parser>
std::optional<std::size_t> known_length_body(const Parser& parser) {
  const auto length = parser.content_length();
  if (!length || *length < kDirectBodyMin || parser.chunked()) return std::nullopt;
  return static_cast<std::size_t>(*length);
}

// Reads `length` body bytes into `body`: first what `buffer` already holds past the header,
// then the rest from `stream`. Bytes past the body stay in `buffer` for the next request. The
// handler gets the error of the read (a peer that closes early is one) and the count read
// from the stream.
template <class Stream, class Handler>
void async_read_known_length_body(Stream& stream, boost::beast::flat_buffer& buffer, std::string& body,
                                  std::size_t length, Handler&& handler) {
  const std::size_t have = std::min(buffer.size(), length);
  body.reserve(length);
  body.assign(static_cast<const char*>(buffer.data().data()), have);
  buffer.consume(have);
  text::grow_for_overwrite(body, length);  // the stream writes every byte past `have`
  boost::asio::async_read(stream, boost::asio::buffer(body.data() + have, length - have),
                          std::forward<Handler>(handler));
}

}  // namespace tern::net
