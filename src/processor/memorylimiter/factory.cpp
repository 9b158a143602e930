#include "processor/memorylimiter/factory.h"

#include "processor/memorylimiter/config.h"
#include "processor/memorylimiter/memory_limiter.h"

namespace tern::processor {
namespace {

class Factory final
    : public config::TypedComponent<MemoryLimiterProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "memory_limiter"; }
  std::string_view description() const override { return "refuses data while memory use is over its limit"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<MemoryLimiter>(c.settings<MemoryLimiterProcessorConfig>());
  }
  bool per_pipeline() const override { return true; }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, MemoryLimiterProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ProcessorFactory& memory_limiter_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
