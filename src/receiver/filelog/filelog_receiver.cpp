#include "receiver/filelog/filelog_receiver.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <re2/re2.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "receiver/filelog/checkpoint.h"
#include "receiver/filelog/json_value.h"
#include "receiver/filelog/line_splitter.h"
#include "receiver/filelog/operators.h"

namespace tern::receiver::filelog {

namespace {

using Clock = std::chrono::steady_clock;
using FileKey = std::pair<std::uint64_t, std::uint64_t>;  // device, inode

std::uint64_t now_unix_nano() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

// Reads up to `n` bytes from the start of the file (short only at end of file or on error).
std::string read_prefix(int fd, std::size_t n) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

std::uint64_t hash(std::string_view s) { return XXH64(s.data(), s.size(), 0); }

struct Counters {
  std::atomic<std::uint64_t> lines_read{0}, bytes_read{0}, lines_truncated{0}, files_open{0}, batches_sent{0},
      batches_refused{0}, batches_invalid{0}, json_errors{0}, file_errors{0};
  static void inc(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
    c.fetch_add(n, std::memory_order_relaxed);
  }
};

// A followed file. The descriptor stays open while the file is followed, which also
// keeps its inode from being reused: a known (device, inode) is always the same file.
struct File {
  File(std::size_t max_log_size, bool utf8) : splitter(max_log_size, utf8) {}
  ~File() {
    if (fd >= 0) ::close(fd);
  }
  std::uint64_t id = 0;                      // this run's key in the checkpoint tracker
  std::string path;                          // as the include pattern matched it (last time it was matched)
  std::string abs_path;                      // log.file.path
  std::string name;                          // log.file.name
  std::string resolved_path, resolved_name;  // log.file.*_resolved: after symlinks
  FileKey key{};
  int fd = -1;
  std::uint64_t fp_len = 0, fp_hash = 0;
  LineSplitter splitter;
  bool seen = false;             // matched by the current scan
  bool rotated = false;          // not matched any more (renamed away, deleted): read to its end, then closed
  bool data_since_scan = false;  // bytes were read since the previous scan
  bool failed = false;           // a read failed: retried after the next scan
  bool at_eof = false;           // the last read found no more data
  // multiline: the record being gathered from its lines, and where its last line ends.
  std::string entry;
  bool entry_open = false, entry_truncated = false;
  std::uint64_t entry_end = 0;
  std::chrono::steady_clock::time_point entry_at{};  // when its last line came
  // CRI partial lines (tag P) waiting for their last part (tag F): the log text joined so
  // far, the newest part's "<time> <stream> " and tag, and where that part ends.
  std::string partial_log, partial_head;
  bool partial_open = false, partial_truncated = false;
  std::size_t partial_parts = 0;
  std::uint64_t partial_end = 0;
  std::chrono::steady_clock::time_point partial_at{};

  void set_path(const std::string& p) {
    path = p;
    std::error_code ec;
    auto abs = std::filesystem::absolute(p, ec);
    abs_path = ec ? p : abs.lexically_normal().string();
    name = std::filesystem::path(p).filename().string();
    auto real = std::filesystem::canonical(p, ec);  // gone already: the path as matched
    resolved_path = ec ? abs_path : real.string();
    resolved_name = std::filesystem::path(resolved_path).filename().string();
  }
  FilePosition position(std::uint64_t offset) const {
    return FilePosition{path, key.first, key.second, fp_len, fp_hash, offset};
  }
};

// The batch being filled: one resource per file, positions for the checkpoint.
struct Batch {
  struct PerFile {
    std::size_t resource = 0;                             // index in resource_logs
    pdata::Str name, path, resolved_name, resolved_path;  // in the arena
  };
  std::shared_ptr<pdata::LogsData> data;
  std::map<std::uint64_t, FilePosition> ends;
  std::map<std::uint64_t, PerFile> files;
  std::vector<pdata::KeyValue> fixed;     // `attributes` of the config, in the arena
  std::vector<pdata::KeyValue> resource;  // `resource` of the config, in the arena
  std::size_t lines = 0, bytes = 0;
};

}  // namespace

struct FilelogReceiver::Impl {
  Impl(std::string id_, const receiver::filelog::FilelogReceiverConfig& c, component::Consumer& consumer_,
       FilelogReceiverOptions o)
      : id(std::move(id_)), config(c), consumer(consumer_), options(o) {
    if (!config.storage.empty()) {
      std::string file = id;
      std::replace(file.begin(), file.end(), '/', '_');  // `filelog/app` -> filelog-filelog_app.json
      checkpoint_path = (std::filesystem::path(config.storage) / ("filelog-" + file + ".json")).string();
    }
    tracker = std::make_shared<CheckpointTracker>(checkpoint_path);
    for (const auto& [k, v] : config.attributes) reserved.push_back(k);
    if (config.include_file_name) reserved.emplace_back("log.file.name");
    if (config.include_file_path) reserved.emplace_back("log.file.path");
    if (config.include_file_name_resolved) reserved.emplace_back("log.file.name_resolved");
    if (config.include_file_path_resolved) reserved.emplace_back("log.file.path_resolved");
    options.read_chunk = std::max<std::size_t>(options.read_chunk, 1);
    if (!config.operators.empty()) operators = std::make_unique<Operators>(config.operators);
    // A container operator that sees the lines as read (the first one) joins CRI partial
    // lines first, as the Collector's does (its built-in recombine).
    if (!config.operators.empty() &&
        config.operators.front().type == receiver::filelog::FilelogOperatorConfig::Type::kContainer &&
        config.operators.front().format != "docker") {
      cri_join = true;
      cri_max =
          config.operators.front().max_log_size ? config.operators.front().max_log_size : config.max_log_size;
    }
    for (auto [text, re] :
         {std::pair{&config.multiline_start, &line_start}, std::pair{&config.multiline_end, &line_end}}) {
      if (text->empty()) continue;
      *re = std::make_unique<re2::RE2>(*text, re2::RE2::Quiet);
      if (!(*re)->ok()) throw std::invalid_argument("filelog " + id + ": multiline: " + (*re)->error());
    }
  }

  const std::string id;
  const receiver::filelog::FilelogReceiverConfig config;
  component::Consumer& consumer;
  FilelogReceiverOptions options;
  // A batch is sent at this many lines or bytes of line text (max_batch_lines,
  // max_batch_size; validated > 0 by the loader, kept >= 1 here for direct callers).
  const std::size_t batch_max_lines = std::max<std::size_t>(config.max_batch_lines, 1);
  const std::size_t batch_max_bytes = std::max<std::size_t>(config.max_batch_size, 1);
  std::string checkpoint_path;
  std::shared_ptr<CheckpointTracker> tracker;  // shared with the delivery callbacks
  Counters counters;
  std::vector<std::string> reserved;  // attribute keys a parsed JSON field may not take

  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;  // under mu
  std::atomic<bool> stopping{false};
  bool started = false, stopped = false;

  // Owned by the reading thread (and by start() before the thread exists).
  std::map<FileKey, std::unique_ptr<File>> files;
  std::uint64_t next_file_id = 1;
  std::vector<FilePosition> restored;  // from the checkpoint, matched by the first scan
  bool had_checkpoint = false;
  bool first_scan = true;
  std::set<std::string> failed_paths;  // errors are logged once per path until it works
  std::string chunk;
  simdjson::dom::parser parser;
  std::unique_ptr<Operators> operators;            // config.operators, when there are any
  std::unique_ptr<re2::RE2> line_start, line_end;  // multiline, when set
  bool cri_join = false;      // CRI partial lines are joined before anything else sees them
  std::uint64_t cri_max = 0;  // bytes of joined log text
  std::string joined;         // scratch: a joined CRI line
  Batch batch;
  std::uint64_t observed = 0;
  bool chunk_full = false;          // the last read filled its buffer: the file has more
  std::uint64_t lines_pending = 0;  // lines_read, added to the shared counter once per chunk

  void flush_line_count() {
    Counters::inc(counters.lines_read, lines_pending);
    lines_pending = 0;
  }
  Clock::time_point last_persist = Clock::now();
  // How many files may be open at once: max_concurrent_files, and never so many that the
  // rest of the process (exporter connections, listeners) finds no descriptor left: opened
  // without bound, the files took them all and the collector aborted on the next socket.
  std::size_t open_budget = std::min<std::uint64_t>(config.max_concurrent_files, descriptor_budget());
  bool budget_warned = false;
  static std::size_t descriptor_budget() {
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
    const auto limit = static_cast<std::size_t>(rl.rlim_cur);
    const std::size_t reserve = std::max<std::size_t>(64, limit / 4);
    return limit > reserve ? limit - reserve : 1;
  }

  bool utf8() const { return config.encoding != "nop"; }

  // Sleeps up to `d`; false when the receiver is stopping.
  bool sleep_for(Clock::duration d) {
    std::unique_lock lock(mu);
    return !cv.wait_for(lock, d, [&] { return stop; });
  }

  // Counted and logged once per path until the path works again (it is retried every scan).
  void file_error(const std::string& path, const std::string& what) {
    if (!failed_paths.insert(path).second) return;
    Counters::inc(counters.file_errors);
    spdlog::warn("filelog {}: {}: {}", id, path, what);
  }

  // ---- scanning -----------------------------------------------------------------------

  bool is_checkpoint(const std::string& path) const {
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec).lexically_normal();
    const auto c = std::filesystem::absolute(checkpoint_path, ec).lexically_normal();
    return p == c || p.string() == c.string() + ".tmp";
  }

  // Directories glob() could not read, by the callback below (glob's callback takes no
  // user data; one scan runs at a time per thread).
  static thread_local std::vector<std::pair<std::string, int>>* glob_errors;
  static int on_glob_error(const char* path, int error) {
    if (glob_errors) glob_errors->emplace_back(path, error);
    return 0;  // go on with the rest of the pattern
  }

  std::set<std::string> match() {
    std::set<std::string> paths;
    std::vector<std::pair<std::string, int>> unreadable;
    glob_errors = &unreadable;
    for (const auto& pattern : config.include) {
      glob_t g{};
      const int rc = ::glob(pattern.c_str(), GLOB_NOSORT, on_glob_error, &g);
      if (rc == 0)
        for (std::size_t i = 0; i < g.gl_pathc; ++i) paths.insert(g.gl_pathv[i]);
      else if (rc != GLOB_NOMATCH)
        file_error(pattern, "cannot expand the pattern");
      ::globfree(&g);
    }
    glob_errors = nullptr;
    for (const auto& [dir, error] : unreadable)  // was silent: its files just did not match
      if (error != ENOENT && error != ENOTDIR)
        file_error(dir, std::string("cannot read the directory: ") + std::strerror(error));
    for (auto it = paths.begin(); it != paths.end();) {
      // Our own checkpoint (and its temporary file) is never followed, whatever the patterns.
      bool excluded =
          !checkpoint_path.empty() && it->rfind(".json") != std::string::npos && is_checkpoint(*it);
      for (const auto& ex : config.exclude)
        // No FNM_PERIOD: an include that names dot-files must be able to exclude some of them.
        if (::fnmatch(ex.c_str(), it->c_str(), FNM_PATHNAME) == 0) excluded = true;
      it = excluded ? paths.erase(it) : std::next(it);
    }
    return paths;
  }

  void scan() {
    for (auto& [k, f] : files) f->seen = false;
    for (const auto& path : match()) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        struct stat link {};
        if (errno != ENOENT)
          file_error(path, std::string("stat: ") + std::strerror(errno));
        else if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
          file_error(path, "a symbolic link to nothing (dangling); skipped");
        continue;
      }
      if (!S_ISREG(st.st_mode)) {
        file_error(path, "not a regular file; skipped");
        continue;
      }
      if (auto it = files.find({st.st_dev, st.st_ino}); it != files.end()) {
        File& f = *it->second;
        f.seen = true;
        f.rotated = false;
        f.failed = false;
        if (f.path != path) f.set_path(path);  // renamed within the patterns: same file, same offset
        verify(f);
        continue;
      }
      // exclude_older_than: a file not written for that long is not started on (one
      // already followed is read on as it is).
      if (config.exclude_older_than > config::Duration{0}) {
        const auto mtime = std::chrono::system_clock::time_point(
            std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec));
        if (std::chrono::system_clock::now() - mtime > config.exclude_older_than) continue;
      }
      open_new(path);
    }
    restored.clear();
    first_scan = false;
    // Files not matched any more were renamed away or deleted; the descriptor still
    // reads them. Close one only after a whole poll interval without new data, so that a
    // writer that had not reopened its file yet loses nothing.
    for (auto it = files.begin(); it != files.end();) {
      File& f = *it->second;
      // Not matched, but still at its path (a directory unreadable for a moment, a stat
      // that failed): the same file, followed on. Taken for rotated, it was closed, dropped
      // from the checkpoint and, matched again, read once more from offset 0.
      if (!f.seen && still_at_path(f)) f.seen = true;
      if (f.seen || !f.rotated || f.data_since_scan) {
        if (!f.seen && !f.rotated) spdlog::debug("filelog {}: {} was rotated or deleted", id, f.path);
        f.rotated = !f.seen;
        f.data_since_scan = false;
        ++it;
        continue;
      }
      while (!stopping && !f.failed && read_chunk(f)) {
      }
      // Nobody will finish its unterminated last line now.
      chunk_full = false;
      f.splitter.flush([&](std::string_view line, std::uint64_t end, bool truncated) {
        take_line(f, line, end, truncated);
      });
      flush_entry(f);
      if (!send()) return;  // stopping: the file stays in the checkpoint as it is
      tracker->forget(f.id);
      spdlog::debug("filelog {}: closed {} at offset {}", id, f.path, f.splitter.offset());
      counters.files_open.fetch_sub(1, std::memory_order_relaxed);
      it = files.erase(it);
    }
  }

  // True unless the path now names nothing or another file: a stat that cannot tell (a
  // directory on the way without search permission, EACCES) keeps the file followed.
  static bool still_at_path(const File& f) {
    struct stat st {};
    if (::stat(f.path.c_str(), &st) != 0) return errno != ENOENT && errno != ENOTDIR;
    return FileKey{st.st_dev, st.st_ino} == f.key;
  }

  void open_new(const std::string& path) {
    if (files.size() >= open_budget) {
      if (!budget_warned) {
        budget_warned = true;
        spdlog::warn(
            "filelog {}: more files match than can be followed at once ({}: max_concurrent_files, "
            "and the process's open-file limit less a reserve for connections); the others are "
            "opened as followed files are closed",
            id, open_budget);
      }
      return;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      file_error(path, std::string("cannot open: ") + std::strerror(errno));
      return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return;
    }
    const FileKey key{st.st_dev, st.st_ino};
    if (auto it = files.find(key); it != files.end()) {  // replaced between stat and open
      ::close(fd);
      it->second->seen = true;
      return;
    }
    auto f = std::make_unique<File>(config.max_log_size, utf8());
    f->id = next_file_id++;
    f->fd = fd;
    f->key = key;
    f->seen = true;
    f->set_path(path);
    const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    const std::string prefix = read_prefix(fd, std::min<std::uint64_t>(config.fingerprint_size, size));
    f->fp_len = prefix.size();
    f->fp_hash = hash(prefix);

    std::uint64_t offset = 0;
    const char* why = "new file";
    auto r = std::find_if(restored.begin(), restored.end(),
                          [&](const FilePosition& p) { return p.dev == key.first && p.ino == key.second; });
    if (r != restored.end()) {
      // Same inode: the same file only if its first bytes are still what they were.
      if (r->fp_len <= prefix.size() && hash(std::string_view(prefix).substr(0, r->fp_len)) == r->fp_hash) {
        offset = r->offset <= size ? r->offset : 0;  // shorter: truncated while we were away
        why = "checkpoint";
      }
      restored.erase(r);
    } else if (first_scan && !had_checkpoint) {
      if (config.start_at == receiver::filelog::FilelogReceiverConfig::StartAt::kEnd) offset = size;
      why = "start_at";
    }
    f->splitter.reset(offset);
    tracker->set(f->id, f->position(offset));
    failed_paths.erase(path);
    Counters::inc(counters.files_open);
    spdlog::info("filelog {}: following {} from offset {} ({})", id, path, offset, why);
    files.emplace(key, std::move(f));
  }

  // Copytruncate (shorter than what was read) or rewritten in place (first bytes changed):
  // read it again from the start. Otherwise let the fingerprint grow up to its size.
  void verify(File& f) {
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return;
    const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    const std::string prefix = read_prefix(f.fd, std::min<std::uint64_t>(config.fingerprint_size, size));
    const bool truncated = size < f.splitter.offset();
    const bool rewritten =
        prefix.size() < f.fp_len || hash(std::string_view(prefix).substr(0, f.fp_len)) != f.fp_hash;
    if (truncated || rewritten) {
      flush_entry(f);
      if (!send()) return;  // what was read before goes out (and is checkpointed) first
      spdlog::info("filelog {}: {} was {}; reading it from the start", id, f.path,
                   truncated ? "truncated" : "rewritten");
      f.splitter.reset(0);
      f.fp_len = prefix.size();
      f.fp_hash = hash(prefix);
      tracker->set(f.id, f.position(0));
    } else if (prefix.size() > f.fp_len) {
      f.fp_len = prefix.size();
      f.fp_hash = hash(prefix);
    }
  }

  // ---- reading ------------------------------------------------------------------------

  // Reads one chunk of `f` into the batch; false at end of file (or on an error).
  bool read_chunk(File& f) {
    chunk.resize(options.read_chunk);
    ssize_t n;
    do {
      n = ::pread(f.fd, chunk.data(), chunk.size(), static_cast<off_t>(f.splitter.offset()));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      f.failed = true;
      file_error(f.path, std::string("read error: ") + std::strerror(errno));
      return false;
    }
    if (n == 0) {
      f.at_eof = true;
      return false;
    }
    if (f.at_eof) {
      // Growing again after a pause: first make sure it is still the same content (a
      // copytruncate followed by more writes than we had read looks like growth).
      f.at_eof = false;
      const std::uint64_t before = f.splitter.offset();
      verify(f);
      if (f.splitter.offset() != before) return true;  // starts again at 0 on the next read
    }
    Counters::inc(counters.bytes_read, static_cast<std::uint64_t>(n));
    f.data_since_scan = true;
    observed = now_unix_nano();
    chunk_full = static_cast<std::size_t>(n) == chunk.size();
    f.splitter.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)),
                    [&](std::string_view line, std::uint64_t end, bool truncated) {
                      take_line(f, line, end, truncated);
                    });
    flush_line_count();
    return true;
  }

  // `parse: json`: the object's fields become attributes; a string `message` (or `msg`)
  // field becomes the body. False when the line is not a JSON object.
  bool parse_json(pdata::LogRecord& rec, std::string_view line, const pdata::Arena& a) {
    simdjson::dom::element doc;
    simdjson::dom::object obj;
    if (parser.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS ||
        doc.get_object().get(obj) != simdjson::SUCCESS)
      return false;
    std::string_view body_key;
    for (std::string_view k : {"message", "msg"}) {
      std::string_view s;
      if (obj.at_key(k).get_string().get(s) == simdjson::SUCCESS) {
        rec.body = pdata::AnyValue::string(a.copy(s));
        body_key = k;
        break;
      }
    }
    if (body_key.empty()) rec.body = pdata::AnyValue::string(a.copy(line));
    rec.attributes.reserve(obj.size() + reserved.size());
    for (auto field : obj) {
      if (field.key == body_key) continue;
      if (std::find(reserved.begin(), reserved.end(), field.key) != reserved.end()) continue;
      rec.attributes.push_back({a.copy(field.key), json_value(field.value, a)});
    }
    return true;
  }

  // A line from the splitter. CRI partial lines (`<time> <stream> P <log>`) are held and
  // joined until their last part (tag F), the Collector's container recombine: the joined
  // line keeps the last part's time, stream and tag. The held parts are never checkpointed
  // (no record carries their offset yet), so a restart reads them again.
  void take_line(File& f, std::string_view line, std::uint64_t end, bool truncated) {
    if (!cri_join) return take_record_line(f, line, end, truncated);
    const auto cri = split_cri_line(line);  // the container operator's own reading
    if (!cri || cri->log_at == std::string_view::npos || (cri->tag != "P" && cri->tag != "F")) {
      flush_partial(f);  // not a CRI line to join (the operator will say why): it ends what is held
      return take_record_line(f, line, end, truncated);
    }
    const std::string_view log = cri->log;
    const bool last = cri->tag == "F";
    if (!f.partial_open && last) return take_record_line(f, line, end, truncated);
    // Past the bound (or 1000 parts, the Collector's max_batch_size) what is held goes out
    // as it is, and this part starts the next record.
    if (f.partial_open && (f.partial_log.size() + log.size() > cri_max || f.partial_parts >= 1000))
      flush_partial(f);
    f.partial_open = true;
    f.partial_log.append(log);
    f.partial_head.assign(line.substr(0, cri->log_at));  // "<time> <stream> <tag> ": the newest part's
    f.partial_truncated = f.partial_truncated || truncated;
    ++f.partial_parts;
    f.partial_end = end;
    f.partial_at = Clock::now();
    if (last) flush_partial(f);
  }

  // The held CRI parts, if any, go on as one line.
  void flush_partial(File& f) {
    if (!f.partial_open) return;
    f.partial_open = false;
    joined.assign(f.partial_head).append(f.partial_log);
    const bool truncated = f.partial_truncated;
    f.partial_log.clear();
    f.partial_head.clear();
    f.partial_truncated = false;
    f.partial_parts = 0;
    take_record_line(f, joined, f.partial_end, truncated);
  }

  // A whole line: a record of its own, or (multiline) part of one.
  void take_record_line(File& f, std::string_view line, std::uint64_t end, bool truncated) {
    if (!line_start && !line_end) return add_line(f, line, end, truncated);
    if (line_start && f.entry_open &&
        re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *line_start))
      flush_entry(f);
    if (!f.entry_open) {
      f.entry.assign(line);
      f.entry_open = true;
      f.entry_truncated = truncated;
    } else if (f.entry.size() < config.max_log_size) {
      // Joined by '\n' and cut at max_log_size (before a UTF-8 character it would split).
      std::size_t room = config.max_log_size - f.entry.size();
      const std::size_t add = line.size() + 1;
      if (add > room) {
        f.entry_truncated = true;
        if (utf8()) {
          std::size_t cut = room - 1;  // bytes of the line that fit after the '\n'
          while (cut > 0 && cut < line.size() && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
            --cut;
          room = cut + 1;
        }
      }
      f.entry += '\n';
      f.entry.append(line.substr(0, std::min(line.size(), room - 1)));
      f.entry_truncated = f.entry_truncated || truncated;
    } else {
      f.entry_truncated = true;  // full: the rest of the record is skipped
    }
    f.entry_end = end;
    f.entry_at = Clock::now();
    if (line_end && re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *line_end))
      flush_entry(f);
  }

  // The gathered record (and held CRI parts), if any, become a record now.
  void flush_entry(File& f) {
    flush_partial(f);
    if (!f.entry_open) return;
    f.entry_open = false;
    add_line(f, f.entry, f.entry_end, f.entry_truncated);
    f.entry.clear();
  }

  // Records gathered from lines that got nothing new for force_flush_period go out.
  void flush_idle_entries() {
    if ((!line_start && !line_end && !cri_join) || config.force_flush_period <= config::Duration{0}) return;
    const auto now = Clock::now();
    for (auto& [k, f] : files) {
      if (f->partial_open && now - f->partial_at >= config.force_flush_period) flush_partial(*f);
      if (f->entry_open && now - f->entry_at >= config.force_flush_period) flush_entry(*f);
    }
  }

  void add_line(File& f, std::string_view line, std::uint64_t end, bool truncated) {
    // preserve_leading/trailing_whitespaces: false (the Collector's default; Tern keeps them
    // unless told) trims the record's text.
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    if (config.trim_leading) line.remove_prefix(std::min(line.size(), line.find_first_not_of(kSpace)));
    if (config.trim_trailing) {
      const std::size_t last = line.find_last_not_of(kSpace);
      line = last == std::string_view::npos ? std::string_view() : line.substr(0, last + 1);
    }
    if (!batch.data) {
      batch.data = std::make_shared<pdata::LogsData>(64 * 1024);
      const auto& a = batch.data->arena;
      batch.fixed.clear();
      for (const auto& [k, v] : config.attributes)
        batch.fixed.push_back({a.copy(k), pdata::AnyValue::string(a.copy(v))});
      batch.resource.clear();
      for (const auto& [k, v] : config.resource)
        batch.resource.push_back({a.copy(k), pdata::AnyValue::string(a.copy(v))});
    }
    auto& data = *batch.data;
    const auto& a = data.arena;
    auto pf = batch.files.find(f.id);
    if (pf == batch.files.end()) {
      Batch::PerFile p;
      p.resource = data.resource_logs.size();
      auto& rl = data.resource_logs.emplace_back(a);
      for (const auto& kv : batch.resource) rl.resource.attributes.push_back(kv);
      auto& records = rl.scope_logs.emplace_back(a).log_records;
      // A full chunk means more lines are waiting: size the batch once instead of growing it
      // by doubling in the arena (which keeps every outgrown copy until the batch dies).
      if (chunk_full) {
        const std::size_t by_bytes =
            (batch_max_bytes - std::min(batch.bytes, batch_max_bytes)) / (line.size() + 1) + 1;
        records.reserve(std::min(batch_max_lines - batch.lines, by_bytes));
      }
      p.name = a.copy(f.name);
      p.path = a.copy(f.abs_path);
      p.resolved_name = a.copy(f.resolved_name);
      p.resolved_path = a.copy(f.resolved_path);
      pf = batch.files.emplace(f.id, p).first;
    }
    auto& rec = data.resource_logs[pf->second.resource].scope_logs[0].log_records.emplace_back(a);
    rec.observed_time_unix_nano = observed;
    bool parsed = false;
    if (config.parse == receiver::filelog::FilelogReceiverConfig::Parse::kJson) {
      parsed = parse_json(rec, line, a);
      if (!parsed) {
        Counters::inc(counters.json_errors);
        rec.attributes.clear();
      }
    }
    if (!parsed) {
      const auto text = a.copy(line);
      rec.body = utf8() ? pdata::AnyValue::string(text) : pdata::AnyValue::bytes(text);
      rec.attributes.reserve(reserved.size());
    }
    for (const auto& kv : batch.fixed) rec.attributes.push_back(kv);
    if (config.include_file_name)
      rec.attributes.push_back({"log.file.name", pdata::AnyValue::string(pf->second.name)});
    if (config.include_file_path)
      rec.attributes.push_back({"log.file.path", pdata::AnyValue::string(pf->second.path)});
    if (config.include_file_name_resolved)
      rec.attributes.push_back({"log.file.name_resolved", pdata::AnyValue::string(pf->second.resolved_name)});
    if (config.include_file_path_resolved)
      rec.attributes.push_back({"log.file.path_resolved", pdata::AnyValue::string(pf->second.resolved_path)});
    if (operators && !operators->apply(rec, a, &data.resource_logs[pf->second.resource].resource.attributes))
      data.resource_logs[pf->second.resource].scope_logs[0].log_records.pop_back();  // on_error: drop
    // Only the offset moves within a batch (a reset or new fingerprint flushes it first).
    if (auto [it, inserted] = batch.ends.try_emplace(f.id); inserted)
      it->second = f.position(end);
    else
      it->second.offset = end;
    ++batch.lines;
    batch.bytes += line.size();
    ++lines_pending;
    if (truncated) Counters::inc(counters.lines_truncated);
    if (batch.lines >= batch_max_lines || batch.bytes >= batch_max_bytes) send();
  }

  // ---- sending ------------------------------------------------------------------------

  // Hands the batch to the pipeline, waiting out back-pressure. False when stopping (the
  // batch then stays unsettled: the checkpoint never passes it).
  bool send() {
    flush_line_count();
    if (!batch.data) return !stopping;
    auto data = std::move(batch.data);
    const std::uint64_t seq = tracker->begin_batch(std::move(batch.ends));
    batch = Batch{};
    std::uint32_t attempt = 0;
    auto backoff = std::chrono::milliseconds(20);
    while (!tracker->wait_unsettled_below(options.max_unsettled_batches, std::chrono::milliseconds(100)))
      if (stopping) return false;
    while (true) {
      data->delivery = pdata::DeliveryToken::make(
          [t = tracker, seq, attempt](bool delivered) { t->settle(seq, attempt, delivered); });
      const auto r = consumer.consume_logs(data);
      switch (r.code) {
        case component::ConsumeCode::kOk:
          // Before `data` (and with it our reference to the token) goes: the token cannot
          // settle before the batch is known to be accepted.
          tracker->accepted(seq, attempt);
          Counters::inc(counters.batches_sent);
          if (r.rejected > 0) {
            spdlog::warn("filelog {}: the pipeline dropped {} of {} records: {}", id, r.rejected,
                         data->record_count(), r.message);
          }
          maybe_persist();
          return true;
        case component::ConsumeCode::kInvalid:
        case component::ConsumeCode::kTooLarge:  // never fits: retrying would stall the file for ever
          Counters::inc(counters.batches_invalid);
          spdlog::warn("filelog {}: the pipeline refused {} records as invalid: {}", id, data->record_count(),
                       r.message);
          tracker->skip(seq);
          return true;
        case component::ConsumeCode::kShutdown:
          spdlog::info("filelog {}: the pipeline is shutting down; reading stops", id);
          return false;
        case component::ConsumeCode::kRetryLater:
        case component::ConsumeCode::kUnavailable: {  // a full or failing disk queue: wait as well
          Counters::inc(counters.batches_refused);
          attempt = tracker->next_attempt(seq);
          data->delivery.reset();  // the refused attempt's token: its settlement is ignored
          const auto cap = r.retry_after.count() > 0 ? r.retry_after : std::chrono::milliseconds(1000);
          if (!sleep_for(std::min(backoff, cap))) return false;
          backoff = std::min(backoff * 2, cap);
          break;
        }
      }
    }
  }

  void maybe_persist() {
    const auto now = Clock::now();
    if (now - last_persist < options.checkpoint_interval) return;
    last_persist = now;
    tracker->persist_if_changed();
  }

  // ---- the thread ---------------------------------------------------------------------

  void run() {
    auto next_scan = Clock::now() + config.poll_interval;
    while (!stopping) {
      try {
        bool progress = false;
        for (auto& [k, f] : files) {
          if (stopping) break;
          if (!f->failed && read_chunk(*f)) progress = true;
        }
        if (stopping) break;
        if (progress && Clock::now() < next_scan) continue;
        flush_idle_entries();
        if (!send()) break;
        maybe_persist();
        if (!progress && !sleep_for(next_scan - Clock::now())) break;
        if (Clock::now() >= next_scan) {
          for (auto& [k, f] : files) f->failed = false;  // retry reads once per interval
          scan();
          next_scan = Clock::now() + config.poll_interval;
        }
      } catch (const std::exception& e) {
        // Out of memory or a bug: drop the half-built batch and read every file again from
        // its checkpointed offset, so that its lines are not skipped (at least once: lines
        // in flight may come twice). Then carry on after a pause.
        spdlog::error("filelog {}: {}; reading again from the checkpoint", id, e.what());
        batch = Batch{};
        lines_pending = 0;
        const auto committed = tracker->committed();
        for (auto& [k, f] : files) {
          const auto c = committed.find(f->id);
          f->splitter.reset(c != committed.end() ? c->second.offset : 0);
          f->at_eof = false;
          f->entry_open = false;  // its lines are read again
          f->entry.clear();
          f->partial_open = false;
          f->partial_log.clear();
          f->partial_parts = 0;
          f->partial_truncated = false;
        }
        if (!sleep_for(config.poll_interval)) break;
      }
    }
  }
};

thread_local std::vector<std::pair<std::string, int>>* FilelogReceiver::Impl::glob_errors = nullptr;

FilelogReceiver::FilelogReceiver(std::string id, const receiver::filelog::FilelogReceiverConfig& config,
                                 component::Consumer& consumer, FilelogReceiverOptions options)
    : impl_(std::make_unique<Impl>(std::move(id), config, consumer, options)) {}

FilelogReceiver::~FilelogReceiver() { shutdown(); }

void FilelogReceiver::start() {
  auto& im = *impl_;
  if (im.started) return;
  im.started = true;
  if (!im.checkpoint_path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(im.config.storage, ec);
    if (ec)
      throw std::runtime_error("filelog " + im.id + ": cannot create storage directory " + im.config.storage +
                               ": " + ec.message());
    std::string error;
    if (auto loaded = im.tracker->load(error)) {
      im.had_checkpoint = std::filesystem::exists(im.checkpoint_path, ec);
      im.restored = std::move(*loaded);
    } else {
      // Reading everything again duplicates; starting at the end could lose lines.
      spdlog::error("filelog {}: {}; files are read from the beginning", im.id, error);
      im.had_checkpoint = true;
    }
  }
  im.scan();
  // Written at once, matched files or not: without it a first run that ended before the
  // first periodic write (or matched nothing) left no checkpoint, and the next start
  // applied `start_at: end` again, skipping what was written in between.
  if (!im.checkpoint_path.empty()) im.tracker->persist();
  im.thread = std::thread([&im] { im.run(); });
}

void FilelogReceiver::shutdown() {
  auto& im = *impl_;
  if (im.stopped) return;
  im.stopped = true;
  {
    std::lock_guard lock(im.mu);
    im.stop = true;
    im.stopping = true;
  }
  im.cv.notify_all();
  if (im.thread.joinable()) im.thread.join();
  im.files.clear();
  im.counters.files_open.store(0, std::memory_order_relaxed);
  im.tracker->detach();
}

FilelogReceiverStats FilelogReceiver::stats() const {
  const auto& c = impl_->counters;
  auto ld = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  FilelogReceiverStats s;
  s.lines_read = ld(c.lines_read);
  s.bytes_read = ld(c.bytes_read);
  s.lines_truncated = ld(c.lines_truncated);
  s.files_open = ld(c.files_open);
  s.batches_sent = ld(c.batches_sent);
  s.batches_refused = ld(c.batches_refused);
  s.batches_invalid = ld(c.batches_invalid);
  s.json_errors = ld(c.json_errors);
  if (impl_->operators) {
    s.operator_errors = impl_->operators->errors();
    s.records_dropped = impl_->operators->dropped();
  }
  s.file_errors = ld(c.file_errors);
  s.checkpoint_errors = impl_->tracker->write_errors();
  return s;
}

const std::string& FilelogReceiver::checkpoint_path() const { return impl_->checkpoint_path; }

}  // namespace tern::receiver::filelog
