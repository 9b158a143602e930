#pragma once
// The elasticsearch exporter's sending_queue section, for config.cpp's decode.
#include <vector>

#include "config/component.h"
#include "config/reader.h"
#include "exporter/elasticsearch/config.h"

namespace tern::exporter::es {

// Reads and checks `sending_queue` under `r`. Also reads num_consumers into c.num_workers,
// so it runs after num_workers and encoding are read (both take part in its checks).
void decode_sending_queue(config::DecodeContext& ctx, config::MapReader& r, ElasticsearchExporterConfig& c,
                          const config::ComponentId& id, std::vector<config::StorageRequest>& storage);

}  // namespace tern::exporter::es
