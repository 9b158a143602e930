#include "tern/sdk/logs/otlp_log_exporter.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "exporter/otlp/otlp_client.h"
#include "otlp/proto_codec.h"
#include "slot_pool.h"
#include "tern/sdk/logs/deadline.h"
#include "to_pdata.h"

namespace tern::sdk::logs {

namespace otlp = tern::exporter::otlp;

struct OtlpLogExporter::State {
  State(otlp::OtlpClientOptions o, std::size_t connections, std::size_t concurrent)
      : client_options(std::move(o)),
        pool(connections, [this] { return otlp::make_otlp_client(client_options); }),
        max_concurrent(concurrent == 0 ? 1 : concurrent) {}

  // Sends on a pooled connection and counts the outcome.
  ExportResult Send(std::string_view body, std::size_t records) noexcept {
    requests.fetch_add(1, std::memory_order_relaxed);
    try {
      auto client = pool.Acquire();
      const InUse in_use(*this, *client);  // declared after the lease: unregistered first
      const otlp::ExportStatus st = client->export_request(pdata::Signal::Logs, body);
      if (st.ok && st.rejected == 0) {
        exported.fetch_add(records, std::memory_order_relaxed);
        return ExportResult::kSuccess;
      }
      SetLastError(st.message);
      if (st.ok) {  // partial success: the rest was accepted
        rejected.fetch_add(static_cast<std::uint64_t>(st.rejected), std::memory_order_relaxed);
        exported.fetch_add(records - std::min<std::uint64_t>(records, st.rejected),
                           std::memory_order_relaxed);
        return ExportResult::kFailure;
      }
    } catch (const std::exception& e) {  // a client that cannot be created or throws: a failed export
      SetLastError(e.what());
    } catch (...) {
    }
    failed.fetch_add(records, std::memory_order_relaxed);
    return ExportResult::kFailure;
  }

  void SetLastError(std::string_view message) noexcept {
    try {
      std::lock_guard lock(error_mu);
      last_error.assign(message);
    } catch (...) {  // no memory for the message: keep the previous one
    }
  }

  // Clients sending now, pooled or one-off, so that a Shutdown whose wait runs out can
  // cancel them: nothing else ends a request a peer never answers (with timeout 0, not even
  // the attempt's timeout), and the batch processor's timed-out Shutdown relies on
  // Shutdown(0) ending its blocked export. A client registered after the cancellation is
  // cancelled at once (its export_request then fails without sending).
  struct InUse {
    InUse(State& s, otlp::OtlpClient& c) : state(s), client(c) {
      std::lock_guard lock(state.clients_mu);
      state.clients_in_use.push_back(&client);  // may throw: Send's catch counts a failure
      if (state.cancelling) client.cancel();
    }
    ~InUse() {
      std::lock_guard lock(state.clients_mu);
      auto& v = state.clients_in_use;
      v.erase(std::find(v.begin(), v.end(), &client));
    }
    InUse(const InUse&) = delete;
    InUse& operator=(const InUse&) = delete;
    State& state;
    otlp::OtlpClient& client;
  };
  void CancelInFlight() noexcept {
    std::lock_guard lock(clients_mu);
    cancelling = true;
    for (otlp::OtlpClient* c : clients_in_use) c->cancel();
  }

  // Every export, synchronous or not, is counted in `in_flight` from before its shutdown
  // check until it is done, so Shutdown can wait for it. Both sides are seq_cst (store
  // then load, in opposite orders), so either Shutdown sees the export in flight, or the
  // export sees the shutdown and fails.
  //
  // It is also counted in the in-flight counter of the flush epoch it started in (0 or 1:
  // the epoch's parity). ForceFlush moves to the next epoch and waits for the counter of
  // the one it left: exports begun before the call, and not those begun after, which go to
  // the other counter. (ForceFlush first waits for that other counter to be empty: exports
  // an earlier, timed-out flush left there began before this call too.) Waiting for
  // `in_flight` to reach 0 instead never ends while other threads keep exporting. The
  // registration re-reads the epoch after counting itself in: if a flush moved on in
  // between, it was maybe not seen there, so it counts itself again in the new epoch
  // (seq_cst on both sides, as above).
  //
  // Returns the counter's index, or -1 (nothing counted) after shutdown.
  int Enter() noexcept {
    in_flight.fetch_add(1);
    if (shut_down.load()) {
      in_flight.fetch_sub(1);
      in_flight.notify_all();
      return -1;
    }
    for (;;) {
      const std::uint64_t e = epoch.load();
      auto& counter = epoch_in_flight[e & 1];
      counter.fetch_add(1);
      if (epoch.load() == e) return static_cast<int>(e & 1);
      counter.fetch_sub(1);
    }
  }
  void Leave(int slot) noexcept {
    epoch_in_flight[static_cast<std::size_t>(slot)].fetch_sub(1);
    in_flight.fetch_sub(1);
    in_flight.notify_all();
  }
  struct Leaving {
    Leaving(State& s, int slot) : state(&s), slot(slot) {}
    ~Leaving() {
      if (state != nullptr) state->Leave(slot);
    }
    Leaving(const Leaving&) = delete;
    Leaving& operator=(const Leaving&) = delete;
    void Release() { state = nullptr; }
    State* state;
    int slot;
  };

  // Polling is fine here: flush and shutdown are rare, and std::atomic::wait has no timeout.
  static bool WaitZero(const std::atomic<std::size_t>& n, SteadyClock::time_point deadline) noexcept {
    while (n.load() != 0) {                              // seq_cst: see Enter
      if (SteadyClock::now() >= deadline) return false;  // time_point::max(): never reached
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  bool WaitIdle(std::chrono::milliseconds timeout) const noexcept {
    return WaitZero(in_flight, DeadlineAfter(timeout));
  }
  bool WaitEarlierExports(std::chrono::milliseconds timeout) noexcept {
    const auto deadline = DeadlineAfter(timeout);
    // One flush at a time: a second one moving the epoch on again would send new exports
    // to the counter the first one is waiting on.
    std::unique_lock<std::timed_mutex> lock(flush_mu, std::defer_lock);
    if (deadline == SteadyClock::time_point::max()) {
      lock.lock();
    } else if (!lock.try_lock_until(deadline)) {
      return false;
    }
    // The other counter is the previous epoch's: empty, unless an earlier ForceFlush timed
    // out and left exports there that began before this call too. Drain it first (no new
    // export goes there before the flip), then move on and wait for the current one.
    const std::uint64_t current = epoch.load();
    if (!WaitZero(epoch_in_flight[(current + 1) & 1], deadline)) return false;
    const std::uint64_t left = epoch.fetch_add(1);  // == current: flushes hold flush_mu
    return WaitZero(epoch_in_flight[left & 1], deadline);
  }

  const otlp::OtlpClientOptions client_options;
  detail::SlotPool<otlp::OtlpClient> pool;
  const std::size_t max_concurrent;
  std::atomic<std::size_t> in_flight{0};                      // exports in progress (sync and async)
  std::atomic<std::uint64_t> epoch{0};                        // flush epoch: ForceFlush moves it on
  std::array<std::atomic<std::size_t>, 2> epoch_in_flight{};  // exports in progress, by epoch parity
  std::timed_mutex flush_mu;                                  // ForceFlush only
  std::atomic<std::size_t> sender_threads{0};  // ExportAsync sender threads running
  std::atomic<bool> shut_down{false};
  std::mutex clients_mu;                          // guards the two below
  std::vector<otlp::OtlpClient*> clients_in_use;  // see InUse
  bool cancelling = false;                        // set by a Shutdown that timed out
  mutable std::mutex error_mu;
  std::string last_error;  // guarded by error_mu
  std::atomic<std::uint64_t> exported{0}, failed{0}, rejected{0}, requests{0};
};

namespace {

otlp::OtlpClientOptions ClientOptions(const OtlpLogExporterOptions& o, bool grpc) {
  otlp::OtlpClientOptions c;
  c.protocol = grpc ? otlp::Protocol::Grpc : otlp::Protocol::Http;
  c.endpoint = !o.endpoint.empty() ? o.endpoint : (grpc ? "localhost:4317" : "localhost:4318");
  c.url_path = o.url_path;
  c.encoding = otlp::Encoding::Proto;
  c.gzip = o.gzip;
  c.headers = o.headers;
  c.timeout = o.timeout;
  c.max_retries = o.max_retries;
  // The scheme decides, as users expect from a URL: https:// is TLS (with the CA and client
  // certificate given), http:// is plaintext even with use_ssl_credentials set; a bare
  // host:port is governed by use_ssl_credentials, as in the OpenTelemetry C++ SDK.
  const std::string_view ep = c.endpoint;
  if (ep.starts_with("https://") || (!ep.starts_with("http://") && o.use_ssl_credentials)) {
    auto& tls = c.tls.emplace();
    tls.ca_file = o.ssl_credentials_cacert_path;
    tls.cert_file = o.ssl_client_cert_path;
    tls.key_file = o.ssl_client_key_path;
    tls.insecure_skip_verify = o.ssl_insecure_skip_verify;
  }
  return c;
}

void Encode(const LogRecordBatchView& batch, std::string& out) {
  pdata::LogsData data;
  detail::ToPdata(batch, data);
  tern::otlp::encode_logs_proto(data, out);
}

}  // namespace

OtlpLogExporter::OtlpLogExporter(OtlpLogExporterOptions options, bool grpc)
    : state_(std::make_shared<State>(ClientOptions(options, grpc), options.max_connections,
                                     options.max_concurrent_exports)) {
  // Connecting is lazy, so this only parses the endpoint: a bad one fails here, not at
  // the first export. The clients check it as the config loader does (text/endpoint.h).
  otlp::make_otlp_client(state_->client_options);
}

OtlpLogExporter::~OtlpLogExporter() {
  // Sender threads own a reference to the state, but `done` callbacks may point into the
  // caller's objects: do not return while one can still run.
  for (auto n = state_->in_flight.load(); n != 0; n = state_->in_flight.load()) state_->in_flight.wait(n);
}

ExportResult OtlpLogExporter::Export(const LogRecordBatchView& batch) const noexcept {
  const int slot = state_->Enter();
  if (slot < 0) {  // after shutdown: these records are failed ones too
    state_->failed.fetch_add(batch.size(), std::memory_order_relaxed);
    return ExportResult::kFailure;
  }
  State::Leaving leave{*state_, slot};
  if (batch.empty()) return ExportResult::kSuccess;
  try {
    // The request buffer is reused by every export on this thread (it is only used
    // within one call, so sharing it between exporter instances is safe).
    thread_local std::string body;
    body.clear();
    Encode(batch, body);
    return state_->Send(body, batch.size());
  } catch (...) {  // allocation failure while encoding
    state_->failed.fetch_add(batch.size(), std::memory_order_relaxed);
    return ExportResult::kFailure;
  }
}

void OtlpLogExporter::ExportAsync(const LogRecordBatchView& batch, ExportCallback done) const {
  const int slot = state_->Enter();
  if (slot < 0) {  // after shutdown
    state_->failed.fetch_add(batch.size(), std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  // Handed to the sender thread if one starts.
  std::optional<State::Leaving> leave(std::in_place, *state_, slot);
  if (batch.empty()) {
    done(ExportResult::kSuccess);
    return;
  }
  // Shared, so that the caller can still send it if no sender thread can be started.
  auto body = std::make_shared<std::string>();
  try {
    Encode(batch, *body);  // the view is only valid during this call
  } catch (...) {
    state_->failed.fetch_add(batch.size(), std::memory_order_relaxed);
    done(ExportResult::kFailure);
    return;
  }
  const std::size_t records = batch.size();
  if (state_->sender_threads.fetch_add(1, std::memory_order_relaxed) < state_->max_concurrent) {
    try {
      std::thread([state = state_, body, records, done, slot] {
        const ExportResult result = state->Send(*body, records);
        try {
          done(result);
        } catch (...) {  // a throwing callback must not take the process down with this thread
        }
        state->sender_threads.fetch_sub(1, std::memory_order_relaxed);
        state->Leave(slot);  // last: ForceFlush returning true means the callback has run
      }).detach();
      leave->Release();  // the thread leaves for us
      return;
    } catch (const std::system_error&) {  // no thread available: send here instead
    }
  }
  state_->sender_threads.fetch_sub(1, std::memory_order_relaxed);
  done(state_->Send(*body, records));
}

bool OtlpLogExporter::ForceFlush(std::chrono::milliseconds timeout) const noexcept {
  return state_->WaitEarlierExports(timeout);
}

bool OtlpLogExporter::Shutdown(std::chrono::milliseconds timeout) const noexcept {
  state_->shut_down.store(true);  // seq_cst: pairs with Enter (see there)
  if (state_->WaitIdle(timeout)) return true;
  // Out of time (at once for 0): end the exports still sending, so that they finish (their
  // callbacks run with kFailure) and the destructor, which waits for them, returns.
  state_->CancelInFlight();
  return false;
}

OtlpLogExporterStats OtlpLogExporter::stats() const {
  return {state_->exported.load(std::memory_order_relaxed), state_->failed.load(std::memory_order_relaxed),
          state_->rejected.load(std::memory_order_relaxed), state_->requests.load(std::memory_order_relaxed)};
}

std::string OtlpLogExporter::last_error() const {
  std::lock_guard lock(state_->error_mu);
  return state_->last_error;
}

OtlpHttpLogExporter::OtlpHttpLogExporter(OtlpLogExporterOptions options)
    : OtlpLogExporter(std::move(options), /*grpc=*/false) {}

OtlpGrpcLogExporter::OtlpGrpcLogExporter(OtlpLogExporterOptions options)
    : OtlpLogExporter(std::move(options), /*grpc=*/true) {}

}  // namespace tern::sdk::logs
