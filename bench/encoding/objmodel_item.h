#pragma once
// What both objmodel baselines (objmodel.cpp, objmodel_flat.cpp) do with a finished
// document: dump the action and the document trees as two NDJSON lines and record the item.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "encoding/encoded_batch.h"

namespace tern::bench {

// Invalid UTF-8 in a value becomes U+FFFD, as the direct encoder writes it.
inline std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

inline void append_item(encoding::EncodedBatch& out, const nlohmann::ordered_json& action,
                        const nlohmann::ordered_json& doc, std::uint32_t events) {
  encoding::EncodedItem it;
  it.offset = static_cast<std::uint32_t>(out.data.size());
  out.data += dump(action);
  out.data += '\n';
  it.action_size = static_cast<std::uint32_t>(out.data.size() - it.offset);
  out.data += dump(doc);
  out.data += '\n';
  it.size = static_cast<std::uint32_t>(out.data.size() - it.offset);
  it.events = events;
  out.items.push_back(it);
}

}  // namespace tern::bench
