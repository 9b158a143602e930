// Recovery at open: the saved frontier (state file), then every segment's header and frames,
// cutting a torn tail and counting what is skipped or missing.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>

#include "queue/disk_queue.h"
#include "queue/disk_queue_format.h"

namespace tern::queue {

using namespace disk_format;

namespace {

struct State {
  std::uint64_t seg = 0, off = 0, seq = 0;
};

std::optional<State> read_state(const std::string& dir, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw DiskQueueError(fmt::format("disk queue: cannot open state file {}: {}", path, errno_text(errno)));
  }
  unsigned char b[128];
  const ssize_t n = ::read(fd, b, sizeof b);
  ::close(fd);
  if (n >= 12 && std::memcmp(b, kStateMagic, 8) == 0 && get32(b + 8) > DiskQueue::kFormatVersion) {
    throw DiskQueueError(fmt::format(
        "disk queue directory {} was written by a newer Tern (format {}); this build reads up to {}", dir,
        get32(b + 8), DiskQueue::kFormatVersion));
  }
  if (n != static_cast<ssize_t>(kStateSize) || std::memcmp(b, kStateMagic, 8) != 0 ||
      crc32c(0, b, kStateSize - 4) != get32(b + kStateSize - 4)) {
    // Losing the frontier only means redelivering frames, never losing them.
    spdlog::warn("disk queue: state file {} is damaged; reading again from the oldest segment", path);
    return std::nullopt;
  }
  return State{get64(b + 16), get64(b + 24), get64(b + 32)};
}

}  // namespace

void DiskQueue::recover() {
  const std::optional<State> state = read_state(opts_.directory, state_path_);
  ::unlink(state_tmp_path_.c_str());

  std::vector<std::uint64_t> ids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(opts_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::uint64_t id = 0;
    if (name.size() != 24 || name.substr(20) != ".seg") continue;
    const auto [ptr, err] = std::from_chars(name.data(), name.data() + 20, id);
    if (err == std::errc() && ptr == name.data() + 20) ids.push_back(id);
  }
  if (ec) {
    throw DiskQueueError(
        fmt::format("disk queue: cannot list directory {}: {}", opts_.directory, ec.message()));
  }
  // Every header first: a newer format anywhere refuses the directory before anything is touched.
  // Each segment stays open from here on (Segment::file).
  std::sort(ids.begin(), ids.end());
  constexpr std::size_t kMaxOpenAtRecovery = 4096;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint64_t id = ids[i];
    const std::string path = segment_path(id);
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      const int e = errno;
      if (fd >= 0) ::close(fd);
      throw DiskQueueError(fmt::format("disk queue: cannot open segment {}: {}", path, errno_text(e)));
    }
    auto file = std::make_shared<SegFile>(fd);
    unsigned char h[kHeaderSize];
    const ssize_t n = ::pread(fd, h, kHeaderSize, 0);
    Segment s;
    s.size = static_cast<std::uint64_t>(st.st_size);
    s.recovered = true;
    if (n == static_cast<ssize_t>(kHeaderSize) && std::memcmp(h, kSegmentMagic, 8) == 0 &&
        get32(h + 8) > kFormatVersion) {
      throw DiskQueueError(fmt::format(
          "disk queue segment {} was written by a newer Tern (format {}); this build reads up to {}", path,
          get32(h + 8), kFormatVersion));
    }
    // A damaged header (magic or version): the frames behind it are still read, each one is
    // checked by its lengths and CRC. A foreign file named like a segment has no valid frame:
    // it is skipped whole (counted and logged).
    s.bad =
        n != static_cast<ssize_t>(kHeaderSize) || std::memcmp(h, kSegmentMagic, 8) != 0 || get32(h + 8) == 0;
    if (s.bad && n > 0) {
      spdlog::warn(
          "disk queue: {} has a damaged segment header (bytes {:02x}); reading the valid frames behind it",
          path, fmt::join(h, h + n, " "));
    }
    // Past a few thousand segments (tiny segment_size, huge max_size) the fd limit may run out:
    // those segments are then opened by path when read.
    if (i < kMaxOpenAtRecovery) {
      s.file = std::move(file);
    } else if (i == kMaxOpenAtRecovery) {
      spdlog::warn(
          "disk queue {}: {} segments; only the oldest {} are kept open, the others are opened when read",
          opts_.directory, ids.size(), kMaxOpenAtRecovery);
    }
    segments_[id] = s;
  }

  std::optional<std::uint64_t> torn;
  if (!segments_.empty() && segments_.rbegin()->second.size < kHeaderSize) {
    // Created, but the process died before its header was written: nothing was ever in it.
    const auto last = std::prev(segments_.end());
    torn = last->first;
    spdlog::warn("disk queue: removed {}: a segment whose header was never completed ({} bytes)",
                 segment_path(last->first), last->second.size);
    stats_.truncated_bytes += last->second.size;
    ::unlink(segment_path(last->first).c_str());
    segments_.erase(last);
  }
  Pos start{segments_.empty() ? 0 : segments_.begin()->first, kHeaderSize};
  if (state) {
    start = {state->seg, std::max(state->off, kHeaderSize)};
    next_seq_ = state->seq;
    persisted_pos_ = {state->seg, state->off};
    persisted_seq_ = state->seq;
  }
  // Segments below the saved frontier were fully acknowledged; only their deletion was lost.
  while (!segments_.empty() && segments_.begin()->first < start.seg) {
    ::unlink(segment_path(segments_.begin()->first).c_str());
    segments_.erase(segments_.begin());
  }
  // Segment numbers are consecutive and only the oldest are ever deleted (once acknowledged):
  // a gap above the saved frontier is a file deleted or moved behind Tern's back, and the
  // frames in it are lost. So is the segment the frontier lies in when neither it nor any
  // later one is left (the segment being written is never deleted).
  auto missing = [&](std::uint64_t first, std::uint64_t last, std::string_view what) {
    ++stats_.skipped_frames;
    stats_.missing_segments += last - first + 1;
    spdlog::error("disk queue {}: {} {:020}.seg{} missing ({}); the frames not yet delivered in {} are lost",
                  opts_.directory, first == last ? "segment" : "segments", first,
                  first == last ? std::string() : fmt::format(" to {:020}.seg", last), what,
                  first == last ? "it" : "them");
  };
  if (state && state->seg > 0 && torn != state->seg &&
      (segments_.empty() || segments_.rbegin()->first < state->seg)) {
    missing(state->seg, state->seg, "the saved read position lies in it");
  }
  for (auto it = segments_.begin(); it != segments_.end() && std::next(it) != segments_.end(); ++it) {
    const std::uint64_t next = std::next(it)->first;
    if (next != it->first + 1) missing(it->first + 1, next - 1, "a gap in the segment numbers");
  }
  if (!segments_.empty() && segments_.begin()->first != start.seg)
    start = {segments_.begin()->first, kHeaderSize};

  for (auto& [id, s] : segments_) {
    scan_recovered(id, id == start.seg ? start.off : kHeaderSize);
    size_bytes_ += s.size;
  }
  // The saved position can lie past the end of its segment: the state file is synced when
  // it is written, a segment's data only as `sync` says, and a power loss can keep the one
  // and lose the other. Everything before the position was acknowledged (what is lost of it
  // was delivered), so reading resumes at the segment's end, which is where appends resume
  // too. Without this the reader resumed inside the frames appended after the restart and
  // skipped them, uncounted.
  if (const auto it = segments_.find(start.seg); it != segments_.end() && start.off > it->second.size) {
    spdlog::warn(
        "disk queue: the saved read position (offset {} of {}) lies past the segment's end ({} bytes): "
        "acknowledged data did not reach the disk before a crash; reading on from its end",
        start.off, segment_path(start.seg), it->second.size);
    start.off = it->second.size;
  }

  // Appends go on in the last segment (the scan cut any damaged tail, so it ends on a frame
  // boundary), or in a new one when its header is bad or there is none.
  if (!segments_.empty() && !segments_.rbegin()->second.bad) {
    auto& [id, s] = *segments_.rbegin();
    const std::string path = segment_path(id);
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      throw DiskQueueError(fmt::format("disk queue: cannot open segment {}: {}", path, errno_text(errno)));
    }
    write_file_ = std::make_shared<SegFile>(fd);
    write_fd_ = fd;
    s.file = write_file_;
    write_pos_ = {id, s.size};
  } else {
    write_pos_ = {std::max(segments_.empty() ? 0 : segments_.rbegin()->first, state ? state->seg : 0), 0};
    std::string error;
    if (!rotate_locked(&error)) throw DiskQueueError(error);
  }
  published_ = write_pos_;
  if (segments_.begin()->first == write_pos_.seg && start.seg != write_pos_.seg)
    start = {write_pos_.seg, kHeaderSize};
  cursor_ = start;
  if (stats_.recovered_frames > 0 || stats_.skipped_frames > 0 || stats_.truncated_bytes > 0) {
    spdlog::info(
        "disk queue {}: recovered {} frames in {} segments ({} bytes skipped, {} truncated, {} segments "
        "missing)",
        opts_.directory, stats_.recovered_frames, segments_.size(), stats_.skipped_bytes,
        stats_.truncated_bytes, stats_.missing_segments);
  }
}

void DiskQueue::scan_recovered(std::uint64_t id, std::uint64_t from) {
  Segment& s = segments_[id];
  const std::string path = segment_path(id);
  if (from >= s.size && !(s.bad && from <= kHeaderSize)) return;
  std::shared_ptr<SegFile> file = s.file;
  if (!file) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
      throw DiskQueueError(fmt::format("disk queue: cannot open segment {}: {}", path, errno_text(errno)));
    file = std::make_shared<SegFile>(fd);
  }
  const int fd = file->fd;
  Window w;
  w.reset(fd);
  FrameView f;
  std::uint64_t p = from;
  if (s.bad && from <= kHeaderSize) {
    // The damaged header and whatever follows it up to the first valid frame: one region.
    std::uint64_t q = std::min(kHeaderSize, s.size);
    if (q < s.size && !frame_at(w, q, s.size, f)) q = resync(w, q + 1, s.size);
    ++stats_.skipped_frames;
    stats_.skipped_bytes += q;
    spdlog::warn("disk queue: skipped {} bytes (a damaged segment header{}) in {} at offset 0", q,
                 q > kHeaderSize ? " and corrupt bytes" : "", path);
    p = q;
  }
  while (p < s.size) {
    if (frame_at(w, p, s.size, f)) {
      ++stats_.recovered_frames;
      p += kFrameOverhead + f.len;
      continue;
    }
    const std::uint64_t q = resync(w, p + 1, s.size);
    if (q < s.size) {
      ++stats_.skipped_frames;
      stats_.skipped_bytes += q - p;
      spdlog::warn("disk queue: skipped {} corrupt bytes in {} at offset {}", q - p, path, p);
      p = q;
      continue;
    }
    if (s.bad) {
      // Never appended to: nothing to cut, the rest is skipped as one more corrupt region.
      ++stats_.skipped_frames;
      stats_.skipped_bytes += s.size - p;
      spdlog::warn("disk queue: skipped {} corrupt bytes in {} at offset {}", s.size - p, path, p);
      break;
    }
    // No valid frame after p: a write torn by a crash, or a cut file. Cut it so that the file
    // ends on a frame boundary.
    spdlog::warn("disk queue: truncated {} bytes of an incomplete frame at the end of {} (offset {})",
                 s.size - p, path, p);
    if (::ftruncate(fd, static_cast<off_t>(p)) != 0) {
      spdlog::warn("disk queue: cannot truncate {}: {}", path, errno_text(errno));
    }
    stats_.truncated_bytes += s.size - p;
    s.size = p;
  }
}

}  // namespace tern::queue
