#pragma once
// Where an exporter's persistent queue goes in a storage extension's directory, and the
// StorageRequest that puts it there.
#include <cctype>
#include <filesystem>
#include <string>

#include "config/component.h"

namespace tern::exporter::helper {

// exporter_<type>[_<name>], one directory per exporter (the Collector keeps one queue per
// exporter in the extension too); characters a file name should not have become '_'.
inline std::string storage_leaf(const config::ComponentId& id) {
  std::string leaf = "exporter_" + id.type + (id.name.empty() ? "" : "_" + id.name);
  for (char& ch : leaf)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') ch = '_';
  return leaf;
}

// `sending_queue.storage` (read by `q`) names a storage extension: the queue's `directory`
// becomes this exporter's directory there once the loader resolves it. Also asks the loader
// to check that the directory is usable.
inline void request_queue_storage(config::DecodeContext& ctx, config::MapReader& q,
                                  const config::ComponentId& id, const std::string& extension_id,
                                  std::string& directory, std::vector<config::StorageRequest>& storage) {
  if (!extension_id.empty())
    storage.push_back({q.own_mark("storage"), q.sub_path("storage"), extension_id,
                       [&directory, leaf = storage_leaf(id)](const std::string& dir) {
                         directory = (std::filesystem::path(dir) / leaf).string();
                       }});
  ctx.check_environment(q.mark("storage"), [&directory, key = q.path()] {
    return directory.empty() ? std::nullopt : config::directory_unusable(key, directory);
  });
}

}  // namespace tern::exporter::helper
