#pragma once
// The file receiver's checkpoint: how far each file has been read *and settled*.
//
// Every batch sent gets a sequence number and the end offsets of the files it carries.
// A batch is done when consume_logs accepted it and its delivery token settled; the
// committed offsets follow the longest prefix of done batches, so the checkpoint never
// points past a line that is not safe yet, whatever order tokens settle in (from any
// thread). A batch settled as not delivered stops the prefix for the rest of the run: its
// lines are read again after a restart (at least once).
//
// Positions are persisted to one JSON file, atomically (temporary file, fsync, rename).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tern::receiver::filelog {

// Where one file stands, with what identifies it: device + inode, and a hash (XXH64) of
// its first `fp_len` bytes, which tells a file from another that reused the inode.
struct FilePosition {
  std::string path;
  std::uint64_t dev = 0, ino = 0;
  std::uint64_t fp_len = 0, fp_hash = 0;
  std::uint64_t offset = 0;
};

// The checkpoint file's text (format version 1), without the file: what load() reads and
// persist_if_changed() writes. parse_checkpoint is strict: every number must be a
// non-negative integer and the fingerprint 1-16 hex digits, so that a damaged file is an
// error with its reason instead of positions that were never written. nullopt and `error`
// set when the text is not a checkpoint.
std::optional<std::vector<FilePosition>> parse_checkpoint(std::string_view text, std::string& error);
std::string format_checkpoint(const std::map<std::uint64_t, FilePosition>& positions);

class CheckpointTracker {
 public:
  // `path` empty: positions are tracked but never written.
  explicit CheckpointTracker(std::string path) : path_(std::move(path)) {}

  // Reads the checkpoint file. nullopt (and `error` set) when it exists but cannot be
  // read or parsed; an empty vector when there is none.
  std::optional<std::vector<FilePosition>> load(std::string& error) const;

  // A batch carrying lines up to these positions (file id -> position) is being sent.
  std::uint64_t begin_batch(std::map<std::uint64_t, FilePosition> ends);
  // A new delivery attempt of a batch (the previous token was refused); returns its number.
  // Settlements of earlier attempts are ignored from now on.
  std::uint32_t next_attempt(std::uint64_t seq);
  std::uint32_t attempt(std::uint64_t seq) const;
  // consume_logs returned kOk for this attempt.
  void accepted(std::uint64_t seq, std::uint32_t attempt);
  // The token of this attempt settled (any thread, any order).
  void settle(std::uint64_t seq, std::uint32_t attempt, bool delivered);
  // The batch was refused as invalid: it is done, nothing of it will ever be sent.
  void skip(std::uint64_t seq);
  // A position that needs no delivery (a new file's start, a truncated file's restart),
  // committed in order with the batches before it.
  void set(std::uint64_t file_id, FilePosition pos);
  // The file is no longer followed: dropped from the checkpoint once the batches before are done.
  void forget(std::uint64_t file_id);

  // Writes the checkpoint if it changed since the last write. False on a write error
  // (logged; retried at the next call).
  bool persist_if_changed();
  // Writes the checkpoint whether it changed or not (the receiver's first one: its very
  // existence says that `start_at: end` has been applied).
  bool persist();
  // From now on every change is written at once (the receiver's thread is gone, tokens
  // may still settle while the exporters drain).
  void detach();

  std::map<std::uint64_t, FilePosition> committed() const;
  std::uint64_t write_errors() const;
  std::uint64_t pending() const;  // operations not yet committed
  // Waits up to `timeout` until fewer than `n` accepted batches wait for their token to
  // settle. The receiver reads ahead only that far: the file, not memory, is the buffer.
  bool wait_unsettled_below(std::size_t n, std::chrono::milliseconds timeout);

 private:
  bool write(bool always);
  enum class Kind { kBatch, kSet, kForget };
  struct Op {
    Kind kind = Kind::kBatch;
    std::uint32_t attempt = 0;
    bool accepted = false, settled = false, delivered = false;
    std::map<std::uint64_t, FilePosition> ends;  // kSet: one entry; kForget: one entry (key only)
  };
  std::uint64_t push(Op op);  // under mu_
  Op* find(std::uint64_t seq);
  void advance();  // under mu_: commits the done prefix
  void after_change();

  const std::string path_;
  mutable std::mutex mu_;
  std::deque<Op> ops_;
  std::uint64_t first_seq_ = 0;  // sequence number of ops_.front()
  std::map<std::uint64_t, FilePosition> committed_;
  std::uint64_t version_ = 0, written_version_ = 0;
  bool blocked_logged_ = false;
  bool detached_ = false;
  std::size_t unsettled_ = 0;  // accepted, token not settled yet
  std::condition_variable settled_cv_;
  std::uint64_t write_errors_ = 0;
  std::mutex write_mu_;  // one writer at a time, snapshots written in order
};

}  // namespace tern::receiver::filelog
