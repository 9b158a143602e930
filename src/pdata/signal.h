#pragma once
// The three telemetry signals, as named on the command line and in configs.
#include <optional>
#include <string_view>

namespace tern::pdata {

enum class Signal { Logs, Traces, Metrics };

// What one event of the signal is called in messages: "log records", "spans", "data points".
constexpr std::string_view item_name(Signal s) {
  switch (s) {
    case Signal::Logs:
      return "log records";
    case Signal::Traces:
      return "spans";
    case Signal::Metrics:
      return "data points";
  }
  return "items";
}

constexpr std::string_view to_string(Signal s) {
  switch (s) {
    case Signal::Logs: return "logs";
    case Signal::Traces: return "traces";
    case Signal::Metrics: return "metrics";
  }
  return "unknown";
}

constexpr std::optional<Signal> parse_signal(std::string_view s) {
  if (s == "logs") return Signal::Logs;
  if (s == "traces") return Signal::Traces;
  if (s == "metrics") return Signal::Metrics;
  return std::nullopt;
}

}  // namespace tern::pdata
