#pragma once
// Rate limit for a log line that can repeat once per request, frame or record (a full disk, a
// deleted directory, a parser failing on every line): the first occurrence is logged, then at
// most one line per `period`, saying how many were not logged since the last one. Counters
// elsewhere stay exact; this only spares the log (take_suppressed() gives the owner the count
// still unreported when it stops). Thread-safe; the lock is taken on error
// paths only.
#include <chrono>
#include <cstdint>
#include <mutex>

namespace tern::logging {

class LogLimit {
 public:
  explicit LogLimit(std::chrono::steady_clock::duration period = std::chrono::seconds(10))
      : period_(period) {}

  // True when this occurrence is to be logged; `suppressed` is then the number of occurrences
  // not logged since the last logged one.
  bool allow(std::uint64_t& suppressed) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lk(mu_);
    if (logged_ && now < next_) {
      ++suppressed_;
      return false;
    }
    logged_ = true;
    next_ = now + period_;
    suppressed = suppressed_;
    suppressed_ = 0;
    return true;
  }

  // The occurrences not logged since the last logged one, and resets that count: the owner's
  // last word when it stops, so a burst that ends inside a period is still reported.
  std::uint64_t take_suppressed() {
    std::lock_guard lk(mu_);
    const std::uint64_t n = suppressed_;
    suppressed_ = 0;
    return n;
  }

 private:
  const std::chrono::steady_clock::duration period_;
  std::mutex mu_;
  bool logged_ = false;
  std::chrono::steady_clock::time_point next_{};
  std::uint64_t suppressed_ = 0;
};

}  // namespace tern::logging
