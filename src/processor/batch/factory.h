#pragma once
#include "component/factory.h"

namespace tern::processor {

// `batch`: batches by size and time (sizes the exporters' queue batches)
const component::ProcessorFactory& batch_factory();

}  // namespace tern::processor
