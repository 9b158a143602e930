#pragma once
// The `attributes` and `resource` processors' settings.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/reader.h"
#include "config/units.h"

namespace tern::processor {

using namespace std::chrono_literals;
using config::Duration;

// Shared by the `attributes` (record attributes) and `resource` processors.
struct AttributesProcessorConfig {
  enum class Action { kInsert, kUpdate, kUpsert, kDelete, kConvert };
  enum class Type { kString, kInt, kDouble, kBool };
  struct Entry {
    Entry() = default;
    Entry(std::string k, std::string v, Action a) : key(std::move(k)), value(std::move(v)), action(a) {}
    std::string key;
    std::string value;
    Action action = Action::kUpsert;
    Type value_type = Type::kString;      // `value` as YAML types it: 2245 an int, "2245" a string
    std::string from_attribute;           // insert/update/upsert: that attribute's value instead
    std::string pattern;                  // delete: also the keys this regex (RE2) matches
    Type converted_type = Type::kString;  // convert
  };
  std::vector<Entry> actions;
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
            AttributesProcessorConfig& c);
// `resource`: the resource processor's form (its actions under `attributes`).
void decode_actions(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                    AttributesProcessorConfig& c, bool resource);

}  // namespace tern::processor
