#pragma once
// The `debug` exporter: logs what arrives (basic: counts; normal: one line per batch with
// counts per resource; detailed: the batch as OTLP/JSON). Synchronous, no queue.
#include <memory>

#include "config/config.h"
#include "pipeline/exporter_stage.h"

namespace tern::pipeline {

std::unique_ptr<ExporterStage> make_debug_stage(std::string id, const config::DebugExporterConfig& c);

}  // namespace tern::pipeline
