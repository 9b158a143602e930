#include "config/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

namespace tern::config {

std::string Diagnostic::format() const {
  const char* sev = severity == Severity::kError ? "error" : "warning";
  if (line <= 0) return fmt::format("{}: {}: {}", file, sev, message);
  return fmt::format("{}:{}:{}: {}: {}", file, line, column, sev, message);
}

void Diagnostics::add(Severity s, std::string file, int line, int column, std::string message) {
  items.push_back({s, std::move(file), line, column, std::move(message)});
}

int Diagnostics::error_count() const {
  return static_cast<int>(std::count_if(items.begin(), items.end(),
                                        [](const auto& d) { return d.severity == Severity::kError; }));
}

int Diagnostics::warning_count() const { return static_cast<int>(items.size()) - error_count(); }

}  // namespace tern::config
