#pragma once
#include "component/factory.h"

namespace tern::receiver::filelog {

// `filelog`: follows files and turns their lines into log records.
const component::ReceiverFactory& factory();

}  // namespace tern::receiver::filelog
