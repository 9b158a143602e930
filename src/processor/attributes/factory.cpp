#include "processor/attributes/factory.h"

#include "processor/attributes/attributes_processor.h"
#include "processor/attributes/config.h"

namespace tern::processor {
namespace {

class Factory final : public config::TypedComponent<AttributesProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "attributes"; }
  std::string_view description() const override {
    return "inserts, updates, deletes and converts record attributes";
  }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<AttributesProcessor>(c.settings<AttributesProcessorConfig>(),
                                                 AttributesProcessor::Target::kRecords);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, AttributesProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

// `resource`: the same actions on resource attributes, listed under `attributes` as in the
// Collector.
class ResourceFactory final
    : public config::TypedComponent<AttributesProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "resource"; }
  std::string_view description() const override {
    return "inserts, updates, deletes and converts resource attributes";
  }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<AttributesProcessor>(c.settings<AttributesProcessorConfig>(),
                                                 AttributesProcessor::Target::kResource);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, AttributesProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode_actions(ctx, r, at, c, /*resource=*/true);
  }
};

}  // namespace

const component::ProcessorFactory& resource_factory() {
  static const ResourceFactory f;
  return f;
}

const component::ProcessorFactory& attributes_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
