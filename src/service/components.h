#pragma once
// The registry: every component type this build has (the Collector's generated
// components.go). Adding a component is its folder plus one line in components.cpp.
#include <string>
#include <string_view>

#include "config/component.h"
#include "config/loader.h"

namespace tern::service {

const config::Catalog& components();

// The config loader with this build's components.
config::LoadResult load_config_string(std::string_view yaml, const std::string& file,
                                      const config::LoadOptions& options = {});
config::LoadResult load_config_string(std::string_view yaml, const std::string& file,
                                      const config::EnvLookup& env);
config::LoadResult load_config_file(const std::string& path, const config::LoadOptions& options = {});
config::LoadResult load_config_file(const std::string& path, const config::EnvLookup& env);

// What `tern components` prints: every type by kind, with its signals' stability, in the
// layout of `otelcol components`.
std::string describe_components();

}  // namespace tern::service
