#pragma once
// JSON text of the sink's replies. String escaping (the foundation's) and the index-name
// rules (the Elasticsearch encoder's) are the ones Tern's exporter uses, so the sink judges
// names and writes strings as it does; this header is the one place the sink takes them from.
#include <string>
#include <string_view>

#include "encoding/elasticsearch/index_name.h"
#include "sink/sink_core.h"
#include "text/json_string.h"

namespace tern::sink {

using encoding::es::kIndexNameForbidden;
using text::append_json_string;  // JSON strings, invalid UTF-8 replaced

std::string json_string(std::string_view s);

// Elasticsearch's whole-request error body.
Reply es_error(int status, std::string_view type, std::string_view reason);

}  // namespace tern::sink
