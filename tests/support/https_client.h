#pragma once
// A blocking HTTPS/1.1 client for tests: one connection to 127.0.0.1:port, no reconnects,
// so a test sees exactly what one connection did (support/http_client.h is the plaintext
// one). Certificates for tests: support/test_certs.h. Beast stays in https_client.cpp.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/http_client.h"  // HttpReply

namespace tern::test {

struct HttpsClientOptions {
  std::string ca_file;    // verify the server against this CA (and that it is 127.0.0.1)
  std::string cert_file;  // client certificate for mutual TLS, optional
  std::string key_file;
};

// A client that trusts test_certs()' CA and presents the certificate `<cert>.crt` from its
// directory ("client", "other-ca"), or none.
HttpsClientOptions trusting_test_ca(const std::string& cert = "");

class HttpsClient {
 public:
  HttpsClient(std::uint16_t port, HttpsClientOptions options);
  ~HttpsClient();
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  // TCP connect and TLS handshake. False when either fails (see error()). Note that under
  // TLS 1.3 a server that refuses the client's certificate says so after the client's
  // handshake has completed: the first call() then gets no answer.
  bool connect();
  // One request on the current connection (connect() first when there is none). status 0:
  // no answer (see error()); the connection is dropped then, and after `Connection: close`.
  HttpReply call(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::vector<std::pair<std::string, std::string>>& headers = {});
  bool connected() const;
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

}  // namespace tern::test
