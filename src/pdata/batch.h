#pragma once
// A decoded batch of any signal, as queues and spools pass it on: typed, so a batch is never
// read as another signal's.
#include <memory>
#include <optional>
#include <variant>

#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/signal.h"
#include "pdata/trace.h"

namespace tern::pdata {

// A view of one batch (what encoders read); the alternatives are in Signal's order.
using BatchRef = std::variant<const LogsData*, const TracesData*, const MetricsData*>;

// A batch kept for later (a late-encoding queue's entry until its consumer encodes it).
using SharedBatch = std::variant<std::monostate, std::shared_ptr<const LogsData>,
                                 std::shared_ptr<const TracesData>, std::shared_ptr<const MetricsData>>;

inline Signal signal_of(const BatchRef& b) { return static_cast<Signal>(b.index()); }

inline std::optional<BatchRef> ref_of(const SharedBatch& b) {
  if (const auto* l = std::get_if<std::shared_ptr<const LogsData>>(&b)) return BatchRef(l->get());
  if (const auto* t = std::get_if<std::shared_ptr<const TracesData>>(&b)) return BatchRef(t->get());
  if (const auto* m = std::get_if<std::shared_ptr<const MetricsData>>(&b)) return BatchRef(m->get());
  return std::nullopt;
}

}  // namespace tern::pdata
