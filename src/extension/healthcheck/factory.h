#pragma once
#include "component/factory.h"

namespace tern::extension {

// `health_check`: an HTTP endpoint that answers 200 while the collector is healthy, else 503.
const component::ExtensionFactory& health_check_factory();

}  // namespace tern::extension
