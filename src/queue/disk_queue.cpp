#include "queue/disk_queue.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <span>
#include <system_error>
#include <tuple>

#include "queue/crc32c.h"
#include "queue/disk_queue_format.h"

namespace tern::queue {

using namespace disk_format;

namespace {

// Writes the pieces (at most 4) in order at `off`, resuming after short writes; 0 or the
// errno of the failure.
int pwritev_all(int fd, std::span<const struct iovec> pieces, std::uint64_t off) {
  std::array<struct iovec, 4> v{};
  if (pieces.size() > v.size()) return EINVAL;
  std::size_t count = pieces.size();
  std::copy_n(pieces.begin(), count, v.begin());
  struct iovec* cur = v.data();
  while (count > 0) {
    const ssize_t w = ::pwritev(fd, cur, static_cast<int>(count), static_cast<off_t>(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    off += static_cast<std::uint64_t>(w);
    auto left = static_cast<std::size_t>(w);
    while (count > 0 && left >= cur->iov_len) {
      left -= cur->iov_len;
      ++cur;
      --count;
    }
    if (count > 0) {
      cur->iov_base = static_cast<char*>(cur->iov_base) + left;
      cur->iov_len -= left;
    }
  }
  return 0;
}

int pwrite_all(int fd, const void* data, std::size_t n, std::uint64_t off) {
  const struct iovec piece { const_cast<void*>(data), n };
  return pwritev_all(fd, std::span(&piece, 1), off);
}

struct PushScratch {
  std::string frame;  // the zstd-compressed payload (uncompressed ones are written in place)
  ZSTD_CCtx* cctx = nullptr;
  ~PushScratch() { ZSTD_freeCCtx(cctx); }
};
// Per producer thread: frames are built and compressed outside the queue's lock, without
// allocating once the buffer has grown to the largest frame.
PushScratch& push_scratch() {
  thread_local PushScratch s;
  return s;
}

}  // namespace

void DiskQueue::InflightRing::push_back(const Inflight& e) {
  if (size_ == buf_.size()) {
    std::vector<Inflight> bigger(std::max<std::size_t>(64, 2 * buf_.size()));
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    buf_.swap(bigger);
    head_ = 0;
  }
  buf_[(head_ + size_) & (buf_.size() - 1)] = e;
  ++size_;
}

struct DiskQueue::ReadResult {
  bool frame = false;
  std::uint64_t start = 0, end = 0;  // the frame, or where reading goes on
  std::uint64_t skipped_frames = 0, skipped_bytes = 0;
};

DiskQueue::DiskQueue(DiskQueueOptions o)
    : opts_(std::move(o)),
      window_(std::make_unique<Window>()),
      state_path_(opts_.directory + "/state"),
      state_tmp_path_(opts_.directory + "/state.tmp") {
  if (opts_.directory.empty()) throw DiskQueueError("disk queue: the directory is not set");
  if (opts_.segment_size == 0) throw DiskQueueError("disk queue: segment_size must be positive");
  if (opts_.max_size < 2 * kHeaderSize + kFrameOverhead + 1) {
    throw DiskQueueError(fmt::format("disk queue: max_size {} is too small", opts_.max_size));
  }
  if (opts_.compress &&
      (opts_.compression_level < ZSTD_minCLevel() || opts_.compression_level > ZSTD_maxCLevel())) {
    throw DiskQueueError(fmt::format("disk queue: compression_level {} is outside zstd's {}..{}",
                                     opts_.compression_level, ZSTD_minCLevel(), ZSTD_maxCLevel()));
  }
  std::error_code ec;
  std::filesystem::create_directories(opts_.directory, ec);
  if (ec) {
    throw DiskQueueError(
        fmt::format("disk queue: cannot create directory {}: {}", opts_.directory, ec.message()));
  }
  try {
    dir_fd_ = ::open(opts_.directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) {
      throw DiskQueueError(
          fmt::format("disk queue: cannot open directory {}: {}", opts_.directory, errno_text(errno)));
    }
    const std::string lock_path = opts_.directory + "/lock";
    lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) {
      throw DiskQueueError(fmt::format("disk queue: cannot create {}: {}", lock_path, errno_text(errno)));
    }
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      throw DiskQueueError(
          fmt::format("disk queue: directory {} is in use by another queue", opts_.directory));
    }
    recover();
  } catch (...) {
    for (int fd : {lock_fd_, dir_fd_}) {  // segment files close with segments_
      if (fd >= 0) ::close(fd);
    }
    throw;
  }
  bg_ = std::thread([this] { background(); });
}

DiskQueue::~DiskQueue() {
  close();
  {
    std::lock_guard bl(bg_mu_);
    bg_stop_ = true;
  }
  bg_cv_.notify_all();
  bg_.join();
  {
    // A clean shutdown leaves everything written on disk, whatever the sync mode.
    std::unique_lock lk(mu_);
    sync_cv_.wait(lk, [&] { return !sync_running_; });
    run_sync_locked(lk);
    release_segments(lk);
  }
  persist_state();
  if (const auto n = sync_error_log_.take_suppressed())
    spdlog::error("disk queue: {} more fsync failures in {} since the last report", n, opts_.directory);
  // The segment files first: the lock goes last.
  read_file_.reset();
  write_file_.reset();
  sealed_.clear();
  segments_.clear();
  for (int fd : {lock_fd_, dir_fd_}) {
    if (fd >= 0) ::close(fd);
  }
  ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_));
}

DiskQueue::SegFile::~SegFile() {
  if (fd >= 0) ::close(fd);
}

std::string DiskQueue::segment_path(std::uint64_t id) const {
  return fmt::format("{}/{:020}.seg", opts_.directory, id);
}

bool DiskQueue::rotate_locked(std::string* error) {
  const std::uint64_t id = write_pos_.seg + 1;
  const std::string path = segment_path(id);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    if (check_lost_locked()) {
      if (error) *error = lost_;
      return false;
    }
    if (error) *error = fmt::format("disk queue: cannot create segment {}: {}", path, errno_text(e));
    return false;
  }
  unsigned char h[kHeaderSize];
  std::memcpy(h, kSegmentMagic, 8);
  put32(h + 8, kFormatVersion);
  put32(h + 12, 0);
  if (const int e = pwrite_all(fd, h, kHeaderSize, 0)) {
    ::close(fd);
    ::unlink(path.c_str());
    if (error) *error = fmt::format("disk queue: cannot write segment {}: {}", path, errno_text(e));
    return false;
  }
  // The new name must be durable before frames in it are acknowledged.
  if (opts_.sync != DiskQueueOptions::Sync::kNone && ::fsync(dir_fd_) != 0) {
    spdlog::warn("disk queue: fsync of directory {}: {}", opts_.directory, errno_text(errno));
  }
  const bool all_published = published_ >= write_pos_;
  if (write_file_ && opts_.sync != DiskQueueOptions::Sync::kNone) sealed_.push_back(std::move(write_file_));
  write_file_ = std::make_shared<SegFile>(fd);
  write_fd_ = fd;
  segments_[id] = Segment{kHeaderSize, false, false, write_file_};
  size_bytes_ += kHeaderSize;
  write_pos_ = {id, kHeaderSize};
  if (all_published) published_ = write_pos_;
  data_cv_.notify_all();
  return true;
}

// Group commit: the first pusher to find no fsync running becomes the leader and syncs
// everything written so far (outside the lock); pushers that write meanwhile wait and are
// covered by the next leader's single fsync.
void DiskQueue::run_sync_locked(std::unique_lock<std::mutex>& lk) {
  sync_running_ = true;
  const std::uint64_t target = written_ticket_;
  const Pos target_pos = write_pos_;
  std::vector<std::shared_ptr<SegFile>> sealed;
  sealed.swap(sealed_);
  const std::shared_ptr<SegFile> file = write_file_;
  lk.unlock();
  std::string err;
  std::uint64_t n = 0;
  for (const auto& s : sealed) {
    ++n;
    if (::fdatasync(s->fd) != 0 && err.empty()) err = errno_text(errno);
  }
  // Once per fsync, cheap next to it: a segment deleted under the queue has no link left, and
  // frames in it would not survive a restart.
  bool unlinked = false;
  if (file) {
    ++n;
    if (::fdatasync(file->fd) != 0 && err.empty()) err = errno_text(errno);
    struct stat st {};
    unlinked = ::fstat(file->fd, &st) == 0 && st.st_nlink == 0;
  }
  sealed.clear();  // closes the files of segments released meanwhile, outside the lock
  lk.lock();
  stats_.fsyncs += n;
  if (unlinked) mark_lost_locked(fmt::format("segment {} was deleted", segment_path(target_pos.seg)));
  if (!err.empty() || unlinked) {
    if (unlinked) {
      sync_error_ = lost_;
    } else {
      sync_error_ = fmt::format("disk queue: fsync in {} failed: {}", opts_.directory, err);
      // One line per failure would flood the log: the first, then one a minute with the count.
      std::uint64_t unlogged = 0;
      if (sync_error_log_.allow(unlogged)) {
        if (unlogged > 0) {
          spdlog::error("{} ({} times since the last report)", sync_error_, unlogged + 1);
        } else {
          spdlog::error("{}", sync_error_);
        }
      }
    }
    failed_syncs_.emplace_back(synced_ticket_ + 1, target);
    if (failed_syncs_.size() > 64) failed_syncs_.pop_front();
  }
  synced_ticket_ = std::max(synced_ticket_, target);
  if (published_ < target_pos) published_ = target_pos;
  if (synced_ticket_ == written_ticket_) published_ = write_pos_;
  sync_running_ = false;
  sync_cv_.notify_all();
  data_cv_.notify_all();
}

PushResult DiskQueue::push(std::string_view payload, std::chrono::steady_clock::time_point deadline,
                           std::string* error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return PushResult::kError;
  };
  if (payload.size() > kMaxPayload) {
    if (error) {
      *error = fmt::format("disk queue: a payload of {} bytes exceeds the frame limit of {} bytes",
                           payload.size(), kMaxPayload);
    }
    return PushResult::kTooLarge;
  }
  PushScratch& s = push_scratch();
  std::uint32_t flags = 0;
  std::size_t len = payload.size();
  if (opts_.compress) {
    if (!s.cctx) s.cctx = ZSTD_createCCtx();
    const std::size_t bound = ZSTD_compressBound(payload.size());
    if (s.frame.size() < bound) s.frame.resize(bound);
    const std::size_t n = ZSTD_compressCCtx(s.cctx, s.frame.data(), bound, payload.data(), payload.size(),
                                            opts_.compression_level);
    // Incompressible payloads are stored as they are.
    if (!ZSTD_isError(n) && n < payload.size()) {
      flags = kFlagZstd;
      len = n;
    }
  }
  // Header (len, flags) and trailer (crc, len) around the payload. An uncompressed
  // payload is written from the caller's buffer (pwritev), not copied into the frame.
  unsigned char head[8], trail[8];
  const unsigned char* body = flags ? reinterpret_cast<const unsigned char*>(s.frame.data())
                                    : reinterpret_cast<const unsigned char*>(payload.data());
  put32(head, static_cast<std::uint32_t>(len));
  put32(head + 4, flags);
  put32(trail, crc32c(crc32c(0, head, 8), body, len));
  put32(trail + 4, static_cast<std::uint32_t>(len));
  const struct iovec pieces[3] = {{head, 8}, {const_cast<unsigned char*>(body), len}, {trail, 8}};
  const std::uint64_t bytes = kFrameOverhead + len;
  if (bytes + 2 * kHeaderSize > opts_.max_size) {
    if (error) {
      *error =
          fmt::format("disk queue: a frame of {} bytes can never fit in max_size {}", bytes, opts_.max_size);
    }
    return PushResult::kTooLarge;
  }

  std::unique_lock lk(mu_);
  for (;;) {
    if (closed_) return PushResult::kClosed;
    if (!lost_.empty()) return fail(lost_);
    const bool roll = write_pos_.off >= opts_.segment_size;
    const std::uint64_t need = bytes + (roll ? kHeaderSize : 0);
    if (size_bytes_ + need <= opts_.max_size) {
      std::string msg;
      if (roll && !rotate_locked(&msg)) return fail(msg);
      break;
    }
    // Full. The segment being written cannot be deleted while it grows: start a new one so
    // that it can go as soon as its frames are acknowledged. Also when it is due to roll
    // anyway: otherwise a full segment whose frames are all acknowledged stays, and a frame
    // that needs its space waits for ever.
    if (write_pos_.off > kHeaderSize && size_bytes_ + kHeaderSize <= opts_.max_size) {
      std::string msg;
      if (!rotate_locked(&msg)) return fail(msg);
      release_segments(lk);
      continue;
    }
    if (deadline == std::chrono::steady_clock::time_point::max()) {
      space_cv_.wait(lk);
    } else if (deadline == std::chrono::steady_clock::time_point{} ||
               space_cv_.wait_until(lk, deadline) == std::cv_status::timeout) {
      return PushResult::kFull;
    }
  }
  if (const int e = pwritev_all(write_fd_, pieces, write_pos_.off)) {
    // Cut the partial frame (if this fails too, the next frame overwrites it; the next open truncates it).
    if (::ftruncate(write_fd_, static_cast<off_t>(write_pos_.off)) != 0) {
    }
    return fail(
        fmt::format("disk queue: cannot write to {}: {}", segment_path(write_pos_.seg), errno_text(e)));
  }
  write_pos_.off += bytes;
  segments_[write_pos_.seg].size += bytes;
  size_bytes_ += bytes;
  ++stats_.frames_written;
  stats_.bytes_written += bytes;
  const std::uint64_t ticket = ++written_ticket_;
  if (opts_.sync != DiskQueueOptions::Sync::kBatch) {
    published_ = write_pos_;
    data_cv_.notify_all();
    return PushResult::kOk;
  }
  while (synced_ticket_ < ticket) {
    if (!sync_running_) {
      run_sync_locked(lk);
    } else {
      sync_cv_.wait(lk);
    }
  }
  for (const auto& [first, last] : failed_syncs_) {
    if (ticket >= first && ticket <= last) return fail(sync_error_);
  }
  return PushResult::kOk;
}

bool DiskQueue::read(Frame& out, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lk(mu_);
  for (;;) {
    auto it = segments_.lower_bound(cursor_.seg);
    if (it != segments_.end()) {
      if (it->first != cursor_.seg) cursor_ = {it->first, kHeaderSize};
      const Segment& s = it->second;
      const bool complete = cursor_.seg < published_.seg;  // sealed, and all of it published
      const std::uint64_t limit = complete ? s.size : cursor_.seg == published_.seg ? published_.off : 0;
      if (cursor_.off < limit) {
        const Pos at = cursor_;
        const bool counted = !s.recovered;  // recovered segments were counted and logged at open
        // The segment's open file, taken (under the lock) when the reader moves to it.
        std::shared_ptr<SegFile> file;
        if (!read_file_ || read_fd_seg_ != at.seg) file = s.file;
        lk.unlock();
        const ReadResult r = read_at(at.seg, at.off, limit, counted, std::move(file), out.payload);
        lk.lock();
        stats_.skipped_frames += r.skipped_frames;
        stats_.skipped_bytes += r.skipped_bytes;
        if (r.frame) {
          out.seq = next_seq_++;
          inflight_.push_back(Inflight{out.seq, Pos{at.seg, r.start}, false});
          cursor_ = {at.seg, r.end};
          ++stats_.frames_read;
          return true;
        }
        cursor_ = {at.seg, r.end};
        continue;
      }
      if (complete) {
        auto next = std::next(it);
        if (next != segments_.end()) {
          cursor_ = {next->first, kHeaderSize};
          continue;
        }
      }
    }
    if (closed_ && published_ >= write_pos_) return false;
    if (data_cv_.wait_until(lk, deadline) == std::cv_status::timeout) return false;
  }
}

DiskQueue::ReadResult DiskQueue::read_at(std::uint64_t seg, std::uint64_t off, std::uint64_t limit,
                                         bool counted, std::shared_ptr<SegFile> file, std::string& payload) {
  ReadResult r;
  // Only formatted when needed: the common path reads a frame without allocating.
  const auto path = [&] { return segment_path(seg); };
  if (!read_file_ || read_fd_seg_ != seg) {
    read_file_ = std::move(file);
    read_fd_seg_ = seg;
    if (!read_file_) {
      // Not kept open (see recover): opened by path, once for the segment.
      const int fd = ::open(path().c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) read_file_ = std::make_shared<SegFile>(fd);
    }
    window_->reset(read_file_ ? read_file_->fd : -1);
    if (!read_file_) {
      const int e = errno;
      spdlog::error("disk queue: cannot open segment {}: {}; skipping {} bytes", path(), errno_text(e),
                    limit - off);
      r.end = limit;
      r.skipped_frames = 1;
      r.skipped_bytes = limit - off;
      return r;
    }
  }
  FrameView f;
  std::uint64_t p = off;
  if (!frame_at(*window_, p, limit, f)) {
    p = resync(*window_, off + 1, limit);
    if (counted) {
      r.skipped_frames = 1;
      r.skipped_bytes = p - off;
      spdlog::warn("disk queue: skipped {} corrupt bytes in {} at offset {}", p - off, path(), off);
    }
    if (p >= limit || !frame_at(*window_, p, limit, f)) {
      r.end = limit;
      return r;
    }
  }
  r.start = p;
  r.end = p + kFrameOverhead + f.len;
  if (!(f.flags & kFlagZstd)) {
    payload.assign(reinterpret_cast<const char*>(f.payload), f.len);
    r.frame = true;
    return r;
  }
  if (!dctx_) dctx_ = ZSTD_createDCtx();
  const unsigned long long size = ZSTD_getFrameContentSize(f.payload, f.len);
  if (size <= kMaxPayload) {
    payload.resize(size);
    const std::size_t n =
        ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), payload.data(), payload.size(), f.payload, f.len);
    if (!ZSTD_isError(n) && n == size) {
      r.frame = true;
      return r;
    }
  }
  // The CRC matched, so these are the bytes that were written: a writer bug, not disk damage.
  spdlog::error("disk queue: cannot decompress the frame in {} at offset {}; skipping its {} bytes", path(),
                p, r.end - p);
  r.skipped_frames += 1;
  r.skipped_bytes += r.end - p;
  return r;
}

// The oldest unacknowledged position and its seq: the first read-but-unacked frame, or where
// the reader goes on. A position at the end of a sealed segment is the start of the next.
std::pair<DiskQueue::Pos, std::uint64_t> DiskQueue::frontier_locked() const {
  Pos f = inflight_.empty() ? cursor_ : inflight_.front().start;
  const std::uint64_t seq = inflight_.empty() ? next_seq_ : inflight_.front().seq;
  for (;;) {
    auto it = segments_.lower_bound(f.seg);
    if (it == segments_.end()) break;
    if (it->first != f.seg) {
      f = {it->first, kHeaderSize};
      continue;
    }
    if (f.seg < write_pos_.seg && f.off >= it->second.size) {
      auto next = std::next(it);
      if (next == segments_.end()) break;
      f = {next->first, kHeaderSize};
      continue;
    }
    break;
  }
  return {f, seq};
}

void DiskQueue::ack(std::uint64_t seq) {
  std::unique_lock lk(mu_);
  if (inflight_.empty()) return;
  const std::uint64_t base = inflight_.front().seq;
  if (seq < base || seq - base >= inflight_.size()) return;
  Inflight& e = inflight_[seq - base];
  if (e.acked) return;
  e.acked = true;
  ++stats_.frames_acked;
  if (seq != base) return;
  while (!inflight_.empty() && inflight_.front().acked) inflight_.pop_front();
  release_segments(lk);
}

// True when the directory or the segment being written was deleted (no link left): frames
// written now would be read back in this process but lost by a restart. Sticky.
bool DiskQueue::check_lost_locked() {
  if (!lost_.empty()) return true;
  struct stat st {};
  if (write_fd_ >= 0 && ::fstat(write_fd_, &st) == 0 && st.st_nlink == 0) {
    mark_lost_locked(fmt::format("segment {} was deleted", segment_path(write_pos_.seg)));
  } else if (::fstat(dir_fd_, &st) == 0 && st.st_nlink == 0) {
    mark_lost_locked("the directory was deleted");
  }
  return !lost_.empty();
}

void DiskQueue::mark_lost_locked(const std::string& why) {
  if (!lost_.empty()) return;
  lost_ = fmt::format(
      "disk queue directory {} was deleted while in use ({}): new data is refused, it would not survive a "
      "restart; the frames already queued are still delivered. Restart Tern to create the queue again",
      opts_.directory, why);
  spdlog::error("{}", lost_);
}

// Deletes segments entirely below the frontier. The state file may still point into one of
// them after a crash: recovery then starts at the next segment that exists.
void DiskQueue::release_segments(std::unique_lock<std::mutex>& lk) {
  const Pos f = frontier_locked().first;
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::shared_ptr<SegFile>>> gone;
  while (!segments_.empty() && segments_.begin()->first < f.seg &&
         segments_.begin()->first < write_pos_.seg) {
    gone.emplace_back(segments_.begin()->first, segments_.begin()->second.size,
                      std::move(segments_.begin()->second.file));
    segments_.erase(segments_.begin());
  }
  if (gone.empty()) return;
  lk.unlock();
  for (auto& [id, size, file] : gone) {
    const std::string path = segment_path(id);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      spdlog::warn("disk queue: cannot delete {}: {}", path, errno_text(errno));
    }
    file.reset();  // closed here unless the reader or a pending fsync still holds it
  }
  lk.lock();
  for (const auto& [id, size, file] : gone) size_bytes_ -= size;
  space_cv_.notify_all();
}

// Writes the frontier atomically: tmp file, fdatasync, rename, fsync of the directory.
void DiskQueue::persist_state() {
  std::lock_guard pl(persist_mu_);
  Pos f;
  std::uint64_t seq = 0;
  {
    std::lock_guard lk(mu_);
    if (!lost_.empty()) return;  // the directory is gone: nothing to write the state into
    std::tie(f, seq) = frontier_locked();
  }
  if (f == persisted_pos_ && seq == persisted_seq_) return;
  unsigned char b[kStateSize];
  std::memcpy(b, kStateMagic, 8);
  put32(b + 8, kFormatVersion);
  put32(b + 12, 0);
  put64(b + 16, f.seg);
  put64(b + 24, f.off);
  put64(b + 32, seq);
  put32(b + 40, crc32c(0, b, kStateSize - 4));
  const std::string& tmp = state_tmp_path_;
  const std::string& path = state_path_;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int e = fd < 0 ? errno : pwrite_all(fd, b, kStateSize, 0);
  if (!e && ::fdatasync(fd) != 0) e = errno;
  if (fd >= 0) ::close(fd);
  if (!e && ::rename(tmp.c_str(), path.c_str()) != 0) e = errno;
  if (!e && ::fsync(dir_fd_) != 0) e = errno;
  if (e) {
    // Not fatal: an old frontier only means redelivered frames after a restart.
    spdlog::warn("disk queue: cannot write state file {}: {}", path, errno_text(e));
    return;
  }
  persisted_pos_ = f;
  persisted_seq_ = seq;
}

// Persists the frontier every state_interval and, with Sync::kInterval, fsyncs every sync_interval.
void DiskQueue::background() {
  using clock = std::chrono::steady_clock;
  const bool interval = opts_.sync == DiskQueueOptions::Sync::kInterval;
  auto next_sync = clock::now() + opts_.sync_interval;
  auto next_state = clock::now() + opts_.state_interval;
  std::unique_lock bl(bg_mu_);
  while (!bg_stop_) {
    bg_cv_.wait_until(bl, interval ? std::min(next_sync, next_state) : next_state, [&] { return bg_stop_; });
    if (bg_stop_) break;
    bl.unlock();
    const auto now = clock::now();
    if (interval && now >= next_sync) {
      std::unique_lock lk(mu_);
      if (!sync_running_ && (written_ticket_ > synced_ticket_ || !sealed_.empty())) run_sync_locked(lk);
      next_sync = now + opts_.sync_interval;
    }
    {
      std::lock_guard lk(mu_);
      // Within state_interval for every sync mode (kBatch: also per fsync). Not once closed:
      // nothing more is pushed, and a directory removed after a clean shutdown lost nothing.
      if (!closed_) check_lost_locked();
    }
    if (now >= next_state) {
      persist_state();
      next_state = now + opts_.state_interval;
    }
    bl.lock();
  }
}

void DiskQueue::close() {
  std::lock_guard lk(mu_);
  closed_ = true;
  data_cv_.notify_all();
  space_cv_.notify_all();
  sync_cv_.notify_all();
}

DiskQueueStats DiskQueue::stats() const {
  std::lock_guard lk(mu_);
  DiskQueueStats s = stats_;
  s.segments = segments_.size();
  s.size_bytes = size_bytes_;
  s.pending_frames =
      s.recovered_frames + s.frames_written - std::min(s.frames_acked, s.recovered_frames + s.frames_written);
  return s;
}

}  // namespace tern::queue
