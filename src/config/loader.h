#pragma once
// Loads and validates a collector config file. Every problem is reported with its
// position; the Config is only meaningful when there are no errors.
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/diagnostics.h"

namespace tern::config {

struct LoadResult {
  Config config;
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.has_errors(); }
};

// `file` names the source in diagnostics.
LoadResult load_config_string(std::string_view yaml, const std::string& file,
                              const EnvLookup& env = process_env());
LoadResult load_config_file(const std::string& path, const EnvLookup& env = process_env());

}  // namespace tern::config
