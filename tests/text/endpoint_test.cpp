#include "text/endpoint.h"

#include <gtest/gtest.h>

namespace tern::text {
namespace {

// One check for every OTLP/HTTP endpoint (config loader, HTTP client, SDK exporters).
TEST(HttpEndpointError, UrlsAndBareHosts) {
  for (const char* good :
       {"http://127.0.0.1:4318", "https://example.com/v1/logs", "http://127.0.0.1", "http://[::1]:4318/x",
        "http://[::1]", "http://h:4318?q=1", "127.0.0.1:4318", "localhost", "localhost/v1/logs"}) {
    SCOPED_TRACE(good);
    EXPECT_EQ(http_endpoint_error(good, false), "");
  }
  EXPECT_EQ(http_endpoint_error("http://127.0.0.1:99999", false), "port \"99999\" is not a number 1-65535");
  EXPECT_EQ(http_endpoint_error("http://127.0.0.1:abc/v1/logs", false),
            "port \"abc\" is not a number 1-65535");
  EXPECT_EQ(http_endpoint_error("https://[::1]:0", false), "port \"0\" is not a number 1-65535");
  EXPECT_EQ(http_endpoint_error("127.0.0.1:", false), "no port");
  EXPECT_EQ(http_endpoint_error("http://[::1", false), "an IPv6 address without its closing ']'");
  EXPECT_EQ(http_endpoint_error("http://[::1]x", false), "expected [address]:port");
  EXPECT_EQ(http_endpoint_error("http://::1:4318", false),
            "an IPv6 address is written in brackets (http://[::1]:4318)");
  EXPECT_EQ(http_endpoint_error("http://", false), "no host");
  EXPECT_EQ(http_endpoint_error("http://:4318", false), "no host");
  EXPECT_EQ(http_endpoint_error("", false), "no host");
  // The config loader wants a URL.
  EXPECT_EQ(http_endpoint_error("127.0.0.1:4318", true), "expected a URL (e.g. \"http://127.0.0.1:4318\")");
  EXPECT_EQ(http_endpoint_error("http://", true), "expected a URL (e.g. \"http://127.0.0.1:4318\")");
  EXPECT_EQ(http_endpoint_error("http://127.0.0.1:4318", true), "");
}

TEST(GrpcEndpointError, HostPortOrAGrpcTarget) {
  for (const char* good : {"127.0.0.1:4317", "[::1]:4317", "http://127.0.0.1:4317", "unix:/tmp/s",
                           "unix-abstract:otlp", "vsock:2:4317", "dns:///localhost:4317"}) {
    SCOPED_TRACE(good);
    EXPECT_EQ(grpc_endpoint_error(good), "");
  }
  for (const char* bad : {"127.0.0.1", "127.0.0.1:abc", "127.0.0.1:0", ":4317", "::1:4317", "[::1]"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(grpc_endpoint_error(bad), "");
  }
}

}  // namespace
}  // namespace tern::text
