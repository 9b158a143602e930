// Every examples/*.yaml must load with zero errors and zero warnings: they are what
// people copy, so they have to stay in step with the loader.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "config/loader.h"
#include "exporter/elasticsearch/config.h"
#include "receiver/filelog/config.h"
#include "receiver/otlp/config.h"
#include "service/components.h"

namespace tern::config {
namespace {

using exporter::es::ElasticsearchExporterConfig;
using receiver::filelog::FilelogReceiverConfig;
using receiver::otlp::OtlpReceiverConfig;

std::vector<std::filesystem::path> examples() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(TERN_SOURCE_DIR "/examples")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Examples may read variables; with none set, only their defaults apply.
std::optional<std::string> no_env(std::string_view) { return std::nullopt; }

TEST(Examples, AllLoadWithoutProblems) {
  auto files = examples();
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.filename().string());
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"demo.yaml", "file-to-elasticsearch.yaml", "otlp-to-elasticsearch.yaml"}));
  for (const auto& f : files) {
    auto r = service::load_config_file(f.string(), no_env);
    std::string all;
    for (const auto& d : r.diagnostics.items) all += d.format() + "\n";
    EXPECT_TRUE(r.diagnostics.items.empty()) << all;
  }
}

TEST(Examples, DemoMatchesTernSink) {
  auto r = service::load_config_file(TERN_SOURCE_DIR "/examples/demo.yaml", no_env);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.config.exporters.size(), 1u);
  const auto& es = r.config.exporters[0].settings<ElasticsearchExporterConfig>();
  EXPECT_THAT(es.endpoints, ::testing::ElementsAre("http://127.0.0.1:9200"));
  const auto& otlp = r.config.receivers[0].settings<OtlpReceiverConfig>();
  EXPECT_TRUE(otlp.grpc.enabled);
  EXPECT_TRUE(otlp.http.enabled);
  EXPECT_EQ(otlp.grpc.endpoint, "127.0.0.1:4317");
  EXPECT_EQ(otlp.http.endpoint, "127.0.0.1:4318");
  EXPECT_EQ(r.config.pipelines.size(), 3u);
}

TEST(Examples, FileToElasticsearchUsesADiskQueue) {
  auto r = service::load_config_file(TERN_SOURCE_DIR "/examples/file-to-elasticsearch.yaml", no_env);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.config.exporters.size(), 1u);
  const auto& es = r.config.exporters[0].settings<ElasticsearchExporterConfig>();
  EXPECT_TRUE(es.sending_queue.enabled);
  EXPECT_EQ(es.sending_queue.type, ElasticsearchExporterConfig::SendingQueue::Type::kDisk);
  EXPECT_FALSE(es.sending_queue.directory.empty());
  ASSERT_EQ(r.config.receivers.size(), 1u);
  EXPECT_TRUE((r.config.receivers[0].settings_if<FilelogReceiverConfig>() != nullptr));
}

}  // namespace
}  // namespace tern::config
