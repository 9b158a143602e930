// libFuzzer target: the collector config loader (YAML -> validated Config) on arbitrary
// text. A bad config must give diagnostics, never a crash or an escaping exception; every
// diagnostic has a message, and a config that loads has no errors.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/loader.h"
#include "require.h"
#include "service/components.h"

using tern::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  // ${env:X} references resolve from a fixed table, not from the process.
  const tern::config::EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOST") return std::string("127.0.0.1");
    if (name == "PORT") return std::string("4318");
    return std::nullopt;
  };
  tern::config::LoadResult r;
  try {
    r = tern::service::load_config_string(yaml, "fuzz.yaml", env);
  } catch (...) {
    require(false, "an exception escaped the loader");
  }
  for (const auto& d : r.diagnostics.items) {
    require(!d.message.empty(), "a diagnostic without a message");
    require(!d.format().empty(), "a diagnostic that formats to nothing");
  }
  require(r.ok() == (r.diagnostics.error_count() == 0), "ok() disagrees with the error count");
  return 0;
}
