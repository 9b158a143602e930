#pragma once
// The `file_storage` extension's settings.
#include <string>
#include "config/reader.h"

namespace tern::extension {

// `file_storage` (the Collector's storage extension): a directory a component keeps its
// state in. A filelog receiver whose `storage` names one keeps its checkpoint there.
struct FileStorageExtensionConfig {
  std::string directory = "/var/lib/otelcol/file_storage";  // the Collector's default on Linux
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            FileStorageExtensionConfig& c);

}  // namespace tern::extension
