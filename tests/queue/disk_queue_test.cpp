// DiskQueue: round trips, acks and the frontier, recovery from damaged files, back-pressure,
// group commit, zstd, and kill -9 durability (a forked child is SIGKILLed mid-push).
#include "queue/disk_queue.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "queue/crc32c.h"

namespace tern::queue {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Sync = DiskQueueOptions::Sync;

constexpr std::uint64_t kHeader = 16;    // segment header
constexpr std::uint64_t kOverhead = 16;  // per frame: len, flags, crc, len

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tern-disk-queue-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

DiskQueueOptions options(const std::string& dir, std::uint64_t segment_size = 4096, Sync sync = Sync::kNone) {
  DiskQueueOptions o;
  o.directory = dir + "/q";
  o.segment_size = segment_size;
  o.sync = sync;
  return o;
}

// Payload i: its number, padded to `size` bytes (at least the number).
std::string payload(int i, std::size_t size = 100) {
  std::string s = "frame-" + std::to_string(i) + ":";
  while (s.size() < size) s.push_back(static_cast<char>('a' + (s.size() + i) % 26));
  return s;
}
int number(const std::string& p) { return std::stoi(p.substr(6, p.find(':') - 6)); }

std::vector<fs::path> segment_files(const std::string& qdir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(qdir)) {
    if (e.path().extension() == ".seg") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Reads until `read` gives up after a short wait (nothing more is coming in these tests).
std::vector<DiskQueue::Frame> drain(DiskQueue& q, std::chrono::milliseconds wait = 200ms) {
  std::vector<DiskQueue::Frame> out;
  DiskQueue::Frame f;
  while (q.read(f, wait)) out.push_back(f);
  return out;
}

std::vector<int> numbers(const std::vector<DiskQueue::Frame>& frames) {
  std::vector<int> out;
  for (const auto& f : frames) out.push_back(number(f.payload));
  return out;
}

std::vector<int> range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; ++i) v.push_back(i);
  return v;
}

void push_all(DiskQueue& q, int from, int to, std::size_t size = 100) {
  for (int i = from; i < to; ++i) ASSERT_EQ(q.push(payload(i, size), false), PushResult::kOk) << i;
}

void write_at(const fs::path& p, std::uint64_t off, const std::string& bytes) {
  const int fd = ::open(p.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(off)),
            static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

TEST(Crc32c, KnownVectorAndIncremental) {
  const std::string s = "123456789";
  EXPECT_EQ(crc32c(0, s.data(), s.size()), 0xE3069283u);
  // RFC 3720 (iSCSI) B.4 vectors: queues written by earlier versions stay readable.
  EXPECT_EQ(crc32c(0, std::string(32, '\0').data(), 32), 0x8A9136AAu);
  EXPECT_EQ(crc32c(0, std::string(32, '\xFF').data(), 32), 0x62A8AB43u);
  // Extending in pieces gives the same result as one call, at every split.
  std::string big(1000, 'x');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  const auto whole = crc32c(0, big.data(), big.size());
  for (std::size_t cut = 0; cut <= big.size(); cut += 37) {
    EXPECT_EQ(crc32c(crc32c(0, big.data(), cut), big.data() + cut, big.size() - cut), whole) << cut;
  }
  EXPECT_EQ(crc32c(0, "", 0), 0u);
}

TEST(DiskQueue, RoundTripAcrossManySegmentsInOrder) {
  TempDir tmp;
  DiskQueue q(options(tmp.path(), 2048));
  for (int i = 0; i < 500; ++i) ASSERT_EQ(q.push(payload(i, 50 + i % 300), false), PushResult::kOk);
  EXPECT_GT(q.stats().segments, 20u);
  const auto frames = drain(q);
  ASSERT_EQ(frames.size(), 500u);
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(frames[i].payload, payload(i, 50 + i % 300));
    if (i > 0) {
      EXPECT_EQ(frames[i].seq, frames[i - 1].seq + 1);
    }
  }
  for (const auto& f : frames) q.ack(f.seq);
  const auto s = q.stats();
  EXPECT_EQ(s.frames_written, 500u);
  EXPECT_EQ(s.frames_read, 500u);
  EXPECT_EQ(s.frames_acked, 500u);
  EXPECT_EQ(s.pending_frames, 0u);
  // Only the segment being written to is left.
  EXPECT_EQ(s.segments, 1u);
  EXPECT_EQ(segment_files(tmp.path() + "/q").size(), 1u);
  EXPECT_EQ(s.skipped_frames, 0u);
}

TEST(DiskQueue, ReadWaitsForPushAndCloseEndsTheReader) {
  TempDir tmp;
  DiskQueue q(options(tmp.path(), 4096, Sync::kBatch));
  DiskQueue::Frame f;
  EXPECT_FALSE(q.read(f, 10ms));  // empty: times out
  std::thread producer([&] { EXPECT_EQ(q.push(payload(7), true), PushResult::kOk); });
  ASSERT_TRUE(q.read(f, 60s));
  producer.join();
  EXPECT_EQ(number(f.payload), 7);
  ASSERT_EQ(q.push(payload(8), false), PushResult::kOk);
  q.close();
  EXPECT_EQ(q.push(payload(9), false), PushResult::kClosed);
  ASSERT_TRUE(q.read(f, 60s));  // what was written is still delivered after close
  EXPECT_EQ(number(f.payload), 8);
  EXPECT_FALSE(q.read(f, 60s));  // closed and drained: returns at once
}

TEST(DiskQueue, OutOfOrderAcksAdvanceTheContiguousFrontier) {
  TempDir tmp;
  {
    DiskQueue q(options(tmp.path()));
    push_all(q, 0, 10);
    const auto frames = drain(q);
    ASSERT_EQ(frames.size(), 10u);
    for (int i = 9; i >= 1; --i) q.ack(frames[i].seq);  // all but the oldest
    q.ack(frames[5].seq);                               // repeated: ignored
    q.ack(12345);                                       // unknown: ignored
    EXPECT_EQ(q.stats().frames_acked, 9u);
    EXPECT_EQ(q.stats().pending_frames, 1u);
  }
  {
    // The frontier is still at frame 0: everything from there is redelivered (duplicates, no loss).
    DiskQueue q(options(tmp.path()));
    EXPECT_EQ(q.stats().recovered_frames, 10u);
    const auto frames = drain(q);
    EXPECT_EQ(numbers(frames), range(0, 10));
    q.ack(frames[0].seq);  // now 0..0 contiguous; 1..9 not acked in this process
    for (std::size_t i = 1; i < frames.size(); ++i) q.ack(frames[i].seq);
    EXPECT_EQ(q.stats().pending_frames, 0u);
  }
  {
    DiskQueue q(options(tmp.path()));
    EXPECT_EQ(q.stats().recovered_frames, 0u);
    EXPECT_TRUE(drain(q, 20ms).empty());
  }
}

TEST(DiskQueue, RestartResumesAtTheOldestUnackedAndDeletesAckedSegments) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  std::vector<fs::path> before;
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 100);
    before = segment_files(qdir);
    DiskQueue::Frame f;
    std::vector<std::uint64_t> seqs;
    for (int i = 0; i < 60; ++i) {
      ASSERT_TRUE(q.read(f, 1s));
      seqs.push_back(f.seq);
    }
    for (int i = 0; i < 50; ++i) q.ack(seqs[i]);
    // Frames of 116 bytes, 9 per segment: segments 1..5 hold frames 0..44, all acknowledged.
    EXPECT_FALSE(fs::exists(before[0]));
    EXPECT_FALSE(fs::exists(before[4]));
    EXPECT_TRUE(fs::exists(before[5]));  // frames 45..53: 45..49 acked, 50.. not
  }
  DiskQueue q(options(tmp.path(), 1024));
  const auto frames = drain(q);
  EXPECT_EQ(numbers(frames), range(50, 100));
  EXPECT_EQ(q.stats().recovered_frames, 50u);
  EXPECT_EQ(q.stats().skipped_frames, 0u);
  EXPECT_EQ(q.stats().truncated_bytes, 0u);
  // seqs go on from the saved frontier.
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.front().seq, 50u);
}

TEST(DiskQueue, SeqsAreAckableAcrossRestartsAndNewPushesFollowOldFrames) {
  TempDir tmp;
  {
    DiskQueue q(options(tmp.path(), 1024, Sync::kBatch));
    push_all(q, 0, 30);
  }
  DiskQueue q(options(tmp.path(), 1024, Sync::kBatch));
  push_all(q, 30, 40);
  const auto frames = drain(q);
  EXPECT_EQ(numbers(frames), range(0, 40));
  for (const auto& f : frames) q.ack(f.seq);
  EXPECT_EQ(q.stats().pending_frames, 0u);
  EXPECT_EQ(q.stats().segments, 1u);
}

TEST(DiskQueue, RestartsWithoutTrafficDoNotPileUpSegments) {
  TempDir tmp;
  {
    DiskQueue q(options(tmp.path()));
    push_all(q, 0, 3);
  }
  for (int i = 0; i < 5; ++i) DiskQueue q(options(tmp.path()));
  // Appends go on in the last segment: restarts add none.
  EXPECT_EQ(segment_files(tmp.path() + "/q").size(), 1u);
  DiskQueue q(options(tmp.path()));
  const auto frames = drain(q);
  EXPECT_EQ(numbers(frames), range(0, 3));
  for (const auto& f : frames) q.ack(f.seq);
  EXPECT_EQ(q.stats().segments, 1u);
}

TEST(DiskQueue, TornTailIsTruncated) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 10);
  }
  const auto segs = segment_files(qdir);
  ASSERT_EQ(segs.size(), 1u);
  const auto good_size = fs::file_size(segs[0]);
  // A crash mid-append: the start of a frame (len 100, flags 0) and part of its payload.
  std::string torn = std::string("\x64\0\0\0\0\0\0\0", 8) + std::string(40, 'z');
  write_at(segs[0], good_size, torn);
  DiskQueue q(options(tmp.path(), 1 << 20));
  EXPECT_EQ(q.stats().truncated_bytes, torn.size());
  EXPECT_EQ(q.stats().skipped_frames, 0u);
  EXPECT_EQ(fs::file_size(segs[0]), good_size);
  EXPECT_EQ(numbers(drain(q)), range(0, 10));
  // Appends go on right after the last valid frame, and all of it reads back after a restart.
  push_all(q, 10, 15);
  EXPECT_EQ(numbers(drain(q)), range(10, 15));
  EXPECT_EQ(fs::file_size(segs[0]), good_size + 5 * (kOverhead + 100));
}
TEST(DiskQueue, AppendsAfterATornTailSurviveARestart) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 3);
  }
  const auto segs = segment_files(qdir);
  write_at(segs[0], fs::file_size(segs[0]), std::string(30, '\x01'));
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 3, 6);
  }
  DiskQueue q(options(tmp.path(), 1 << 20));
  EXPECT_EQ(numbers(drain(q)), range(0, 6));
  EXPECT_EQ(q.stats().skipped_frames, 0u);
}

// A power loss can keep the (synced) state file and lose segment data it points past (with
// sync: none or interval). The lost part was acknowledged; what is appended after the
// restart must all be read, none of it skipped.
TEST(DiskQueue, ASavedPositionPastTheSegmentsEndLosesNothingAppendedLater) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 20);
    for (const auto& f : drain(q)) q.ack(f.seq);  // the state file: past frame 19
  }
  const auto segs = segment_files(qdir);
  ASSERT_EQ(segs.size(), 1u);
  fs::resize_file(segs[0], kHeader + 8 * (kOverhead + 100));  // frames 8..19 lost
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    EXPECT_TRUE(drain(q).empty());
    push_all(q, 20, 40);
    EXPECT_EQ(numbers(drain(q)), range(20, 40));
    EXPECT_EQ(q.stats().skipped_frames, 0u);
  }
  DiskQueue q(options(tmp.path(), 1 << 20));  // not acknowledged: all of them again
  EXPECT_EQ(numbers(drain(q)), range(20, 40));
}

TEST(DiskQueue, SegmentWithATornHeaderIsRemoved) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 5);
  }
  // A crash between creating the next segment and writing its header.
  const auto segs = segment_files(qdir);
  const fs::path torn = qdir + "/00000000000000000009.seg";
  std::ofstream(torn) << "TERNDQS";
  DiskQueue q(options(tmp.path(), 1 << 20));
  EXPECT_FALSE(fs::exists(torn));
  EXPECT_EQ(q.stats().truncated_bytes, 7u);
  EXPECT_EQ(q.stats().skipped_frames, 0u);
  EXPECT_EQ(numbers(drain(q)), range(0, 5));
}

TEST(DiskQueue, FlippedBytesSkipOneFrameAndLaterFramesAreDelivered) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 20, 200);
  }
  const auto segs = segment_files(qdir);
  ASSERT_EQ(segs.size(), 1u);
  const std::uint64_t frame = kOverhead + 200;
  write_at(segs[0], kHeader + 10 * frame + 50, "XYZ");  // inside frame 10's payload
  DiskQueue q(options(tmp.path(), 1 << 20));
  auto expected = range(0, 20);
  expected.erase(expected.begin() + 10);
  EXPECT_EQ(numbers(drain(q)), expected);
  const auto s = q.stats();
  EXPECT_EQ(s.skipped_frames, 1u);
  EXPECT_EQ(s.skipped_bytes, frame);
  EXPECT_EQ(s.recovered_frames, 19u);
}

TEST(DiskQueue, CorruptLengthResynchronizesOnTheNextFrame) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 10, 100);
  }
  const auto segs = segment_files(qdir);
  const std::uint64_t frame = kOverhead + 100;
  // Frames 3 and 4 get a huge leading length and a broken trailing length.
  write_at(segs[0], kHeader + 3 * frame, std::string("\xff\xff\x00\x10", 4));
  write_at(segs[0], kHeader + 4 * frame + frame - 4, std::string("\x01\x02\x03\x04", 4));
  DiskQueue q(options(tmp.path(), 1 << 20));
  EXPECT_EQ(numbers(drain(q)), (std::vector<int>{0, 1, 2, 5, 6, 7, 8, 9}));
  EXPECT_EQ(q.stats().skipped_frames, 1u);  // one contiguous region
  EXPECT_EQ(q.stats().skipped_bytes, 2 * frame);
}

TEST(DiskQueue, TruncatedMiddleSegmentLosesOnlyItsCutFrames) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  const std::uint64_t frame = kOverhead + 100;
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 40);
  }
  const auto segs = segment_files(qdir);
  ASSERT_GE(segs.size(), 4u);
  const std::uint64_t per_segment =
      (fs::file_size(segs[0]) - kHeader) / frame;  // 9: a new one starts past 1024 bytes
  // Cut the second segment in the middle of its third frame.
  fs::resize_file(segs[1], kHeader + 2 * frame + frame / 2);
  DiskQueue q(options(tmp.path(), 1024));
  std::vector<int> expected;
  for (int i = 0; i < 40; ++i) {
    const auto in_segment = static_cast<std::uint64_t>(i) / per_segment;
    const auto index = static_cast<std::uint64_t>(i) % per_segment;
    if (in_segment != 1 || index < 2) expected.push_back(i);
  }
  EXPECT_EQ(numbers(drain(q)), expected);
  EXPECT_EQ(q.stats().truncated_bytes, frame / 2);
  EXPECT_EQ(fs::file_size(segs[1]), kHeader + 2 * frame);
}

// A segment deleted behind the queue's back (a gap in the numbers) is reported and counted.
TEST(DiskQueue, MissingMiddleSegmentIsCountedAndTheOthersDelivered) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  const std::uint64_t frame = kOverhead + 100;
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 40);
  }
  const auto segs = segment_files(qdir);
  ASSERT_GE(segs.size(), 4u);
  const std::uint64_t per_segment = (fs::file_size(segs[0]) - kHeader) / frame;
  fs::remove(segs[1]);
  fs::remove(segs[2]);
  DiskQueue q(options(tmp.path(), 1024));
  std::vector<int> expected;
  for (int i = 0; i < 40; ++i) {
    const auto in = static_cast<std::uint64_t>(i) / per_segment;
    if (in != 1 && in != 2) expected.push_back(i);
  }
  EXPECT_EQ(numbers(drain(q)), expected);
  EXPECT_EQ(q.stats().missing_segments, 2u);
  EXPECT_EQ(q.stats().skipped_frames, 1u);  // one region
}

TEST(DiskQueue, MissingSegmentOfTheSavedPositionIsCounted) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 40);
    DiskQueue::Frame f;
    for (int i = 0; i < 12; ++i) {  // into the second segment
      ASSERT_TRUE(q.read(f, 1s));
      q.ack(f.seq);
    }
  }
  auto segs = segment_files(qdir);
  for (const auto& p : segs) fs::remove(p);  // the acked first one is gone already
  DiskQueue q(options(tmp.path(), 1024));
  EXPECT_TRUE(drain(q, 20ms).empty());
  EXPECT_EQ(q.stats().missing_segments, 1u);
  EXPECT_EQ(q.stats().skipped_frames, 1u);
  // A restart of an intact queue reports nothing.
  push_all(q, 100, 110);
  for (const auto& f : drain(q)) q.ack(f.seq);
}

// A damaged segment header no longer costs the frames behind it: each frame carries its own
// lengths and CRC. Only the header's bytes are skipped (counted, logged); the segment is never
// appended to again (a damaged last segment gets a new one after it).
TEST(DiskQueue, DamagedSegmentHeaderSkipsOnlyTheHeader) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 40);
  }
  const auto segs = segment_files(qdir);
  ASSERT_GE(segs.size(), 4u);
  write_at(segs[1], 0, "X");                         // magic
  write_at(segs[2], 8, std::string("\0\0\0\0", 4));  // version 0
  write_at(segs.back(), 3, "?");                     // the last one, appended to until now
  {
    DiskQueue q(options(tmp.path(), 1024));
    EXPECT_EQ(numbers(drain(q)), range(0, 40));
    EXPECT_EQ(q.stats().skipped_frames, 3u);
    EXPECT_EQ(q.stats().skipped_bytes, 3 * kHeader);
    EXPECT_EQ(q.stats().recovered_frames, 40u);
    push_all(q, 40, 50);  // into a new segment
  }
  EXPECT_GT(segment_files(qdir).size(), segs.size());
  DiskQueue q(options(tmp.path(), 1024));
  const auto frames = drain(q);
  EXPECT_EQ(numbers(frames), range(0, 50));
  for (const auto& f : frames) q.ack(f.seq);
  EXPECT_EQ(q.stats().segments, 1u);  // the damaged ones are deleted once acknowledged
}

// A file named like a segment without one valid frame (foreign, or all zeros) is skipped whole.
TEST(DiskQueue, ForeignFileNamedLikeASegmentIsSkippedWhole) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 20);
  }
  auto segs = segment_files(qdir);
  const std::string text(3000, 'z');
  std::ofstream(segs[1], std::ios::trunc) << text;
  DiskQueue q(options(tmp.path(), 1024));
  const auto got = numbers(drain(q));
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(q.stats().skipped_frames, 1u);
  EXPECT_EQ(q.stats().skipped_bytes, text.size());
  EXPECT_EQ(fs::file_size(segs[1]), text.size());  // not truncated: never written to
}

TEST(DiskQueue, ZeroedSegmentIsSkippedWhole) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  const std::uint64_t frame = kOverhead + 100;
  {
    DiskQueue q(options(tmp.path(), 1024));
    push_all(q, 0, 40);
  }
  const auto segs = segment_files(qdir);
  ASSERT_GE(segs.size(), 4u);
  const auto size = fs::file_size(segs[1]);
  const std::uint64_t per_segment = (fs::file_size(segs[0]) - kHeader) / frame;
  write_at(segs[1], 0, std::string(size, '\0'));
  DiskQueue q(options(tmp.path(), 1024));
  std::vector<int> expected;
  for (int i = 0; i < 40; ++i) {
    if (static_cast<std::uint64_t>(i) / per_segment != 1) expected.push_back(i);
  }
  const auto frames = drain(q);
  EXPECT_EQ(numbers(frames), expected);
  EXPECT_EQ(q.stats().skipped_frames, 1u);
  EXPECT_EQ(q.stats().skipped_bytes, size);
  // Acknowledging everything also releases the zeroed segment.
  for (const auto& f : frames) q.ack(f.seq);
  EXPECT_FALSE(fs::exists(segs[1]));
}

TEST(DiskQueue, ZeroedRegionInsideASegmentIsSkipped) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  const std::uint64_t frame = kOverhead + 100;
  {
    DiskQueue q(options(tmp.path(), 1 << 20));
    push_all(q, 0, 10);
  }
  const auto segs = segment_files(qdir);
  write_at(segs[0], kHeader + 2 * frame, std::string(3 * frame, '\0'));
  DiskQueue q(options(tmp.path(), 1 << 20));
  EXPECT_EQ(numbers(drain(q)), (std::vector<int>{0, 1, 5, 6, 7, 8, 9}));
  EXPECT_EQ(q.stats().skipped_bytes, 3 * frame);
}

TEST(DiskQueue, NewerSegmentFormatIsRefused) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path()));
    push_all(q, 0, 3);
  }
  const auto segs = segment_files(qdir);
  write_at(segs[0], 8, std::string("\x02\0\0\0", 4));
  try {
    DiskQueue q(options(tmp.path()));
    FAIL() << "opened a segment of a newer format";
  } catch (const DiskQueueError& e) {
    EXPECT_NE(std::string(e.what()).find("written by a newer Tern (format 2); this build reads up to 1"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(segs[0].filename().string()), std::string::npos) << e.what();
  }
  // Nothing was deleted or changed.
  EXPECT_TRUE(fs::exists(segs[0]));
}

TEST(DiskQueue, NewerStateFormatIsRefused) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path()));
    push_all(q, 0, 3);
    const auto frames = drain(q);
    q.ack(frames[0].seq);
  }
  ASSERT_TRUE(fs::exists(qdir + "/state"));
  write_at(qdir + "/state", 8, std::string("\x07\0\0\0", 4));
  try {
    DiskQueue q(options(tmp.path()));
    FAIL() << "opened a state file of a newer format";
  } catch (const DiskQueueError& e) {
    EXPECT_NE(std::string(e.what()).find("newer Tern (format 7); this build reads up to 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(DiskQueue, DamagedStateFileMeansRedeliveryNotLoss) {
  TempDir tmp;
  const std::string qdir = tmp.path() + "/q";
  {
    DiskQueue q(options(tmp.path()));
    push_all(q, 0, 5);
    const auto frames = drain(q);
    q.ack(frames[0].seq);
    q.ack(frames[1].seq);
  }
  write_at(qdir + "/state", 30, "garbage");
  DiskQueue q(options(tmp.path()));
  EXPECT_EQ(numbers(drain(q)), range(0, 5));
}

TEST(DiskQueue, SecondOpenOfTheSameDirectoryIsRefused) {
  TempDir tmp;
  DiskQueue q(options(tmp.path()));
  EXPECT_THROW(DiskQueue{options(tmp.path())}, DiskQueueError);
}

TEST(DiskQueue, BadOptionsGiveAClearError) {
  TempDir tmp;
  EXPECT_THROW(DiskQueue{DiskQueueOptions{}}, DiskQueueError);
  auto o = options(tmp.path());
  o.max_size = 10;
  EXPECT_THROW(DiskQueue{o}, DiskQueueError);
  o = options(tmp.path());
  o.compress = true;
  o.compression_level = 1000;
  EXPECT_THROW(DiskQueue{o}, DiskQueueError);
  // A file where the directory should be.
  std::ofstream(tmp.path() + "/file") << "x";
  o = options(tmp.path());
  o.directory = tmp.path() + "/file/q";
  EXPECT_THROW(DiskQueue{o}, DiskQueueError);
}

TEST(DiskQueue, FullQueueRefusesWithoutWaitAndBlocksWithWaitUntilAcked) {
  TempDir tmp;
  auto o = options(tmp.path(), 1024, Sync::kBatch);
  o.max_size = 4096;
  DiskQueue q(o);
  int n = 0;
  while (true) {
    const auto r = q.push(payload(n), false);
    if (r == PushResult::kFull) break;
    ASSERT_EQ(r, PushResult::kOk);
    ++n;
    ASSERT_LT(n, 100);
  }
  EXPECT_GT(n, 20);
  EXPECT_LE(q.stats().size_bytes, 4096u);
  // A waiting push cannot complete until acknowledgements free a segment.
  auto blocked = std::async(std::launch::async, [&] { return q.push(payload(n), true); });
  const auto frames = drain(q, 50ms);
  ASSERT_EQ(static_cast<int>(frames.size()), n);
  EXPECT_EQ(q.stats().frames_written, static_cast<std::uint64_t>(n));
  for (const auto& f : frames) q.ack(f.seq);
  EXPECT_EQ(blocked.get(), PushResult::kOk);
  DiskQueue::Frame f;
  ASSERT_TRUE(q.read(f, 60s));
  EXPECT_EQ(number(f.payload), n);
  EXPECT_LE(q.stats().size_bytes, 4096u);
}

// A full queue whose segment being written is due to roll and fully acknowledged: the push
// starts the next segment so that the old one goes (it used to wait for ever).
TEST(DiskQueue, FullQueueRollsAnAcknowledgedFullSegmentToMakeRoom) {
  TempDir tmp;
  auto o = options(tmp.path(), 1024);
  o.max_size = 4096;
  DiskQueue q(o);
  ASSERT_EQ(q.push(std::string(3000, 'a'), false), PushResult::kOk);
  DiskQueue::Frame f;
  ASSERT_TRUE(q.read(f, 1s));
  q.ack(f.seq);
  EXPECT_EQ(q.push(std::string(3000, 'b'), std::chrono::steady_clock::now() + 2s), PushResult::kOk);
  ASSERT_TRUE(q.read(f, 1s));
  EXPECT_EQ(f.payload, std::string(3000, 'b'));
}

TEST(DiskQueue, CloseWakesABlockedPusher) {
  TempDir tmp;
  auto o = options(tmp.path(), 1024);
  o.max_size = 2048;
  DiskQueue q(o);
  while (q.push(payload(0), false) == PushResult::kOk) {
  }
  auto blocked = std::async(std::launch::async, [&] { return q.push(payload(1), true); });
  q.close();
  EXPECT_EQ(blocked.get(), PushResult::kClosed);
}

TEST(DiskQueue, FrameLargerThanTheQueueIsAnError) {
  TempDir tmp;
  auto o = options(tmp.path());
  o.max_size = 4096;
  DiskQueue q(o);
  std::string error;
  // kTooLarge, not kError: retrying cannot help (an I/O error such as ENOSPC may pass).
  EXPECT_EQ(q.push(std::string(5000, 'x'), true, &error), PushResult::kTooLarge);
  EXPECT_NE(error.find("can never fit"), std::string::npos) << error;
  EXPECT_EQ(q.push(std::string(1000, 'x'), false, &error), PushResult::kOk);
}

// The queue directory deleted under a running queue (rm -rf): every frame pushed before is
// still read, through the segments' open files, even those of sealed segments not reached
// yet; pushes from then on are refused with a clear error rather than acknowledged into files
// that a restart would not find.
TEST(DiskQueue, DeletedDirectoryStillDeliversQueuedFramesAndRefusesNewOnes) {
  for (const Sync sync : {Sync::kBatch, Sync::kNone}) {
    SCOPED_TRACE(sync == Sync::kBatch ? "sync batch" : "sync none");
    TempDir tmp;
    auto o = options(tmp.path(), 1024, sync);
    o.state_interval = 10ms;
    DiskQueue q(o);
    push_all(q, 0, 40);  // 5 segments
    DiskQueue::Frame f;
    ASSERT_TRUE(q.read(f, 1s));
    q.ack(f.seq);
    fs::remove_all(o.directory);
    std::string error;
    PushResult r = PushResult::kOk;
    // kBatch: the push's own fsync notices; kNone: the background check, within state_interval.
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    int accepted = 0;
    while ((r = q.push(payload(1000 + accepted), false, &error)) == PushResult::kOk &&
           std::chrono::steady_clock::now() < deadline) {
      ++accepted;
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_EQ(r, PushResult::kError);
    EXPECT_NE(error.find("was deleted"), std::string::npos) << error;
    if (sync == Sync::kBatch) {
      EXPECT_EQ(accepted, 0);
    }
    EXPECT_EQ(q.push(payload(2000), false, &error), PushResult::kError);  // sticky
    auto got = numbers(drain(q));
    // Frames refused (or accepted just before the check) after the deletion may follow: they
    // were written; the ones acknowledged before it must all be there, in order.
    ASSERT_GE(got.size(), 39u);
    got.resize(39);
    EXPECT_EQ(got, range(1, 40));
    EXPECT_EQ(q.stats().skipped_frames, 0u);
  }
}

TEST(DiskQueue, ConcurrentPushersShareFsyncsAndEveryFrameArrivesOnce) {
  TempDir tmp;
  DiskQueue q(options(tmp.path(), 64 << 10, Sync::kBatch));
  constexpr int kThreads = 4, kPerThread = 300;
  std::vector<std::thread> pushers;
  for (int t = 0; t < kThreads; ++t) {
    pushers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        ASSERT_EQ(q.push(payload(t * kPerThread + i, 64 + i % 512), true), PushResult::kOk);
      }
    });
  }
  std::vector<int> got;
  DiskQueue::Frame f;
  while (got.size() < kThreads * kPerThread && q.read(f, 60s)) {
    got.push_back(number(f.payload));
    EXPECT_EQ(f.payload, payload(got.back(), 64 + (got.back() % kPerThread) % 512));
    q.ack(f.seq);
  }
  for (auto& t : pushers) t.join();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kThreads * kPerThread));
  // Each producer's frames arrive in its order; all of them exactly once.
  std::vector<int> last(kThreads, -1);
  for (int v : got) {
    EXPECT_GT(v, last[v / kPerThread]);
    last[v / kPerThread] = v;
  }
  std::set<int> unique(got.begin(), got.end());
  EXPECT_EQ(unique.size(), got.size());
  const auto s = q.stats();
  EXPECT_LT(s.fsyncs, s.frames_written) << "group commit should share fsyncs between pushers";
  EXPECT_GT(s.fsyncs, 0u);
}

TEST(DiskQueue, IntervalSyncRoundTripAndRestart) {
  TempDir tmp;
  auto o = options(tmp.path(), 4096, Sync::kInterval);
  o.sync_interval = 5ms;
  {
    DiskQueue q(o);
    push_all(q, 0, 100);
    const auto frames = drain(q);
    EXPECT_EQ(numbers(frames), range(0, 100));
    for (int i = 0; i < 40; ++i) q.ack(frames[i].seq);
  }
  DiskQueue q(o);
  EXPECT_EQ(numbers(drain(q)), range(40, 100));
}

TEST(DiskQueue, ZstdFramesRoundTrip) {
  TempDir tmp;
  auto o = options(tmp.path(), 64 << 10);
  o.compress = true;
  o.compression_level = 3;
  std::uint64_t raw = 0;
  std::mt19937 rng(42);
  std::string random(3000, '\0');
  for (auto& c : random) c = static_cast<char>(rng());
  {
    DiskQueue q(o);
    for (int i = 0; i < 100; ++i) {
      const std::string p = payload(i, 4000);  // compressible text
      raw += p.size();
      ASSERT_EQ(q.push(p, false), PushResult::kOk);
    }
    ASSERT_EQ(q.push("frame-100:" + random, false), PushResult::kOk);  // incompressible: stored raw
    ASSERT_EQ(q.push("", false), PushResult::kOk);                     // empty payload
    EXPECT_LT(q.stats().bytes_written, raw / 4);
  }
  DiskQueue q(o);  // and read back after a restart
  const auto frames = drain(q);
  ASSERT_EQ(frames.size(), 102u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(frames[i].payload, payload(i, 4000));
  EXPECT_EQ(frames[100].payload, "frame-100:" + random);
  EXPECT_EQ(frames[101].payload, "");
}

// A child process pushes with sync batch and reports each frame number once push returned
// kOk; the parent SIGKILLs it at a random moment, reopens the queue and finds every
// reported frame.
TEST(DiskQueue, KillMinus9LosesNoAcknowledgedFrame) {
  TempDir tmp;
  std::random_device rd;
  const unsigned seed = rd();
  std::mt19937 rng(seed);
  const int kill_after = 50 + static_cast<int>(rng() % 400);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    try {
      DiskQueue q(options(tmp.path(), 8192, Sync::kBatch));
      std::vector<std::thread> threads;
      std::atomic<int> next{0};
      for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&] {
          for (;;) {
            const int i = next++;
            if (q.push(payload(i, 64 + i % 700), true) != PushResult::kOk) ::_exit(3);
            const std::string line = std::to_string(i) + "\n";
            if (::write(fds[1], line.data(), line.size()) < 0) ::_exit(4);
          }
        });
      }
      for (auto& t : threads) t.join();
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::set<int> acknowledged;
  std::string buf;
  char chunk[4096];
  bool killed = false;
  for (;;) {
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      acknowledged.insert(std::stoi(buf.substr(0, nl)));
      buf.erase(0, nl + 1);
    }
    if (!killed && static_cast<int>(acknowledged.size()) >= kill_after) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child status " << status << " seed " << seed;
  DiskQueue q(options(tmp.path(), 8192, Sync::kBatch));
  std::set<int> found;
  for (const auto& f : drain(q)) {
    const int i = number(f.payload);
    EXPECT_EQ(f.payload, payload(i, 64 + i % 700));
    found.insert(i);
  }
  for (int i : acknowledged)
    EXPECT_TRUE(found.count(i)) << "acknowledged frame " << i << " lost, seed " << seed;
  EXPECT_GE(found.size(), acknowledged.size());
  EXPECT_EQ(q.stats().skipped_frames, 0u) << "seed " << seed;
}

// As above, with a consumer in the child that reads and acknowledges out of order while
// segments roll over and get deleted: after the kill, every pushed frame that was not
// acknowledged by the consumer must still be there (acknowledged ones may come back too).
TEST(DiskQueue, KillMinus9WithConsumerLosesNoUnacknowledgedFrame) {
  TempDir tmp;
  std::random_device rd;
  const unsigned seed = rd();
  std::mt19937 rng(seed);
  const int kill_after = 200 + static_cast<int>(rng() % 1500);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto say = [&](char what, int i) {
      char line[32];
      const int n = std::snprintf(line, sizeof line, "%c%d\n", what, i);
      if (::write(fds[1], line, static_cast<std::size_t>(n)) < 0) ::_exit(4);
    };
    try {
      auto o = options(tmp.path(), 4096, Sync::kBatch);
      o.state_interval = 1ms;
      DiskQueue q(o);
      std::vector<std::thread> threads;
      std::atomic<int> next{0};
      for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&] {
          for (;;) {
            const int i = next++;
            if (q.push(payload(i, 64 + i % 300), true) != PushResult::kOk) ::_exit(3);
            say('p', i);
          }
        });
      }
      threads.emplace_back([&] {
        // Acknowledge in reversed groups of 5: the frontier moves in jumps.
        std::vector<DiskQueue::Frame> group;
        DiskQueue::Frame f;
        for (;;) {
          if (!q.read(f, 10s)) ::_exit(5);
          group.push_back(f);
          if (group.size() < 5) continue;
          for (auto it = group.rbegin(); it != group.rend(); ++it) {
            say('a', number(it->payload));  // before: a frame acked but not yet reported must count as acked
            q.ack(it->seq);
          }
          group.clear();
        }
      });
      for (auto& t : threads) t.join();
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::set<int> pushed, acked;
  std::string buf;
  char chunk[4096];
  bool killed = false;
  for (;;) {
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      (buf[0] == 'p' ? pushed : acked).insert(std::stoi(buf.substr(1, nl - 1)));
      buf.erase(0, nl + 1);
    }
    if (!killed && static_cast<int>(pushed.size()) >= kill_after) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child status " << status << " seed " << seed;
  EXPECT_FALSE(acked.empty()) << "seed " << seed;
  DiskQueue q(options(tmp.path(), 4096, Sync::kBatch));
  std::set<int> found;
  for (const auto& f : drain(q)) found.insert(number(f.payload));
  int lost = 0;
  std::string lost_list;
  for (int i : pushed) {
    if (!acked.count(i) && !found.count(i)) {
      ++lost;
      lost_list += ' ';
      lost_list += std::to_string(i);
    }
  }
  if (lost) {
    std::string f;
    for (int i : found) {
      f += ' ';
      f += std::to_string(i);
    }
    ADD_FAILURE() << "lost:" << lost_list << "\nfound:" << f;
  }
  EXPECT_EQ(lost, 0) << "pushed " << pushed.size() << ", acked " << acked.size() << ", found " << found.size()
                     << ", seed " << seed;
  EXPECT_EQ(q.stats().skipped_frames, 0u) << "seed " << seed;
}

// ENOSPC-like write failure (RLIMIT_FSIZE gives EFBIG) in a child process: push returns
// kError with the message, no crash, and the queue keeps working once writes fit again.
TEST(DiskQueue, WriteErrorIsReportedNotACrash) {
  TempDir tmp;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    try {
      DiskQueue q(options(tmp.path(), 1 << 20));
      rlimit lim{32 << 10, 32 << 10};
      if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(10);
      std::string error;
      PushResult r = PushResult::kOk;
      int pushed = 0;
      while ((r = q.push(std::string(4000, 'x'), false, &error)) == PushResult::kOk) ++pushed;
      if (r != PushResult::kError) ::_exit(11);
      if (error.find("cannot write") == std::string::npos) ::_exit(12);
      if (q.push("small", false, &error) != PushResult::kOk) ::_exit(13);  // still fits below the limit
      DiskQueue::Frame f;
      for (int i = 0; i < pushed; ++i) {
        if (!q.read(f, 1s) || f.payload != std::string(4000, 'x')) ::_exit(14);
      }
      if (!q.read(f, 1s) || f.payload != "small") ::_exit(15);
    } catch (...) {
      ::_exit(16);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace tern::queue
