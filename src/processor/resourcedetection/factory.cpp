#include "processor/resourcedetection/factory.h"

#include "processor/attributes/attributes_processor.h"
#include "processor/resourcedetection/config.h"
#include "processor/resourcedetection/resource_detection.h"

namespace tern::processor {
namespace {

class Factory final
    : public config::TypedComponent<ResourceDetectionProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "resourcedetection"; }
  std::string_view description() const override {
    return "adds the host's attributes (env, system) to resources";
  }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    // Detected once per instance (one per id), at start-up; every batch's resources then get
    // the same attributes.
    return std::make_shared<AttributesProcessor>(
        detect_resource(c.settings<ResourceDetectionProcessorConfig>(), c.id.str()),
        AttributesProcessor::Target::kResource);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, ResourceDetectionProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ProcessorFactory& resource_detection_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
