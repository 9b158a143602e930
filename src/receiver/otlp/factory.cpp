#include "receiver/otlp/factory.h"

#include <spdlog/spdlog.h>

#include "receiver/otlp/config.h"
#include "receiver/otlp/otlp_receiver.h"

namespace tern::receiver::otlp {
namespace {

using component::MetricSample;

class Component final : public component::Receiver {
 public:
  Component(std::string id, const OtlpReceiverConfig& c, component::Consumer& next)
      : id_(std::move(id)), receiver_(c, next) {}

  void start() override {
    receiver_.start();
    spdlog::info("receiver {} listening: http port {}, grpc port {}", id_, receiver_.http_port(),
                 receiver_.grpc_port());
  }
  void shutdown() override { receiver_.shutdown(); }
  std::uint16_t port(std::string_view protocol) const override {
    return protocol == "http" ? receiver_.http_port() : protocol == "grpc" ? receiver_.grpc_port() : 0;
  }

  void collect_metrics(std::vector<MetricSample>& out) const override {
    const auto s = receiver_.stats();
    const std::string l = "receiver=\"" + component::escape_label(id_) + "\"";
    for (auto sig : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics}) {
      const auto& p = s.of(sig);
      const std::string ls = l + ",signal=\"" + std::string(pdata::to_string(sig)) + "\"";
      out.push_back({"tern_receiver_requests_total", ls, static_cast<double>(p.requests),
                     "Export requests received", true});
      out.push_back(
          {"tern_receiver_accepted_items_total", ls, static_cast<double>(p.accepted), "Items queued", true});
      out.push_back({"tern_receiver_refused_items_total", ls, static_cast<double>(p.refused),
                     "Items refused (back-pressure, invalid, shutdown)", true});
    }
    out.push_back({"tern_receiver_bad_requests_total", l, static_cast<double>(s.bad_requests),
                   "Requests whose payload could not be decoded", true});
    out.push_back({"tern_receiver_bytes_total", l, static_cast<double>(s.bytes_received),
                   "Request bytes received", true});
  }

 private:
  std::string id_;
  OtlpReceiver receiver_;
};

class Factory final : public config::TypedComponent<OtlpReceiverConfig, component::ReceiverFactory> {
 public:
  std::string_view type() const override { return "otlp"; }
  std::string_view description() const override { return "OTLP over gRPC and HTTP (protobuf, JSON)"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kStable);
  }
  std::unique_ptr<component::Receiver> create(const config::ComponentConfig& c,
                                              component::Consumer& next) const override {
    return std::make_unique<Component>(c.id.str(), c.settings<OtlpReceiverConfig>(), next);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, OtlpReceiverConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    otlp::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ReceiverFactory& factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::receiver::otlp
