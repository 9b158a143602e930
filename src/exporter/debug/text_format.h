#pragma once
// The debug exporter's text: the Collector's debug exporter's layouts. `summary` is the
// basic line; `normal` about one line per item; `detailed` every field (pdata's text form).
#include <string>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::exporter::debug {

std::string summary(const pdata::LogsData& d, const std::string& name);
std::string summary(const pdata::TracesData& d, const std::string& name);
std::string summary(const pdata::MetricsData& d, const std::string& name);

std::string normal(const pdata::LogsData& d);
std::string normal(const pdata::TracesData& d);
std::string normal(const pdata::MetricsData& d);

std::string detailed(const pdata::LogsData& d);
std::string detailed(const pdata::TracesData& d);
std::string detailed(const pdata::MetricsData& d);

}  // namespace tern::exporter::debug
