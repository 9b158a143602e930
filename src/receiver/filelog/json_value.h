#pragma once
// A parsed JSON value as a pdata AnyValue (strings and keys copied into the batch's arena),
// for the file receiver's `parse: json` and its json_parser operator.
#include <simdjson.h>

#include "pdata/common.h"

namespace tern::receiver::filelog {

// JSON types kept: string, integer (uint64 beyond int64 as double), double, bool, arrays,
// objects as maps; null becomes an empty value.
pdata::AnyValue json_value(simdjson::dom::element e, const pdata::Arena& a);

}  // namespace tern::receiver::filelog
