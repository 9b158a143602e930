#include "exporter/otlp/factory.h"

#include "exporter/otlp/config.h"
#include "exporter/otlp/otlp_exporter.h"

namespace tern::exporter::otlp {
namespace {

class Factory final : public config::TypedComponent<OtlpExporterConfig, component::ExporterFactory> {
 public:
  explicit Factory(OtlpExporterConfig::Protocol protocol) : protocol_(protocol) {}
  std::string_view type() const override { return http() ? "otlphttp" : "otlp"; }
  std::string_view description() const override {
    return http() ? "OTLP/HTTP to another collector" : "OTLP/gRPC to another collector";
  }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kStable);
  }
  std::shared_ptr<component::Exporter> create(const config::ComponentConfig& c,
                                              const component::BatchSettings& batch) const override {
    return make_otlp_exporter(c.id.str(), c.settings<OtlpExporterConfig>(), batch);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId& id, OtlpExporterConfig& c,
                       std::vector<config::StorageRequest>& storage) const override {
    c.protocol = protocol_;
    otlp::decode(ctx, r, at, c, id, storage);
  }

 private:
  bool http() const { return protocol_ == OtlpExporterConfig::Protocol::kHttp; }
  OtlpExporterConfig::Protocol protocol_;
};

}  // namespace

const component::ExporterFactory& grpc_factory() {
  static const Factory f(OtlpExporterConfig::Protocol::kGrpc);
  return f;
}

const component::ExporterFactory& http_factory() {
  static const Factory f(OtlpExporterConfig::Protocol::kHttp);
  return f;
}

}  // namespace tern::exporter::otlp
