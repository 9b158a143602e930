#include "receiver/filelog/checkpoint.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tern::receiver::filelog {

namespace {

constexpr int kFormatVersion = 1;

bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// write tmp, fsync, rename over, fsync the directory: the file is the old or the new
// version after a crash, never a mix.
bool write_atomically(const std::string& path, const std::string& content, std::string& error) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "open " + tmp + ": " + std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, content) && ::fsync(fd) == 0;
  if (!ok) error = "write " + tmp + ": " + std::strerror(errno);
  ::close(fd);
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "rename " + tmp + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace

std::optional<std::vector<FilePosition>> parse_checkpoint(std::string_view text, std::string& error) {
  // nlohmann::json's get<uint64_t>() would wrap -1 and cast 1e300 (undefined behaviour):
  // numbers are checked for their kind first.
  const auto unsigned_at = [](const nlohmann::json& o, const char* key) {
    const auto& v = o.at(key);
    if (!v.is_number_unsigned())
      throw std::invalid_argument(std::string("\"") + key + "\" is not a non-negative integer: " + v.dump());
    return v.get<std::uint64_t>();
  };
  const auto string_at = [](const nlohmann::json& o, const char* key) -> const std::string& {
    const auto& v = o.at(key);
    if (!v.is_string())
      throw std::invalid_argument(std::string("\"") + key + "\" is not a string: " + v.dump());
    return v.get_ref<const std::string&>();
  };
  std::vector<FilePosition> out;
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object()) throw std::invalid_argument("not a JSON object");
    const auto& version = j.at("version");
    if (!version.is_number_integer() || version.get<std::int64_t>() != kFormatVersion) {
      error = "unknown checkpoint version " + version.dump();
      return std::nullopt;
    }
    const auto& files = j.at("files");
    if (!files.is_array()) throw std::invalid_argument("\"files\" is not an array");
    for (const auto& f : files) {
      if (!f.is_object()) throw std::invalid_argument("a file entry is not an object: " + f.dump());
      FilePosition p;
      p.path = string_at(f, "path");
      p.dev = unsigned_at(f, "dev");
      p.ino = unsigned_at(f, "ino");
      p.fp_len = unsigned_at(f, "fingerprint_size");
      const std::string& fp = string_at(f, "fingerprint");
      const auto [end, ec] = std::from_chars(fp.data(), fp.data() + fp.size(), p.fp_hash, 16);
      if (fp.empty() || fp.size() > 16 || ec != std::errc{} || end != fp.data() + fp.size())
        throw std::invalid_argument("\"fingerprint\" is not 1-16 hex digits: \"" + fp + "\"");
      p.offset = unsigned_at(f, "offset");
      out.push_back(std::move(p));
    }
  } catch (const std::exception& e) {
    error = std::string("not a valid checkpoint: ") + e.what();
    return std::nullopt;
  }
  return out;
}

std::string format_checkpoint(const std::map<std::uint64_t, FilePosition>& positions) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& [id, p] : positions) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(p.fp_hash));
    files.push_back({{"path", p.path},
                     {"dev", p.dev},
                     {"ino", p.ino},
                     {"fingerprint_size", p.fp_len},
                     {"fingerprint", hash},
                     {"offset", p.offset}});
  }
  // Paths are bytes; replace invalid UTF-8 rather than fail (the path is informative only).
  return nlohmann::json{{"version", kFormatVersion}, {"files", std::move(files)}}.dump(
             1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::optional<std::vector<FilePosition>> CheckpointTracker::load(std::string& error) const {
  if (path_.empty()) return std::vector<FilePosition>{};
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec) && !ec) return std::vector<FilePosition>{};  // first run
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    error = "cannot open " + path_ + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto positions = parse_checkpoint(ss.str(), error);
  if (!positions) error = path_ + ": " + error;
  return positions;
}

std::uint64_t CheckpointTracker::push(Op op) {
  ops_.push_back(std::move(op));
  return first_seq_ + ops_.size() - 1;
}

CheckpointTracker::Op* CheckpointTracker::find(std::uint64_t seq) {
  if (seq < first_seq_ || seq - first_seq_ >= ops_.size()) return nullptr;
  return &ops_[seq - first_seq_];
}

std::uint64_t CheckpointTracker::begin_batch(std::map<std::uint64_t, FilePosition> ends) {
  std::lock_guard lock(mu_);
  Op op;
  op.ends = std::move(ends);
  return push(std::move(op));
}

std::uint32_t CheckpointTracker::next_attempt(std::uint64_t seq) {
  std::lock_guard lock(mu_);
  Op* op = find(seq);
  if (!op) return 0;
  op->settled = op->delivered = op->accepted = false;
  return ++op->attempt;
}

std::uint32_t CheckpointTracker::attempt(std::uint64_t seq) const {
  std::lock_guard lock(mu_);
  return seq >= first_seq_ && seq - first_seq_ < ops_.size() ? ops_[seq - first_seq_].attempt : 0;
}

void CheckpointTracker::accepted(std::uint64_t seq, std::uint32_t attempt) {
  {
    std::lock_guard lock(mu_);
    Op* op = find(seq);
    if (!op || op->attempt != attempt) return;
    op->accepted = true;
    if (!op->settled) ++unsettled_;
    advance();
  }
  after_change();
}

void CheckpointTracker::settle(std::uint64_t seq, std::uint32_t attempt, bool delivered) {
  {
    std::lock_guard lock(mu_);
    Op* op = find(seq);
    if (!op || op->attempt != attempt || op->settled) return;
    op->settled = true;
    op->delivered = delivered;
    if (op->accepted && unsettled_ > 0) --unsettled_;
    advance();
  }
  settled_cv_.notify_all();
  after_change();
}

void CheckpointTracker::skip(std::uint64_t seq) {
  {
    std::lock_guard lock(mu_);
    Op* op = find(seq);
    if (!op) return;
    ++op->attempt;  // a late settlement of the refused attempt changes nothing
    op->accepted = op->settled = op->delivered = true;
    advance();
  }
  after_change();
}

void CheckpointTracker::set(std::uint64_t file_id, FilePosition pos) {
  {
    std::lock_guard lock(mu_);
    Op op;
    op.kind = Kind::kSet;
    op.accepted = op.settled = op.delivered = true;
    op.ends.emplace(file_id, std::move(pos));
    push(std::move(op));
    advance();
  }
  after_change();
}

void CheckpointTracker::forget(std::uint64_t file_id) {
  {
    std::lock_guard lock(mu_);
    Op op;
    op.kind = Kind::kForget;
    op.accepted = op.settled = op.delivered = true;
    op.ends.emplace(file_id, FilePosition{});
    push(std::move(op));
    advance();
  }
  after_change();
}

void CheckpointTracker::advance() {
  bool changed = false;
  while (!ops_.empty()) {
    Op& op = ops_.front();
    if (!op.accepted || !op.settled) break;
    if (!op.delivered) {
      if (!blocked_logged_) {
        blocked_logged_ = true;
        spdlog::warn(
            "filelog: a batch was not delivered; the checkpoint stays before it for the rest of this run "
            "(its lines are read again after a restart)");
      }
      break;
    }
    for (auto& [id, pos] : op.ends) {
      if (op.kind == Kind::kForget)
        committed_.erase(id);
      else
        committed_[id] = std::move(pos);
    }
    ops_.pop_front();
    ++first_seq_;
    changed = true;
  }
  if (changed) ++version_;
}

void CheckpointTracker::after_change() {
  bool now;
  {
    std::lock_guard lock(mu_);
    now = detached_ && version_ != written_version_;
  }
  if (now) persist_if_changed();
}

bool CheckpointTracker::persist_if_changed() { return write(false); }
bool CheckpointTracker::persist() { return write(true); }

bool CheckpointTracker::write(bool always) {
  if (path_.empty()) return true;
  std::lock_guard wlock(write_mu_);
  std::string text;
  std::uint64_t version;
  {
    std::lock_guard lock(mu_);
    if (!always && version_ == written_version_) return true;
    version = version_;
    text = format_checkpoint(committed_);
  }
  std::string error;
  const bool ok = write_atomically(path_, text, error);
  std::lock_guard lock(mu_);
  if (!ok) {
    if (write_errors_++ == 0) spdlog::error("filelog: cannot write checkpoint: {}", error);
    return false;
  }
  written_version_ = std::max(written_version_, version);
  return true;
}

void CheckpointTracker::detach() {
  {
    std::lock_guard lock(mu_);
    detached_ = true;
  }
  persist_if_changed();
}

std::map<std::uint64_t, FilePosition> CheckpointTracker::committed() const {
  std::lock_guard lock(mu_);
  return committed_;
}

std::uint64_t CheckpointTracker::write_errors() const {
  std::lock_guard lock(mu_);
  return write_errors_;
}

std::uint64_t CheckpointTracker::pending() const {
  std::lock_guard lock(mu_);
  return ops_.size();
}

bool CheckpointTracker::wait_unsettled_below(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return settled_cv_.wait_for(lock, timeout, [&] { return unsettled_ < n; });
}

}  // namespace tern::receiver::filelog
