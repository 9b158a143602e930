#pragma once
// Throw-away certificates for TLS tests, made with the `openssl` command line once per
// test process in a temporary directory: a CA, a server certificate it signed for
// 127.0.0.1 and localhost, one it signed for another name, a client certificate it
// signed (mutual TLS), and a second, unrelated CA (a trust store that must not accept
// the server).
#include <string>

namespace tern::test {

struct TestCerts {
  std::string dir;
  std::string ca_cert;      // PEM files, absolute paths
  std::string server_cert;  // SAN IP:127.0.0.1, DNS:localhost
  std::string server_key;
  std::string client_cert;  // extendedKeyUsage clientAuth
  std::string client_key;
  std::string other_ca_cert;
  std::string other_host_cert;  // signed by the CA, but for DNS:other.example only
  std::string other_host_key;
};

// Generated on first use; the directory is removed at exit. Fails the calling test (and
// returns an empty set) when openssl is missing or fails.
const TestCerts& test_certs();

}  // namespace tern::test
