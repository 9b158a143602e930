#pragma once
// End-to-end acknowledgement of a batch, for producers that must know when their data is
// safe (the file receiver advances its checkpoint only then: at-least-once).
//
// A producer attaches a token to the batch it hands to a pipeline. Every stage that keeps
// the data past consume_* (a queue, an exporter) keeps a reference to the token until its
// part is settled, and calls fail() first when it could not settle it (e.g. still undelivered
// at shutdown, or refused). When the last reference goes, the producer's callback runs once,
// with `true` only when nobody failed it. A stage that settles at once (the debug exporter)
// simply drops its reference. "Settled" means: durably queued (disk queue, after fsync),
// indexed, or permanently rejected (counted, dead-lettered); never "lost in memory".
#include <atomic>
#include <functional>
#include <memory>
#include <utility>

namespace tern::pdata {

class DeliveryToken {
 public:
  using Callback = std::function<void(bool delivered)>;

  static std::shared_ptr<DeliveryToken> make(Callback cb) {
    return std::make_shared<DeliveryToken>(std::move(cb));
  }

  explicit DeliveryToken(Callback cb) : cb_(std::move(cb)) {}
  ~DeliveryToken() {
    if (cb_) cb_(!failed_.load(std::memory_order_acquire));
  }
  DeliveryToken(const DeliveryToken&) = delete;
  DeliveryToken& operator=(const DeliveryToken&) = delete;

  // This holder could not settle its part: the producer must not consider the batch safe.
  void fail() { failed_.store(true, std::memory_order_release); }
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  Callback cb_;
  std::atomic<bool> failed_{false};
};

using DeliveryTokenPtr = std::shared_ptr<DeliveryToken>;

}  // namespace tern::pdata
