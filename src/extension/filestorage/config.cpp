#include "extension/filestorage/config.h"

#include <fmt/format.h>

#include "config/reader.h"

namespace tern::extension {

using config::DecodeContext;
using config::MapReader;

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark&, FileStorageExtensionConfig& c) {
  r.str("directory", c.directory);
  if (c.directory.empty())
    ctx.error(r.mark("directory"), fmt::format("{}: directory must not be empty", r.path()));
  // The Collector's other keys tune its bbolt database, which Tern does not have.
  for (const char* key : {"timeout", "compaction", "fsync", "create_directory"}) r.get(key);
}

}  // namespace tern::extension
