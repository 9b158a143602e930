#pragma once
#include "component/factory.h"

namespace tern::exporter::es {

// `elasticsearch`: _bulk requests to Elasticsearch, in the otel, bodymap, none, raw or ecs mapping.
const component::ExporterFactory& factory();

}  // namespace tern::exporter::es
