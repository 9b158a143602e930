#pragma once
// Loads and validates a collector config file. Every problem is reported with its
// position; the Config is only meaningful when there are no errors. The component types
// come from a Catalog (the build's registry: service/components.h).
#include <string>
#include <string_view>

#include "config/component.h"
#include "config/config.h"
#include "config/diagnostics.h"

namespace tern::config {

struct LoadResult {
  Config config;
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.has_errors(); }
};

struct LoadOptions {
  LoadOptions() : env(process_env()) {}
  EnvLookup env;
  // Also check the machine the config runs on: TLS files readable, storage directories
  // usable (what `tern run` would fail on at start).
  bool check_environment = false;
};

// `file` names the source in diagnostics.
LoadResult load_config_string(std::string_view yaml, const std::string& file, const Catalog& catalog,
                              const LoadOptions& options = {});
LoadResult load_config_file(const std::string& path, const Catalog& catalog, const LoadOptions& options = {});

}  // namespace tern::config
