#include "processor/filter/factory.h"

#include "processor/filter/config.h"
#include "processor/filter/filter_processor.h"

namespace tern::processor {
namespace {

class Factory final : public config::TypedComponent<FilterProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "filter"; }
  std::string_view description() const override { return "drops items that OTTL conditions match"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<FilterProcessor>(c.settings<FilterProcessorConfig>());
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, FilterProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ProcessorFactory& filter_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
