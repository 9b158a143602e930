#pragma once
// The `resourcedetection` processor's settings.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/reader.h"
#include "config/units.h"

namespace tern::processor {

using namespace std::chrono_literals;
using config::Duration;

// `resourcedetection`: resource attributes detected once at start-up and set on the
// resource of every batch (the Collector's processor, with its `env` and `system` detectors).
struct ResourceDetectionProcessorConfig {
  // Defaults in a constructor: GCC 12 crashes (ICE) on `v = T{}` into the variant when
  // these lists are default member initializers.
  ResourceDetectionProcessorConfig()
      : hostname_sources{"dns", "os"}, system_attributes{"host.name", "os.type"} {}
  // In order; when two detect the same attribute, the first one's value is kept.
  std::vector<std::string> detectors;
  bool override_existing = true;               // `override`: detected values replace what a resource has
  std::vector<std::string> hostname_sources;   // system: where host.name comes from
  std::vector<std::string> system_attributes;  // system: the enabled ones
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            ResourceDetectionProcessorConfig& c);

}  // namespace tern::processor
