#include "extension/healthcheck/config.h"

#include <fmt/format.h>

#include "config/reader.h"

namespace tern::extension {

using config::check_host_port;
using config::DecodeContext;
using config::MapReader;

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark&, HealthCheckExtensionConfig& c) {
  r.str("endpoint", c.endpoint);
  check_host_port(ctx, r, "endpoint", c.endpoint);
  r.str("path", c.path);
  if (!c.path.starts_with('/'))
    ctx.error(r.mark("path"), fmt::format("{}: path must start with /", r.sub_path("path")));
}

}  // namespace tern::extension
