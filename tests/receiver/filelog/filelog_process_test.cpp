// The real binaries: `tern run` with a filelog receiver, a memory queue and the
// Elasticsearch exporter, writing to `tern sink`. 5,000 lines written to a file arrive as
// 5,000 documents with the lines as body text, and the checkpoint ends at the file's end.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/http_client.h"
#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using tern::test::Process;
using tern::test::Stream;
using namespace std::chrono_literals;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";

bool eventually(const std::function<bool()>& pred, std::chrono::seconds deadline = 60s) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

TEST(FilelogProcess, FiveThousandLinesReachTheSinkWithTheirText) {
  const fs::path dir = fs::temp_directory_path() / ("tern-filelog-e2e-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir / "dump.ndjson").string()});
  auto line = sink.wait_for_line("tern sink listening on", 20s);
  ASSERT_TRUE(line) << sink.output();
  const auto sink_port = *tern::test::parse_listen_port(*line);

  constexpr int kLines = 5000;
  auto text = [](int i) { return "filelog e2e line " + std::to_string(i) + " \"quoted\" \xc3\xa9"; };
  const fs::path log = dir / "app.log";
  {
    std::ofstream f(log);
    for (int i = 0; i < kLines / 2; ++i) f << text(i) << "\n";
  }
  std::ofstream(dir / "collector.yaml")
      << "receivers:\n  filelog:\n    include: [" << (dir / "*.log").string()
      << "]\n    start_at: beginning\n    poll_interval: 20ms\n    storage: " << (dir / "state").string()
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port
      << "]\n    flush:\n      interval: 50ms\n    sending_queue:\n      enabled: true\n      type: memory\n"
         "      queue_size: 2000\n"
         "service:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
         "    logs: {receivers: [filelog], exporters: [elasticsearch]}\n";
  Process collector({kTern, "run", "-c", (dir / "collector.yaml").string()});
  ASSERT_TRUE(collector.wait_for_line("tern run: ready", 20s)) << collector.output();
  {
    std::ofstream f(log, std::ios::app);  // the second half while the collector runs
    for (int i = kLines / 2; i < kLines; ++i) f << text(i) << "\n";
  }

  tern::test::HttpClient es(sink_port);
  std::string last;
  EXPECT_TRUE(eventually([&] {
    last = es.call("GET", "/_count").body;
    auto j = nlohmann::json::parse(last, nullptr, false);
    return !j.is_discarded() && j.value("count", 0) >= kLines;
  })) << last;

  // The receiver's counters on the internal metrics endpoint.
  std::uint16_t metrics_port = 0;
  const std::string needle = "internal metrics on http://127.0.0.1:";
  for (const auto& l : collector.lines(Stream::Stderr))
    if (auto at = l.find(needle); at != std::string::npos)
      metrics_port = static_cast<std::uint16_t>(std::stoi(l.substr(at + needle.size())));
  ASSERT_NE(metrics_port, 0) << collector.output();
  const auto metrics = tern::test::HttpClient(metrics_port).call("GET", "/metrics").body;
  EXPECT_NE(metrics.find("tern_filelog_lines_read_total{receiver=\"filelog\"} 5000"), std::string::npos)
      << metrics;

  collector.signal(SIGTERM);
  EXPECT_EQ(collector.wait(30s), 0) << collector.output();
  sink.signal(SIGTERM);
  EXPECT_EQ(sink.wait(30s), 0) << sink.output();

  std::set<std::string> want, got;
  for (int i = 0; i < kLines; ++i) want.insert(text(i));
  std::ifstream dump(dir / "dump.ndjson");
  simdjson::dom::parser parser;
  int docs = 0;
  for (std::string l; std::getline(dump, l);) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(l).get(doc), simdjson::SUCCESS) << l;
    std::string_view body;
    ASSERT_EQ(doc["_source"]["body"]["text"].get_string().get(body), simdjson::SUCCESS) << l;
    got.emplace(body);
    ++docs;
  }
  EXPECT_EQ(docs, kLines);
  EXPECT_EQ(got, want);

  // Everything was indexed, so the checkpoint (written when the tokens settled) is at the end.
  std::ifstream cp(dir / "state" / "filelog-filelog.json");
  ASSERT_TRUE(cp);
  const auto j = nlohmann::json::parse(cp);
  ASSERT_EQ(j["files"].size(), 1u) << j.dump();
  EXPECT_EQ(j["files"][0]["offset"].get<std::uint64_t>(), fs::file_size(log)) << j.dump();
  fs::remove_all(dir);
}

// kill -9 in the middle, then a restart on the same storage: every line reaches the sink
// (some maybe twice: at least once), and the checkpoint ends at the file's end.
TEST(FilelogProcess, NothingIsLostByKill9AndARestart) {
  const fs::path dir = fs::temp_directory_path() / ("tern-filelog-kill-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir / "dump.ndjson").string()});
  auto line = sink.wait_for_line("tern sink listening on", 20s);
  ASSERT_TRUE(line) << sink.output();
  const auto sink_port = *tern::test::parse_listen_port(*line);
  constexpr int kLines = 50000;
  const fs::path log = dir / "app.log";
  {
    std::ofstream f(log);
    for (int i = 0; i < kLines; ++i) f << "kill test line " << i << "\n";
  }
  std::ofstream(dir / "collector.yaml")
      << "receivers:\n  filelog:\n    include: [" << log.string()
      << "]\n    start_at: beginning\n    poll_interval: 20ms\n    storage: " << (dir / "state").string()
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port
      << "]\n    flush:\n      interval: 50ms\n    sending_queue:\n      enabled: true\n      type: memory\n"
         "service:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
         "    logs: {receivers: [filelog], exporters: [elasticsearch]}\n";
  tern::test::HttpClient es(sink_port);
  auto count = [&] {
    auto j = nlohmann::json::parse(es.call("GET", "/_count").body, nullptr, false);
    return j.is_discarded() ? 0 : j.value("count", 0);
  };
  {
    Process first({kTern, "run", "-c", (dir / "collector.yaml").string()});
    ASSERT_TRUE(first.wait_for_line("tern run: ready", 20s)) << first.output();
    ASSERT_TRUE(eventually([&] { return count() > 0; })) << first.output();
    first.signal(SIGKILL);  // wherever it is: reading, queueing, sending
    first.wait(30s);
  }
  const auto checkpoint = [&]() -> std::uint64_t {
    std::ifstream cp(dir / "state" / "filelog-filelog.json");
    auto j = nlohmann::json::parse(cp, nullptr, false);
    if (j.is_discarded() || j["files"].size() != 1) return 0;
    return j["files"][0]["offset"].get<std::uint64_t>();
  };
  Process second({kTern, "run", "-c", (dir / "collector.yaml").string()});
  ASSERT_TRUE(second.wait_for_line("tern run: ready", 20s)) << second.output();
  EXPECT_TRUE(eventually([&] { return checkpoint() == fs::file_size(log); })) << checkpoint();
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(30s), 0) << second.output();
  sink.signal(SIGTERM);
  EXPECT_EQ(sink.wait(30s), 0) << sink.output();

  std::set<std::string> got;
  std::ifstream dump(dir / "dump.ndjson");
  simdjson::dom::parser parser;
  int docs = 0;
  for (std::string l; std::getline(dump, l); ++docs) {
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(l).get(doc), simdjson::SUCCESS) << l;
    got.emplace(std::string_view(doc["_source"]["body"]["text"].get_string().value()));
  }
  EXPECT_GE(docs, kLines);
  RecordProperty("documents", docs);  // above kLines: lines resent after the kill
  EXPECT_EQ(got.size(), static_cast<std::size_t>(kLines));  // every line, whatever was resent
  fs::remove_all(dir);
}

}  // namespace
