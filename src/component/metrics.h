#pragma once
// Self-metrics: every component adds its samples; the service writes them out in the
// Prometheus text format on /metrics.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tern::component {

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

}  // namespace tern::component
