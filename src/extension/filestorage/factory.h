#pragma once
#include "component/factory.h"

namespace tern::extension {

// `file_storage`: a directory other components keep their state in (checkpoints, queues).
const component::ExtensionFactory& file_storage_factory();

}  // namespace tern::extension
