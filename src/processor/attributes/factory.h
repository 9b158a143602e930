#pragma once
#include "component/factory.h"

namespace tern::processor {

// `attributes`: inserts, updates, deletes and converts record attributes
const component::ProcessorFactory& attributes_factory();
// `resource`: the same, on resource attributes.
const component::ProcessorFactory& resource_factory();

}  // namespace tern::processor
