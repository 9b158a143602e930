// File receiver throughput: Filelog/<parse>/<checkpoint> reads a file of kLines lines of 216
// bytes (JSON objects, as bench/peers ships) from its beginning with a fresh receiver into a
// consumer that takes every batch at once (its delivery token settles when the receiver lets
// go); an iteration is the whole file. <parse> is none, json (`parse: json`), or the
// Collector-style operators: operators_json (json_parser, then time_parser on `ts` and
// severity_parser on `level`) and operators_regex (a regex_parser taking ts, level and msg
// out of the line, with timestamp and severity blocks). The baseline, in the same run, does the least any
// tailer must: read the file in 64 KiB chunks, find the newlines and copy each line once.
// Counters, per line: events_per_second, bytes_per_second, allocs_per_op, bytes_per_op (heap,
// all threads).
// The file goes to $TERN_BENCH_DIR (default /tmp); it is read from the page cache.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "receiver/filelog/filelog_receiver.h"
#include "support/alloc_counter.h"

namespace {

using namespace tern;

constexpr std::uint64_t kLines = 100000;
constexpr std::size_t kLineBytes = 215;  // plus the newline

struct File {
  std::string dir, path;
  std::uint64_t bytes = 0;
  File() {
    const char* base = std::getenv("TERN_BENCH_DIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/tern-bench-filelog-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed in " + tmpl);
    dir = tmpl;
    path = dir + "/app.log";
    std::ofstream f(path);
    for (std::uint64_t i = 0; i < kLines; ++i) {
      std::string line =
          "{\"ts\":\"2025-12-03T08:00:00.000Z\",\"level\":\"info\",\"service\":\"checkout\","
          "\"msg\":\"PUT /api/v1/items/" +
          std::to_string(i * 7919 % 100000) + " 200 143ms\",\"seq\":" + std::to_string(i) + ",\"pad\":\"";
      line.append(kLineBytes - 2 - line.size(), 'x');
      line += "\"}";
      f << line << '\n';
      bytes += line.size() + 1;
    }
  }
  ~File() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const File& file() {
  static File f;
  return f;
}

class CountingConsumer final : public component::Consumer {
 public:
  component::ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    const auto n = b->record_count();
    std::lock_guard lk(mu_);
    lines_ += n;
    if (lines_ >= kLines) cv_.notify_all();
    return component::ConsumeResult::ok();
  }
  component::ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData>) override { return {}; }
  component::ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData>) override { return {}; }
  void wait_all() {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return lines_ >= kLines; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t lines_ = 0;
};

void per_line_counters(benchmark::State& st, bench::AllocSnapshot before) {
  const auto after = bench::alloc_snapshot();
  const double lines = static_cast<double>(st.iterations() * kLines);
  st.counters["events_per_second"] = benchmark::Counter(lines, benchmark::Counter::kIsRate);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * file().bytes));
  st.counters["allocs_per_op"] = static_cast<double>(after.allocs - before.allocs) / lines;
  st.counters["bytes_per_op"] = static_cast<double>(after.bytes - before.bytes) / lines;
}

std::vector<receiver::filelog::FilelogOperatorConfig> operators(bool regex) {
  using Op = receiver::filelog::FilelogOperatorConfig;
  Op::Severity sv;
  sv.parse_from = "attributes.level";
  for (const char* name : {"debug", "info", "warn", "error"})  // the default preset's common names
    sv.mapping.push_back({name[0] == 'd' ? 5 : name[0] == 'i' ? 9 : name[0] == 'w' ? 13 : 17, name, 0, -1});
  const Op::Timestamp ts{"attributes.ts", false, "%Y-%m-%dT%H:%M:%S.%LZ", true};
  if (regex) {
    Op re;
    re.type = Op::Type::kRegexParser;
    re.regex = R"re("ts":"(?P<ts>[^"]+)","level":"(?P<level>\w+)".*"msg":"(?P<msg>[^"]*)")re";
    re.timestamp = ts;
    re.severity = sv;
    return {re};
  }
  Op json;
  json.type = Op::Type::kJsonParser;
  Op time;
  time.type = Op::Type::kTimeParser;
  time.timestamp = ts;
  Op sev;
  sev.type = Op::Type::kSeverityParser;
  sev.severity = sv;
  return {json, time, sev};
}

enum class Parse { kNone, kJson, kOperatorsJson, kOperatorsRegex };

void filelog(benchmark::State& st, Parse parse, bool checkpoint) {
  receiver::filelog::FilelogReceiverConfig c;
  c.include = {file().path};
  c.start_at = receiver::filelog::FilelogReceiverConfig::StartAt::kBeginning;
  if (parse == Parse::kJson) c.parse = receiver::filelog::FilelogReceiverConfig::Parse::kJson;
  if (parse == Parse::kOperatorsJson || parse == Parse::kOperatorsRegex)
    c.operators = operators(parse == Parse::kOperatorsRegex);
  const auto before = bench::alloc_snapshot();
  for (auto _ : st) {
    if (checkpoint) {
      std::filesystem::remove_all(file().dir + "/state");
      c.storage = file().dir + "/state";
    }
    CountingConsumer consumer;
    receiver::filelog::FilelogReceiver r("filelog", c, consumer);
    r.start();
    consumer.wait_all();
    r.shutdown();
  }
  per_line_counters(st, before);
}

void baseline(benchmark::State& st) {
  std::string chunk(64 * 1024, '\0'), copy;
  copy.reserve(1 << 20);
  const auto before = bench::alloc_snapshot();
  for (auto _ : st) {
    const int fd = ::open(file().path.c_str(), O_RDONLY | O_CLOEXEC);
    std::uint64_t lines = 0;
    std::size_t held = 0;
    off_t off = 0;
    for (ssize_t n; (n = ::pread(fd, chunk.data(), chunk.size(), off)) > 0; off += n) {
      const char* p = chunk.data();
      const char* end = p + n;
      while (const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p))) {
        copy.append(p, nl - p);  // the one copy of the line into the batch
        ++lines;
        p = nl + 1;
      }
      held = end - p;
      copy.append(p, held);
      if (copy.size() > (1 << 20)) copy.clear();
    }
    ::close(fd);
    benchmark::DoNotOptimize(lines);
    benchmark::DoNotOptimize(copy.data());
  }
  per_line_counters(st, before);
}

void register_all() {
  const std::pair<Parse, const char*> parses[] = {{Parse::kNone, "none"},
                                                  {Parse::kJson, "json"},
                                                  {Parse::kOperatorsJson, "operators_json"},
                                                  {Parse::kOperatorsRegex, "operators_regex"}};
  for (const auto& [parse, name] : parses)
    for (bool cp : {false, true}) {
      if (cp && (parse == Parse::kOperatorsJson || parse == Parse::kOperatorsRegex)) continue;
      benchmark::RegisterBenchmark(
          (std::string("Filelog/") + name + (cp ? "/checkpoint" : "/no_storage")).c_str(),
          [=](benchmark::State& st) { filelog(st, parse, cp); })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::RegisterBenchmark("Baseline/read_split_copy", baseline)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
