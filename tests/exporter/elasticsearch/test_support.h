#pragma once
// Helpers for the exporter integration tests: hand-built encoded items, a `tern sink`
// child process, a tiny HTTP GET client, and a synchronous "send and wait" wrapper.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>
#include "net/beast_http.h"  // <boost/beast/http.hpp>, see there

#include "encoding/encoded_batch.h"
#include "exporter/elasticsearch/bulk_exporter.h"

extern char** environ;

namespace tern::test {

inline constexpr const char* kIndex = "logs-generic.otel-default";

// Item `n`: create with `_id` "doc-<n>" (so the sink detects re-sent documents as 409),
// document {"@timestamp":...,"n":n,"message":...}, plus `extra` fields when given.
inline void append_doc(encoding::EncodedBatch& b, std::uint64_t n, std::string_view extra = {},
                       std::size_t pad = 0) {
  encoding::EncodedItem it;
  it.offset = static_cast<std::uint32_t>(b.data.size());
  b.data += R"({"create":{"_index":")";
  b.data += kIndex;
  b.data += R"(","_id":"doc-)" + std::to_string(n) + "\"}}\n";
  it.action_size = static_cast<std::uint32_t>(b.data.size() - it.offset);
  b.data += R"({"@timestamp":"2024-01-01T00:00:00.000Z","n":)" + std::to_string(n) +
            R"(,"message":"Load Generator Counter #)" + std::to_string(n) + std::string(pad, 'x') + "\"";
  if (!extra.empty()) {
    b.data += ',';
    b.data += extra;
  }
  b.data += "}\n";
  it.size = static_cast<std::uint32_t>(b.data.size() - it.offset);
  b.items.push_back(it);
}

inline encoding::EncodedBatch make_batch(std::uint64_t first, std::size_t n) {
  encoding::EncodedBatch b;
  for (std::size_t i = 0; i < n; ++i) append_doc(b, first + i);
  return b;
}

// Options for tests: small backoffs and intervals so faults resolve quickly.
inline exporter::es::BulkExporterOptions fast_options(std::vector<std::string> endpoints) {
  exporter::es::BulkExporterOptions o;
  o.endpoints = std::move(endpoints);
  o.num_workers = 2;
  o.flush_bytes = 16 * 1024;
  o.flush_interval = std::chrono::milliseconds(10);
  o.retry_initial = std::chrono::milliseconds(2);
  o.retry_max = std::chrono::milliseconds(20);
  o.timeout = std::chrono::milliseconds(5000);
  o.connect_timeout = std::chrono::milliseconds(2000);
  o.require_data_stream = false;
  return o;
}

// Sums the results of every submitted batch; wait() returns once all completed.
struct Collector {
  std::mutex mu;
  exporter::es::BulkResult total;
  int batches = 0, unacked = 0;
  exporter::es::BulkExporter::Done done() {
    return [this](const exporter::es::BulkResult& r) {
      std::lock_guard lk(mu);
      total.items += r.items;
      total.indexed += r.indexed;
      total.duplicates += r.duplicates;
      total.failed += r.failed;
      total.dropped += r.dropped;
      total.undelivered += r.undelivered;
      ++batches;
      if (!r.acked()) ++unacked;
    };
  }
};

// Submits `total` documents numbered from `first`, in batches of `per_batch`, then flushes.
inline void send_docs(exporter::es::BulkExporter& ex, Collector& c, std::uint64_t first, std::size_t total,
                      std::size_t per_batch) {
  for (std::size_t i = 0; i < total; i += per_batch) {
    if (!ex.submit(make_batch(first + i, std::min(per_batch, total - i)), c.done())) {
      throw std::runtime_error("submit refused");
    }
  }
}

inline std::string http_get(std::uint16_t port, const std::string& target) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context ioc;
  beast::tcp_stream s(ioc);
  s.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(s, req);
  beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(s, buf, res);
  beast::error_code ec;
  s.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  return res.body();
}

// `tern sink` as a child process on 127.0.0.1 with any free port.
class ChildSink {
 public:
  explicit ChildSink(std::vector<std::string> args, std::uint16_t port = 0) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    const char* bin = std::getenv("TERN_SINK_BIN");
    std::vector<std::string> argv{bin ? std::string(bin) : std::string(TERN_BIN_DIR) + "/tern", "sink",
                                  "--listen", "127.0.0.1:" + std::to_string(port)};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int rc = posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0)
      throw std::runtime_error("cannot run " + argv[0] + " (build the tern target or set TERN_SINK_BIN)");
    // "tern sink listening on 127.0.0.1:PORT"
    std::string line;
    char ch;
    while (read(fds[0], &ch, 1) == 1 && ch != '\n') line += ch;
    close(fds[0]);
    auto colon = line.rfind(':');
    if (line.find("listening on") == std::string::npos || colon == std::string::npos) {
      stop();
      throw std::runtime_error("unexpected sink output: " + line);
    }
    port_ = static_cast<std::uint16_t>(std::stoi(line.substr(colon + 1)));
  }
  ~ChildSink() { stop(); }
  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::int64_t count(const std::string& index = "logs-*") {
    auto body = http_get(port_, "/" + index + "/_count");
    auto p = body.find("\"count\":");
    return p == std::string::npos ? -1 : std::stoll(body.substr(p + 8));
  }
  std::string stats() { return http_get(port_, "/_sink/stats"); }
  // SIGTERM and wait: the sink flushes its dump on a clean shutdown.
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

// Value of "key":<int> inside the object that follows `"section":{` in a stats JSON body.
inline std::int64_t stats_value(const std::string& json, const std::string& section, const std::string& key) {
  auto s = section.empty() ? 0 : json.find("\"" + section + "\":{");
  if (s == std::string::npos) return 0;
  auto end = section.empty() ? json.size() : json.find('}', s);
  auto k = json.find("\"" + key + "\":", s);
  if (k == std::string::npos || k > end) return 0;
  return std::stoll(json.substr(k + key.size() + 3));
}

inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("tern-es-test-" + name + "-" + std::to_string(getpid()) + "-" +
              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::vector<std::string> read_lines(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace tern::test
