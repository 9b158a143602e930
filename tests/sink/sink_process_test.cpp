// The real `tern sink` binary as a child process, spoken to over loopback with Beast.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "compression/gzip.h"
#include "sink/sink_server.h"
#include "support/process.h"

namespace tern::sink {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using nlohmann::json;
using namespace std::chrono_literals;

const std::string kTern = TERN_BIN_DIR "/tern";

struct Sink {
  test::Process proc;
  uint16_t port = 0;
  explicit Sink(std::vector<std::string> extra) : proc(args(std::move(extra))) {
    auto line = proc.wait_for_line("tern sink listening on ", 20s);
    if (!line) throw std::runtime_error("sink did not start:\n" + proc.output());
    port = test::parse_listen_port(*line).value_or(0);
  }
  static std::vector<std::string> args(std::vector<std::string> extra) {
    std::vector<std::string> a{kTern, "sink", "--listen", "127.0.0.1:0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// One keep-alive connection.
struct Client {
  asio::io_context ioc;
  tcp::socket sock{ioc};
  beast::flat_buffer buf;
  explicit Client(uint16_t port) { sock.connect({asio::ip::make_address("127.0.0.1"), port}); }

  http::response<http::string_body> send(http::verb verb, std::string target, std::string body = {},
                                         bool gzip = false, bool expect_continue = false) {
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/x-ndjson");
    req.keep_alive(true);
    if (gzip) {
      compression::GzipCompressor c(1);
      std::string z;
      c.compress(body, z);
      body = std::move(z);
      req.set(http::field::content_encoding, "gzip");
    }
    req.body() = std::move(body);
    req.prepare_payload();
    http::response_parser<http::string_body> parser;
    parser.body_limit(256u << 20);
    if (verb == http::verb::head) parser.skip(true);
    if (expect_continue) {
      // Header first, then the body only after the server's interim 100 Continue.
      req.set(http::field::expect, "100-continue");
      http::request_serializer<http::string_body> sr{req};
      http::write_header(sock, sr);
      http::response_parser<http::string_body> interim;
      http::read(sock, buf, interim);
      // A final answer instead of 100 Continue (e.g. 413): the body is never sent.
      if (interim.get().result() != http::status::continue_) return interim.release();
      http::write(sock, sr);
    } else {
      http::write(sock, req);
    }
    http::read(sock, buf, parser);
    return parser.release();
  }
};

std::string docs(int n, int first_id) {
  std::string body;
  for (int i = 0; i < n; ++i) {
    body += R"({"create":{"_index":"logs-proc","_id":")" + std::to_string(first_id + i) + "\"}}\n";
    body += R"({"@timestamp":"2024-01-01T00:00:00Z","body":{"text":"line )" + std::to_string(i) + "\"}}\n";
  }
  return body;
}

std::filesystem::path temp_path(std::string_view name) {
  return std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
}

TEST(SinkProcess, KeepAliveGzipContinueAndCleanShutdown) {
  auto dump = temp_path("tern-sink-proc-dump");
  std::filesystem::remove(dump);
  {
    Sink sink({"--dump", dump.string(), "--threads", "2"});
    ASSERT_NE(sink.port, 0);
    Client c(sink.port);
    auto local = c.sock.local_endpoint();

    auto root = c.send(http::verb::get, "/");
    EXPECT_EQ(root.result_int(), 200);
    EXPECT_EQ(root[("X-Elastic-Product")], "Elasticsearch");
    EXPECT_EQ(root[http::field::content_type], "application/json");
    EXPECT_EQ(json::parse(root.body())["version"]["number"].get<std::string>().substr(0, 2), "8.");
    EXPECT_TRUE(root.keep_alive());

    auto head = c.send(http::verb::head, "/");
    EXPECT_EQ(head.result_int(), 200);
    EXPECT_EQ(head["X-Elastic-Product"], "Elasticsearch");

    EXPECT_EQ(c.send(http::verb::put, "/_index_template/t", "{}").body(), R"({"acknowledged":true})");

    auto r = c.send(http::verb::post, "/_bulk?filter_path=errors", docs(1000, 0));
    EXPECT_EQ(r.result_int(), 200);
    EXPECT_EQ(r.body(), R"({"errors":false})");
    r = c.send(http::verb::post, "/_bulk?filter_path=errors", docs(1000, 1000), /*gzip=*/true);
    EXPECT_EQ(r.body(), R"({"errors":false})");
    r = c.send(http::verb::post, "/_bulk?filter_path=errors", docs(1000, 2000), true,
               /*expect_continue=*/true);
    EXPECT_EQ(r.body(), R"({"errors":false})");
    r = c.send(http::verb::post, "/_bulk?filter_path=items.*.status", docs(2, 1999), false, true);
    EXPECT_EQ(r.body(), R"({"items":[{"create":{"status":409}},{"create":{"status":409}}]})");

    auto count = c.send(http::verb::get, "/logs-*/_count");
    EXPECT_EQ(json::parse(count.body())["count"], 3000);
    auto stats = json::parse(c.send(http::verb::get, "/_sink/stats").body());
    EXPECT_EQ(stats["docs"], 3000);
    EXPECT_EQ(stats["bulk_requests"], 4);
    EXPECT_EQ(stats["items_by_status"]["409"], 2);
    // Everything above went over the one connection.
    EXPECT_EQ(c.sock.local_endpoint(), local);

    // A second connection in parallel with the first still open.
    Client c2(sink.port);
    EXPECT_EQ(c2.send(http::verb::get, "/_cat/indices?format=json").result_int(), 200);

    ASSERT_TRUE(sink.proc.signal(SIGTERM));
    auto code = sink.proc.wait(10s);
    ASSERT_TRUE(code.has_value()) << "no exit after SIGTERM";
    EXPECT_EQ(*code, 0) << sink.proc.output();
  }
  std::ifstream in(dump);
  int lines = 0;
  std::string line, first;
  while (std::getline(in, line)) {
    if (lines++ == 0) first = line;
  }
  EXPECT_EQ(lines, 3000);  // flushed on SIGTERM, not only by the 1 s timer
  EXPECT_EQ(
      first,
      R"({"_index":"logs-proc","_id":"0","_source":{"@timestamp":"2024-01-01T00:00:00Z","body":{"text":"line 0"}}})");
  std::filesystem::remove(dump);
}

TEST(SinkProcess, OversizeContentLengthIs413BeforeContinue) {
  Sink sink({"--max-content-length", "1000"});
  Client c(sink.port);
  // Under the wire cap but over the uncompressed limit: read, then refused by SinkCore.
  auto r = c.send(http::verb::post, "/_bulk", docs(100, 0));
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_EQ(json::parse(r.body())["error"]["type"], "content_too_long_exception");
  EXPECT_TRUE(r.keep_alive());
  // Over the wire cap (2 x limit + 1 MiB): refused from the header, instead of 100 Continue.
  Client c2(sink.port);
  r = c2.send(http::verb::post, "/_bulk", std::string(3u << 20, '\n'), false, true);
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_EQ(c.send(http::verb::get, "/_count").result_int(), 200);
  sink.proc.signal(SIGINT);
  EXPECT_EQ(sink.proc.wait(10s), 0);
}

// The address space of a process (VmSize, KiB).
std::size_t vm_size_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmSize:", 0) == 0) return std::stoul(line.substr(7));
  return 0;
}

// The sink's HTTP edges: HEAD answers carry no body bytes, whatever their status (an error's
// body was read as the next response); absolute-form targets are routed on their path (they
// were "no handler found for uri [http:...]"); a header block over 64 KiB is answered 400
// too_long_frame_exception as Elasticsearch does (it was closed without an answer); a
// Content-Length within the wire cap allocates nothing like it before the bytes come.
TEST(SinkProcess, HeadAbsoluteFormHugeHeadersAndDeclaredLengths) {
  Sink sink({"--max-content-length", "1000000000", "--threads", "2"});  // wire cap ~2 GB
  Client c(sink.port);
  auto head = c.send(http::verb::head, "/_bulk");  // 405 with an error body for GET
  EXPECT_EQ(head.result_int(), 405);
  EXPECT_NE(head[http::field::content_length], "0");
  auto health = c.send(http::verb::get, "http://127.0.0.1:" + std::to_string(sink.port) + "/_cluster/health");
  EXPECT_EQ(health.result_int(), 200) << health.body();
  EXPECT_EQ(json::parse(health.body())["status"], "green");

  Client big(sink.port);
  http::request<http::string_body> req{http::verb::get, "/", 11};
  req.set("X-Big-1", std::string(35 * 1024, 'b'));  // Beast's client takes 64 KiB a field at most
  req.set("X-Big-2", std::string(35 * 1024, 'b'));
  http::write(big.sock, req);
  http::response<http::string_body> res;
  http::read(big.sock, big.buf, res);
  EXPECT_EQ(res.result_int(), 400);
  EXPECT_EQ(json::parse(res.body())["error"]["type"], "too_long_frame_exception");
  EXPECT_FALSE(res.keep_alive());

  const std::size_t vm_before = vm_size_kib(sink.proc.pid());
  std::vector<std::unique_ptr<Client>> hanging;
  for (int i = 0; i < 6; ++i) {
    hanging.push_back(std::make_unique<Client>(sink.port));
    asio::write(
        hanging.back()->sock,
        asio::buffer(std::string("POST /_bulk HTTP/1.1\r\nHost: x\r\nContent-Length: 1900000000\r\n\r\n{")));
  }
  std::this_thread::sleep_for(300ms);
  const std::size_t vm_after = vm_size_kib(sink.proc.pid());
  EXPECT_LT(vm_after, vm_before + 256 * 1024) << "VmSize grew from " << vm_before << " KiB to " << vm_after;
  EXPECT_EQ(c.send(http::verb::get, "/_count").result_int(), 200);
}

// Out of file descriptors (ulimit -n), the accept loop backs off instead of spinning on the
// connections left in the backlog, and serves again once descriptors are free.
TEST(SinkProcess, OutOfFileDescriptorsTheAcceptLoopDoesNotSpin) {
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizers' runtime needs descriptors of its own: UBSan's vptr check asks whether a
  // vtable is readable through a pipe (IsAccessibleMemoryRange), which fails with EMFILE and
  // is then reported as an invalid vptr. Out of descriptors is what this test is about.
  GTEST_SKIP() << "needs a build without sanitizers (their runtime opens descriptors)";
#endif
  test::Process proc(
      {"/bin/sh", "-c", "ulimit -n 24 && exec " + kTern + " sink --listen 127.0.0.1:0 --threads 1"});
  auto line = proc.wait_for_line("tern sink listening on ", 20s);
  ASSERT_TRUE(line) << proc.output();
  const uint16_t port = test::parse_listen_port(*line).value_or(0);
  ASSERT_NE(port, 0);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 40; ++i) clients.push_back(std::make_unique<Client>(port));
  std::this_thread::sleep_for(200ms);
  const auto cpu0 = test::cpu_time_us(proc.pid());
  std::this_thread::sleep_for(600ms);
  const auto cpu1 = test::cpu_time_us(proc.pid());
  ASSERT_TRUE(cpu0 && cpu1);
  EXPECT_LT(*cpu1 - *cpu0, 100'000u) << "the accept loop spins";
  clients.clear();  // the sink's descriptors for them close as it reads EOF
  std::this_thread::sleep_for(200ms);
  Client c(port);
  EXPECT_EQ(c.send(http::verb::get, "/_count").result_int(), 200);
  const std::string out = proc.output();  // the failures are logged once, not per retry
  EXPECT_LE(std::count(out.begin(), out.end(), '\n'), 6) << out;
}

TEST(SinkProcess, FaultsOverTheWire) {
  Sink sink({"--request-503-rate", "1", "--latency-ms", "1"});
  Client c(sink.port);
  auto r = c.send(http::verb::post, "/_bulk", docs(3, 0));
  EXPECT_EQ(r.result_int(), 503);
  EXPECT_EQ(json::parse(r.body())["error"]["type"], "unavailable_shards_exception");
  Sink drop({"--drop-connection-rate", "1"});
  Client d(drop.port);
  EXPECT_THROW(d.send(http::verb::post, "/_bulk", docs(3, 0)), boost::system::system_error);
}

TEST(SinkProcess, BadArgumentsAndBusyPortFail) {
  for (auto listen : {"nonsense", "127.0.0.1:99999", "127.0.0.1:12ab"}) {
    test::Process p({kTern, "sink", "--listen", listen});
    auto code = p.wait(10s);
    ASSERT_TRUE(code.has_value());
    EXPECT_NE(*code, 0) << listen;
  }
  Sink first({});
  test::Process second({kTern, "sink", "--listen", "127.0.0.1:" + std::to_string(first.port)});
  auto code = second.wait(10s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 1);
  EXPECT_NE(second.output().find("tern sink: cannot start: cannot listen on 127.0.0.1:" +
                                 std::to_string(first.port) + ": Address already in use"),
            std::string::npos)
      << second.output();
}

// The start line of an IPv6 sink gives the address as --listen takes it, [::1]:PORT
// ("::1:PORT" could not be parsed back), and that address answers.
TEST(SinkProcess, Ipv6ListenLineHasBrackets) {
  {
    // Skipped where the host has no IPv6 loopback (some containers).
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor probe(ioc);
    boost::system::error_code ec;
    probe.open(boost::asio::ip::tcp::v6(), ec);
    if (!ec) probe.bind({boost::asio::ip::address_v6::loopback(), 0}, ec);
    if (ec) GTEST_SKIP() << "no IPv6 loopback: " << ec.message();
  }
  test::Process p({kTern, "sink", "--listen", "[::1]:0"});
  auto line = p.wait_for_line("tern sink listening on ", 20s);
  ASSERT_TRUE(line) << p.output();
  const std::string prefix = "tern sink listening on [::1]:";
  ASSERT_EQ(line->rfind(prefix, 0), 0u) << *line;
  const auto port = test::parse_listen_port(*line);
  ASSERT_TRUE(port && *port != 0) << *line;
  EXPECT_EQ(*line, prefix + std::to_string(*port));
  asio::io_context ioc;
  tcp::socket sock(ioc);
  boost::system::error_code ec;
  sock.connect({asio::ip::address_v6::loopback(), *port}, ec);
  EXPECT_FALSE(ec) << ec.message();
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(10s), 0) << p.output();
}

// After stop() (the server object still alive) the port refuses connections at once: the
// listening socket used to be closed by a handler the stopping io threads could skip, and a
// client then hung in the backlog until its own timeout.
TEST(SinkServerStop, TheListeningPortIsClosed) {
  for (int i = 0; i < 30; ++i) {
    tern::sink::SinkOptions o;
    o.port = 0;
    tern::sink::SinkServer server(o);
    const auto port = server.start();
    server.stop();
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket s(ioc);
    boost::system::error_code ec;
    s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
    ASSERT_EQ(ec, boost::asio::error::connection_refused) << "round " << i << ": " << ec.message();
  }
}

TEST(ProcessSupport, CapturesLinesAndExitCodes) {
  test::Process p({"/bin/sh", "-c", "echo one; echo two >&2; printf 'tail'; exit 3"});
  EXPECT_EQ(p.wait_for_line("tw", 10s, test::Stream::Stderr), "two");
  EXPECT_EQ(p.wait(10s), 3);
  EXPECT_EQ(p.lines(), (std::vector<std::string>{"one", "tail"}));
  EXPECT_EQ(p.wait_for_line("nope", 1s), std::nullopt);  // stream closed: no waiting
  test::Process sleeper({"/bin/sleep", "30"});
  EXPECT_TRUE(sleeper.running());
  EXPECT_EQ(sleeper.wait(10ms), std::nullopt);
  sleeper.signal(SIGTERM);
  EXPECT_EQ(sleeper.wait(10s), 128 + SIGTERM);
  EXPECT_TRUE(test::cpu_time_us(::getpid()).has_value());
  EXPECT_EQ(test::parse_listen_port("tern sink listening on 127.0.0.1:9200"), 9200);
  EXPECT_EQ(test::parse_listen_port("x listening on [::1]:80\r"), 80);
  EXPECT_EQ(test::parse_listen_port("listening on host"), std::nullopt);
}

}  // namespace
}  // namespace tern::sink
