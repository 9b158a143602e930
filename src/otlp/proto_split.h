#pragma once
// Slicing an OTLP export request at the protobuf wire level, by item: log records, spans,
// metric data points. Used where a batch must be cut into smaller ones without decoding it
// (the disk queue spool splits a request too large for its max_size). A slice keeps the
// envelopes of its items (resource, scope, metric with all their other fields) and drops
// envelopes left without items.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pdata/signal.h"

namespace tern::otlp {

// Items in an Export{Logs,Trace,Metrics}ServiceRequest; nullopt if the bytes are malformed.
std::optional<std::uint64_t> count_items(pdata::Signal signal, std::string_view request);

// Appends to `out` the request holding items [lo, hi) of `request`, in order. False if the
// bytes are malformed.
bool slice_items(pdata::Signal signal, std::string_view request, std::uint64_t lo, std::uint64_t hi,
                 std::string& out);

}  // namespace tern::otlp
