#pragma once
// Counters of the OTLP receiver, shared by its HTTP and gRPC servers.
#include <atomic>
#include <cstdint>

#include "pdata/signal.h"

namespace tern::receiver::otlp {

// A snapshot (OtlpReceiver::stats()).
struct OtlpReceiverStats {
  struct PerSignal {
    std::uint64_t requests = 0;  // export requests that reached the decoder
    std::uint64_t accepted = 0;  // items (log records, spans, data points) queued
    std::uint64_t refused = 0;   // items refused: back-pressure, shutdown, invalid, partial rejects
  };
  PerSignal logs, traces, metrics;
  std::uint64_t http_requests = 0;  // every HTTP request, including 404/405/415 and preflights
  std::uint64_t grpc_requests = 0;  // every gRPC call, including unknown methods
  std::uint64_t bad_requests = 0;   // payloads that could not be decoded (or decompressed)
  // Request bodies as Tern got them: HTTP before gunzip (wire bytes), gRPC after gRPC's
  // own message decompression.
  std::uint64_t bytes_received = 0;

  const PerSignal& of(pdata::Signal s) const {
    return s == pdata::Signal::Logs ? logs : s == pdata::Signal::Traces ? traces : metrics;
  }
};

// The live counters: relaxed atomics, they are statistics, not synchronisation.
struct OtlpReceiverCounters {
  struct PerSignal {
    std::atomic<std::uint64_t> requests{0}, accepted{0}, refused{0};
  };
  PerSignal logs, traces, metrics;
  std::atomic<std::uint64_t> http_requests{0}, grpc_requests{0}, bad_requests{0}, bytes_received{0};

  PerSignal& of(pdata::Signal s) {
    return s == pdata::Signal::Logs ? logs : s == pdata::Signal::Traces ? traces : metrics;
  }
  static void add(std::atomic<std::uint64_t>& c, std::uint64_t n) {
    c.fetch_add(n, std::memory_order_relaxed);
  }

  OtlpReceiverStats snapshot() const {
    auto ld = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
    auto per = [&](const PerSignal& p) {
      return OtlpReceiverStats::PerSignal{ld(p.requests), ld(p.accepted), ld(p.refused)};
    };
    OtlpReceiverStats s;
    s.logs = per(logs);
    s.traces = per(traces);
    s.metrics = per(metrics);
    s.http_requests = ld(http_requests);
    s.grpc_requests = ld(grpc_requests);
    s.bad_requests = ld(bad_requests);
    s.bytes_received = ld(bytes_received);
    return s;
  }
};

}  // namespace tern::receiver::otlp
