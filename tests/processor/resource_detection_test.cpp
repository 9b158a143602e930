// The resourcedetection processor's detectors: OTEL_RESOURCE_ATTRIBUTES as the spec has it
// (a malformed value is discarded whole), the system detector's attributes from what it
// reads about the host, and the actions detect_resource makes of them.
#include "processor/resourcedetection/resource_detection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

namespace tern::processor {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using Action = processor::AttributesProcessorConfig::Action;

TEST(ResourceAttributesEnv, PairsTrimmedAndPercentDecoded) {
  std::string error;
  const auto a = parse_resource_attributes_env(
      " service.name = checkout ,deployment.environment=prod,team=a%2Cb%3Dc%20d,empty=", error);
  ASSERT_TRUE(a) << error;
  EXPECT_THAT(*a, ElementsAre(Pair("service.name", "checkout"), Pair("deployment.environment", "prod"),
                              Pair("team", "a,b=c d"), Pair("empty", "")));
  const auto none = parse_resource_attributes_env("  ", error);
  ASSERT_TRUE(none);
  EXPECT_THAT(*none, IsEmpty());
}

// As the Collector's env detector: a trailing comma ends the list (it threw away every
// attribute), and a repeated key keeps its later value.
TEST(ResourceAttributesEnv, TrailingCommaAndRepeatedKeys) {
  std::string error;
  const auto a = parse_resource_attributes_env("service.name=checkout, ", error);
  ASSERT_TRUE(a) << error;
  EXPECT_THAT(*a, ElementsAre(Pair("service.name", "checkout")));
  const auto b = parse_resource_attributes_env("a=1,b=2,a=3", error);
  ASSERT_TRUE(b) << error;
  EXPECT_THAT(*b, ElementsAre(Pair("a", "3"), Pair("b", "2")));
}

TEST(ResourceAttributesEnv, AMalformedValueIsDiscardedWhole) {
  for (const char* bad : {"a=1,novalue", "a=1,=2", "a=1,,b=2", "a=%zz", "a=%4"}) {
    std::string error;
    EXPECT_FALSE(parse_resource_attributes_env(bad, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

SystemFacts facts() {
  SystemFacts f;
  f.os_hostname = "web-1";
  f.fqdn = "web-1.example.com";
  f.machine_id = "0123456789abcdef0123456789abcdef";
  f.machine = "x86_64";
  f.os_release = "6.1.0-18-amd64";
  f.pretty_name = "Debian GNU/Linux 12 (bookworm)";
  return f;
}

TEST(SystemDetector, DefaultsAreHostNameFromDnsThenOsAndOsType) {
  processor::ResourceDetectionProcessorConfig c;
  EXPECT_THAT(system_attributes(c, facts()),
              ElementsAre(Pair("host.name", "web-1.example.com"), Pair("os.type", "linux")));
  SystemFacts no_dns = facts();
  no_dns.fqdn.clear();  // the resolver did not know it: the next source
  EXPECT_THAT(system_attributes(c, no_dns),
              ElementsAre(Pair("host.name", "web-1"), Pair("os.type", "linux")));
  c.hostname_sources = {"os"};
  EXPECT_THAT(system_attributes(c, facts()),
              ElementsAre(Pair("host.name", "web-1"), Pair("os.type", "linux")));
}

TEST(SystemDetector, OptionalAttributes) {
  processor::ResourceDetectionProcessorConfig c;
  c.system_attributes = {"host.id", "host.arch", "os.description"};
  EXPECT_THAT(system_attributes(c, facts()),
              ElementsAre(Pair("host.id", "0123456789abcdef0123456789abcdef"), Pair("host.arch", "amd64"),
                          Pair("os.description", "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-18-amd64)")));
  SystemFacts arm = facts();
  arm.machine = "aarch64";
  arm.machine_id.clear();  // unknown: no attribute rather than an empty one
  arm.pretty_name.clear();
  EXPECT_THAT(system_attributes(c, arm),
              ElementsAre(Pair("host.arch", "arm64"), Pair("os.description", "Linux 6.1.0-18-amd64")));
}

TEST(SystemDetector, ReadsThisHost) {
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const SystemFacts f = read_system_facts(/*resolve_fqdn=*/false);  // no resolver traffic in tests
  EXPECT_EQ(f.os_hostname, host);
  EXPECT_TRUE(f.fqdn.empty());
  EXPECT_FALSE(f.machine.empty());
  EXPECT_FALSE(f.os_release.empty());
}

// detect_resource: detectors in order, the first value of a key wins; `override` makes the
// actions upserts, else inserts.
TEST(DetectResource, DetectorsInOrderAndOverride) {
  ::setenv("OTEL_RESOURCE_ATTRIBUTES", "host.name=from-env,service.namespace=shop", 1);
  processor::ResourceDetectionProcessorConfig c;
  c.detectors = {"env", "system"};
  c.hostname_sources = {"os"};
  auto a = detect_resource(c, "resourcedetection");
  ASSERT_EQ(a.actions.size(), 3u);
  EXPECT_EQ(a.actions[0].key, "host.name");
  EXPECT_EQ(a.actions[0].value, "from-env");  // env came first
  EXPECT_EQ(a.actions[0].action, Action::kUpsert);
  EXPECT_EQ(a.actions[1].key, "service.namespace");
  EXPECT_EQ(a.actions[2].key, "os.type");
  EXPECT_EQ(a.actions[2].value, "linux");

  c.detectors = {"system", "env"};
  c.override_existing = false;
  a = detect_resource(c, "resourcedetection");
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  ASSERT_EQ(a.actions.size(), 3u);
  EXPECT_EQ(a.actions[0].value, host);  // system came first this time
  EXPECT_EQ(a.actions[0].action, Action::kInsert);

  ::setenv("OTEL_RESOURCE_ATTRIBUTES", "broken", 1);
  c.detectors = {"env"};
  EXPECT_THAT(detect_resource(c, "resourcedetection").actions, IsEmpty());  // discarded, logged
  ::unsetenv("OTEL_RESOURCE_ATTRIBUTES");
}

}  // namespace
}  // namespace tern::processor
