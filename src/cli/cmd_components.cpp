// `tern components`: every component type this build has, as `otelcol components` prints them.
#include <cstdio>

#include "cli/command.h"
#include "service/components.h"

namespace {

const tern::cli::RegisterCommand kComponentsCommand{
    "components", [](CLI::App& app) {
      auto* cmd = app.add_subcommand("components", "List the component types of this build");
      cmd->callback([] { std::fputs(tern::service::describe_components().c_str(), stdout); });
    }};

}  // namespace
