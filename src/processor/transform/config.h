#pragma once
// The `transform` processor's settings.
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

// `transform`: OTTL statements that change items in place (the Collector's transform
// processor; checked by the loader, see ottl/statement.h). Groups run in order.
struct TransformProcessorConfig {
  enum class ErrorMode { kPropagate, kIgnore, kSilent } error_mode = ErrorMode::kPropagate;  // accepted
  struct Group {
    std::string context;                  // log, span, spanevent, metric, datapoint, resource, scope
    std::vector<std::string> conditions;  // the group runs on items any of them matches (all if none)
    std::vector<std::string> statements;
  };
  std::vector<Group> log_statements, trace_statements, metric_statements;
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            TransformProcessorConfig& c);

}  // namespace tern::processor
