#include "config/component.h"

#include <algorithm>

#include "config/config.h"

namespace tern::config {

std::string_view to_string(Kind k) {
  switch (k) {
    case Kind::kReceiver:
      return "receiver";
    case Kind::kProcessor:
      return "processor";
    case Kind::kExporter:
      return "exporter";
    case Kind::kExtension:
      return "extension";
  }
  return "component";
}

std::string_view section(Kind k) {
  switch (k) {
    case Kind::kReceiver:
      return "receivers";
    case Kind::kProcessor:
      return "processors";
    case Kind::kExporter:
      return "exporters";
    case Kind::kExtension:
      return "extensions";
  }
  return "components";
}

std::string_view to_string(Stability s) {
  switch (s) {
    case Stability::kDevelopment:
      return "Development";
    case Stability::kAlpha:
      return "Alpha";
    case Stability::kBeta:
      return "Beta";
    case Stability::kStable:
      return "Stable";
    case Stability::kDeprecated:
      return "Deprecated";
    case Stability::kUnmaintained:
      return "Unmaintained";
  }
  return "Undefined";
}

std::vector<Signal> ComponentType::signals_of(const void*, std::string&) const {
  std::vector<Signal> out;
  for (const auto& [signal, stability] : signals()) out.push_back(signal);
  return out;
}

const ComponentType* Catalog::find(Kind kind, std::string_view type) const {
  for (const auto* t : types)
    if (t->kind() == kind && t->type() == type) return t;
  return nullptr;
}

std::vector<std::string> Catalog::names(Kind kind) const {
  std::vector<std::string> out;
  for (const auto* t : types)
    if (t->kind() == kind) out.emplace_back(t->type());
  return out;
}

std::string Pipeline::id() const {
  return std::string(pdata::to_string(signal)) + (name.empty() ? "" : "/" + name);
}

std::vector<ComponentConfig>& Config::of(Kind kind) {
  switch (kind) {
    case Kind::kReceiver:
      return receivers;
    case Kind::kProcessor:
      return processors;
    case Kind::kExporter:
      return exporters;
    case Kind::kExtension:
      break;
  }
  return extensions;
}

const std::vector<ComponentConfig>& Config::of(Kind kind) const {
  return const_cast<Config*>(this)->of(kind);
}

const ComponentConfig* Config::find(Kind kind, const std::string& id) const {
  for (const auto& c : of(kind))
    if (c.id.str() == id) return &c;
  return nullptr;
}

}  // namespace tern::config
