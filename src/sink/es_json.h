#pragma once
// JSON text of the sink's replies. String escaping and the index-name rules come from the
// Elasticsearch encoder, so that the sink judges names and writes strings as Tern's exporter
// does; this header is the one place the sink takes them from.
#include <string>
#include <string_view>

#include "encoding/elasticsearch/encoder.h"

#include "sink/sink_core.h"

namespace tern::sink {

using encoding::es::append_json_string;  // JSON strings, invalid UTF-8 replaced
using encoding::es::kIndexNameForbidden;

std::string json_string(std::string_view s);

// Elasticsearch's whole-request error body.
Reply es_error(int status, std::string_view type, std::string_view reason);

}  // namespace tern::sink
