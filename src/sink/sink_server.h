#pragma once
// `tern sink` server: Beast HTTP/1.1 with keep-alive, plain or over TLS, on one io_context
// run by `threads` threads (one strand per connection). Usable in-process (demo, tests).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sink/sink_core.h"
#include "sink/sink_options.h"

namespace tern::sink {

class SinkServer {
 public:
  explicit SinkServer(SinkOptions options);
  ~SinkServer();  // stops
  SinkServer(const SinkServer&) = delete;
  SinkServer& operator=(const SinkServer&) = delete;

  // Binds, starts the threads and returns the bound port. Throws on bind errors and
  // (std::runtime_error) on TLS files that cannot be loaded.
  uint16_t start();
  // Closes every connection, joins the threads, flushes the dump. Idempotent.
  void stop();
  SinkStats stats() const { return core_.stats(); }
  int64_t count(std::string_view index_pattern) const { return core_.count(index_pattern); }
  SinkCore& core() { return core_; }

 private:
  struct Impl;
  void do_accept();
  void schedule_flush();

  SinkCore core_;  // outlives impl_: sessions still queued in the io_context reference it
  std::unique_ptr<Impl> impl_;
  int options_threads_ = 2;
  std::string options_host_;
  uint16_t options_port_ = 0;
  std::size_t body_limit_ = 0;
  net::TlsServerOptions tls_;
};

}  // namespace tern::sink
