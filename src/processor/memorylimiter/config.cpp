#include "processor/memorylimiter/config.h"

#include <fmt/format.h>

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::MapReader;

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, MemoryLimiterProcessorConfig& c) {
  r.duration("check_interval", c.check_interval);
  // MiB are shifted into bytes: larger values would wrap into small limits.
  const bool mib_read = r.uint("limit_mib", c.limit_mib, UINT64_MAX >> 20);
  r.uint("spike_limit_mib", c.spike_limit_mib, UINT64_MAX >> 20);
  const bool percentage_read = r.uint("limit_percentage", c.limit_percentage, 100);
  r.uint("spike_limit_percentage", c.spike_limit_percentage, 100);
  if (c.check_interval <= Duration{0}) {
    ctx.error(r.mark("check_interval"), fmt::format("{}: check_interval must be greater than 0", r.path()));
  }
  // A limit that was set but refused (`limit_percentage: 101`) is reported already; "set one"
  // on top of it was false.
  if (mib_read && percentage_read && c.limit_mib == 0 && c.limit_percentage == 0) {
    ctx.error(at, fmt::format("{}: one of limit_mib or limit_percentage must be set", r.path()));
  }
  if (c.limit_mib != 0 && c.spike_limit_mib >= c.limit_mib) {
    ctx.error(r.mark("spike_limit_mib"),
              fmt::format("{}: spike_limit_mib must be smaller than limit_mib", r.path()));
  }
  if (c.limit_percentage != 0 && c.spike_limit_percentage >= c.limit_percentage) {
    ctx.error(r.mark("spike_limit_percentage"),
              fmt::format("{}: spike_limit_percentage must be smaller than limit_percentage", r.path()));
  }
}

}  // namespace tern::processor
