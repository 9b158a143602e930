// `tern validate -c FILE`: loads a collector config and prints every problem found.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "service/components.h"

namespace {

struct ValidateOptions {
  std::string path;
  bool strict = false;
};

const tern::cli::RegisterCommand kValidateCommand{
    "validate", [](CLI::App& app) {
      auto* cmd = app.add_subcommand("validate", "Check a collector config file and report every problem");
      auto opts = std::make_shared<ValidateOptions>();
      cmd->add_option("-c,--config", opts->path, "Collector config file (YAML) to check")
          ->required()
          ->type_name("FILE");
      cmd->add_flag("--strict", opts->strict, "Treat warnings (e.g. unused components) as errors");
      cmd->footer(
          "Loads FILE exactly as the collector would (including ${env:VAR} substitution from the\n"
          "current environment) and prints every problem to stderr, one per line, as\n"
          "  FILE:LINE:COLUMN: error: MESSAGE\n"
          "  FILE:LINE:COLUMN: warning: MESSAGE\n"
          "errors first, then warnings, each in file order; then a summary line.\n"
          "\n"
          "Exit status: 0 when there are no errors (warnings alone do not fail, unless --strict),\n"
          "1 when there is at least one error (or a warning with --strict), other non-zero values\n"
          "for command-line usage errors.\n"
          "\n"
          "Reference: docs/configuration.md");
      cmd->callback([opts] {
        tern::config::LoadOptions options;
        options.check_environment = true;  // what `tern run` would refuse at start
        auto result = tern::service::load_config_file(opts->path, options);
        for (const auto& d : result.diagnostics.items) std::fprintf(stderr, "%s\n", d.format().c_str());
        int errors = result.diagnostics.error_count();
        int warnings = result.diagnostics.warning_count();
        bool failed = errors > 0 || (opts->strict && warnings > 0);
        if (errors == 0) {
          std::fprintf(stderr, "%s: configuration is valid (%d warning%s)%s\n", opts->path.c_str(), warnings,
                       warnings == 1 ? "" : "s", failed ? "; failing because of --strict" : "");
        } else {
          std::fprintf(stderr, "%s: %d error%s, %d warning%s\n", opts->path.c_str(), errors,
                       errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
        }
        tern::cli::set_exit_code(failed ? 1 : 0);
      });
    }};

}  // namespace
