#pragma once
#include "component/factory.h"

namespace tern::processor {

// `resourcedetection`: adds the host's attributes (env, system) to resources
const component::ProcessorFactory& resource_detection_factory();

}  // namespace tern::processor
