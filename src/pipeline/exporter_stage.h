#pragma once
// An exporter as a pipeline sees it: a Consumer that takes batches (into its queue) plus
// a lifecycle and its metrics. Built from the config by the service.
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/consumer.h"

namespace tern::pipeline {

// A Prometheus label value as the text format wants it: `\`, `"` and newlines escaped.
inline std::string escape_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// One Prometheus sample: name{labels} value.
struct MetricSample {
  MetricSample() = default;
  // (a constructor, not aggregate initialization: `histogram` is left out by most samples)
  MetricSample(std::string name_, std::string labels_, double value_, std::string help_, bool counter_ = true,
               std::string histogram_ = {})
      : name(std::move(name_)),
        labels(std::move(labels_)),
        value(value_),
        help(std::move(help_)),
        counter(counter_),
        histogram(std::move(histogram_)) {}
  std::string name;    // e.g. tern_exporter_sent_documents_total
  std::string labels;  // e.g. exporter="elasticsearch"
  double value = 0;
  std::string help;
  bool counter = true;  // counter or gauge
  // A histogram's samples (<family>_bucket, _sum, _count) name their family, which gets the
  // HELP and `# TYPE <family> histogram` lines; empty for counters and gauges.
  std::string histogram;
};

class ExporterStage : public Consumer {
 public:
  virtual void start() = 0;
  // Stops taking batches, drains what is queued within `timeout`. Idempotent.
  virtual void shutdown(std::chrono::milliseconds timeout) = 0;
  // False while the stage cannot deliver (e.g. every endpoint failing).
  virtual bool healthy() const { return true; }
  virtual void collect_metrics(std::vector<MetricSample>& out) const = 0;
};

// How queue consumers group entries before handing them to the sender (the `batch`
// processor's settings when the pipeline has one).
struct BatchSettings {
  std::uint64_t max_items = 0;  // 0: no item bound
  std::uint64_t max_bytes = 0;  // 0: the exporter's flush.bytes
  std::chrono::milliseconds timeout{0};
};

}  // namespace tern::pipeline
