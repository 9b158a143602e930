#include "extension/healthcheck/factory.h"

#include <spdlog/spdlog.h>

#include "extension/healthcheck/config.h"
#include "net/http_server.h"

namespace tern::extension {
namespace {

class HealthCheck final : public component::Extension {
 public:
  HealthCheck(std::string id, const HealthCheckExtensionConfig& c, component::Host& host)
      : id_(std::move(id)), config_(c), host_(host) {}

  void start() override {
    auto [host, port] = net::split_host_port(config_.endpoint);
    net::HttpServerOptions o;
    o.host = host;
    o.port = port;
    o.threads = 1;
    const std::string path = config_.path.empty() ? "/" : config_.path;
    server_ = std::make_unique<net::HttpServer>(o, [this, path](net::HttpRequest& req) {
      net::HttpResponse res;
      res.content_type = "application/json";
      std::string_view target = req.target.substr(0, req.target.find('?'));
      if (target != path) {
        res.status = 404;
        res.body = R"({"status":"not found"})";
      } else if (host_.healthy()) {
        res.body = R"({"status":"Server available"})";
      } else {
        res.status = 503;
        res.body = R"({"status":"Server not available"})";
      }
      return res;
    });
    const std::uint16_t bound = server_->start();
    spdlog::info("health_check {} on {}{}", id_, net::join_host_port(host, bound), path);
  }
  void shutdown() override {
    if (server_) server_->shutdown();
  }
  std::uint16_t port() const override { return server_ ? server_->port() : 0; }

 private:
  std::string id_;
  HealthCheckExtensionConfig config_;
  component::Host& host_;
  std::unique_ptr<net::HttpServer> server_;
};

class Factory final : public config::TypedComponent<HealthCheckExtensionConfig, component::ExtensionFactory> {
 public:
  std::string_view type() const override { return "health_check"; }
  std::string_view description() const override { return "answers 200 while healthy, 503 otherwise"; }
  config::Stability stability() const override { return config::Stability::kBeta; }
  std::unique_ptr<component::Extension> create(const config::ComponentConfig& c,
                                               component::Host& host) const override {
    return std::make_unique<HealthCheck>(c.id.str(), c.settings<HealthCheckExtensionConfig>(), host);
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, HealthCheckExtensionConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    extension::decode(ctx, r, at, c);
  }
};

}  // namespace

const component::ExtensionFactory& health_check_factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::extension
