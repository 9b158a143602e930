// `tern run -c FILE`: the collector. Loads and validates the config (problems are printed
// like `tern validate` does, and stop the start), builds and starts every component,
// then waits for a signal: SIGINT/SIGTERM shut down gracefully (receivers stop, queues
// drain within service.shutdown_timeout) and exit 0. SIGHUP does not reload (a restart
// is the supported way to change the config); it is logged and ignored.
#include <signal.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cli/command.h"
#include "service/collector.h"
#include "service/components.h"
#include "text/json_string.h"

namespace {

// The soft limit on open files up to the hard one, as Go's runtime does for the Collector:
// a collector holds a descriptor per followed file and per connection, and the soft default
// (1024) is a limit for interactive shells, not for a server.
void raise_open_file_limit() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max) return;
  rl.rlim_cur = rl.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &rl) != 0)
    spdlog::debug("cannot raise the open-file limit: {}", std::strerror(errno));
}

struct RunOptions {
  std::string path;
};

// `%j`: the log message as a JSON string (quotes included), so JSON log lines stay valid
// whatever a message contains.
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string s;
    tern::text::append_json_string(s, std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(s.data(), s.data() + s.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

void setup_logging(const tern::config::Telemetry& t) {
  auto logger = spdlog::stderr_color_mt("tern");
  if (t.log_encoding == tern::config::Telemetry::Encoding::kJson) {
    auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    formatter->add_flag<JsonMessageFlag>('j').set_pattern(
        R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":%j})");
    logger->set_formatter(std::move(formatter));
  } else
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  using L = tern::config::Telemetry::Level;
  logger->set_level(t.log_level == L::kDebug   ? spdlog::level::debug
                    : t.log_level == L::kWarn  ? spdlog::level::warn
                    : t.log_level == L::kError ? spdlog::level::err
                                               : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

int run(const RunOptions& opts) {
  // Signals are taken by sigwait() below; every thread started later inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  tern::config::LoadOptions load_options;
  load_options.check_environment = true;
  auto loaded = tern::service::load_config_file(opts.path, load_options);
  for (const auto& d : loaded.diagnostics.items) std::fprintf(stderr, "%s\n", d.format().c_str());
  if (!loaded.ok()) {
    std::fprintf(stderr, "tern run: %s has %d error(s); not starting\n", opts.path.c_str(),
                 loaded.diagnostics.error_count());
    return 1;
  }
  setup_logging(loaded.config.telemetry);
  raise_open_file_limit();
  std::unique_ptr<tern::service::Collector> collector;
  try {
    collector = std::make_unique<tern::service::Collector>(loaded.config);
    collector->start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tern run: cannot start: %s\n", e.what());
    return 1;
  }
  // One machine-readable line on stdout once everything listens (scripts wait for it).
  std::printf("tern run: ready\n");
  std::fflush(stdout);

  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      spdlog::warn("SIGHUP: configuration reload is not supported; restart tern run to apply changes");
      continue;
    }
    spdlog::info(
        "signal {}: shutting down (timeout {} ms)", sig,
        std::chrono::duration_cast<std::chrono::milliseconds>(loaded.config.shutdown_timeout).count());
    break;
  }
  collector->shutdown(std::chrono::duration_cast<std::chrono::milliseconds>(loaded.config.shutdown_timeout));
  spdlog::info("stopped");
  return 0;
}

const tern::cli::RegisterCommand kRunCommand{
    "run", [](CLI::App& app) {
      auto* cmd = app.add_subcommand("run", "Run the collector");
      auto opts = std::make_shared<RunOptions>();
      cmd->add_option("-c,--config", opts->path, "Collector config file (YAML)")->required();
      cmd->footer("Config reference: docs/configuration.md. Examples: examples/*.yaml");
      cmd->callback([opts] { tern::cli::set_exit_code(run(*opts)); });
    }};

}  // namespace
