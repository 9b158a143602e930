#pragma once
// The `debug` exporter's settings (the Collector's keys).
#include <cstdint>

#include "config/reader.h"

namespace tern::exporter::debug {

struct DebugExporterConfig {
  enum class Verbosity { kBasic, kNormal, kDetailed } verbosity = Verbosity::kBasic;
  // As zap's sampler in the Collector: per second, the first `sampling_initial` batches are
  // written, then every `sampling_thereafter`-th (1: all).
  std::uint64_t sampling_initial = 2;
  std::uint64_t sampling_thereafter = 1;
  // true: through Tern's own log (service.telemetry.logs applies); false: straight to stdout.
  bool use_internal_logger = true;
};

void decode(config::DecodeContext& ctx, config::MapReader& r, DebugExporterConfig& c);

}  // namespace tern::exporter::debug
