// tern-bench-sink: throughput of `tern sink` over loopback. Spawns the real binary,
// opens N keep-alive connections, posts pre-built bulk bodies of otel-mode log documents
// (the Elasticsearch encoder's output, so the sink parses what Tern really sends) and
// reports docs/s, MB/s and the sink's CPU time per document from /proc/<pid>/stat.
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without including it

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "compression/gzip.h"
#include "encoding/elasticsearch/encoder.h"
#include "gen/workload.h"
#include "support/process.h"

namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

struct Args {
  std::string tern = TERN_BIN_DIR "/tern";
  int connections = 4;
  int items = 1000;
  double seconds = 5;
  int sink_threads = 2;
  std::string gzip = "both";  // on | off | both
};

void usage() {
  std::fprintf(stderr,
               "usage: tern-bench-sink [--connections N=4] [--items PER_REQUEST=1000] [--seconds S=5]\n"
               "                       [--sink-threads N=2] [--gzip on|off|both] [--tern PATH]\n");
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) usage();
    std::string v = argv[++i];
    if (k == "--connections")
      a.connections = std::atoi(v.c_str());
    else if (k == "--items")
      a.items = std::atoi(v.c_str());
    else if (k == "--seconds")
      a.seconds = std::atof(v.c_str());
    else if (k == "--sink-threads")
      a.sink_threads = std::atoi(v.c_str());
    else if (k == "--gzip")
      a.gzip = v;
    else if (k == "--tern")
      a.tern = v;
    else
      usage();
  }
  if (a.connections < 1 || a.items < 1 || a.seconds <= 0 || a.sink_threads < 1) usage();
  return a;
}

// One bulk body of `n` otel log documents. The gen workload plus the resource attributes a
// real service carries, so documents are about the size of typical shipped log lines.
std::string build_body(int n) {
  tern::pdata::LogsData logs;
  tern::gen::build_logs_workload(static_cast<std::size_t>(n), logs, tern::gen::now_unix_nano());
  auto& attrs = logs.resource_logs[0].resource.attributes;
  using tern::pdata::AnyValue;
  attrs.push_back({"service.name", AnyValue::string("checkout-service")});
  attrs.push_back({"service.version", AnyValue::string("1.42.0")});
  attrs.push_back({"host.name", AnyValue::string("ip-10-0-12-34.eu-west-1.compute.internal")});
  attrs.push_back({"k8s.pod.name", AnyValue::string("checkout-7d9f8b6c5-x2lqz")});
  attrs.push_back({"k8s.namespace.name", AnyValue::string("production")});
  tern::encoding::es::Encoder enc(tern::encoding::es::EncoderConfig{});
  tern::encoding::EncodedBatch batch;
  enc.encode_logs(logs, batch);
  return batch.data;
}

struct Totals {
  std::atomic<uint64_t> requests{0}, docs{0}, failures{0};
};

void client(uint16_t port, const std::string& body, bool gz, int items,
            std::chrono::steady_clock::time_point end, Totals& t) {
  asio::io_context ioc;
  tcp::socket sock(ioc);
  sock.connect({asio::ip::make_address("127.0.0.1"), port});
  sock.set_option(tcp::no_delay(true));
  http::request<http::string_body> req{http::verb::post,
                                       "/_bulk?filter_path=items.*._index,items.*.status,items.*.error.type,"
                                       "items.*.error.reason",
                                       11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/x-ndjson");
  if (gz) req.set(http::field::content_encoding, "gzip");
  req.keep_alive(true);
  req.body() = body;
  req.prepare_payload();
  beast::flat_buffer buf;
  while (std::chrono::steady_clock::now() < end) {
    http::write(sock, req);
    http::response<http::string_body> res;
    http::read(sock, buf, res);
    t.requests.fetch_add(1, std::memory_order_relaxed);
    // A response with any item error would mean the sink refused documents: not counted.
    if (res.result_int() != 200 || res.body().find("\"error\"") != std::string::npos) {
      t.failures.fetch_add(1, std::memory_order_relaxed);
    } else {
      t.docs.fetch_add(static_cast<uint64_t>(items), std::memory_order_relaxed);
    }
  }
}

std::string get(uint16_t port, const std::string& target) {
  asio::io_context ioc;
  tcp::socket sock(ioc);
  sock.connect({asio::ip::make_address("127.0.0.1"), port});
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(sock, req);
  beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(sock, buf, res);
  return res.body();
}

void run(const Args& a, bool gz, const std::string& plain) {
  std::string body = plain;
  if (gz) {
    tern::compression::GzipCompressor c(1);  // the exporter's default level
    c.compress(plain, body);
  }
  tern::test::Process sink(
      {a.tern, "sink", "--listen", "127.0.0.1:0", "--threads", std::to_string(a.sink_threads)});
  auto line = sink.wait_for_line("tern sink listening on ", 20s);
  if (!line) {
    std::fprintf(stderr, "sink did not start:\n%s", sink.output().c_str());
    std::exit(1);
  }
  const uint16_t port = tern::test::parse_listen_port(*line).value_or(0);
  // Warm-up: connections, thread-local parsers and allocator pools.
  {
    Totals warm;
    client(port, body, gz, a.items, std::chrono::steady_clock::now() + 300ms, warm);
  }
  Totals t;
  const uint64_t cpu0 = tern::test::cpu_time_us(sink.pid()).value_or(0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto end = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(a.seconds));
  std::vector<std::thread> threads;
  for (int i = 0; i < a.connections; ++i) {
    threads.emplace_back([&] { client(port, body, gz, a.items, end, t); });
  }
  for (auto& th : threads) th.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t cpu1 = tern::test::cpu_time_us(sink.pid()).value_or(0);
  const std::string stats = get(port, "/_sink/stats");
  sink.signal(SIGTERM);
  const auto code = sink.wait(10s);

  const double docs = static_cast<double>(t.docs.load());
  const double reqs = static_cast<double>(t.requests.load());
  std::printf(
      "gzip=%-3s conns=%d items/req=%d sink_threads=%d: %.0f docs/s, %.1f MB/s uncompressed, %.1f MB/s on "
      "the "
      "wire, sink CPU %.3f us/doc (%.0f%% of one core), %llu requests, %llu failed, exit %d\n",
      gz ? "on" : "off", a.connections, a.items, a.sink_threads, docs / wall,
      reqs * static_cast<double>(plain.size()) / wall / 1e6,
      reqs * static_cast<double>(body.size()) / wall / 1e6,
      docs > 0 ? static_cast<double>(cpu1 - cpu0) / docs : 0.0, static_cast<double>(cpu1 - cpu0) / 1e4 / wall,
      static_cast<unsigned long long>(t.requests.load()), static_cast<unsigned long long>(t.failures.load()),
      code.value_or(-1));
  std::printf("  sink stats: %.300s\n", stats.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const std::string plain = build_body(a.items);
  std::printf("body: %d documents, %zu bytes uncompressed (%.0f B per item incl. action line)\n", a.items,
              plain.size(), static_cast<double>(plain.size()) / a.items);
  if (a.gzip == "off" || a.gzip == "both") run(a, false, plain);
  if (a.gzip == "on" || a.gzip == "both") run(a, true, plain);
  return 0;
}
