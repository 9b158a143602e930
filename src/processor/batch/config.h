#pragma once
// The `batch` processor's settings: they size the batches of the pipeline's exporters.
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

struct BatchProcessorConfig {
  std::uint64_t send_batch_size = 8192;
  std::uint64_t send_batch_max_size = 0;  // 0 = no upper bound
  Duration timeout = 200ms;
  std::uint64_t send_batch_max_bytes = 0;  // 0 = no byte bound
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at, BatchProcessorConfig& c);

}  // namespace tern::processor
