// Disk queue throughput: DiskQueue/<size>/<sync>/p<producers> pushes frames of <size> bytes
// from <producers> threads while one reader thread reads and acknowledges them; an iteration
// is one round of kRound frames, pushed, read and acknowledged. The baselines write the same
// bytes (payload plus the queue's 16 bytes of framing) with plain write(), with and without an
// fdatasync per frame (what sync batch costs a single producer), in the same run.
// Counters, per frame: events_per_second, bytes_per_second (payload bytes), allocs_per_op and
// bytes_per_op (heap, all threads), fsyncs_per_op.
// The files go to $TERN_BENCH_DIR (default /tmp): a real disk, as in production.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "queue/disk_queue.h"
#include "support/alloc_counter.h"

namespace {

using namespace tern;
using Sync = queue::DiskQueueOptions::Sync;

constexpr std::uint64_t kRound = 64;  // frames per iteration, a multiple of the producer counts
constexpr std::size_t kFraming = 16;

std::string temp_dir() {
  const char* base = std::getenv("TERN_BENCH_DIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/tern-bench-queue-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed in " + tmpl);
  return tmpl;
}

std::string make_payload(std::size_t size) {
  std::string p(size, '\0');
  std::uint32_t x = 2463534242u;
  for (auto& c : p) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return p;
}

// A queue with its producer threads and its reader/acknowledger thread.
class Harness {
 public:
  Harness(std::size_t size, Sync sync, int producers) : dir_(temp_dir()), payload_(make_payload(size)) {
    queue::DiskQueueOptions o;
    o.directory = dir_ + "/q";
    o.sync = sync;
    queue_ = std::make_unique<queue::DiskQueue>(o);
    reader_ = std::thread([this] {
      queue::DiskQueue::Frame f;
      while (!stop_.load()) {
        if (!queue_->read(f, std::chrono::milliseconds(20))) continue;
        queue_->ack(f.seq);
        acked_.fetch_add(1);
        acked_.notify_one();
      }
    });
    for (int p = 0; p < producers; ++p) {
      producers_.emplace_back([this, producers] {
        std::uint64_t seen = 0;
        for (;;) {
          {
            std::unique_lock lk(mu_);
            cv_.wait(lk, [&] { return stop_.load() || round_ != seen; });
            if (stop_.load()) return;
            seen = round_;
          }
          for (std::uint64_t i = 0; i < kRound / static_cast<std::uint64_t>(producers); ++i) {
            if (queue_->push(payload_, true) != queue::PushResult::kOk) failed_.store(true);
          }
        }
      });
    }
  }
  ~Harness() {
    stop_.store(true);
    queue_->close();
    {
      std::lock_guard lk(mu_);
      ++round_;
    }
    cv_.notify_all();
    for (auto& t : producers_) t.join();
    reader_.join();
    queue_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // One round: kRound frames pushed, read and acknowledged.
  void round() {
    target_ += kRound;
    {
      std::lock_guard lk(mu_);
      ++round_;
    }
    cv_.notify_all();
    for (auto v = acked_.load(); v < target_; v = acked_.load()) acked_.wait(v);
  }
  bool failed() const { return failed_.load(); }
  queue::DiskQueue& queue() { return *queue_; }

 private:
  std::string dir_;
  std::string payload_;
  std::unique_ptr<queue::DiskQueue> queue_;
  std::thread reader_;
  std::vector<std::thread> producers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t round_ = 0;
  std::uint64_t target_ = 0;
  std::atomic<std::uint64_t> acked_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
};

void per_frame_counters(benchmark::State& st, std::size_t size, bench::AllocSnapshot before,
                        std::uint64_t fsyncs) {
  const auto after = bench::alloc_snapshot();
  const double frames = static_cast<double>(st.iterations() * kRound);
  st.counters["events_per_second"] = benchmark::Counter(frames, benchmark::Counter::kIsRate);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * kRound * size));
  st.counters["allocs_per_op"] = frames ? static_cast<double>(after.allocs - before.allocs) / frames : 0;
  st.counters["bytes_per_op"] = frames ? static_cast<double>(after.bytes - before.bytes) / frames : 0;
  st.counters["fsyncs_per_op"] = frames ? static_cast<double>(fsyncs) / frames : 0;
}

void disk_queue(benchmark::State& st, std::size_t size, Sync sync, int producers) {
  ::sync();  // start each run without the previous runs' writeback pending
  Harness h(size, sync, producers);
  h.round();  // warm: buffers grown, threads running
  const auto fsyncs0 = h.queue().stats().fsyncs;
  const auto before = bench::alloc_snapshot();
  for (auto _ : st) h.round();
  if (h.failed()) st.SkipWithError("push failed");
  per_frame_counters(st, size, before, h.queue().stats().fsyncs - fsyncs0);
}

void baseline(benchmark::State& st, std::size_t size, bool sync) {
  ::sync();
  const std::string dir = temp_dir();
  const std::string path = dir + "/baseline";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const std::string bytes = make_payload(size + kFraming);
  std::uint64_t written = 0, fsyncs = 0;
  const auto before = bench::alloc_snapshot();
  for (auto _ : st) {
    for (std::uint64_t i = 0; i < kRound; ++i) {
      if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        st.SkipWithError("write");
      if (sync) {
        ::fdatasync(fd);
        ++fsyncs;
      }
      written += bytes.size();
    }
    // Stay within the queue's segment size, as the queue does by rotating.
    if (written >= (64u << 20)) {
      if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) st.SkipWithError("truncate");
      written = 0;
    }
  }
  per_frame_counters(st, size, before, fsyncs);
  ::close(fd);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

struct Size {
  const char* name;
  std::size_t bytes;
};
constexpr Size kSizes[] = {{"1KiB", 1024}, {"16KiB", 16384}};

void register_all() {
  for (const Size& s : kSizes) {
    benchmark::RegisterBenchmark((std::string("Baseline/") + s.name + "/write_fdatasync").c_str(),
                                 [=](benchmark::State& st) { baseline(st, s.bytes, true); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("Baseline/") + s.name + "/write").c_str(),
                                 [=](benchmark::State& st) { baseline(st, s.bytes, false); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    for (const auto& [sync, sync_name] : {std::pair{Sync::kBatch, "batch"}, std::pair{Sync::kNone, "none"}}) {
      for (const int producers : {1, 4}) {
        const std::string name =
            std::string("DiskQueue/") + s.name + "/" + sync_name + "/p" + std::to_string(producers);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [=](benchmark::State& st) { disk_queue(st, s.bytes, sync, producers); })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
