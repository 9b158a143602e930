#include "service/components.h"

#include <fmt/format.h>

#include "exporter/debug/factory.h"
#include "exporter/elasticsearch/factory.h"
#include "exporter/otlp/factory.h"
#include "extension/filestorage/factory.h"
#include "extension/healthcheck/factory.h"
#include "processor/attributes/factory.h"
#include "processor/batch/factory.h"
#include "processor/filter/factory.h"
#include "processor/memorylimiter/factory.h"
#include "processor/resourcedetection/factory.h"
#include "processor/transform/factory.h"
#include "receiver/filelog/factory.h"
#include "receiver/otlp/factory.h"

namespace tern::service {

const config::Catalog& components() {
  static const config::Catalog catalog{{
      // receivers
      &receiver::otlp::factory(),
      &receiver::filelog::factory(),
      // processors
      &processor::batch_factory(),
      &processor::memory_limiter_factory(),
      &processor::attributes_factory(),
      &processor::resource_factory(),
      &processor::resource_detection_factory(),
      &processor::filter_factory(),
      &processor::transform_factory(),
      // exporters
      &exporter::es::factory(),
      &exporter::otlp::grpc_factory(),
      &exporter::otlp::http_factory(),
      &exporter::debug::factory(),
      // extensions
      &extension::health_check_factory(),
      &extension::file_storage_factory(),
  }};
  return catalog;
}

config::LoadResult load_config_string(std::string_view yaml, const std::string& file,
                                      const config::LoadOptions& options) {
  return config::load_config_string(yaml, file, components(), options);
}

config::LoadResult load_config_string(std::string_view yaml, const std::string& file,
                                      const config::EnvLookup& env) {
  config::LoadOptions options;
  options.env = env;
  return load_config_string(yaml, file, options);
}

config::LoadResult load_config_file(const std::string& path, const config::LoadOptions& options) {
  return config::load_config_file(path, components(), options);
}

config::LoadResult load_config_file(const std::string& path, const config::EnvLookup& env) {
  config::LoadOptions options;
  options.env = env;
  return load_config_file(path, options);
}

std::string describe_components() {
  std::string out = "buildinfo:\n  command: tern\n  description: Tern, a telemetry pipeline\n";
  for (const config::Kind kind : {config::Kind::kReceiver, config::Kind::kProcessor, config::Kind::kExporter,
                                  config::Kind::kExtension}) {
    out += fmt::format("{}:\n", config::section(kind));
    for (const auto* t : components().types) {
      if (t->kind() != kind) continue;
      out += fmt::format("  - name: {}\n    description: {}\n    stability:\n", t->type(), t->description());
      if (kind == config::Kind::kExtension) {
        out += fmt::format("      extension: {}\n", config::to_string(t->stability()));
        continue;
      }
      for (const auto& [signal, stability] : t->signals())
        out += fmt::format("      {}: {}\n", pdata::to_string(signal), config::to_string(stability));
    }
  }
  return out;
}

}  // namespace tern::service
