#pragma once
// The persistent disk queue (shared/spec/queues.md, "Disk queue"; docs/queues.md).
//
// Frames (opaque payloads: OTLP protobuf) are appended to numbered segment files in one
// directory and read back in order by one reader. Producers are answered only once their
// frame is durable (`Sync::kBatch`: one fdatasync shared by all concurrent pushers, group
// commit). Acks may arrive in any order; the queue keeps the contiguous acknowledged
// frontier, persists it in a small state file (atomically, throttled) and deletes segments
// that lie entirely below it. On open it recovers: validates frames from the saved frontier,
// skips corrupt regions by resynchronizing on the next valid frame, truncates a torn tail.
// A crash may redeliver acknowledged frames (duplicates), never lose an acknowledged push.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "logging/log_limit.h"

namespace tern::queue {

struct DiskQueueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DiskQueueOptions {
  std::string directory;                     // created if missing
  std::uint64_t max_size = 1ull << 30;       // bound on the bytes of all segment files
  std::uint64_t segment_size = 64ull << 20;  // a new segment starts past this size
  enum class Sync { kBatch, kInterval, kNone } sync = Sync::kBatch;
  std::chrono::milliseconds sync_interval{1000};
  bool compress = false;  // zstd per frame (flag in the frame header)
  int compression_level = 1;
  // How often the acknowledged frontier is written to the state file (and on close). A crash
  // loses at most this much ack progress: those frames are redelivered, none is lost.
  std::chrono::milliseconds state_interval{100};
};

struct DiskQueueStats {
  std::uint64_t frames_written = 0, bytes_written = 0;  // this process; bytes include framing
  std::uint64_t frames_read = 0, frames_acked = 0;
  std::uint64_t fsyncs = 0;
  std::uint64_t skipped_frames = 0, skipped_bytes = 0;  // corrupt regions skipped (one per region)
  std::uint64_t missing_segments = 0;                   // segment files found missing at open (gaps)
  std::uint64_t truncated_bytes = 0;                    // invalid segment tails cut at open
  std::uint64_t recovered_frames = 0;                   // valid unacknowledged frames found at open
  std::uint64_t segments = 0, size_bytes = 0;           // now
  std::uint64_t pending_frames = 0;                     // on disk, not yet acknowledged
};

// kError: an I/O error (ENOSPC, the directory deleted, ...): retrying later may succeed.
// kTooLarge: the frame can never fit (max_size, or the frame limit): retrying cannot help.
enum class PushResult { kOk, kFull, kClosed, kError, kTooLarge };

class DiskQueue {
 public:
  // Opens and recovers the directory; throws DiskQueueError with a clear message (bad
  // options, directory unusable or in use by another process, newer on-disk format).
  explicit DiskQueue(DiskQueueOptions o);
  ~DiskQueue();  // closes; syncs what was written and persists the ack state
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends one frame. kOk once it is on disk as `sync` promises (kBatch: fsynced). When it
  // does not fit in max_size: wait=true blocks until acks free space (or close), wait=false
  // gives kFull. kError (with `error`) on I/O errors such as ENOSPC, or once the queue's
  // directory or segment was deleted under it (new frames would not survive a restart; the
  // frames already queued are still read, through the open files). kTooLarge (with `error`)
  // for a frame larger than max_size could ever hold. kClosed after close().
  PushResult push(std::string_view payload, bool wait, std::string* error = nullptr) {
    return push(payload,
                wait ? std::chrono::steady_clock::time_point::max() : std::chrono::steady_clock::time_point{},
                error);
  }
  // As push, waiting for space until `deadline` at most (then kFull).
  PushResult push(std::string_view payload, std::chrono::steady_clock::time_point deadline,
                  std::string* error = nullptr);

  // One reader: the next frame not yet read in this process, in order. Blocks up to
  // `timeout`; false on timeout, or when closed and everything written has been read.
  struct Frame {
    std::uint64_t seq = 0;
    std::string payload;
  };
  bool read(Frame& out, std::chrono::milliseconds timeout);

  // Acknowledges a read frame, in any order. Unknown or repeated seqs are ignored.
  void ack(std::uint64_t seq);

  void close();  // wakes blocked pushers and readers; pushes return kClosed
  DiskQueueStats stats() const;

  // The on-disk format this build writes and reads (segments and state file).
  static constexpr std::uint32_t kFormatVersion = 1;

 private:
  struct Pos {
    std::uint64_t seg = 0, off = 0;
    auto operator<=>(const Pos&) const = default;
  };
  // One open segment file. Each segment keeps its file open from creation (or open) to its
  // deletion, and the reader reads through it: what was written stays readable even when the
  // path is gone. Shared: the group-commit leader and the reader use it outside the lock.
  struct SegFile {
    explicit SegFile(int f) : fd(f) {}
    ~SegFile();
    SegFile(const SegFile&) = delete;
    SegFile& operator=(const SegFile&) = delete;
    const int fd;
  };
  struct Segment {
    std::uint64_t size = 0;  // bytes in the file (valid: written or recovered)
    bool bad = false;        // damaged header: its frames are read, it is never appended to
    bool recovered = false;  // validated at open: corruption already counted and logged
    std::shared_ptr<SegFile> file;  // null only if it could not be kept open (EMFILE): opened by path
  };
  struct Inflight {
    std::uint64_t seq;
    Pos start;
    bool acked;
  };
  // Frames read and not yet acknowledged, oldest first. A ring rather than a deque: it stops
  // allocating once grown to the most frames ever in flight.
  class InflightRing {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    const Inflight& front() const { return buf_[head_]; }
    Inflight& operator[](std::size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    void push_back(const Inflight& e);
    void pop_front() {
      head_ = (head_ + 1) & (buf_.size() - 1);
      --size_;
    }

   private:
    std::vector<Inflight> buf_;  // size: 0 or a power of two
    std::size_t head_ = 0, size_ = 0;
  };
  struct ReadResult;
  class Window;

  std::string segment_path(std::uint64_t id) const;
  void recover();
  void scan_recovered(std::uint64_t id, std::uint64_t from);
  bool rotate_locked(std::string* error);
  void run_sync_locked(std::unique_lock<std::mutex>& lk);
  std::pair<Pos, std::uint64_t> frontier_locked() const;
  void release_segments(std::unique_lock<std::mutex>& lk);
  bool check_lost_locked();
  void mark_lost_locked(const std::string& why);
  void persist_state();
  void background();
  ReadResult read_at(std::uint64_t seg, std::uint64_t off, std::uint64_t limit, bool counted,
                     std::shared_ptr<SegFile> file, std::string& payload);

  const DiskQueueOptions opts_;
  int lock_fd_ = -1;  // flock: one process per directory
  int dir_fd_ = -1;   // fsynced after creating, renaming files

  mutable std::mutex mu_;
  std::condition_variable data_cv_;   // reader: new data published, or closed
  std::condition_variable space_cv_;  // pushers: space freed, or closed
  std::condition_variable sync_cv_;   // pushers: a group fsync finished
  std::map<std::uint64_t, Segment> segments_;
  std::uint64_t size_bytes_ = 0;
  bool closed_ = false;

  // Writer (under mu_).
  int write_fd_ = -1;  // write_file_->fd
  std::shared_ptr<SegFile> write_file_;
  Pos write_pos_;
  std::vector<std::shared_ptr<SegFile>> sealed_;  // older segments not yet fsynced since sealed
  // Set once the directory or the segment being written is found deleted: new frames are refused.
  std::string lost_;
  std::uint64_t written_ticket_ = 0, synced_ticket_ = 0;
  bool sync_running_ = false;
  std::deque<std::pair<std::uint64_t, std::uint64_t>> failed_syncs_;  // ticket ranges
  std::string sync_error_;
  logging::LogLimit sync_error_log_{
      std::chrono::seconds(60)};  // fsync failures: the first, then a line a minute
  Pos published_;  // the reader may read up to here (kBatch: only what is fsynced)

  // Reader position and frames read but not acknowledged (under mu_).
  Pos cursor_;
  std::uint64_t next_seq_ = 0;
  InflightRing inflight_;

  // Reader-only I/O state (the one reader thread; no lock).
  std::shared_ptr<SegFile> read_file_;
  std::uint64_t read_fd_seg_ = 0;
  std::unique_ptr<Window> window_;
  void* dctx_ = nullptr;  // ZSTD_DCtx

  std::mutex persist_mu_;  // taken before mu_, never while holding it
  const std::string state_path_, state_tmp_path_;
  Pos persisted_pos_{~0ull, ~0ull};
  std::uint64_t persisted_seq_ = ~0ull;

  DiskQueueStats stats_;

  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  bool bg_stop_ = false;
  std::thread bg_;
};

}  // namespace tern::queue
