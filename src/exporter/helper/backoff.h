#pragma once
// Back-off randomization for the OTLP exporters' retry_on_failure, as the Collector's
// exporterhelper does it: senders that failed together (a receiver restarting) should not
// all retry at the same instant.
#include <algorithm>
#include <chrono>
#include <random>

namespace tern::exporter::helper {

// `interval` times a uniform factor in [1 - factor, 1 + factor] (factor in [0, 1]; 0 keeps
// the interval as it is).
template <class Rng>
std::chrono::milliseconds randomize_interval(std::chrono::milliseconds interval, double factor, Rng& rng) {
  if (factor <= 0 || interval.count() <= 0) return interval;
  std::uniform_real_distribution<double> spread(1.0 - factor, 1.0 + factor);
  const double ms = static_cast<double>(interval.count()) * spread(rng);
  return std::chrono::milliseconds(std::max<std::int64_t>(0, static_cast<std::int64_t>(ms)));
}

// An exponential back-off's interval, kept in fractional milliseconds: whole milliseconds
// truncated 1 ms × 1.5 back to 1 ms, and the back-off never grew.
using BackoffInterval = std::chrono::duration<double, std::milli>;
inline BackoffInterval grow_interval(BackoffInterval interval, double multiplier, BackoffInterval max) {
  return std::min(interval * multiplier, max);
}
// The wait an interval asks for, in whole milliseconds, rounded up (never 0 for a positive one).
inline std::chrono::milliseconds wait_for(BackoffInterval interval) {
  return std::chrono::ceil<std::chrono::milliseconds>(interval);
}

}  // namespace tern::exporter::helper
