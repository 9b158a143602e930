#include "extension/filestorage/factory.h"

#include "extension/filestorage/config.h"

namespace tern::extension {
namespace {

class Factory final : public config::TypedComponent<FileStorageExtensionConfig, component::ExtensionFactory> {
 public:
  std::string_view type() const override { return "file_storage"; }
  std::string_view description() const override { return "a directory for other components' state"; }
  config::Stability stability() const override { return config::Stability::kBeta; }
  bool provides_storage() const override { return true; }
  std::optional<std::string> storage_directory(const void* settings) const override {
    return static_cast<const FileStorageExtensionConfig*>(settings)->directory;
  }
  // Nothing runs: the components that name it were given its directory by the loader.
  std::unique_ptr<component::Extension> create(const config::ComponentConfig&,
                                               component::Host&) const override {
    return std::make_unique<component::Extension>();
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, FileStorageExtensionConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    extension::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ExtensionFactory& file_storage_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::extension
