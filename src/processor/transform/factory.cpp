#include "processor/transform/factory.h"

#include "processor/transform/config.h"
#include "processor/transform/transform_processor.h"

namespace tern::processor {
namespace {

class Factory final : public config::TypedComponent<TransformProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "transform"; }
  std::string_view description() const override { return "changes items with OTTL statements"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<TransformProcessor>(c.settings<TransformProcessorConfig>());
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, TransformProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ProcessorFactory& transform_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
