#pragma once
// Resource (who emits) and InstrumentationScope (which library emits). Both are owned
// and live as long as the LoggerProvider; exporters see them by reference.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tern/sdk/logs/value.h"

namespace tern::sdk::logs {

struct Resource {
  Resource() = default;
  Resource(std::initializer_list<Attribute> attrs, std::string_view schema = {}) : schema_url(schema) {
    attributes.reserve(attrs.size());
    for (const auto& a : attrs) attributes.emplace_back(a);
  }
  std::vector<OwnedAttribute> attributes;
  std::string schema_url;
};

struct InstrumentationScope {
  std::string name;
  std::string version;
  std::string schema_url;
  std::vector<OwnedAttribute> attributes;
};

}  // namespace tern::sdk::logs
