#pragma once
#include "component/factory.h"

namespace tern::processor {

// `transform`: changes items with OTTL statements
const component::ProcessorFactory& transform_factory();

}  // namespace tern::processor
