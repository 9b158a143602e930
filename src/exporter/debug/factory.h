#pragma once
#include "component/factory.h"

namespace tern::exporter::debug {

// `debug`: writes what it receives to the log (the Collector's debug exporter).
const component::ExporterFactory& factory();

}  // namespace tern::exporter::debug
