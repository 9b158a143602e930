#include "exporter/debug/config.h"

namespace tern::exporter::debug {

void decode(config::DecodeContext& ctx, config::MapReader& r, DebugExporterConfig& c) {
  using V = DebugExporterConfig::Verbosity;
  r.choice("verbosity", c.verbosity,
           {{"basic", V::kBasic}, {"normal", V::kNormal}, {"detailed", V::kDetailed}});
  r.uint("sampling_initial", c.sampling_initial);
  if (r.uint("sampling_thereafter", c.sampling_thereafter) && c.sampling_thereafter == 0)
    ctx.error(r.mark("sampling_thereafter"),
              r.sub_path("sampling_thereafter") + ": must be at least 1 (1 writes every batch)");
  r.boolean("use_internal_logger", c.use_internal_logger);
}

}  // namespace tern::exporter::debug
