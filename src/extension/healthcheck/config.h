#pragma once
// The `health_check` extension's settings.
#include <string>
#include "config/reader.h"

namespace tern::extension {

struct HealthCheckExtensionConfig {
  std::string endpoint = "127.0.0.1:13133";
  std::string path = "/";
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            HealthCheckExtensionConfig& c);

}  // namespace tern::extension
