#pragma once
#include "component/factory.h"

namespace tern::processor {

// `filter`: drops items that OTTL conditions match
const component::ProcessorFactory& filter_factory();

}  // namespace tern::processor
