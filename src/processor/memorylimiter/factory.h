#pragma once
#include "component/factory.h"

namespace tern::processor {

// `memory_limiter`: refuses data while memory use is over its limit
const component::ProcessorFactory& memory_limiter_factory();

}  // namespace tern::processor
