// tern-gen-bench-receiver: a minimal OTLP/HTTP endpoint for the `tern gen` benchmark in
// docs/gen.md. It answers 200 with an empty ExportLogsServiceResponse, optionally after a
// delay (to measure scaling with workers when the receiver, not the CPU, is the limit),
// and prints the requests and bytes it saw when stopped with SIGINT/SIGTERM. It does not
// decode: the benchmark measures the generator, not a receiver.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "net/http_server.h"

int main(int argc, char** argv) {
  int latency_ms = 0;
  unsigned threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--latency-ms") latency_ms = std::atoi(argv[i + 1]);
    if (a == "--threads") threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::atomic<unsigned long long> requests{0}, bytes{0};
  tern::net::HttpServerOptions opt;
  opt.threads = threads;
  tern::net::HttpServer server(opt, [&](tern::net::HttpRequest& req) {
    requests.fetch_add(1, std::memory_order_relaxed);
    bytes.fetch_add(req.body.size(), std::memory_order_relaxed);
    if (latency_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    tern::net::HttpResponse res;
    res.content_type = "application/x-protobuf";
    return res;
  });
  const auto port = server.start();
  std::printf("tern-gen-bench-receiver listening on 127.0.0.1:%u\n", port);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  server.shutdown();
  std::printf("{\"requests\": %llu, \"bytes\": %llu}\n", requests.load(), bytes.load());
  return 0;
}
