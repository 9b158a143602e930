#pragma once
// The `filter` processor's settings.
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

// `filter`: drops the items any of its OTTL conditions match (the Collector's filter
// processor; the conditions are checked by the loader, see ottl/condition.h).
struct FilterProcessorConfig {
  // What an error evaluating a condition does. Tern's conditions have no run-time errors
  // (a comparison of values of different types is false), so this is accepted and kept.
  enum class ErrorMode { kPropagate, kIgnore, kSilent } error_mode = ErrorMode::kPropagate;
  std::vector<std::string> log_record, span, spanevent, metric, datapoint;
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at, FilterProcessorConfig& c);

}  // namespace tern::processor
