#include "extension/filestorage/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "config/reader.h"
#include "config/transport.h"

namespace tern::extension {

using config::check_backoff;
using config::check_host_port;
using config::DecodeContext;
using config::join;
using config::MapReader;
using config::suggest;

namespace {}  // namespace

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark&, FileStorageExtensionConfig& c) {
  r.str("directory", c.directory);
  if (c.directory.empty())
    ctx.error(r.mark("directory"), fmt::format("{}: directory must not be empty", r.path()));
  // The Collector's other keys tune its bbolt database, which Tern does not have.
  for (const char* key : {"timeout", "compaction", "fsync", "create_directory"}) r.get(key);
}

}  // namespace tern::extension
