#pragma once
// Arms a Beast stream's timer for the next operation with an exporter's `timeout`, where 0
// means no timeout, as in the OpenTelemetry Collector (exporterhelper and confighttp): an
// expires_after(0) made every request fail at once, and the retries sent it again and again.
#include <chrono>

namespace tern::net {

template <class LowestStream>
void arm_timeout(LowestStream& s, std::chrono::milliseconds timeout) {
  if (timeout.count() > 0)
    s.expires_after(timeout);
  else
    s.expires_never();
}

}  // namespace tern::net
