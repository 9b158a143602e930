// `tern version`: prints the version (same as `tern --version`).
#include <cstdio>

#include "cli/command.h"
#include "cli/version.h"

namespace {
const tern::cli::RegisterCommand kVersionCommand{"version", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the version of tern");
  cmd->callback([] { std::printf("tern %s\n", tern::cli::kVersion); });
}};
}  // namespace
