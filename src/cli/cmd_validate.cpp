// `tern validate -c FILE`: loads a collector config and prints every problem found.
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "config/loader.h"

namespace {
const tern::cli::RegisterCommand kValidateCommand{"validate", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check a collector config file and report every problem");
  auto path = std::make_shared<std::string>();
  cmd->add_option("-c,--config", *path, "Config file (YAML)")->required();
  cmd->callback([path] {
    auto result = tern::config::load_config_file(*path);
    for (const auto& d : result.diagnostics.items) std::fprintf(stderr, "%s\n", d.format().c_str());
    int errors = result.diagnostics.error_count();
    int warnings = result.diagnostics.warning_count();
    if (errors == 0) {
      std::fprintf(stderr, "%s: configuration is valid (%d warning%s)\n", path->c_str(), warnings,
                   warnings == 1 ? "" : "s");
    } else {
      std::fprintf(stderr, "%s: %d error%s, %d warning%s\n", path->c_str(), errors, errors == 1 ? "" : "s", warnings,
                   warnings == 1 ? "" : "s");
    }
    tern::cli::set_exit_code(errors == 0 ? 0 : 1);
  });
}};
}  // namespace
