// `tern`: one binary, subcommands registered by the cmd_*.cpp files beside this one.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <utility>

#include "cli/command.h"
#include "cli/version.h"

namespace tern::cli {
namespace {
struct Entry {
  std::string name;
  CommandSetup setup;
};
std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}
std::atomic<int> g_exit_code{0};
}  // namespace

RegisterCommand::RegisterCommand(std::string name, CommandSetup setup) {
  registry().push_back({std::move(name), std::move(setup)});
}
void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

}  // namespace tern::cli

int main(int argc, char** argv) {
  CLI::App app{"Tern: a high-performance telemetry pipeline (OTLP in, Elasticsearch out)", "tern"};
  app.set_version_flag("--version", std::string("tern ") + tern::cli::kVersion);
  app.require_subcommand(1);
  auto& entries = tern::cli::registry();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& e : entries) e.setup(app);
  // CLI11 reports an unknown command as "A subcommand is required": name it instead.
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.name == argv[1]; })) {
    std::string names;
    for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
    std::fprintf(stderr, "tern: unknown command \"%s\" (commands: %s; see tern --help)\n", argv[1],
                 names.c_str());
    return 2;  // a usage error
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a command's own failure, with its own code
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); a usage error is exit 2, as in most Unix
    // tools (CLI11's own codes, 104-114, said nothing a script could rely on).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tern: error: %s\n", e.what());
    return 1;
  }
  return tern::cli::exit_code();
}
