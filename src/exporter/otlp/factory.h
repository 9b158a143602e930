#pragma once
#include "component/factory.h"

namespace tern::exporter::otlp {

// `otlp`: OTLP/gRPC to another collector.
const component::ExporterFactory& grpc_factory();
// `otlphttp`: the same settings, sent as OTLP/HTTP.
const component::ExporterFactory& http_factory();

}  // namespace tern::exporter::otlp
