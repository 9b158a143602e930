#include "processor/batch/config.h"

#include <fmt/format.h>

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::MapReader;

void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, BatchProcessorConfig& c) {
  r.uint("send_batch_size", c.send_batch_size);
  r.uint("send_batch_max_size", c.send_batch_max_size);
  r.duration("timeout", c.timeout);
  r.size("send_batch_max_bytes", c.send_batch_max_bytes);
  if (c.send_batch_max_size != 0 && c.send_batch_max_size < c.send_batch_size) {
    ctx.error(r.mark("send_batch_max_size"),
              fmt::format("{}: send_batch_max_size must be 0 or at least send_batch_size", r.path()));
  }
}

}  // namespace tern::processor
