#include "exporter/elasticsearch/factory.h"

#include "encoding/elasticsearch/encoder.h"
#include "exporter/elasticsearch/config.h"
#include "exporter/elasticsearch/elasticsearch_exporter.h"

namespace tern::exporter::es {
namespace {

class Factory final : public config::TypedComponent<ElasticsearchExporterConfig, component::ExporterFactory> {
 public:
  std::string_view type() const override { return "elasticsearch"; }
  std::string_view description() const override { return "indexes into Elasticsearch through _bulk"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kBeta);
  }
  // Some mapping modes encode fewer signals.
  std::vector<config::Signal> signals_of(const void* settings, std::string& why) const override {
    const auto& c = *static_cast<const ElasticsearchExporterConfig*>(settings);
    if (c.mapping_mode == "bodymap") {
      why = ": mapping.mode bodymap encodes logs only";
      return {config::Signal::Logs};
    }
    if (c.mapping_mode == "none" || c.mapping_mode == "raw" || c.mapping_mode == "ecs") {
      why = ": mapping.mode " + c.mapping_mode + " encodes logs and traces only";
      return {config::Signal::Logs, config::Signal::Traces};
    }
    return ComponentType::signals_of(settings, why);
  }
  std::shared_ptr<component::Exporter> create(const config::ComponentConfig& c,
                                              const component::BatchSettings& batch) const override {
    const auto& es = c.settings<ElasticsearchExporterConfig>();
    if (!encoding::es::parse_mapping_mode(es.mapping_mode))
      throw std::runtime_error("mapping.mode \"" + es.mapping_mode +
                               "\" is not supported (otel, bodymap, none, raw, ecs)");
    return make_elasticsearch_exporter(c.id.str(), es, batch);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId& id, ElasticsearchExporterConfig& c,
                       std::vector<config::StorageRequest>& storage) const override {
    es::decode(ctx, r, at, c, id, storage);
  }
};

}  // namespace

const component::ExporterFactory& factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::exporter::es
