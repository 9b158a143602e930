#pragma once
// The collector configuration: the components it defines (each with the checked settings of
// its type, see component.h), the pipelines that connect them and the service's own
// settings, in the shape of the OpenTelemetry Collector's config file.
#include <chrono>
#include <string>
#include <vector>

#include "config/component.h"
#include "config/units.h"

namespace tern::config {

using namespace std::chrono_literals;

struct Pipeline {
  Signal signal = Signal::Logs;
  std::string name;                    // "logs/foo" -> "foo"
  std::vector<std::string> receivers;  // component ids as written, e.g. "otlp/2"
  std::vector<std::string> processors;
  std::vector<std::string> exporters;
  std::string id() const;  // "logs/foo"
};

struct Telemetry {
  enum class Level { kDebug, kInfo, kWarn, kError } log_level = Level::kInfo;
  enum class Encoding { kConsole, kJson } log_encoding = Encoding::kConsole;
  std::string metrics_address = "127.0.0.1:8888";
};

struct Config {
  std::vector<ComponentConfig> receivers;
  std::vector<ComponentConfig> processors;
  std::vector<ComponentConfig> exporters;
  std::vector<ComponentConfig> extensions;
  std::vector<std::string> service_extensions;
  std::vector<Pipeline> pipelines;
  Telemetry telemetry;
  Duration shutdown_timeout = 10s;  // service.shutdown_timeout: how long a shutdown may drain

  std::vector<ComponentConfig>& of(Kind kind);
  const std::vector<ComponentConfig>& of(Kind kind) const;
  const ComponentConfig* find(Kind kind, const std::string& id) const;
};

}  // namespace tern::config
