#include "service/collector.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <map>
#include <optional>
#include <set>

#include "encoding/elasticsearch/encoder.h"
#include "net/http_server.h"
#include "pipeline/debug_stage.h"
#include "pipeline/elasticsearch_stage.h"
#include "pipeline/otlp_stage.h"
#include "pipeline/pipeline.h"
#include "processor/attributes_processor.h"
#include "processor/filter_processor.h"
#include "processor/memory_limiter.h"
#include "processor/resource_detection.h"
#include "processor/transform_processor.h"
#include "receiver/filelog/filelog_receiver.h"
#include "receiver/otlp/otlp_receiver.h"

namespace tern::service {

namespace {

pdata::Signal to_signal(config::Signal s) {
  switch (s) {
    case config::Signal::kLogs:
      return pdata::Signal::Logs;
    case config::Signal::kTraces:
      return pdata::Signal::Traces;
    case config::Signal::kMetrics:
      return pdata::Signal::Metrics;
  }
  return pdata::Signal::Logs;
}

template <class Component>
const Component* find(const std::vector<Component>& list, const std::string& id) {
  for (const auto& c : list)
    if (c.id.str() == id) return &c;
  return nullptr;
}

}  // namespace

struct Collector::Impl {
  config::Config config;
  // Exporter stages by id; a stage used by several pipelines is one instance (one queue).
  std::map<std::string, std::shared_ptr<pipeline::ExporterStage>> exporters;
  std::map<std::string, std::shared_ptr<pipeline::ReceiverRouter>> routers;
  std::map<std::string, std::unique_ptr<receiver::otlp::OtlpReceiver>> receivers;
  std::map<std::string, std::unique_ptr<receiver::filelog::FilelogReceiver>> file_receivers;
  // One limiter per pipeline a memory_limiter is in (each measures on its own); their
  // refusals are one series per processor id.
  std::vector<std::pair<std::string, std::shared_ptr<processor::MemoryLimiter>>> limiters;
  std::map<std::string, std::shared_ptr<processor::FilterProcessor>> filters;
  // resourcedetection: what each processor id detected (once, whatever pipelines use it).
  std::map<std::string, std::optional<config::AttributesProcessorConfig>> detected_resources;
  std::vector<std::unique_ptr<net::HttpServer>> health_servers;  // one per health_check extension
  std::unique_ptr<net::HttpServer> metrics_server;
  std::uint16_t health_port = 0, metrics_port = 0;  // health_port: the first health_check's
  bool started = false, stopped = false;
  std::chrono::steady_clock::time_point start_time = std::chrono::steady_clock::now();

  // The `batch` processor of a pipeline sizes the queue consumers' batches of its exporters.
  static pipeline::BatchSettings batch_settings(const config::BatchProcessorConfig& b) {
    pipeline::BatchSettings s;
    s.max_items = b.send_batch_max_size ? b.send_batch_max_size : b.send_batch_size;
    s.max_bytes = b.send_batch_max_bytes;
    s.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(b.timeout);
    return s;
  }

  std::shared_ptr<pipeline::ExporterStage> exporter(const std::string& id,
                                                    const pipeline::BatchSettings& batch) {
    if (auto it = exporters.find(id); it != exporters.end()) return it->second;
    const auto* c = find(config.exporters, id);
    if (!c) throw BuildError("exporter \"" + id + "\" is not defined");
    std::shared_ptr<pipeline::ExporterStage> stage;
    if (const auto* es = std::get_if<config::ElasticsearchExporterConfig>(&c->settings)) {
      if (!encoding::es::parse_mapping_mode(es->mapping_mode))
        throw BuildError("exporter \"" + id + "\": mapping.mode \"" + es->mapping_mode +
                         "\" is not supported (otel, bodymap, none, raw, ecs)");
      try {
        stage = pipeline::make_elasticsearch_stage(id, *es, batch);
      } catch (const std::exception& e) {  // e.g. a disk queue directory that cannot be used
        throw BuildError("exporter \"" + id + "\": " + e.what());
      }
    } else if (const auto* dbg = std::get_if<config::DebugExporterConfig>(&c->settings)) {
      stage = pipeline::make_debug_stage(id, *dbg);
    } else {
      const auto& otlp = std::get<config::OtlpExporterConfig>(c->settings);
      try {
        stage = pipeline::make_otlp_stage(id, otlp, batch);
      } catch (const std::exception& e) {  // an endpoint the client cannot parse, a TLS file it cannot load
        throw BuildError("exporter \"" + id + "\": " + e.what());
      }
    }
    exporters.emplace(id, stage);
    return stage;
  }

  std::shared_ptr<processor::Processor> processor(const std::string& id, pipeline::BatchSettings& batch) {
    const auto* c = find(config.processors, id);
    if (!c) throw BuildError("processor \"" + id + "\" is not defined");
    if (const auto* b = std::get_if<config::BatchProcessorConfig>(&c->settings)) {
      batch = batch_settings(*b);
      return nullptr;  // not a stage of its own: see batch_settings
    }
    if (const auto* m = std::get_if<config::MemoryLimiterProcessorConfig>(&c->settings)) {
      auto l = std::make_shared<processor::MemoryLimiter>(*m);
      limiters.emplace_back(id, l);
      return l;
    }
    if (const auto* f = std::get_if<config::FilterProcessorConfig>(&c->settings)) {
      auto& shared = filters[id];  // one per id: its counters cover every pipeline it is in
      if (!shared) shared = std::make_shared<processor::FilterProcessor>(*f);
      return shared;
    }
    if (const auto* t = std::get_if<config::TransformProcessorConfig>(&c->settings))
      return std::make_shared<processor::TransformProcessor>(*t);
    if (const auto* d = std::get_if<config::ResourceDetectionProcessorConfig>(&c->settings)) {
      // Detected once, here; every batch's resources then get the same attributes.
      auto& detected = detected_resources[id];
      if (!detected) detected = processor::detect_resource(*d, id);
      return std::make_shared<processor::AttributesProcessor>(
          *detected, processor::AttributesProcessor::Target::kResource);
    }
    const auto& a = std::get<config::AttributesProcessorConfig>(c->settings);
    return std::make_shared<processor::AttributesProcessor>(
        a, c->id.type == "resource" ? processor::AttributesProcessor::Target::kResource
                                    : processor::AttributesProcessor::Target::kRecords);
  }

  void build() {
    for (const auto& p : config.pipelines) {
      pipeline::BatchSettings batch;
      std::vector<std::shared_ptr<processor::Processor>> procs;
      for (const auto& id : p.processors)
        if (auto proc = processor(id, batch)) procs.push_back(std::move(proc));
      std::vector<std::shared_ptr<pipeline::ExporterStage>> stages;
      for (const auto& id : p.exporters) stages.push_back(exporter(id, batch));
      const std::string name = p.name.empty() ? "" : "/" + p.name;
      auto pl = std::make_shared<pipeline::Pipeline>(
          std::string(pdata::to_string(to_signal(p.signal))) + name, std::move(procs), std::move(stages));
      for (const auto& rid : p.receivers) {
        auto& router = routers[rid];
        if (!router) router = std::make_shared<pipeline::ReceiverRouter>();
        router->add(to_signal(p.signal), pl);
      }
    }
    for (const auto& [rid, router] : routers) {
      const auto* r = find(config.receivers, rid);
      if (!r) throw BuildError("receiver \"" + rid + "\" is not defined");
      if (const auto* otlp = std::get_if<config::OtlpReceiverConfig>(&r->settings)) {
        receivers.emplace(rid, std::make_unique<receiver::otlp::OtlpReceiver>(*otlp, *router));
      } else {
        const auto& file = std::get<config::FilelogReceiverConfig>(r->settings);
        file_receivers.emplace(rid, std::make_unique<receiver::filelog::FilelogReceiver>(rid, file, *router));
      }
    }
  }

  bool healthy() const {
    if (!started || stopped) return false;
    for (const auto& [id, e] : exporters)
      if (!e->healthy()) return false;
    return true;
  }

  std::string metrics_text() const {
    std::vector<pipeline::MetricSample> samples;
    for (const auto& [id, r] : receivers) {
      const auto s = r->stats();
      const std::string l = "receiver=\"" + pipeline::escape_label(id) + "\"";
      for (auto sig : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics}) {
        const auto& p = s.of(sig);
        const std::string ls = l + ",signal=\"" + std::string(pdata::to_string(sig)) + "\"";
        samples.push_back({"tern_receiver_requests_total", ls, static_cast<double>(p.requests),
                           "Export requests received", true});
        samples.push_back({"tern_receiver_accepted_items_total", ls, static_cast<double>(p.accepted),
                           "Items queued", true});
        samples.push_back({"tern_receiver_refused_items_total", ls, static_cast<double>(p.refused),
                           "Items refused (back-pressure, invalid, shutdown)", true});
      }
      samples.push_back({"tern_receiver_bad_requests_total", l, static_cast<double>(s.bad_requests),
                         "Requests whose payload could not be decoded", true});
      samples.push_back({"tern_receiver_bytes_total", l, static_cast<double>(s.bytes_received),
                         "Request bytes received", true});
    }
    for (const auto& [id, r] : file_receivers) {
      const auto s = r->stats();
      const std::string l = "receiver=\"" + pipeline::escape_label(id) + "\"";
      auto add = [&](const char* name, std::uint64_t v, const char* help, bool counter = true) {
        samples.push_back({name, l, static_cast<double>(v), help, counter});
      };
      add("tern_filelog_lines_read_total", s.lines_read, "Lines read from files (log records made)");
      add("tern_filelog_bytes_read_total", s.bytes_read, "Bytes read from files");
      add("tern_filelog_lines_truncated_total", s.lines_truncated, "Lines cut to max_log_size");
      add("tern_filelog_files_open", s.files_open, "Files followed", false);
      add("tern_filelog_batches_sent_total", s.batches_sent, "Batches of lines accepted by the pipeline");
      add("tern_filelog_batches_refused_total", s.batches_refused, "Batches refused (back-pressure), resent");
      add("tern_filelog_batches_invalid_total", s.batches_invalid, "Batches refused as invalid (skipped)");
      add("tern_filelog_json_errors_total", s.json_errors, "Lines that were not a JSON object");
      add("tern_filelog_operator_errors_total", s.operator_errors, "Records on which an operator failed");
      add("tern_filelog_records_dropped_total", s.records_dropped,
          "Records dropped by an operator's on_error: drop");
      add("tern_filelog_file_errors_total", s.file_errors, "Files that could not be opened or read");
      add("tern_filelog_checkpoint_errors_total", s.checkpoint_errors, "Failed checkpoint writes");
    }
    for (const auto& [id, e] : exporters) e->collect_metrics(samples);
    for (const auto& [id, f] : filters)
      for (const auto s : {pdata::Signal::Logs, pdata::Signal::Traces, pdata::Signal::Metrics})
        samples.push_back({"tern_processor_filter_dropped_items_total",
                           fmt::format("processor=\"{}\",signal=\"{}\"", id, pdata::to_string(s)),
                           static_cast<double>(f->dropped(s)),
                           "Items the filter processor's conditions dropped", true});
    // Summed per id: a memory_limiter in three pipelines wrote three unlabelled samples of one
    // series, an exposition Prometheus refuses.
    std::map<std::string, std::uint64_t> refused_by_limiter;
    for (const auto& [id, l] : limiters) refused_by_limiter[id] += l->refused();
    for (const auto& [id, n] : refused_by_limiter)
      samples.push_back({"tern_memory_limiter_refused_total",
                         "processor=\"" + pipeline::escape_label(id) + "\"", static_cast<double>(n),
                         "Batches refused by memory_limiter", true});
    samples.push_back({"tern_process_resident_memory_bytes", "",
                       static_cast<double>(processor::MemoryLimiter::read_rss()),
                       "Resident memory of the collector", false});
    samples.push_back({"tern_process_uptime_seconds", "",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count(),
                       "Seconds since start", false});
    // One HELP/TYPE block per metric family (a counter's or gauge's name, a histogram's
    // family), its samples grouped under it in the order they came.
    std::map<std::string, std::vector<const pipeline::MetricSample*>> by_family;
    for (const auto& s : samples) by_family[s.histogram.empty() ? s.name : s.histogram].push_back(&s);
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

namespace {
// Runs one component's start; a failure names the component (of several listeners on one
// port, "Address already in use" alone did not say which).
template <class Start>
void starting(const std::string& component, Start&& start) {
  try {
    start();
  } catch (const std::exception& e) {
    throw std::runtime_error(component + ": " + e.what());
  }
}
}  // namespace

void Collector::start() {
  auto& i = *impl_;
  try {
    // Exporters, then the extensions and the metrics endpoint, and the receivers last: data
    // flows in only once everything it needs is up, and followed files (bounded by the
    // open-file budget) cannot take the descriptors the listeners need.
    for (auto& [id, e] : i.exporters) e->start();
    for (const auto& ext_id : i.config.service_extensions) {
      const auto* ext = find(i.config.extensions, ext_id);
      if (!ext) continue;
      const auto* hcp = std::get_if<config::HealthCheckExtensionConfig>(&ext->settings);
      if (!hcp) continue;  // file_storage: a directory the receivers already resolved
      const auto& hc = *hcp;
      auto [host, port] = net::split_host_port(hc.endpoint);
      net::HttpServerOptions o;
      o.host = host;
      o.port = port;
      o.threads = 1;
      const std::string path = hc.path.empty() ? "/" : hc.path;
      auto& server = i.health_servers.emplace_back(
          std::make_unique<net::HttpServer>(o, [this, path](net::HttpRequest& req) {
            net::HttpResponse res;
            res.content_type = "application/json";
            std::string_view target = req.target.substr(0, req.target.find('?'));
            if (target != path) {
              res.status = 404;
              res.body = R"({"status":"not found"})";
            } else if (healthy()) {
              res.body = R"({"status":"Server available"})";
            } else {
              res.status = 503;
              res.body = R"({"status":"Server not available"})";
            }
            return res;
          }));
      std::uint16_t bound = 0;
      starting("extensions." + ext_id, [&] { bound = server->start(); });
      if (!i.health_port) i.health_port = bound;
      spdlog::info("health_check {} on {}{}", ext_id, net::join_host_port(host, bound), path);
    }
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
    for (auto& [id, r] : i.receivers) {
      starting("receivers." + id, [&] { r->start(); });
      spdlog::info("receiver {} listening: http port {}, grpc port {}", id, r->http_port(), r->grpc_port());
    }
    for (auto& [id, r] : i.file_receivers) starting("receivers." + id, [&] { r->start(); });
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
  for (auto& [id, r] : i.file_receivers) r->shutdown();
  for (auto& [id, e] : i.exporters) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    e->shutdown(std::max(left, std::chrono::milliseconds(0)));
  }
  for (auto& server : i.health_servers) server->shutdown();
  if (i.metrics_server) i.metrics_server->shutdown();
}

bool Collector::healthy() const { return impl_->healthy(); }
std::string Collector::prometheus_metrics() const { return impl_->metrics_text(); }

std::uint16_t Collector::receiver_http_port(const std::string& id) const {
  auto it = impl_->receivers.find(id);
  return it == impl_->receivers.end() ? 0 : it->second->http_port();
}
std::uint16_t Collector::receiver_grpc_port(const std::string& id) const {
  auto it = impl_->receivers.find(id);
  return it == impl_->receivers.end() ? 0 : it->second->grpc_port();
}
std::uint16_t Collector::health_check_port() const { return impl_->health_port; }
std::vector<std::uint16_t> Collector::health_check_ports() const {
  std::vector<std::uint16_t> ports;
  for (const auto& server : impl_->health_servers) ports.push_back(server->port());
  return ports;
}
std::uint16_t Collector::metrics_port() const { return impl_->metrics_port; }

}  // namespace tern::service
