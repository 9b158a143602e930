#pragma once
// HTTP message bodies read into a std::string, for every Beast reader in Tern (the OTLP/HTTP
// server, `tern sink`, the Elasticsearch and OTLP clients).
//
// Beast's string_body grows the string with resize() for each piece it reads and then copies
// the piece over the zeros: every body byte is written twice. AppendStringBody appends the
// pieces instead (one copy); it is string_body in every other respect (the same value_type
// and writer), so messages convert freely.
#include <boost/beast/core/buffers_range.hpp>
#include <boost/optional.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "net/beast_http.h"

namespace tern::net {

// Free space to keep in a flat_buffer while a body is read: Beast reads only the buffer's
// free capacity per recv (512 bytes by default), so a 100 KB body would take ~200 recv calls.
inline constexpr std::size_t kReadBufferReserve = 64 * 1024;

struct AppendStringBody : boost::beast::http::string_body {
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
      if (length) {
        if (*length > body_.max_size()) {
          ec = boost::beast::http::error::buffer_overflow;
          return;
        }
        body_.reserve(static_cast<std::size_t>(*length));
      }
      ec = {};
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      std::size_t n = 0;
      for (const auto b : boost::beast::buffers_range_ref(buffers)) {
        body_.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      ec = {};
      return n;
    }

    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

}  // namespace tern::net
