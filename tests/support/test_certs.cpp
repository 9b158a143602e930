#include "test_certs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace tern::test {
namespace {

bool run(const std::string& cmd) {
  const std::string quiet = cmd + " >/dev/null 2>&1";
  return std::system(quiet.c_str()) == 0;
}

// P-256 keys: generated in milliseconds, accepted by OpenSSL and gRPC alike.
constexpr const char* kNewKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

bool make_ca(const std::string& d, const std::string& name) {
  return run("openssl req -x509 " + std::string(kNewKey) + " -days 2 -subj /CN=" + name + " -keyout " + d +
             "/" + name + ".key -out " + d + "/" + name +
             ".crt -addext basicConstraints=critical,CA:TRUE -addext " +
             "keyUsage=critical,keyCertSign,cRLSign");
}

bool make_signed(const std::string& d, const std::string& name, const std::string& extensions) {
  const std::string ext = d + "/" + name + ".ext";
  std::ofstream(ext) << extensions << "\n";
  return run("openssl req " + std::string(kNewKey) + " -subj /CN=" + name + " -keyout " + d + "/" + name +
             ".key -out " + d + "/" + name + ".csr") &&
         run("openssl x509 -req -days 2 -in " + d + "/" + name + ".csr -CA " + d + "/ca.crt -CAkey " + d +
             "/ca.key -CAcreateserial -extfile " + ext + " -out " + d + "/" + name + ".crt");
}

TestCerts generate() {
  TestCerts c;
  const auto dir = std::filesystem::temp_directory_path() / ("tern-certs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  c.dir = dir.string();
  const std::string& d = c.dir;
  const bool ok =
      make_ca(d, "ca") && make_ca(d, "other-ca") &&
      make_signed(d, "server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth") &&
      make_signed(d, "other-host", "subjectAltName=DNS:other.example\nextendedKeyUsage=serverAuth") &&
      make_signed(d, "client", "extendedKeyUsage=clientAuth");
  if (!ok) {
    ADD_FAILURE() << "openssl could not make the test certificates in " << d;
    return {};
  }
  c.ca_cert = d + "/ca.crt";
  c.other_ca_cert = d + "/other-ca.crt";
  c.server_cert = d + "/server.crt";
  c.server_key = d + "/server.key";
  c.client_cert = d + "/client.crt";
  c.client_key = d + "/client.key";
  c.other_host_cert = d + "/other-host.crt";
  c.other_host_key = d + "/other-host.key";
  // A copy that outlives the static TestCerts (destroyed before atexit handlers registered earlier run).
  static const std::string* const to_remove = new std::string(d);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(*to_remove, ec);
  });
  return c;
}

}  // namespace

const TestCerts& test_certs() {
  static const TestCerts certs = generate();
  return certs;
}

}  // namespace tern::test
