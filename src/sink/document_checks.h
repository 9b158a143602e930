#pragma once
// What Elasticsearch refuses of a create/index item's document: not a JSON object, a
// metadata field at its root, or the field `--mapping-error-field` names.
#include <simdjson.h>

#include <string>

#include "sink/bulk_item.h"

namespace tern::sink {

// Fails `it` (status 400) if its document is refused.
void check_document(Item& it, simdjson::dom::parser& parser, const std::string& mapping_error_field);

}  // namespace tern::sink
