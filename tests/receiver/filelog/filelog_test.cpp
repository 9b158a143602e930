// The file receiver against real files in a temp directory and a fake pipeline: every
// line exactly once and in order per file, through rotation, truncation, refusals and
// restarts; the checkpoint moves only past settled batches.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "receiver/filelog/filelog_receiver.h"
#include "test_util.h"

namespace tern::receiver::filelog {
namespace {

using test::append;
using test::eventually;
using test::FakeConsumer;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class FilelogTest : public ::testing::Test {
 protected:
  receiver::filelog::FilelogReceiverConfig cfg(const std::string& pattern = "*.log") {
    receiver::filelog::FilelogReceiverConfig c;
    c.include = {dir_ / pattern};
    c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kBeginning;
    c.poll_interval = 10ms;
    c.storage = dir_ / "state";
    return c;
  }
  // Small batches (max_batch_lines), so that a few dozen lines make several.
  static receiver::filelog::FilelogReceiverConfig batched(receiver::filelog::FilelogReceiverConfig c,
                                                          std::uint64_t max_lines = 7) {
    c.max_batch_lines = max_lines;
    return c;
  }
  FilelogReceiverOptions small_batches() {
    FilelogReceiverOptions o;
    o.read_chunk = 100;
    o.checkpoint_interval = 0ms;
    return o;
  }
  static std::vector<std::string> numbered(const std::string& prefix, int from, int to) {
    std::vector<std::string> v;
    for (int i = from; i < to; ++i) v.push_back(prefix + std::to_string(i));
    return v;
  }
  static std::string join(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
  // Offsets in the checkpoint file, by path.
  std::map<std::string, std::uint64_t> checkpoint(const FilelogReceiver& r) {
    std::map<std::string, std::uint64_t> out;
    std::ifstream f(r.checkpoint_path());
    if (!f) return out;
    const auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) return out;
    for (const auto& e : j["files"]) out[e["path"].get<std::string>()] = e["offset"].get<std::uint64_t>();
    return out;
  }

  test::TempDir dir_;
  FakeConsumer consumer_;
};

TEST_F(FilelogTest, ReadsEveryLineOnceAndInOrderPerFile) {
  const auto a = numbered("a-", 0, 1500), b = numbered("b-", 0, 1200);
  append(dir_ / "a.log", join(std::vector<std::string>(a.begin(), a.begin() + 500)));
  FilelogReceiver r("filelog", batched(cfg()), consumer_, small_batches());
  r.start();
  // Appended while the receiver reads, in uneven pieces, a.log and b.log interleaved.
  std::thread writer([&] {
    for (int i = 500; i < 1500; i += 100) {
      append(dir_ / "a.log", join(std::vector<std::string>(a.begin() + i, a.begin() + i + 100)));
      const int j = (i - 500) * 12 / 10;
      append(dir_ / "b.log", join(std::vector<std::string>(b.begin() + j, b.begin() + j + 120)));
    }
  });
  writer.join();
  ASSERT_TRUE(eventually([&] { return consumer_.count() >= 2700; })) << consumer_.count();
  EXPECT_EQ(consumer_.bodies("a.log"), a);
  EXPECT_EQ(consumer_.bodies("b.log"), b);
  const auto s = r.stats();
  EXPECT_EQ(s.lines_read, 2700u);
  EXPECT_EQ(s.files_open, 2u);
  std::uint64_t bytes = 0;
  for (const auto& l : a) bytes += l.size() + 1;
  for (const auto& l : b) bytes += l.size() + 1;
  EXPECT_EQ(s.bytes_read, bytes);
  EXPECT_GT(s.batches_sent, 2700u / 7);
  r.shutdown();
  EXPECT_EQ(checkpoint(r)[dir_ / "a.log"], std::filesystem::file_size(dir_ / "a.log"));
}

TEST_F(FilelogTest, RecordsCarryFileAttributesConfiguredAttributesAndATimestamp) {
  auto c = cfg();
  c.include_file_path = true;
  c.attributes = {{"env", "test"}, {"team", "tern"}};
  append(dir_ / "x.log", "hello\n");
  FakeConsumer consumer;
  FilelogReceiver r("filelog/attrs", c, consumer);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer.count() == 1; }));
  const auto l = consumer.lines()[0];
  EXPECT_EQ(l.body, "hello");
  const std::vector<std::pair<std::string, std::string>> want{
      {"env", "test"}, {"team", "tern"}, {"log.file.name", "x.log"}, {"log.file.path", dir_ / "x.log"}};
  EXPECT_EQ(l.attrs, want);
  EXPECT_NE(r.checkpoint_path().find("filelog-filelog_attrs.json"), std::string::npos);
}

// The Collector's `resource` (resource attributes of every record) and the names after
// symlinks (`include_file_name_resolved`, `include_file_path_resolved`).
TEST_F(FilelogTest, ResourceAttributesAndResolvedNames) {
  auto c = cfg("link.log");
  c.resource = {{"service.name", "shop"}, {"deployment.environment", "prod"}};
  c.include_file_name_resolved = true;
  c.include_file_path_resolved = true;
  const std::string target = dir_ / "real/app-2024.log";
  fs::create_directories(dir_ / "real");
  append(target, "one\n");
  fs::create_symlink(target, dir_ / "link.log");
  FakeConsumer consumer;
  FilelogReceiver r("filelog", c, consumer);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer.count() == 1; }));
  const auto l = consumer.lines()[0];
  const std::vector<std::pair<std::string, std::string>> resource{{"deployment.environment", "prod"},
                                                                  {"service.name", "shop"}};
  EXPECT_EQ(l.resource, resource);
  const std::vector<std::pair<std::string, std::string>> attrs{
      {"log.file.name", "link.log"},
      {"log.file.name_resolved", "app-2024.log"},
      {"log.file.path_resolved", fs::canonical(target).string()}};
  EXPECT_EQ(l.attrs, attrs);
}

// exclude_older_than: a file not modified for that long is not read; a fresh one is.
TEST_F(FilelogTest, ExcludeOlderThanSkipsStaleFiles) {
  auto c = cfg();
  c.exclude_older_than = std::chrono::hours(1);
  append(dir_ / "old.log", "stale\n");
  fs::last_write_time(dir_ / "old.log", fs::file_time_type::clock::now() - std::chrono::hours(2));
  append(dir_ / "new.log", "fresh\n");
  FakeConsumer consumer;
  FilelogReceiver r("filelog", c, consumer);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer.count() == 1; }));
  std::this_thread::sleep_for(50ms);  // several polls: old.log stays unread
  EXPECT_EQ(consumer.bodies(), (std::vector<std::string>{"fresh"}));
}

// preserve_leading/trailing_whitespaces: false trims each record (Tern keeps them by default).
TEST_F(FilelogTest, WhitespaceIsKeptUnlessTrimmingIsAsked) {
  append(dir_ / "w.log", "  both  \n\tlead\ntrail \t\n   \n");
  for (const auto& [lead, trail, want] :
       {std::tuple{false, false, std::vector<std::string>{"  both  ", "\tlead", "trail \t", "   "}},
        std::tuple{true, false, std::vector<std::string>{"both  ", "lead", "trail \t", ""}},
        std::tuple{true, true, std::vector<std::string>{"both", "lead", "trail", ""}}}) {
    auto c = cfg();
    c.storage.clear();
    c.trim_leading = lead;
    c.trim_trailing = trail;
    FakeConsumer consumer;
    FilelogReceiver r("filelog", c, consumer);
    r.start();
    ASSERT_TRUE(eventually([&] { return consumer.count() == 4; }));
    EXPECT_EQ(consumer.bodies(), want) << lead << trail;
  }
}

TEST_F(FilelogTest, AnUnterminatedLastLineWaitsForItsNewline) {
  append(dir_ / "p.log", "first\nhalf a ");
  FilelogReceiver r("filelog", batched(cfg()), consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
  append(dir_ / "p.log", "line\nnext\n");
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; }));
  EXPECT_EQ(consumer_.bodies(), (std::vector<std::string>{"first", "half a line", "next"}));
}

// multiline with a start pattern: a stack trace is one record with its lines joined by
// '\n'; lines before the first start are a record of their own; the last record goes out
// when no line came for force_flush_period.
TEST_F(FilelogTest, MultilineStartPatternGathersStackTraces) {
  auto c = cfg();
  c.multiline_start = R"(^\d{4}-\d{2}-\d{2} )";
  c.force_flush_period = 50ms;
  append(dir_ / "java.log",
         "orphan continuation\n"
         "2024-01-01 10:00:00 ERROR boom\n"
         "java.lang.IllegalStateException: x\n"
         "\tat A.b(A.java:1)\n"
         "2024-01-01 10:00:01 INFO fine\n"
         "2024-01-01 10:00:02 WARN last\n"
         "\tcontinued\n");
  FilelogReceiver r("filelog", c, consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 4; })) << consumer_.count();
  EXPECT_EQ(consumer_.bodies(),
            (std::vector<std::string>{"orphan continuation",
                                      "2024-01-01 10:00:00 ERROR boom\njava.lang.IllegalStateException: x\n"
                                      "\tat A.b(A.java:1)",
                                      "2024-01-01 10:00:01 INFO fine",
                                      "2024-01-01 10:00:02 WARN last\n\tcontinued"}));
  EXPECT_EQ(r.stats().lines_read, 4u);  // records
  r.shutdown();
  EXPECT_EQ(checkpoint(r)[dir_ / "java.log"], std::filesystem::file_size(dir_ / "java.log"));
}

// Without force flush (0) the last record waits for the next start; the checkpoint stays
// before it, so a restart reads its lines again and nothing is lost.
TEST_F(FilelogTest, MultilineRecordNotYetEndedIsNotCheckpointed) {
  auto c = cfg();
  c.multiline_start = "^START";
  c.force_flush_period = 0ms;
  const std::string first = "START one\n  a\n";
  append(dir_ / "m.log", first + "START two\n  b\n");
  {
    FilelogReceiver r("filelog", c, consumer_, small_batches());
    r.start();
    ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
    std::this_thread::sleep_for(100ms);  // many polls: "START two" must still wait
    EXPECT_EQ(consumer_.count(), 1u);
    r.shutdown();
    EXPECT_EQ(checkpoint(r)[dir_ / "m.log"], first.size());
  }
  FakeConsumer again;
  append(dir_ / "m.log", "START three\n");
  FilelogReceiver r2("filelog", c, again, small_batches());
  r2.start();
  ASSERT_TRUE(eventually([&] { return again.count() == 1; }));
  EXPECT_EQ(again.bodies(), (std::vector<std::string>{"START two\n  b"}));
}

// With an end pattern a record ends at the line that matches it; a record is cut at
// max_log_size (and counted truncated), the rest of its lines skipped.
TEST_F(FilelogTest, MultilineEndPatternAndMaxLogSize) {
  auto c = cfg();
  c.multiline_end = R"(;$)";
  c.max_log_size = 16;
  append(dir_ / "e.log", "a\nb;\nccccccccc\ndddddddddd\neee;\nf;\n");
  FilelogReceiver r("filelog", c, consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; })) << consumer_.count();
  EXPECT_EQ(consumer_.bodies(), (std::vector<std::string>{"a\nb;", "ccccccccc\ndddddd", "f;"}));
  EXPECT_EQ(r.stats().lines_truncated, 1u);
}

// A container operator first: CRI partial lines (tag P, what a runtime writes for a line over
// 16 KiB) are joined with their last part (tag F) into one record, with that part's time,
// stream and tag, as the Collector's container parser does. Whole lines pass as they are.
TEST_F(FilelogTest, ContainerJoinsCriPartialLines) {
  auto c = cfg();
  receiver::filelog::FilelogOperatorConfig op;
  op.type = receiver::filelog::FilelogOperatorConfig::Type::kContainer;
  op.add_metadata_from_filepath = false;
  c.operators = {op};
  append(dir_ / "0.log",
         "2024-04-13T07:59:37.000000001Z stdout F single\n"
         "2024-04-13T07:59:38.000000001Z stderr P part one, \n"
         "2024-04-13T07:59:38.000000002Z stderr P part two, \n"
         "2024-04-13T07:59:38.000000003Z stderr F end\n"
         "2024-04-13T07:59:39.000000001Z stdout F after\n");
  FilelogReceiver r("filelog", c, consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; })) << consumer_.count();
  const auto lines = consumer_.lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].body, "single");
  EXPECT_EQ(lines[1].body, "part one, part two, end");
  EXPECT_EQ(lines[1].time, 1712995178000000003ull);  // the newest part's
  EXPECT_EQ(lines[2].body, "after");
  const auto attr = [](const test::Line& l, const std::string& k) {
    for (const auto& [key, v] : l.attrs)
      if (key == k) return v;
    return std::string("<none>");
  };
  EXPECT_EQ(attr(lines[1], "log.iostream"), "stderr");
  EXPECT_EQ(attr(lines[1], "logtag"), "F");
  EXPECT_EQ(r.stats().lines_read, 3u);  // records
  r.shutdown();
  EXPECT_EQ(checkpoint(r)[dir_ / "0.log"], std::filesystem::file_size(dir_ / "0.log"));
}

// Parts still waiting for their last one are not checkpointed: a restart reads them again
// and joins them with what follows. Without a last part they go out after
// force_flush_period as they are (tag P); a non-CRI line between ends them too.
TEST_F(FilelogTest, CriPartialLinesWaitingAreNotCheckpointed) {
  auto c = cfg();
  receiver::filelog::FilelogOperatorConfig op;
  op.type = receiver::filelog::FilelogOperatorConfig::Type::kContainer;
  op.add_metadata_from_filepath = false;
  c.operators = {op};
  c.force_flush_period = 0ms;  // parts wait for their last one however long it takes
  const std::string first = "2024-04-13T07:59:37Z stdout F one\n";
  append(dir_ / "0.log", first + "2024-04-13T07:59:38Z stdout P two-a \n");
  {
    FilelogReceiver r("filelog", c, consumer_, small_batches());
    r.start();
    ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
    std::this_thread::sleep_for(100ms);  // many polls: the part must still wait
    EXPECT_EQ(consumer_.count(), 1u);
    r.shutdown();
    EXPECT_EQ(checkpoint(r)[dir_ / "0.log"], first.size());
  }
  FakeConsumer again;
  append(dir_ / "0.log", "2024-04-13T07:59:38Z stdout F two-b\n2024-04-13T07:59:39Z stdout P three \n");
  c.force_flush_period = 50ms;
  {
    FilelogReceiver r2("filelog", c, again, small_batches());
    r2.start();
    ASSERT_TRUE(eventually([&] { return again.count() == 2; })) << again.count();
    EXPECT_EQ(again.bodies(), (std::vector<std::string>{"two-a two-b", "three "}));
    r2.shutdown();
  }
  FakeConsumer third;
  append(dir_ / "0.log", "2024-04-13T07:59:40Z stdout P four \nnot a CRI line\n");
  FilelogReceiver r3("filelog", c, third, small_batches());
  r3.start();
  ASSERT_TRUE(eventually([&] { return third.count() == 2; })) << testing::PrintToString(third.bodies());
  EXPECT_EQ(third.bodies(), (std::vector<std::string>{"four ", "not a CRI line"}));
}

// The container operator's max_log_size bounds a joined line: what is held goes out when the
// next part would pass it, and that part starts the next record.
TEST_F(FilelogTest, CriPartialLinesAreBoundedByMaxLogSize) {
  auto c = cfg();
  receiver::filelog::FilelogOperatorConfig op;
  op.type = receiver::filelog::FilelogOperatorConfig::Type::kContainer;
  op.add_metadata_from_filepath = false;
  op.max_log_size = 10;
  c.operators = {op};
  append(dir_ / "0.log",
         "2024-04-13T07:59:38Z stdout P aaaa\n"
         "2024-04-13T07:59:38Z stdout P bbbb\n"
         "2024-04-13T07:59:38Z stdout P cccc\n"
         "2024-04-13T07:59:38Z stdout F dd\n");
  FilelogReceiver r("filelog", c, consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; })) << consumer_.count();
  EXPECT_EQ(consumer_.bodies(), (std::vector<std::string>{"aaaabbbb", "ccccdd"}));
}

TEST_F(FilelogTest, StartAtEndSkipsWhatIsThereAtStartUpButReadsNewFilesFromTheirBeginning) {
  auto c = cfg();
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kEnd;
  append(dir_ / "old.log", "old 1\nold 2\n");
  FilelogReceiver r("filelog", batched(c), consumer_, small_batches());
  r.start();
  append(dir_ / "old.log", "new 1\n");
  append(dir_ / "fresh.log", "fresh 1\nfresh 2\n");
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; }));
  EXPECT_EQ(consumer_.bodies("old.log"), std::vector<std::string>{"new 1"});
  EXPECT_EQ(consumer_.bodies("fresh.log"), (std::vector<std::string>{"fresh 1", "fresh 2"}));
}

TEST_F(FilelogTest, IncludeAndExcludePatterns) {
  auto c = cfg();
  c.include = {dir_ / "*.log", dir_ / "extra.txt"};
  c.exclude = {dir_ / "skip-*.log"};
  append(dir_ / "a.log", "a\n");
  append(dir_ / "skip-me.log", "skipped\n");
  append(dir_ / "other.txt", "not included\n");
  append(dir_ / "extra.txt", "extra\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; }));
  // A later file that is excluded stays out; one that is included is picked up.
  append(dir_ / "skip-later.log", "skipped\n");
  append(dir_ / "b.log", "b\n");
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; }));
  r.shutdown();
  auto bodies = consumer_.bodies();
  std::sort(bodies.begin(), bodies.end());
  EXPECT_EQ(bodies, (std::vector<std::string>{"a", "b", "extra"}));
  EXPECT_EQ(r.stats().files_open, 0u);
}

TEST_F(FilelogTest, LongLinesAreTruncatedAndCounted) {
  auto c = cfg();
  c.max_log_size = 16;
  const std::string huge(300 * 1024, 'h');
  append(dir_ / "t.log",
         "short\n" + std::string(16, 'e') + "\r\n" + std::string(17, 'x') + "\n" + huge + "\nafter\n");
  FilelogReceiver r("filelog", batched(c), consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 5; }));
  EXPECT_EQ(consumer_.bodies(), (std::vector<std::string>{"short", std::string(16, 'e'), std::string(16, 'x'),
                                                          std::string(16, 'h'), "after"}));
  EXPECT_EQ(r.stats().lines_truncated, 2u);
}

TEST_F(FilelogTest, JsonLinesBecomeAttributesAndTheMessageTheBody) {
  auto c = cfg();
  c.parse = receiver::filelog::FilelogReceiverConfig::Parse::kJson;
  append(dir_ / "j.log",
         R"({"message":"hello","level":"info","n":3,"nested":{"a":[1,2]},"log.file.name":"spoofed"})"
         "\n"
         R"({"msg":"short form","x":"y"})"
         "\n"
         R"({"no":"message"})"
         "\n"
         "not json at all\n"
         "[1,2,3]\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 5; }));
  const auto lines = consumer_.lines();
  EXPECT_EQ(lines[0].body, "hello");
  EXPECT_EQ(lines[0].attrs, (std::vector<std::pair<std::string, std::string>>{{"level", "info"},
                                                                              {"log.file.name", "j.log"}}));
  EXPECT_EQ(lines[1].body, "short form");
  EXPECT_EQ(lines[1].attrs[0], (std::pair<std::string, std::string>{"x", "y"}));
  EXPECT_EQ(lines[2].body, R"({"no":"message"})");
  EXPECT_EQ(lines[3].body, "not json at all");
  EXPECT_EQ(lines[4].body, "[1,2,3]");
  EXPECT_EQ(r.stats().json_errors, 2u);
}

TEST_F(FilelogTest, JsonValuesKeepTheirTypes) {
  auto c = cfg();
  c.parse = receiver::filelog::FilelogReceiverConfig::Parse::kJson;
  c.include_file_name = false;
  append(dir_ / "j.log",
         R"({"i":-3,"u":18446744073709551615,"d":1.5,"b":true,"z":null,"a":[1,"s"],"o":{"k":"v"}})"
         "\n");
  struct Typed : FakeConsumer {
    std::vector<pdata::ValueKind> kinds;
    std::int64_t i = 0;
    component::ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
      for (const auto& kv : b->resource_logs[0].scope_logs[0].log_records[0].attributes) {
        kinds.push_back(kv.value.kind);
        if (kv.key == "i") i = kv.value.int_value;
      }
      return FakeConsumer::consume_logs(std::move(b));
    }
  } typed;
  FilelogReceiver r("filelog", c, typed);
  r.start();
  ASSERT_TRUE(eventually([&] { return typed.count() == 1; }));
  r.shutdown();
  using K = pdata::ValueKind;
  EXPECT_EQ(typed.kinds,
            (std::vector<K>{K::Int, K::Double, K::Double, K::Bool, K::Empty, K::Array, K::KvList}));
  EXPECT_EQ(typed.i, -3);
}

// Rotation by rename + create while a writer keeps writing: the renamed file is read to
// its end, the new one from its start; nothing lost, nothing twice.
// `wait_seen`: when the renamed file leaves the patterns, a file that is created and
// rotated away again between two scans is never seen at all (as with any poller); so the
// writer waits until the receiver has read from the current file before rotating it.
void rotate_while_writing(const test::TempDir& dir, FakeConsumer& consumer,
                          const receiver::filelog::FilelogReceiverConfig& c, FilelogReceiverOptions o,
                          bool wait_seen) {
  constexpr int kLines = 6000, kPerFile = 700;
  FilelogReceiver r("filelog", c, consumer, o);
  r.start();
  {
    std::ofstream out(dir / "app.log", std::ios::app);
    int generation = 0;
    for (int i = 0; i < kLines; ++i) {
      out << "line " << i << "\n";
      if (i % 50 == 0) out.flush();
      if (i % kPerFile == kPerFile - 1) {
        out.flush();
        if (wait_seen) {
          const std::string first = "line " + std::to_string(i + 1 - kPerFile);
          ASSERT_TRUE(eventually([&] {
            const auto b = consumer.bodies();
            return std::find(b.begin(), b.end(), first) != b.end();
          }));
        }
        // The writer keeps its old descriptor for a moment after the rename, as real ones do.
        std::filesystem::rename(dir / "app.log", dir / ("app.log." + std::to_string(generation++)));
        out << "late " << i << "\n";
        out.close();
        out.open(dir / "app.log", std::ios::app);
      }
    }
  }
  const int late = kLines / kPerFile;
  ASSERT_TRUE(eventually([&] { return consumer.count() >= static_cast<std::size_t>(kLines + late); }))
      << consumer.count();
  std::this_thread::sleep_for(100ms);  // room for duplicates to show up (not a timing assert)
  r.shutdown();
  std::vector<int> seen;
  std::map<int, int> last_by_generation;
  int lates = 0;
  for (const auto& b : consumer.bodies()) {
    if (b.rfind("late ", 0) == 0) {
      ++lates;
      continue;
    }
    const int n = std::stoi(b.substr(5));
    const int gen = n / kPerFile;
    if (last_by_generation.count(gen)) {
      EXPECT_GT(n, last_by_generation[gen]) << "out of order within a file";
    }
    last_by_generation[gen] = n;
    seen.push_back(n);
  }
  EXPECT_EQ(lates, late);
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kLines));
  for (int i = 0; i < kLines; ++i) ASSERT_EQ(seen[i], i);
}

TEST_F(FilelogTest, RenameAndCreateRotationOutOfThePattern) {
  rotate_while_writing(dir_, consumer_, batched(cfg("app.log")), small_batches(), true);
}

TEST_F(FilelogTest, RenameAndCreateRotationWithinThePattern) {
  rotate_while_writing(dir_, consumer_, batched(cfg("app.log*")), small_batches(), false);
}

TEST_F(FilelogTest, CopyTruncateStartsAgainAtZero) {
  FilelogReceiver r("filelog", batched(cfg()), consumer_, small_batches());
  r.start();
  const auto before = numbered("before ", 0, 300);
  append(dir_ / "ct.log", join(before));
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 300; }));
  // logrotate's copytruncate: copy away (not matched: .1), then truncate in place.
  std::filesystem::copy_file(dir_ / "ct.log", dir_ / "ct.log.1");
  std::filesystem::resize_file(dir_ / "ct.log", 0);
  const auto after = numbered("after ", 0, 40);
  append(dir_ / "ct.log", join(after));
  ASSERT_TRUE(eventually([&] { return consumer_.count() >= 340; }));
  // And once more, the new content being longer than what was read before.
  ASSERT_TRUE(eventually([&] { return r.stats().lines_read == 340; }));
  std::filesystem::resize_file(dir_ / "ct.log", 0);
  const auto again = numbered("again and again ", 0, 500);
  append(dir_ / "ct.log", join(again));
  ASSERT_TRUE(eventually([&] { return consumer_.count() >= 840; }));
  r.shutdown();
  auto want = before;
  want.insert(want.end(), after.begin(), after.end());
  want.insert(want.end(), again.begin(), again.end());
  EXPECT_EQ(consumer_.bodies(), want);
}

TEST_F(FilelogTest, BackPressureIsWaitedOutAndTheSameBatchResent) {
  consumer_.refuse(5);
  append(dir_ / "bp.log", join(numbered("bp ", 0, 50)));
  FilelogReceiver r("filelog", batched(cfg()), consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 50; }));
  EXPECT_EQ(consumer_.bodies(), numbered("bp ", 0, 50));
  EXPECT_EQ(r.stats().batches_refused, 5u);
  r.shutdown();
  // The refused attempts' tokens (failed by the consumer) did not stop the checkpoint.
  EXPECT_EQ(checkpoint(r)[dir_ / "bp.log"], std::filesystem::file_size(dir_ / "bp.log"));
}

TEST_F(FilelogTest, InvalidBatchesAreCountedAndSkipped) {
  consumer_.invalid(1);
  append(dir_ / "inv.log", join(numbered("inv ", 0, 10)));
  auto o = small_batches();
  FilelogReceiver r("filelog", batched(cfg(), 5), consumer_, o);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 5; }));
  EXPECT_EQ(consumer_.bodies(), numbered("inv ", 5, 10));
  EXPECT_EQ(r.stats().batches_invalid, 1u);
  r.shutdown();
  EXPECT_EQ(checkpoint(r)[dir_ / "inv.log"], std::filesystem::file_size(dir_ / "inv.log"));
}

TEST_F(FilelogTest, CheckpointAdvancesOnlyPastSettledBatchesAndARestartResumesThere) {
  const auto lines = numbered("cp line ", 0, 10);  // 10 bytes each with the newline
  append(dir_ / "cp.log", join(lines));
  auto o = small_batches();
  o.max_unsettled_batches = 16;
  const std::string path = dir_ / "cp.log";
  {
    consumer_.hold_tokens(true);
    FilelogReceiver r("filelog", batched(cfg(), 1), consumer_, o);
    r.start();
    ASSERT_TRUE(eventually([&] { return consumer_.held() == 10; }));
    // Settled out of order, from other threads: nothing moves until the first is settled.
    std::thread([&] { consumer_.take(2).reset(), consumer_.take(1).reset(); }).join();
    r.shutdown();  // writes the checkpoint; later settlements still update it
    EXPECT_EQ(checkpoint(r)[path], 0u);
    std::thread([&] { consumer_.take(0).reset(); }).join();
    EXPECT_EQ(checkpoint(r)[path], 30u);
    std::thread([&] { consumer_.take(3).reset(); }).join();
    EXPECT_EQ(checkpoint(r)[path], 40u);
    // Batch 4 is not delivered: the checkpoint stays before it, whatever settles after.
    auto t4 = consumer_.take(4);
    t4->fail();
    t4.reset();
    consumer_.take(5).reset();
    EXPECT_EQ(checkpoint(r)[path], 40u);
    consumer_.fail_held();
    EXPECT_EQ(checkpoint(r)[path], 40u);
  }
  // A new receiver on the same storage: lines 4.. again, 0..3 not.
  FakeConsumer second;
  auto c = cfg();
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kEnd;  // the checkpoint wins over start_at
  FilelogReceiver r2("filelog", batched(c, 1), second, o);
  r2.start();
  ASSERT_TRUE(eventually([&] { return second.count() == 6; }));
  append(path, "cp line 10\n");
  ASSERT_TRUE(eventually([&] { return second.count() == 7; }));
  EXPECT_EQ(second.bodies(), numbered("cp line ", 4, 11));
  r2.shutdown();
  EXPECT_EQ(checkpoint(r2)[path], std::filesystem::file_size(path));
}

TEST_F(FilelogTest, ARestartAfterRotationReadsTheNewFileFromItsStart) {
  append(dir_ / "r.log", join(numbered("one ", 0, 20)));
  {
    FilelogReceiver r("filelog", batched(cfg("r.log")), consumer_, small_batches());
    r.start();
    ASSERT_TRUE(eventually([&] { return consumer_.count() == 20; }));
    r.shutdown();
  }
  // Rotated while the collector was down: the new file is new, start_at does not apply.
  std::filesystem::rename(dir_ / "r.log", dir_ / "r.log.1");
  append(dir_ / "r.log", join(numbered("two ", 0, 5)));
  FakeConsumer second;
  auto c = cfg("r.log");
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kEnd;
  FilelogReceiver r2("filelog", batched(c), second, small_batches());
  r2.start();
  ASSERT_TRUE(eventually([&] { return second.count() == 5; }));
  EXPECT_EQ(second.bodies(), numbered("two ", 0, 5));
}

TEST_F(FilelogTest, ACorruptCheckpointMeansReadingFromTheBeginning) {
  std::filesystem::create_directories(dir_ / "state");
  std::ofstream(dir_ / "state/filelog-filelog.json") << "{ not json";
  append(dir_ / "c.log", "x\ny\n");
  auto c = cfg();
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kEnd;
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; }));
  r.shutdown();
  EXPECT_EQ(checkpoint(r)[dir_ / "c.log"], 4u);
}

TEST_F(FilelogTest, AFileDeletedWhileOpenIsReadToItsEndThenClosed) {
  FilelogReceiver r("filelog", batched(cfg()), consumer_, small_batches());
  r.start();
  append(dir_ / "del.log", join(numbered("d ", 0, 100)));
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 100; }));
  {
    // Written and deleted at once: the receiver may or may not have read them before.
    std::ofstream f(dir_ / "del.log", std::ios::app);
    std::filesystem::remove(dir_ / "del.log");
    f << join(numbered("d ", 100, 150)) << "no newline";
  }
  ASSERT_TRUE(eventually([&] { return r.stats().files_open == 0; }));
  auto want = numbered("d ", 0, 150);
  want.push_back("no newline");  // the file is gone: its last line cannot grow any more
  EXPECT_EQ(consumer_.bodies(), want);
  r.shutdown();
  EXPECT_TRUE(checkpoint(r).empty());
}

TEST_F(FilelogTest, UnreadableAndSpecialFilesAreSkippedAndCounted) {
  append(dir_ / "good.log", "good\n");
  std::filesystem::create_directory(dir_ / "dir.log");
  std::filesystem::create_symlink(dir_ / "loop2.log", dir_ / "loop1.log");
  std::filesystem::create_symlink(dir_ / "loop1.log", dir_ / "loop2.log");
  std::filesystem::create_symlink(dir_ / "missing", dir_ / "dangling.log");
  ASSERT_EQ(::mkfifo((dir_ / "fifo.log").c_str(), 0644), 0);
  append(dir_ / "secret.log", "secret\n");
  ::chmod((dir_ / "secret.log").c_str(), 0);
  const bool root = ::geteuid() == 0;  // root reads mode-000 files anyway
  FilelogReceiver r("filelog", cfg(), consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == (root ? 2u : 1u); }));
  // The directory, the fifo, the two looping links and the dangling one (it was skipped
  // without a word), and the unreadable file unless root.
  ASSERT_TRUE(eventually([&] { return r.stats().file_errors == (root ? 5u : 6u); }));
  append(dir_ / "good.log", "still going\n");
  ASSERT_TRUE(eventually([&] { return consumer_.bodies("good.log").size() == 2; }));
  r.shutdown();
  EXPECT_EQ(r.stats().files_open, 0u);
}

TEST_F(FilelogTest, BinaryDataIsReadAsLinesOfBytes) {
  auto c = cfg();
  c.max_log_size = 64;
  std::mt19937 rng(42);
  std::string data;
  for (int i = 0; i < 200000; ++i) data += static_cast<char>(rng() & 0xff);
  data += '\n';
  const auto newlines = std::count(data.begin(), data.end(), '\n');
  append(dir_ / "bin.log", data);
  FilelogReceiver r("filelog", batched(c), consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == static_cast<std::size_t>(newlines); }));
  for (const auto& b : consumer_.bodies()) EXPECT_LE(b.size(), 64u);
  EXPECT_EQ(r.stats().bytes_read, data.size());
}

TEST_F(FilelogTest, ItsOwnCheckpointIsNeverFollowed) {
  auto c = cfg("*");
  c.include = {dir_ / "*", dir_ / "state/*"};
  append(dir_ / "a", "a\n");
  FilelogReceiver r("filelog", batched(c), consumer_, small_batches());
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
  append(dir_ / "a", "b\n");  // a second checkpoint write while both patterns are scanned
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; }));
  ASSERT_TRUE(eventually([&] { return checkpoint(r)[dir_ / "a"] == 4; }));
  append(dir_ / "a", "c\n");
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; }));
  r.shutdown();
  EXPECT_EQ(consumer_.bodies(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.stats().files_open, 0u);
}

TEST_F(FilelogTest, NothingIsCheckpointedWithoutStorage) {
  auto c = cfg();
  c.storage.clear();
  append(dir_ / "n.log", "n\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
  r.shutdown();
  EXPECT_TRUE(r.checkpoint_path().empty());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state"));
}

TEST_F(FilelogTest, AStorageDirectoryThatCannotBeCreatedIsAStartError) {
  append(dir_ / "file", "x");
  auto c = cfg();
  c.storage = dir_ / "file/sub";
  FilelogReceiver r("filelog", c, consumer_);
  EXPECT_THROW(r.start(), std::runtime_error);
}

// The receiver reads ahead only as far as `max_unsettled_batches`: the file is the buffer,
// not the pipeline's memory.
TEST_F(FilelogTest, ReadingWaitsWhileTooManyBatchesAreUnsettled) {
  append(dir_ / "ahead.log", join(numbered("ahead ", 0, 10)));
  auto o = small_batches();
  o.max_unsettled_batches = 3;
  consumer_.hold_tokens(true);
  FilelogReceiver r("filelog", batched(cfg(), 1), consumer_, o);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.held() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // time to (wrongly) read on
  EXPECT_EQ(consumer_.held(), 3u);
  consumer_.take(0).reset();  // one settles: exactly one more batch may go
  ASSERT_TRUE(eventually([&] { return consumer_.held() == 4; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(consumer_.held(), 4u);
  consumer_.hold_tokens(false);
  for (std::size_t i = 1; i < 4; ++i) consumer_.take(i).reset();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 10; }));
  r.shutdown();
}

// The checkpoint is written when the receiver starts, files or none: a first run that
// matched nothing (or ended before the first periodic write) left none, and the next start
// applied `start_at: end` again, skipping what had been written in between.
TEST_F(FilelogTest, TheCheckpointIsWrittenAtStartSoStartAtEndAppliesOnlyOnce) {
  auto c = cfg();
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kEnd;
  {
    FilelogReceiver r("filelog", c, consumer_);
    r.start();
    EXPECT_TRUE(fs::exists(r.checkpoint_path()));
    r.shutdown();
  }
  append(dir_ / "app.log", "written while stopped 1\nwritten while stopped 2\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; })) << consumer_.count();
  EXPECT_EQ(consumer_.bodies("app.log"),
            (std::vector<std::string>{"written while stopped 1", "written while stopped 2"}));
}

// `*` in an exclude pattern matches a leading dot, so an include that names dot-files can
// exclude some of them.
TEST_F(FilelogTest, ExcludeMatchesDotFiles) {
  auto c = cfg(".*.log");
  c.exclude = {dir_ / "*hidden*"};
  append(dir_ / ".hidden.log", "hidden\n");
  append(dir_ / ".shown.log", "shown\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 1; }));
  std::this_thread::sleep_for(50ms);  // a few more polls: still only the one
  EXPECT_EQ(consumer_.bodies(), std::vector<std::string>{"shown"});
}

// At most max_concurrent_files files are open at once (and never so many that the process
// has no descriptor left for its sockets); the others are opened as followed ones close.
TEST_F(FilelogTest, MaxConcurrentFilesBoundsTheOpenFiles) {
  auto c = cfg();
  c.max_concurrent_files = 2;
  append(dir_ / "a.log", "a\n");
  append(dir_ / "b.log", "b\n");
  append(dir_ / "c.log", "c\n");
  FilelogReceiver r("filelog", c, consumer_);
  r.start();
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 2; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(consumer_.count(), 2u);
  EXPECT_EQ(r.stats().files_open, 2u);
  // One of the followed files goes away: it is read to its end and closed, and the third
  // file takes its place.
  auto bodies = consumer_.bodies();
  fs::remove(dir_ / (bodies[0] + ".log"));
  ASSERT_TRUE(eventually([&] { return consumer_.count() == 3; })) << consumer_.count();
  bodies = consumer_.bodies();
  std::sort(bodies.begin(), bodies.end());
  EXPECT_EQ(bodies, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.stats().files_open, 2u);
}

// A directory unreadable for a moment (glob matches nothing in it) does not make its files
// look rotated: they were closed, dropped from the checkpoint and, matched again, read once
// more from offset 0, without a word. Root reads any directory, so as root the scenario runs
// in a child process as `nobody`, in a directory it owns.
std::string unreadable_directory_scenario(const fs::path& dir) {
  const fs::path logs = dir / "logs";
  receiver::filelog::FilelogReceiverConfig c;
  c.include = {logs / "*.log"};
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kBeginning;
  c.poll_interval = 10ms;
  c.storage = dir / "state";
  FakeConsumer consumer;
  FilelogReceiver r("filelog", c, consumer);
  r.start();
  if (!eventually([&] { return consumer.count() == 1000; }))
    return "first read: " + std::to_string(consumer.count());
  if (::chmod(logs.c_str(), 0) != 0) return std::string("chmod: ") + std::strerror(errno);
  std::this_thread::sleep_for(300ms);  // many polls that match nothing
  ::chmod(logs.c_str(), 0755);
  append(logs / "app.log", "after\n");
  if (!eventually([&] { return consumer.count() >= 1001; }))
    return "after: " + std::to_string(consumer.count());
  std::this_thread::sleep_for(200ms);  // time to read it all again, were it to
  r.shutdown();
  if (consumer.count() != 1001) return "read " + std::to_string(consumer.count()) + " lines for 1001";
  if (r.stats().file_errors < 1) return "the unreadable directory was not reported";
  return {};
}

TEST_F(FilelogTest, ADirectoryUnreadableForAMomentLosesNoPlaceAndReadsNothingTwice) {
  const fs::path logs = dir_.path() / "logs";
  fs::create_directories(logs);
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += "line " + std::to_string(i) + "\n";
  append(logs / "app.log", lines);
  if (::geteuid() != 0) {
    EXPECT_EQ(unreadable_directory_scenario(dir_.path()), "");
    return;
  }
  for (const auto& p : {dir_.path(), logs, logs / "app.log"})
    ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0) << p;
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string result = ::setgid(65534) == 0 && ::setuid(65534) == 0
                             ? unreadable_directory_scenario(dir_.path())
                             : "cannot become nobody";
    if (result.empty()) result = "ok";
    (void)!::write(pipe_fds[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string result;
  char buf[256];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;)
    result.append(buf, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(result, "ok");
  EXPECT_TRUE(WIFEXITED(status));
}

}  // namespace
}  // namespace tern::receiver::filelog
