#pragma once
// How long an accept loop waits after a failed accept (EMFILE, ENFILE, ENOBUFS...), and when
// it says so in the log. A failed accept leaves the connection in the backlog, so the
// listener stays readable: re-arming at once spins a core and floods the log. Go's net/http
// Server.Serve waits 5 ms after the first failure, doubling to 1 s, and starts over after a
// success; so do the Beast servers (net::HttpServer, `tern sink`). Free of asio, no clock:
// the caller runs the timer.
#include <algorithm>
#include <chrono>
#include <cstdint>

namespace tern::net {

class AcceptBackoff {
 public:
  static constexpr std::chrono::milliseconds kFirstDelay{5};
  static constexpr std::chrono::milliseconds kMaxDelay{1000};
  // While accepting keeps failing, a log line at most once per this much waiting.
  static constexpr std::chrono::milliseconds kLogInterval{60'000};

  // An accept failed: the delay before the next one.
  std::chrono::milliseconds failed() {
    ++failures_;
    delay_ = delay_.count() == 0 ? kFirstDelay : std::min(delay_ * 2, kMaxDelay);
    return delay_;
  }
  // After failed(): whether to log this failure. The first of a run, then the first after
  // each kLogInterval of waiting.
  bool should_log() {
    if (failures_ == 1) {
      waited_since_log_ = delay_;
      return true;
    }
    if (waited_since_log_ >= kLogInterval) {
      waited_since_log_ = delay_;
      return true;
    }
    waited_since_log_ += delay_;
    return false;
  }
  // An accept succeeded: the failures of the run it ends (0 when there was none; the usual
  // case, one compare), and the next failure waits kFirstDelay again.
  std::uint64_t succeeded() {
    if (failures_ == 0) return 0;
    const auto n = failures_;
    failures_ = 0;
    delay_ = std::chrono::milliseconds{0};
    waited_since_log_ = std::chrono::milliseconds{0};
    return n;
  }
  std::uint64_t failures() const { return failures_; }

 private:
  std::uint64_t failures_ = 0;  // in the current run
  std::chrono::milliseconds delay_{0};
  std::chrono::milliseconds waited_since_log_{0};
};

}  // namespace tern::net
