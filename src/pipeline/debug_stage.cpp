#include "pipeline/debug_stage.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "otlp/json_codec.h"

namespace tern::pipeline {
namespace {

using Verbosity = config::DebugExporterConfig::Verbosity;

class DebugStage final : public ExporterStage {
 public:
  DebugStage(std::string id, const config::DebugExporterConfig& c)
      : id_(std::move(id)), verbosity_(c.verbosity) {}

  void start() override {}
  void shutdown(std::chrono::milliseconds) override {}

  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    return show("logs", "log records", b->record_count(), b->resource_logs.size(), *b,
                otlp::encode_logs_json);
  }
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> b) override {
    return show("traces", "spans", b->span_count(), b->resource_spans.size(), *b, otlp::encode_traces_json);
  }
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> b) override {
    return show("metrics", "data points", b->data_point_count(), b->resource_metrics.size(), *b,
                otlp::encode_metrics_json);
  }

  void collect_metrics(std::vector<MetricSample>& out) const override {
    out.push_back({"tern_exporter_debug_events_total", "exporter=\"" + id_ + "\"",
                   static_cast<double>(events_.load()), "Events the debug exporter printed", true});
  }

 private:
  template <class Data, class Enc>
  ConsumeResult show(const char* signal, const char* what, std::size_t n, std::size_t resources,
                     const Data& d, Enc enc) {
    events_.fetch_add(n, std::memory_order_relaxed);
    if (verbosity_ == Verbosity::kBasic) {
      spdlog::info("{} {}: {} {}", id_, signal, n, what);
    } else if (verbosity_ == Verbosity::kNormal) {
      spdlog::info("{} {}: {} {} in {} resources", id_, signal, n, what, resources);
    } else {
      std::string json;
      enc(d, json);
      spdlog::info("{} {}: {}", id_, signal, json);
    }
    return ConsumeResult::ok();
  }

  std::string id_;
  Verbosity verbosity_;
  std::atomic<std::uint64_t> events_{0};
};

}  // namespace

std::unique_ptr<ExporterStage> make_debug_stage(std::string id, const config::DebugExporterConfig& c) {
  return std::make_unique<DebugStage>(std::move(id), c);
}

}  // namespace tern::pipeline
