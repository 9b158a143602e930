#include "service/collector.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "component/factory.h"
#include "net/http_server.h"
#include "pipeline/pipeline.h"
#include "processor/memorylimiter/memory_limiter.h"
#include "service/components.h"

namespace tern::service {

namespace {

template <class Factory>
const Factory& factory_of(const config::ComponentConfig& c) {
  const auto* f = dynamic_cast<const Factory*>(c.type);
  if (!f)
    throw BuildError(fmt::format("{} \"{}\" has no factory", config::to_string(c.type->kind()), c.id.str()));
  return *f;
}

// Runs one component's start or build; a failure names the component (of several listeners
// on one port, "Address already in use" alone did not say which).
template <class Start>
void starting(const std::string& component, Start&& start) {
  try {
    start();
  } catch (const std::exception& e) {
    throw std::runtime_error(component + ": " + e.what());
  }
}

}  // namespace

struct Collector::Impl final : component::Host {
  config::Config config;
  // Exporters by id; one used by several pipelines is one instance (one queue).
  std::map<std::string, std::shared_ptr<component::Exporter>> exporters;
  std::map<std::string, std::shared_ptr<pipeline::ReceiverRouter>> routers;
  // Receivers in start order: the registry's order of their types (network listeners before
  // followed files, which could otherwise take the descriptors the listeners need), then id.
  std::vector<std::pair<std::string, std::unique_ptr<component::Receiver>>> receivers;
  // Processors by id: one instance, or one per pipeline (ProcessorFactory::per_pipeline).
  std::map<std::string, std::shared_ptr<component::Processor>> shared_processors;
  std::vector<std::pair<std::string, std::shared_ptr<component::Processor>>> processors;  // every instance
  std::vector<std::pair<std::string, std::unique_ptr<component::Extension>>>
      extensions;  // service.extensions order
  std::unique_ptr<net::HttpServer> metrics_server;
  std::uint16_t metrics_port = 0;
  bool started = false, stopped = false;
  std::chrono::steady_clock::time_point start_time = std::chrono::steady_clock::now();

  std::shared_ptr<component::Exporter> exporter(const std::string& id,
                                                const component::BatchSettings& batch) {
    if (auto it = exporters.find(id); it != exporters.end()) return it->second;
    const auto* c = config.find(config::Kind::kExporter, id);
    if (!c) throw BuildError("exporter \"" + id + "\" is not defined");
    std::shared_ptr<component::Exporter> e;
    try {
      e = factory_of<component::ExporterFactory>(*c).create(*c, batch);
    } catch (const BuildError&) {
      throw;
    } catch (const std::exception& ex) {  // a TLS file it cannot load, a queue directory it cannot use
      throw BuildError("exporter \"" + id + "\": " + ex.what());
    }
    exporters.emplace(id, e);
    return e;
  }

  std::shared_ptr<component::Processor> processor(const std::string& id) {
    const auto* c = config.find(config::Kind::kProcessor, id);
    if (!c) throw BuildError("processor \"" + id + "\" is not defined");
    const auto& f = factory_of<component::ProcessorFactory>(*c);
    if (!f.per_pipeline())
      if (auto it = shared_processors.find(id); it != shared_processors.end()) return it->second;
    std::shared_ptr<component::Processor> p;
    try {
      p = f.create(*c);
    } catch (const std::exception& ex) {
      throw BuildError("processor \"" + id + "\": " + ex.what());
    }
    if (!f.per_pipeline()) shared_processors.emplace(id, p);
    processors.emplace_back(id, p);
    return p;
  }

  void build() {
    for (const auto& p : config.pipelines) {
      component::BatchSettings batch;
      std::vector<std::shared_ptr<component::Processor>> procs;
      for (const auto& id : p.processors) {
        auto proc = processor(id);
        if (auto b = proc->batching())
          batch = *b;  // not a stage of its own: it sizes the exporters' queue batches
        else
          procs.push_back(std::move(proc));
      }
      std::vector<std::shared_ptr<component::Exporter>> stages;
      for (const auto& id : p.exporters) stages.push_back(exporter(id, batch));
      auto pl = std::make_shared<pipeline::Pipeline>(p.id(), std::move(procs), std::move(stages));
      for (const auto& rid : p.receivers) {
        auto& router = routers[rid];
        if (!router) router = std::make_shared<pipeline::ReceiverRouter>();
        router->add(p.signal, pl);
      }
    }
    std::vector<std::pair<std::size_t, std::string>> order;
    const auto& types = components().types;
    for (const auto& [rid, router] : routers) {
      const auto* r = config.find(config::Kind::kReceiver, rid);
      if (!r) throw BuildError("receiver \"" + rid + "\" is not defined");
      order.emplace_back(std::find(types.begin(), types.end(), r->type) - types.begin(), rid);
    }
    std::sort(order.begin(), order.end());
    for (const auto& [rank, rid] : order) {
      const auto* r = config.find(config::Kind::kReceiver, rid);
      std::unique_ptr<component::Receiver> receiver;
      try {
        receiver = factory_of<component::ReceiverFactory>(*r).create(*r, *routers[rid]);
      } catch (const std::exception& ex) {
        throw BuildError("receiver \"" + rid + "\": " + ex.what());
      }
      receivers.emplace_back(rid, std::move(receiver));
    }
    for (const auto& id : config.service_extensions) {
      const auto* e = config.find(config::Kind::kExtension, id);
      if (!e) continue;
      extensions.emplace_back(id, factory_of<component::ExtensionFactory>(*e).create(*e, *this));
    }
  }

  bool healthy() const override {
    if (!started || stopped) return false;
    for (const auto& [id, e] : exporters)
      if (!e->healthy()) return false;
    return true;
  }

  std::string metrics_text() const {
    std::vector<component::MetricSample> samples;
    for (const auto& [id, r] : receivers) r->collect_metrics(samples);
    for (const auto& [id, e] : exporters) e->collect_metrics(samples);
    for (const auto& [id, p] : processors) p->collect_metrics(id, samples);
    samples.push_back({"tern_process_resident_memory_bytes", "",
                       static_cast<double>(processor::MemoryLimiter::read_rss()),
                       "Resident memory of the collector", false});
    samples.push_back({"tern_process_uptime_seconds", "",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count(),
                       "Seconds since start", false});
    // One sample per series: a component with one instance per pipeline adds one each
    // (an exposition that repeats a series is refused by Prometheus), so they are summed.
    std::vector<component::MetricSample> merged;
    std::map<std::pair<std::string, std::string>, std::size_t> seen;
    for (auto& s : samples) {
      auto [it, inserted] = seen.emplace(std::make_pair(s.name, s.labels), merged.size());
      if (inserted)
        merged.push_back(std::move(s));
      else
        merged[it->second].value += s.value;
    }
    // One HELP/TYPE block per metric family (a counter's or gauge's name, a histogram's
    // family), its samples grouped under it in the order they came.
    std::map<std::string, std::vector<const component::MetricSample*>> by_family;
    for (const auto& s : merged) by_family[s.histogram.empty() ? s.name : s.histogram].push_back(&s);
    std::string out;
    for (const auto& [family, list] : by_family) {
      out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family, list[0]->help, family,
                         !list[0]->histogram.empty() ? "histogram"
                         : list[0]->counter          ? "counter"
                                                     : "gauge");
      for (const auto* s : list)
        out += s->labels.empty() ? fmt::format("{} {}\n", s->name, s->value)
                                 : fmt::format("{}{{{}}} {}\n", s->name, s->labels, s->value);
    }
    return out;
  }
};

Collector::Collector(const config::Config& config) : impl_(std::make_unique<Impl>()) {
  impl_->config = config;
  impl_->build();
}

Collector::~Collector() { shutdown(std::chrono::milliseconds(0)); }

void Collector::start() {
  auto& i = *impl_;
  try {
    // Exporters, then the extensions and the metrics endpoint, and the receivers last: data
    // flows in only once everything it needs is up.
    for (auto& [id, e] : i.exporters) e->start();
    for (auto& [id, ext] : i.extensions) starting("extensions." + id, [&] { ext->start(); });
    if (!i.config.telemetry.metrics_address.empty()) {
      auto [host, port] = net::split_host_port(i.config.telemetry.metrics_address);
      net::HttpServerOptions o;
      o.host = host;
      o.port = port;
      o.threads = 1;
      i.metrics_server = std::make_unique<net::HttpServer>(o, [this](net::HttpRequest& req) {
        net::HttpResponse res;
        if (req.target.substr(0, req.target.find('?')) != "/metrics") {
          res.status = 404;
          return res;
        }
        res.content_type = "text/plain; version=0.0.4";
        res.body = prometheus_metrics();
        return res;
      });
      starting("service.telemetry.metrics", [&] { i.metrics_port = i.metrics_server->start(); });
      spdlog::info("internal metrics on http://{}/metrics", net::join_host_port(host, i.metrics_port));
    }
    for (auto& [id, r] : i.receivers) starting("receivers." + id, [&] { r->start(); });
  } catch (...) {
    shutdown(std::chrono::milliseconds(0));
    throw;
  }
  i.started = true;
}

void Collector::shutdown(std::chrono::milliseconds timeout) {
  auto& i = *impl_;
  if (i.stopped) return;
  i.stopped = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& [id, r] : i.receivers) r->shutdown();  // no new data from here on
  for (auto& [id, e] : i.exporters) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    e->shutdown(std::max(left, std::chrono::milliseconds(0)));
  }
  for (auto& [id, ext] : i.extensions) ext->shutdown();
  if (i.metrics_server) i.metrics_server->shutdown();
}

bool Collector::healthy() const { return impl_->healthy(); }
std::string Collector::prometheus_metrics() const { return impl_->metrics_text(); }

std::uint16_t Collector::receiver_http_port(const std::string& id) const {
  for (const auto& [rid, r] : impl_->receivers)
    if (rid == id) return r->port("http");
  return 0;
}
std::uint16_t Collector::receiver_grpc_port(const std::string& id) const {
  for (const auto& [rid, r] : impl_->receivers)
    if (rid == id) return r->port("grpc");
  return 0;
}
std::uint16_t Collector::health_check_port() const {
  const auto ports = health_check_ports();
  return ports.empty() ? 0 : ports.front();
}
std::vector<std::uint16_t> Collector::health_check_ports() const {
  std::vector<std::uint16_t> ports;
  for (const auto& [id, ext] : impl_->extensions)
    if (id.substr(0, id.find('/')) == "health_check") ports.push_back(ext->port());
  return ports;
}
std::uint16_t Collector::metrics_port() const { return impl_->metrics_port; }

}  // namespace tern::service
