#pragma once
// Subcommand registry: each `cmd_*.cpp` in src/cli registers its subcommand with a
// static RegisterCommand, so adding a subcommand never touches main.cpp.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace tern::cli {

// Adds the subcommand to `app`; the subcommand's callback sets the exit code.
using CommandSetup = std::function<void(CLI::App& app)>;

struct RegisterCommand {
  RegisterCommand(std::string name, CommandSetup setup);
};

void set_exit_code(int code);
int exit_code();

}  // namespace tern::cli
