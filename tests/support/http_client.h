#pragma once
// A blocking HTTP/1.1 client for tests (one keep-alive connection to 127.0.0.1:port).
// Beast stays in http_client.cpp so test files compile fast.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tern::test {

struct HttpReply {
  int status = 0;  // 0: no answer (connection failed or closed)
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port);
  ~HttpClient();
  // Reconnects once if the kept-alive connection was closed by the server.
  HttpReply call(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::vector<std::pair<std::string, std::string>>& headers = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::test
