#include "processor/filter/config.h"

#include <fmt/format.h>

#include "ottl/condition.h"
#include "ottl/statement.h"

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::MapReader;

// `filter`: OTTL conditions per context, each parsed here so that a mistake is a config
// error at its line, not a surprise at run time.
void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, FilterProcessorConfig& c) {
  using E = FilterProcessorConfig::ErrorMode;
  r.choice("error_mode", c.error_mode,
           {{"propagate", E::kPropagate}, {"ignore", E::kIgnore}, {"silent", E::kSilent}});
  bool any = false;
  const auto conditions = [&](MapReader& m, std::string_view key, ottl::Context context,
                              std::vector<std::string>& out) {
    const YAML::Node n = m.get(key);
    if (!n.IsDefined() || n.IsNull()) return;
    if (!n.IsSequence())
      return ctx.error(n.Mark(), fmt::format("{}: expected a list of conditions", m.sub_path(key)));
    for (const auto& item : n) {
      const auto text = ctx.scalar(item, m.sub_path(key));
      if (!text) continue;
      std::string error;
      if (!ottl::Condition::parse(*text, context, error))
        ctx.error(item.Mark(), fmt::format("{}: \"{}\": {}", m.sub_path(key), *text, error));
      out.push_back(*text);
      any = true;
    }
  };
  // The Collector's older form (include/exclude with match_type) is refused by name.
  bool legacy = false;
  const auto sections = [&](const char* signal, auto&& read) {
    MapReader m(ctx, r.get(signal), r.sub_path(signal));
    for (const char* key : {"include", "exclude"}) {
      if (!m.has(key)) continue;
      legacy = true;
      m.get(key);
      ctx.error(m.mark(key),
                fmt::format("{}.{}: the filter processor's include/exclude form is not in Tern; write "
                            "OTTL conditions (logs.log_record, traces.span, metrics.metric, ...)",
                            m.path(), key));
    }
    if (legacy) {
      m.entries();  // the rest of the old form is not reported key by key
      return;
    }
    read(m);
  };
  sections("logs", [&](MapReader& m) { conditions(m, "log_record", ottl::Context::kLog, c.log_record); });
  sections("traces", [&](MapReader& m) {
    conditions(m, "span", ottl::Context::kSpan, c.span);
    conditions(m, "spanevent", ottl::Context::kSpanEvent, c.spanevent);
  });
  sections("spans", [&](MapReader& m) { m.entries(); });  // only the old form has `spans`
  sections("metrics", [&](MapReader& m) {
    conditions(m, "metric", ottl::Context::kMetric, c.metric);
    conditions(m, "datapoint", ottl::Context::kDataPoint, c.datapoint);
  });
  if (!any && !legacy)
    ctx.error(
        at, fmt::format("{}: no conditions (logs.log_record, traces.span, traces.spanevent, metrics.metric, "
                        "metrics.datapoint)",
                        r.path()));
}

}  // namespace tern::processor
