#pragma once
// A Beast response as the test clients' HttpReply (status, body, lower-case header names).
// For the test clients' .cpp files only: it needs the Beast headers they already include.
#include <cctype>
#include <string>

#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there
#include "support/http_client.h"

namespace tern::test {

inline void fill_reply(const boost::beast::http::response<boost::beast::http::string_body>& res,
                       HttpReply& reply) {
  reply.status = static_cast<int>(res.result_int());
  reply.body = res.body();
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(f.value());
  }
}

}  // namespace tern::test
