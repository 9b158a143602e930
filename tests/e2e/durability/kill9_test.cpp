// Nothing acknowledged is lost: `tern run` (filelog -> disk or memory queue -> Elasticsearch
// exporter) is killed with SIGKILL at random moments while lines are being appended and the
// sink rejects some items with 429; after each kill it is restarted on the same state. In the
// end every input line must be in the sink. Duplicates are allowed (at least once) and counted.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using tern::test::Process;

const std::string kTern = std::string(TERN_BIN_DIR) + "/tern";

constexpr int kLines = 60000;
constexpr int kKills = 5;

std::string line_text(int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "line-%08d", i);
  // ~200 bytes, JSON-ish, like the shipping benchmark's lines.
  return std::string(buf) +
         " {\"level\":\"info\",\"service\":\"checkout\",\"msg\":\"payment authorised for order\","
         "\"user_id\":4711,\"request_id\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"pad\":\"xxxxxxxx\"}";
}

// Counts each line-NNNNNNNN id found in the sink's dump.
std::vector<int> count_ids(const fs::path& dump) {
  std::vector<int> seen(kLines, 0);
  std::ifstream f(dump);
  for (std::string l; std::getline(f, l);) {
    const auto p = l.find("line-");
    if (p == std::string::npos || p + 13 > l.size()) continue;
    const int id = std::atoi(l.substr(p + 5, 8).c_str());
    if (id >= 0 && id < kLines) ++seen[id];
  }
  return seen;
}

class KillNine : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tern-kill9-" + std::to_string(::getpid()) + "-" + GetParam());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "logs");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A data stream name: the otel mapping mode sends require_data_stream=true, and the sink,
  // as Elasticsearch, refuses every document bound for a plain index then.
  void write_config(std::uint16_t sink_port) {
    std::ofstream c(dir_ / "collector.yaml");
    c << "receivers:\n  filelog:\n    include: [" << (dir_ / "logs" / "*.log").string()
      << "]\n    start_at: beginning\n    poll_interval: 50ms\n    storage: " << (dir_ / "state").string()
      << "\nexporters:\n  elasticsearch:\n    endpoints: [http://127.0.0.1:" << sink_port
      << "]\n    logs_index: logs-kill9-default\n    flush:\n      interval: 50ms\n      bytes: 200000\n"
         "    retry:\n      initial_interval: 10ms\n      max_interval: 100ms\n";
    if (GetParam() == "disk")
      c << "    sending_queue:\n      enabled: true\n      type: disk\n      directory: " << (dir_ / "queue").string()
        << "\n      segment_size: 1MiB\n      sync: batch\n";
    c << "service:\n  telemetry:\n    metrics:\n      address: 127.0.0.1:0\n  pipelines:\n"
         "    logs: {receivers: [filelog], exporters: [elasticsearch]}\n";
  }

  fs::path dir_;
};

TEST_P(KillNine, EveryLineArrivesAfterRepeatedSigkills) {
  Process sink({kTern, "sink", "--listen", "127.0.0.1:0", "--dump", (dir_ / "dump.ndjson").string(),
                "--item-429-rate", "0.05", "--latency-ms", "20", "--seed", "7"});
  auto line = sink.wait_for_line("tern sink listening on", 20s);
  ASSERT_TRUE(line) << sink.output();
  write_config(*tern::test::parse_listen_port(*line));

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  SCOPED_TRACE("random seed " + std::to_string(seed));

  // Half the lines are there before the first start; the rest are appended while the
  // collector is being killed and restarted, in small bursts.
  std::ofstream log(dir_ / "logs" / "app.log", std::ios::app);
  int written = 0;
  auto append = [&](int n) {
    for (int i = 0; i < n && written < kLines; ++i) log << line_text(written++) << '\n';
    log.flush();
  };
  append(kLines / 2);

  std::atomic<bool> writing{true};
  std::thread writer([&] {
    while (writing.load() && written < kLines) {
      append(500);
      std::this_thread::sleep_for(20ms);
    }
  });

  for (int k = 0; k < kKills; ++k) {
    Process run({kTern, "run", "-c", (dir_ / "collector.yaml").string()});
    ASSERT_TRUE(run.wait_for_line("tern run: ready", 20s)) << run.output();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 2500)(rng)));
    ASSERT_TRUE(run.signal(SIGKILL));
    ASSERT_TRUE(run.wait(10s));
  }
  writing.store(false);
  writer.join();
  append(kLines);  // whatever the writer had not written yet
  ASSERT_EQ(written, kLines);

  // The last run goes to the end: wait until every line is in the dump (flushed each second).
  Process run({kTern, "run", "-c", (dir_ / "collector.yaml").string()});
  ASSERT_TRUE(run.wait_for_line("tern run: ready", 20s)) << run.output();
  const auto deadline = std::chrono::steady_clock::now() + 180s;
  std::vector<int> seen;
  int missing = kLines;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    seen = count_ids(dir_ / "dump.ndjson");
    missing = 0;
    for (int n : seen) missing += n == 0;
    if (missing == 0) break;
  }
  run.signal(SIGTERM);
  EXPECT_EQ(run.wait(60s), 0) << run.output();
  sink.signal(SIGTERM);
  EXPECT_EQ(sink.wait(30s), 0) << sink.output();

  seen = count_ids(dir_ / "dump.ndjson");
  int lost = 0, duplicates = 0, first_lost = -1;
  for (int i = 0; i < kLines; ++i) {
    if (seen[i] == 0 && first_lost < 0) first_lost = i;
    lost += seen[i] == 0;
    duplicates += seen[i] > 1 ? seen[i] - 1 : 0;
  }
  EXPECT_EQ(lost, 0) << "first lost line: " << first_lost << "\n" << run.output();
  std::printf("[ kill9/%s ] %d lines, %d kills, lost %d, duplicates %d (seed %u)\n", GetParam().c_str(), kLines,
              kKills, lost, duplicates, seed);
}

INSTANTIATE_TEST_SUITE_P(Queues, KillNine, ::testing::Values("disk", "memory"),
                         [](const auto& info) { return info.param; });

}  // namespace
