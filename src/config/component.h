#pragma once
// What the config loader knows of a component type: its name, kind, signals and how to
// decode and check its section. The types themselves live with their components (each
// component's factory, see component/factory.h, is one of these); the loader is handed a
// Catalog of them and knows none by name.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "config/reader.h"
#include "pdata/signal.h"

namespace tern::config {

using Signal = pdata::Signal;

enum class Kind { kReceiver, kProcessor, kExporter, kExtension };
// "receiver", "processor", ...; section(): "receivers", ...
std::string_view to_string(Kind k);
std::string_view section(Kind k);

// The Collector's stability levels (its `components` command prints them per signal).
enum class Stability { kDevelopment, kAlpha, kBeta, kStable, kDeprecated, kUnmaintained };
std::string_view to_string(Stability s);

// `type` or `type/name`, e.g. "otlp/2".
struct ComponentId {
  std::string type;
  std::string name;
  std::string str() const { return name.empty() ? type : type + "/" + name; }
};

class ComponentType;

// One component of a config: its id, its type and its decoded, checked settings (the
// settings struct of its type, e.g. receiver::otlp::OtlpReceiverConfig).
struct ComponentConfig {
  ComponentId id;
  const ComponentType* type = nullptr;
  std::shared_ptr<void> data;  // of type data_type
  std::type_index data_type = typeid(void);
  int line = 0, column = 0;  // where its section is (1-based; 0: unknown)

  template <class T>
  const T* settings_if() const {
    return data && data_type == typeid(T) ? static_cast<const T*>(data.get()) : nullptr;
  }
  // Throws std::bad_cast when the settings are of another type.
  template <class T>
  const T& settings() const {
    if (const T* t = settings_if<T>()) return *t;
    throw std::bad_cast();
  }
};

// A reference from a component's settings to a storage extension (`storage: file_storage`),
// made while decoding and resolved by the loader once every extension is known.
struct StorageRequest {
  YAML::Mark mark;
  std::string key_path;      // e.g. exporters.otlp.sending_queue.storage
  std::string extension_id;  // as written
  // The extension's directory; the component picks its own place in it.
  std::function<void(const std::string& directory)> resolve;
  // filelog's `storage` is also a plain directory (Tern's first form): a value that names no
  // extension is left as it is, unless it looks like an extension id.
  bool or_directory = false;
};

class ComponentType {
 public:
  virtual ~ComponentType() = default;
  virtual std::string_view type() const = 0;
  virtual Kind kind() const = 0;
  // The signals it handles with their stability (extensions: none; see stability()).
  virtual std::vector<std::pair<Signal, Stability>> signals() const = 0;
  virtual Stability stability() const { return Stability::kBeta; }  // extensions
  // One line for `tern components`: what it is.
  virtual std::string_view description() const = 0;

  // Decodes and fully checks one section (`at`: its key); problems go to `ctx`, with their
  // position. References to storage extensions go to `storage`.
  virtual std::shared_ptr<void> decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at,
                                       const ComponentId& id, std::vector<StorageRequest>& storage) const = 0;
  virtual std::type_index settings_type() const = 0;

  // The signals a component of these settings handles (some settings narrow the type's);
  // `why` says why when fewer.
  virtual std::vector<Signal> signals_of(const void* settings, std::string& why) const;
  // A storage extension (file_storage): components name it by id and get its directory.
  virtual bool provides_storage() const { return false; }
  virtual std::optional<std::string> storage_directory(const void* settings) const { return std::nullopt; }
  // Checks across all the components of this type in one config.
  virtual void check_together(DecodeContext& ctx, const std::vector<const ComponentConfig*>& all) const {}
  // Exporters: whether it batches in a queue (the `batch` processor sizes those batches).
  virtual bool batches() const { return true; }
  // Processors: the batching it asks of the pipeline's exporters, as comparable text.
  virtual std::optional<std::string> batching(const void* settings) const { return std::nullopt; }
};

// The component types a loader knows: the build's registry (service/components.h) or a
// test's own.
struct Catalog {
  std::vector<const ComponentType*> types;
  const ComponentType* find(Kind kind, std::string_view type) const;
  std::vector<std::string> names(Kind kind) const;
};

// The common case of ComponentType: settings of type `T`, decoded by `decode_settings`.
template <class T, class Base = ComponentType>
class TypedComponent : public Base {
 public:
  std::shared_ptr<void> decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, const ComponentId& id,
                               std::vector<StorageRequest>& storage) const override {
    auto settings = std::make_shared<T>();
    decode_settings(ctx, r, at, id, *settings, storage);
    return settings;
  }
  std::type_index settings_type() const override { return typeid(T); }

 protected:
  virtual void decode_settings(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, const ComponentId& id,
                               T& settings, std::vector<StorageRequest>& storage) const = 0;
};

}  // namespace tern::config
