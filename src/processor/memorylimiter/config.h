#pragma once
// The `memory_limiter` processor's settings.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/reader.h"
#include "config/units.h"

namespace tern::processor {

using namespace std::chrono_literals;
using config::Duration;

struct MemoryLimiterProcessorConfig {
  Duration check_interval = 0s;
  std::uint64_t limit_mib = 0;
  std::uint64_t spike_limit_mib = 0;  // 0 = 20% of limit_mib
  std::uint64_t limit_percentage = 0;
  std::uint64_t spike_limit_percentage = 0;
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            MemoryLimiterProcessorConfig& c);

}  // namespace tern::processor
