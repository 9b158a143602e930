#include "processor/batch/factory.h"

#include "processor/batch/config.h"

namespace tern::processor {
namespace {

// Not a stage: Tern batches in each exporter's queue, and the queue consumers take their
// batches as this processor's settings say (see component::BatchSettings).
class BatchProcessor final : public component::Processor {
 public:
  explicit BatchProcessor(const BatchProcessorConfig& b) {
    settings_.max_items = b.send_batch_max_size ? b.send_batch_max_size : b.send_batch_size;
    settings_.max_bytes = b.send_batch_max_bytes;
    settings_.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(b.timeout);
  }
  component::ConsumeResult process(pdata::LogsData&) override { return {}; }
  component::ConsumeResult process(pdata::TracesData&) override { return {}; }
  component::ConsumeResult process(pdata::MetricsData&) override { return {}; }
  bool mutates() const override { return false; }
  std::optional<component::BatchSettings> batching() const override { return settings_; }

 private:
  component::BatchSettings settings_;
};

class Factory final : public config::TypedComponent<BatchProcessorConfig, component::ProcessorFactory> {
 public:
  std::string_view type() const override { return "batch"; }
  std::string_view description() const override {
    return "batches by size and time (sizes the exporters' queue batches)";
  }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  std::shared_ptr<component::Processor> create(const config::ComponentConfig& c) const override {
    return std::make_shared<BatchProcessor>(c.settings<BatchProcessorConfig>());
  }
  std::optional<std::string> batching(const void* settings) const override {
    const auto& b = *static_cast<const BatchProcessorConfig*>(settings);
    return std::to_string(b.send_batch_size) + "/" + std::to_string(b.send_batch_max_size) + "/" +
           std::to_string(b.timeout.count()) + "/" + std::to_string(b.send_batch_max_bytes);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, BatchProcessorConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    processor::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ProcessorFactory& batch_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::processor
