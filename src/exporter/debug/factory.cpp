#include "exporter/debug/factory.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "exporter/debug/config.h"
#include "exporter/debug/text_format.h"

namespace tern::exporter::debug {
namespace {

using component::ConsumeResult;
using Verbosity = DebugExporterConfig::Verbosity;

// Writes each batch as it arrives, on the receiver's thread: no queue, nothing to drain.
class DebugExporter final : public component::Exporter {
 public:
  DebugExporter(std::string id, const DebugExporterConfig& c) : id_(std::move(id)), config_(c) {}

  void start() override {}
  void shutdown(std::chrono::milliseconds) override {}
  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    return show(*b, b->record_count());
  }
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> b) override {
    return show(*b, b->span_count());
  }
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> b) override {
    return show(*b, b->data_point_count());
  }

  void collect_metrics(std::vector<component::MetricSample>& out) const override {
    out.push_back({"tern_exporter_debug_events_total", "exporter=\"" + component::escape_label(id_) + "\"",
                   static_cast<double>(events_.load()), "Events the debug exporter received", true});
  }

 private:
  template <class Data>
  ConsumeResult show(const Data& d, std::size_t n) {
    events_.fetch_add(n, std::memory_order_relaxed);
    if (!sampled()) return ConsumeResult::ok();
    std::string text = summary(d, id_);
    if (config_.verbosity != Verbosity::kBasic) {
      text += '\n';
      text += config_.verbosity == Verbosity::kNormal ? normal(d) : detailed(d);
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (config_.use_internal_logger) {
      spdlog::info("{}", text);
    } else {
      text += '\n';
      std::lock_guard lock(out_mu_);
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    }
    return ConsumeResult::ok();
  }

  // zap's sampler as the Collector configures it: in each second, the first
  // sampling_initial batches, then every sampling_thereafter-th.
  bool sampled() {
    const auto second =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    std::lock_guard lock(sample_mu_);
    if (second != window_) window_ = second, seen_ = 0;
    const std::uint64_t i = seen_++;
    return i < config_.sampling_initial ||
           (i - config_.sampling_initial + 1) % config_.sampling_thereafter == 0;
  }

  std::string id_;
  DebugExporterConfig config_;
  std::atomic<std::uint64_t> events_{0};
  std::mutex sample_mu_, out_mu_;
  std::int64_t window_ = -1;
  std::uint64_t seen_ = 0;
};

class Factory final : public config::TypedComponent<DebugExporterConfig, component::ExporterFactory> {
 public:
  std::string_view type() const override { return "debug"; }
  std::string_view description() const override { return "writes what it receives to the log"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return component::all_signals(config::Stability::kDevelopment);
  }
  bool batches() const override { return false; }  // writes batches as they come
  std::shared_ptr<component::Exporter> create(const config::ComponentConfig& c,
                                              const component::BatchSettings&) const override {
    return std::make_shared<DebugExporter>(c.id.str(), c.settings<DebugExporterConfig>());
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark&,
                       const config::ComponentId&, DebugExporterConfig& c,
                       std::vector<config::StorageRequest>&) const override {
    debug::decode(ctx, r, c);
  }
};

}  // namespace

const component::ExporterFactory& factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::exporter::debug
