#pragma once
// Deadlines from caller timeouts, for ForceFlush/Shutdown and anything else that waits.
//
// A timeout may be huge: std::chrono::milliseconds::max() is the OpenTelemetry C++ SDK's
// "no limit". steady_clock::now() + timeout then overflows (undefined behaviour; in
// practice a deadline in the past, so the call gives up at once), and so does
// condition_variable::wait_for, which adds the timeout to now() itself. These helpers
// saturate instead: a deadline beyond the clock's range is time_point::max(), "wait until
// done", and it stays "no limit" when passed on as a timeout.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

namespace tern::sdk::logs {

using SteadyClock = std::chrono::steady_clock;

// now + timeout, or SteadyClock::time_point::max() when that is not representable. A
// negative timeout is `now`.
inline SteadyClock::time_point DeadlineAfter(std::chrono::milliseconds timeout,
                                             SteadyClock::time_point now = SteadyClock::now()) noexcept {
  if (timeout <= std::chrono::milliseconds::zero()) return now;
  // Compared in milliseconds: converting a huge timeout to the clock's nanoseconds
  // would overflow too. Below `room`, now + timeout fits.
  const auto room =
      std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::time_point::max() - now);
  if (timeout >= room) return SteadyClock::time_point::max();
  return now + timeout;
}

// The time left until `deadline`, rounded up and never negative; milliseconds::max() for
// the saturated deadline, so that a callee handed the rest of our time also waits
// without a limit.
inline std::chrono::milliseconds TimeLeft(SteadyClock::time_point deadline,
                                          SteadyClock::time_point now = SteadyClock::now()) noexcept {
  if (deadline == SteadyClock::time_point::max()) return std::chrono::milliseconds::max();
  if (deadline <= now) return std::chrono::milliseconds::zero();
  return std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
}

// cv.wait_until(lock, deadline, pred), with a plain wait() for the saturated deadline:
// waiting until time_point::max() is not portable (libstdc++ without
// pthread_cond_clockwait converts the deadline to system_clock, which overflows).
template <typename Predicate>
bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
               SteadyClock::time_point deadline, Predicate pred) {
  if (deadline == SteadyClock::time_point::max()) {
    cv.wait(lock, std::move(pred));
    return true;
  }
  return cv.wait_until(lock, deadline, std::move(pred));
}

// The result of a call that only its first caller makes (Shutdown): that caller publishes
// it, on every path (Publishing does so when it goes out of scope, also on an exception);
// the callers after it wait for it within their own deadline, false when it does not come
// in time. Returning true to a later caller before the first is done would let an
// application exit with its records still being exported.
class FirstCallResult {
 public:
  void Publish(bool ok) {
    {
      std::lock_guard lock(mu_);
      done_ = true;
      ok_ = ok;
    }
    cv_.notify_all();
  }
  bool Wait(SteadyClock::time_point deadline) {
    std::unique_lock lock(mu_);
    return WaitUntil(cv_, lock, deadline, [&] { return done_; }) && ok_;
  }
  // Publishes `ok` as it is when this goes out of scope.
  struct Publishing {
    FirstCallResult& result;
    const bool& ok;
    ~Publishing() { result.Publish(ok); }
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool ok_ = false;
};

}  // namespace tern::sdk::logs
