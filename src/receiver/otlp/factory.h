#pragma once
#include "component/factory.h"

namespace tern::receiver::otlp {

// `otlp`: OTLP/gRPC and OTLP/HTTP for logs, traces and metrics.
const component::ReceiverFactory& factory();

}  // namespace tern::receiver::otlp
