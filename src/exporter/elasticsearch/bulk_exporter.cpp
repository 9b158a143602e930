#include "exporter/elasticsearch/bulk_exporter.h"

#include <fmt/format.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "compression/gzip.h"
#include "exporter/elasticsearch/bulk_response.h"
#include "exporter/elasticsearch/config.h"
#include "exporter/elasticsearch/http_client.h"
#include "text/base64.h"
#include "text/json_string.h"

#ifndef TERN_VERSION
#define TERN_VERSION "0.0.0"
#endif

namespace tern::exporter::es {
namespace {

using text::append_json_string;  // JSON strings, invalid UTF-8 replaced

using std::chrono::milliseconds;

// Above this many pieces an uncompressed body is copied into one buffer before sending
// (a gathered write takes at most 64 pieces per call).
constexpr std::size_t kMaxGatheredParts = 256;

std::string percent_encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// The start of an unexpected response body for a log line: printable ASCII, at most 120 bytes.
std::string preview(std::string_view body) {
  std::string out;
  for (char ch : body.substr(0, 120)) out += ch >= 0x20 && ch < 0x7f ? ch : '?';
  if (body.size() > 120) out += "...";
  return out;
}

std::string_view strip_newline(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// At most one log line per `period` per call site, so a failing cluster cannot flood the log.
class RateLimit {
 public:
  bool allow(int64_t period_ns = 1'000'000'000) {
    int64_t now = now_ns(), last = last_.load(std::memory_order_relaxed);
    return now - last >= period_ns && last_.compare_exchange_strong(last, now);
  }
  // For lines that count documents: adds `n` and returns, when a line may be written, the
  // documents since the last line (these included), else 0. The lines in between are not
  // written but what they would have counted is in the next one (or in take()'s): a document
  // lost for good is always in some line.
  std::uint64_t count(std::uint64_t n) {
    pending_.fetch_add(n, std::memory_order_relaxed);
    return allow() ? pending_.exchange(0) : 0;
  }
  // The documents counted since the last line (shutdown says them in a last line).
  std::uint64_t take() { return pending_.exchange(0); }

 private:
  std::atomic<int64_t> last_{INT64_MIN / 2};
  std::atomic<std::uint64_t> pending_{0};
};

struct Submission {
  encoding::EncodedBatch batch;
  BulkExporter::Done done;
  std::uint64_t id = 0;
  std::atomic<std::size_t> remaining{0};
  std::atomic<std::uint64_t> indexed{0}, duplicates{0}, failed{0}, dropped{0};
};

struct ItemRef {
  Submission* sub;  // alive until all its items are settled (owned by Impl::live)
  std::uint32_t index;
};

struct Request {
  std::vector<ItemRef> items;
  std::uint64_t bytes = 0;    // uncompressed body size
  std::uint32_t attempt = 0;  // transient retries so far (bounded by max_retries)
  std::uint32_t held = 0;     // configuration-error retries (never bounded: data stays queued)
};

enum class Outcome { kIndexed, kDuplicate, kFailed, kDropped };

}  // namespace

BulkExporterOptions from_config(const exporter::es::ElasticsearchExporterConfig& c) {
  BulkExporterOptions o;
  o.endpoints = c.endpoints;
  o.num_workers = static_cast<unsigned>(c.num_workers);
  o.flush_bytes = c.flush.bytes;
  o.flush_interval = std::chrono::duration_cast<milliseconds>(c.flush.interval);
  o.retry_enabled = c.retry.enabled;
  o.max_retries = c.retry.max_retries;
  o.retry_initial = std::chrono::duration_cast<milliseconds>(c.retry.initial_interval);
  o.retry_max = std::chrono::duration_cast<milliseconds>(c.retry.max_interval);
  o.retry_on_status.assign(c.retry.retry_on_status.begin(), c.retry.retry_on_status.end());
  o.gzip = c.compression == config::Compression::kGzip;
  o.compression_level = static_cast<int>(c.compression_level);
  o.headers = c.headers;
  o.user = c.user;
  o.password = c.password;
  o.api_key = c.api_key;
  o.tls = c.tls;  // the client settings (config's TlsClientConfig adds `insecure`, OTLP only)
  o.require_data_stream = c.mapping_mode == "otel";
  o.pipeline = c.pipeline;
  o.include_source_on_error = c.include_source_on_error;
  o.query = c.bulk_query;
  o.timeout = std::chrono::duration_cast<milliseconds>(c.timeout);
  o.dead_letter_path = c.dead_letter_path;
  return o;
}

struct BulkExporter::Impl {
  BulkExporterOptions opt;
  std::vector<Endpoint> endpoints;
  std::shared_ptr<TlsContext> tls;
  HttpClientOptions http;
  std::string target;

  // Queue state, all under `mu`.
  mutable std::mutex mu;
  std::condition_variable work_cv;                  // workers: a request is ready (or stop)
  std::condition_variable space_cv;                 // submitters and flush(): a batch completed
  std::condition_variable flush_cv;                 // the flusher thread: pending items appeared
  std::multimap<Clock::time_point, Request> queue;  // by ready time; FIFO among equals
  Request pending;                                  // being filled up to flush_bytes
  Clock::time_point pending_since{};
  std::map<std::uint64_t, std::unique_ptr<Submission>> live;
  std::uint64_t next_id = 1, inflight_bytes = 0, inflight_items = 0;
  bool started = false, stopping = false, aborting = false;

  std::vector<std::thread> workers;
  std::thread flusher;
  std::vector<std::unique_ptr<HttpClient>> clients;  // one per worker

  struct EndpointState {
    std::atomic<int64_t> down_until{0};
    std::atomic<std::uint32_t> failures{0};
  };
  std::unique_ptr<EndpointState[]> ep_state;
  std::atomic<std::uint64_t> rr{0};

  // Counters.
  std::atomic<std::uint64_t> docs_received{0}, events_received{0}, docs_sent{0}, docs_indexed{0},
      docs_duplicates{0}, docs_retried{0}, docs_failed{0}, docs_dropped{0}, docs_dead_lettered{0},
      docs_undelivered{0}, requests{0}, request_errors{0}, request_retries{0}, splits_413{0}, bytes_u{0},
      bytes_c{0};
  std::array<std::atomic<std::uint64_t>, 600> by_status{};
  std::array<std::atomic<std::uint64_t>, 13> latency{};
  std::atomic<std::uint64_t> latency_sum_us{0};
  mutable std::mutex reasons_mu;
  std::map<std::string, std::uint64_t> failed_by_reason;

  std::mutex dl_mu;
  std::FILE* dead_letter = nullptr;

  RateLimit log_permanent, log_request, log_config, log_dropped, log_dead_letter;

  explicit Impl(BulkExporterOptions o) : opt(std::move(o)) {
    if (opt.endpoints.empty()) throw std::invalid_argument("elasticsearch exporter: no endpoints");
    bool any_tls = false;
    for (const auto& url : opt.endpoints) {
      std::string err;
      auto ep = parse_endpoint(url, &err);
      if (!ep) throw std::invalid_argument("elasticsearch exporter: " + err);
      any_tls = any_tls || ep->tls;
      endpoints.push_back(std::move(*ep));
    }
    if (opt.num_workers == 0) opt.num_workers = std::max(1u, std::thread::hardware_concurrency());
    if (opt.flush_bytes == 0) opt.flush_bytes = 1;
    // One request per worker on the wire and one being filled: more would only hold
    // queued data in memory twice over without sending it sooner.
    if (opt.max_inflight_bytes == 0) opt.max_inflight_bytes = (opt.num_workers + 1ull) * opt.flush_bytes;
    if (any_tls) {
      tls = make_tls_context(opt.tls);
    }
    http.connect_timeout = opt.connect_timeout;
    http.request_timeout = opt.timeout;
    http.headers.emplace_back("Content-Type", "application/x-ndjson");
    http.headers.emplace_back("User-Agent", std::string("Tern/") + TERN_VERSION);
    if (!opt.api_key.empty()) {
      http.headers.emplace_back("Authorization", "ApiKey " + opt.api_key);
    } else if (!opt.user.empty()) {
      http.headers.emplace_back("Authorization", "Basic " + text::base64(opt.user + ":" + opt.password));
    }
    // Configured headers last: they win over the defaults above (HttpClient uses set()).
    for (const auto& [k, v] : opt.headers) http.headers.emplace_back(k, v);
    target = "/_bulk?filter_path=" + std::string(kBulkFilterPath);
    if (opt.require_data_stream) target += "&require_data_stream=true";
    if (!opt.pipeline.empty()) target += "&pipeline=" + percent_encode(opt.pipeline);
    if (opt.include_source_on_error)
      target +=
          *opt.include_source_on_error ? "&include_source_on_error=true" : "&include_source_on_error=false";
    if (!opt.query.empty()) target += "&" + opt.query;
    ep_state = std::make_unique<EndpointState[]>(endpoints.size());
    if (!opt.dead_letter_path.empty()) open_dead_letter();
  }

  ~Impl() {
    if (dead_letter) std::fclose(dead_letter);
  }

  // The file's folder is created as the disk queue's and the checkpoints' are: on a fresh
  // host /var/lib/tern does not exist yet, and the examples failed to start there.
  void open_dead_letter() {
    const std::string& path = opt.dead_letter_path;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec)
        throw std::runtime_error(fmt::format("cannot create the directory {} of dead_letter.path: {}",
                                             parent.string(), ec.message()));
    }
    dead_letter = std::fopen(path.c_str(), "ab");
    if (!dead_letter)
      throw std::runtime_error(
          fmt::format("cannot open dead_letter.path {}: {}", path, std::strerror(errno)));
    // Unbuffered: a line either reaches the file (one write per line, as the flush after
    // each line did) or its write fails, and then the document is not counted as written.
    std::setvbuf(dead_letter, nullptr, _IONBF, 0);
  }

  // --- queue ------------------------------------------------------------------------

  void enqueue_locked(Request&& r, Clock::time_point ready) {
    queue.emplace(ready, std::move(r));
    work_cv.notify_one();
  }
  void enqueue(Request&& r, Clock::time_point ready) {
    std::lock_guard lk(mu);
    if (aborting) return;  // the items stay unsettled and are reported undelivered
    enqueue_locked(std::move(r), ready);
  }
  // Until a batch of `bytes` fits under the in-flight limit (a batch larger than the limit
  // fits when nothing else is in flight), or `deadline`. False on timeout or when stopped.
  bool wait_for_room_locked(std::unique_lock<std::mutex>& lk, std::uint64_t bytes,
                            Clock::time_point deadline) {
    auto full = [&] { return inflight_bytes > 0 && inflight_bytes + bytes > opt.max_inflight_bytes; };
    while (!stopping && started && full()) {
      // Nothing can join the request being filled until room frees up, and room frees up
      // only once what is in flight is sent: send it now, not after flush.interval (a
      // batch above the room left would otherwise wait a whole interval for its tail).
      cut_pending_locked();
      if (deadline == Clock::time_point::max()) {
        space_cv.wait(lk);
      } else if (space_cv.wait_until(lk, deadline) == std::cv_status::timeout && full()) {
        return false;
      }
    }
    return !stopping && started;
  }

  void cut_pending_locked() {
    if (pending.items.empty()) return;
    enqueue_locked(std::move(pending), Clock::now());
    pending = Request{};
    pending_since = {};
  }

  milliseconds backoff(std::uint32_t attempt) {
    // initial * 2^(attempt-1), capped, times a jitter in [0.5, 1.0] (spec: 50-100%).
    double ms = static_cast<double>(opt.retry_initial.count());
    for (std::uint32_t i = 1; i < attempt && ms < opt.retry_max.count(); ++i) ms *= 2;
    ms = std::min(ms, static_cast<double>(opt.retry_max.count()));
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    return milliseconds(static_cast<int64_t>(ms * jitter(rng)));
  }

  // --- endpoints ----------------------------------------------------------------------

  std::size_t pick_endpoint() {
    const std::size_t n = endpoints.size();
    const std::size_t start = rr.fetch_add(1, std::memory_order_relaxed) % n;
    const int64_t now = now_ns();
    std::size_t best = start;
    int64_t best_until = INT64_MAX;
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t i = (start + k) % n;
      int64_t until = ep_state[i].down_until.load(std::memory_order_relaxed);
      if (until <= now) return i;
      if (until < best_until) best_until = until, best = i;
    }
    return best;  // all are down: probe the one that comes back first
  }
  void endpoint_failed(std::size_t i) {
    std::uint32_t f = ep_state[i].failures.fetch_add(1) + 1;
    int64_t wait =
        std::chrono::duration_cast<std::chrono::nanoseconds>(backoff(std::min<std::uint32_t>(f, 32))).count();
    ep_state[i].down_until.store(now_ns() + wait);
  }
  void endpoint_ok(std::size_t i) {
    if (ep_state[i].failures.load(std::memory_order_relaxed)) {
      ep_state[i].failures.store(0);
      ep_state[i].down_until.store(0);
    }
  }

  // --- settling -----------------------------------------------------------------------

  void settle(const ItemRef& ref, Outcome o) {
    Submission* s = ref.sub;
    switch (o) {
      case Outcome::kIndexed:
        s->indexed.fetch_add(1, std::memory_order_relaxed);
        break;
      case Outcome::kDuplicate:
        s->duplicates.fetch_add(1, std::memory_order_relaxed);
        break;
      case Outcome::kFailed:
        s->failed.fetch_add(1, std::memory_order_relaxed);
        break;
      case Outcome::kDropped:
        s->dropped.fetch_add(1, std::memory_order_relaxed);
        break;
    }
    if (s->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) complete(s);
  }

  // Every item of `items` indexed: one pair of atomics per run of items from the same
  // submission instead of one per item (a request is mostly a few long runs).
  void settle_indexed(const std::vector<ItemRef>& items) {
    for (std::size_t i = 0; i < items.size();) {
      Submission* s = items[i].sub;
      std::size_t j = i + 1;
      while (j < items.size() && items[j].sub == s) ++j;
      const std::size_t run = j - i;
      s->indexed.fetch_add(run, std::memory_order_relaxed);
      if (s->remaining.fetch_sub(run, std::memory_order_acq_rel) == run) complete(s);
      i = j;
    }
  }

  void complete(Submission* s) {
    BulkResult r;
    r.items = s->batch.size();
    r.indexed = s->indexed.load();
    r.duplicates = s->duplicates.load();
    r.failed = s->failed.load();
    r.dropped = s->dropped.load();
    if (s->done) s->done(r);
    std::unique_ptr<Submission> owned;
    {
      std::lock_guard lk(mu);
      inflight_bytes -= s->batch.bytes();
      inflight_items -= s->batch.size();
      auto it = live.find(s->id);
      owned = std::move(it->second);
      live.erase(it);
    }
    space_cv.notify_all();
  }

  void write_dead_letter(const ItemRef& ref, int status, std::string_view type, std::string_view reason,
                         std::string_view index) {
    if (!dead_letter) return;
    const auto& b = ref.sub->batch;
    std::string line;
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char ts[32];
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    line += R"({"@timestamp":")";
    line += ts;
    line += R"(","status":)";
    line += std::to_string(status);
    line += R"(,"error":{"type":)";
    append_json_string(line, type);
    line += R"(,"reason":)";
    append_json_string(line, reason);
    line += R"(},"index":)";
    // Failures of a whole request (a document over the size limit, max retries) come with no
    // item answer and so no index: it is the action line's.
    std::string from_action;
    if (index.empty()) {
      simdjson::dom::parser p;
      const simdjson::padded_string padded(strip_newline(b.action(ref.index)));
      simdjson::dom::element el;
      simdjson::dom::object action;
      if (p.parse(padded).get(el) == simdjson::SUCCESS && el.get_object().get(action) == simdjson::SUCCESS &&
          action.size() == 1) {
        std::string_view v;
        if ((*action.begin()).value["_index"].get_string().get(v) == simdjson::SUCCESS) from_action = v;
      }
      index = from_action;
    }
    append_json_string(line, index);
    // The action and document are embedded as JSON when they are JSON (the normal case);
    // a malformed line (the reason it failed, perhaps) is embedded as a string instead.
    auto embed = [&](std::string_view key, std::string_view raw) {
      line += ",\"";
      line += key;
      line += "\":";
      simdjson::dom::parser p;
      simdjson::padded_string padded(raw);
      simdjson::dom::element el;
      if (!raw.empty() && p.parse(padded).get(el) == simdjson::SUCCESS) {
        line += raw;
      } else {
        append_json_string(line, raw);
      }
    };
    embed("action", strip_newline(b.action(ref.index)));
    embed("document", strip_newline(b.document(ref.index)));
    line += "}\n";
    bool written = true;
    int error = 0;
    {
      std::lock_guard lk(dl_mu);
      // A write cut short (the disk filled mid-line) is taken back to where it began: left in
      // the file, the fragment would swallow the next line written once there is room again.
      struct stat before {};
      const bool sized = ::fstat(::fileno(dead_letter), &before) == 0;
      if (std::fwrite(line.data(), 1, line.size(), dead_letter) != line.size()) {
        written = false;
        error = errno;
        std::clearerr(dead_letter);
        if (sized && ::ftruncate(::fileno(dead_letter), before.st_size) != 0) {
          // Not even that: end the fragment so that the next line starts on its own.
          std::fputc('\n', dead_letter);
          std::clearerr(dead_letter);
        }
      }
    }
    if (written) {
      docs_dead_lettered.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    // A full or failing disk: the document is gone, which must be said (it was counted as
    // written, and the file did not have it).
    if (const auto n = log_dead_letter.count(1))
      spdlog::error(
          "elasticsearch exporter: cannot write to dead_letter.path {}: {}: {} documents not written",
          opt.dead_letter_path, std::strerror(error), n);
  }

  // Counts and dead-letters one document; the caller logs (log_rejected), once for all the
  // documents of a response.
  void permanent(const ItemRef& ref, int status, std::string_view type, std::string_view reason,
                 std::string_view index) {
    docs_failed.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard lk(reasons_mu);
      ++failed_by_reason[type.empty() ? std::string("unknown") : std::string(type)];
    }
    write_dead_letter(ref, status, type, reason, index);
    settle(ref, Outcome::kFailed);
  }
  // `n` documents of one response rejected for good, the first with this status and error.
  // One line per second at most, with every document since the previous line in its count
  // (one line per document, without a count, left all but one of them unsaid).
  void log_rejected(std::size_t n, int status, std::string_view type, std::string_view reason) {
    if (const auto total = log_permanent.count(n))
      spdlog::warn("elasticsearch exporter: {} documents rejected permanently: status {} {}: {}", total,
                   status, type, reason);
  }

  void drop(const ItemRef& ref, int status, std::string_view reason) {
    docs_dropped.fetch_add(1, std::memory_order_relaxed);
    write_dead_letter(ref, status, "max_retries_exceeded", reason, "");
    settle(ref, Outcome::kDropped);
  }

  bool retriable_status(int s) const {
    return s == 429 ||
           std::find(opt.retry_on_status.begin(), opt.retry_on_status.end(), s) != opt.retry_on_status.end();
  }
  bool may_retry(std::uint32_t attempt) const {
    return opt.retry_enabled && (opt.max_retries == 0 || attempt < opt.max_retries);
  }

  // Whole-request transient failure: the same items again after a backoff (on the next
  // endpoint, since every attempt picks round-robin among the healthy ones).
  void retry_request(Request&& r, int status, const std::string& why) {
    if (!may_retry(r.attempt)) {
      if (const auto n = log_dropped.count(r.items.size())) {
        spdlog::error("elasticsearch exporter: dropping {} documents after {} retries: {}", n, r.attempt,
                      why);
      }
      for (const auto& ref : r.items) drop(ref, status, why);
      return;
    }
    ++r.attempt;
    request_retries.fetch_add(1, std::memory_order_relaxed);
    auto delay = backoff(r.attempt);
    enqueue(std::move(r), Clock::now() + delay);
  }

  // Halves a request (413: too large) and queues both.
  void split(Request&& r) {
    Request a, b;
    const std::size_t half = r.items.size() / 2;
    a.attempt = b.attempt = r.attempt;
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      Request& dst = i < half ? a : b;
      const auto& ref = r.items[i];
      dst.bytes += ref.sub->batch.items[ref.index].size;
      dst.items.push_back(ref);
    }
    auto now = Clock::now();
    enqueue(std::move(a), now);
    enqueue(std::move(b), now);
  }

  // --- the worker ----------------------------------------------------------------------

  struct Worker {
    compression::GzipCompressor gz;
    std::vector<std::string_view> parts;  // the request body: runs of encoded items
    std::string compressed;
    std::string joined;  // uncompressed body of many pieces, copied into one
    HttpResponse response;
    BulkResponseParser bulk_response;
    explicit Worker(int level) : gz(level) {}
  };

  // First error.type / reason of an Elasticsearch whole-request error body.
  static std::pair<std::string, std::string> request_error(const std::string& body) {
    simdjson::dom::parser p;
    simdjson::dom::element el;
    std::string_view type, reason;
    if (p.parse(body.data(), body.size(), true).get(el) == simdjson::SUCCESS) {
      if (el["error"]["type"].get_string().get(type)) type = {};
      if (el["error"]["reason"].get_string().get(reason)) reason = {};
    }
    return {std::string(type), std::string(reason)};
  }

  void process(Worker& w, HttpClient& client, Request&& r) {
    // The body is the items' bytes where the encoder left them: items of one encoded
    // batch usually sit back to back, so a request is a few contiguous runs, sent with
    // gathered writes or compressed straight from them (no copy into a body string).
    // An item that shares its action line is two pieces: that line, then its document.
    w.parts.clear();
    std::size_t plain_bytes = 0;
    const char* run = nullptr;
    std::size_t run_len = 0;
    auto add = [&](std::string_view piece) {
      plain_bytes += piece.size();
      if (run && run + run_len == piece.data()) {
        run_len += piece.size();
        return;
      }
      if (run) w.parts.emplace_back(run, run_len);
      run = piece.data();
      run_len = piece.size();
    };
    for (const auto& ref : r.items) {
      const encoding::EncodedBatch& b = ref.sub->batch;
      if (b.items[ref.index].shares_action()) add(b.action(ref.index));
      add(b.stored(ref.index));
    }
    if (run) w.parts.emplace_back(run, run_len);
    std::string_view compressed_view;
    std::span<const std::string_view> body{w.parts};
    std::size_t body_bytes = plain_bytes;
    if (opt.gzip) {
      compressed_view = w.gz.compress_into(body, w.compressed);
      body = std::span<const std::string_view>(&compressed_view, 1);
      body_bytes = compressed_view.size();
    } else if (w.parts.size() > kMaxGatheredParts) {
      // Many small pieces (shared action lines): one copy beats a write call per 64 pieces.
      w.joined.clear();
      for (auto part : w.parts) w.joined.append(part);
      compressed_view = w.joined;
      body = std::span<const std::string_view>(&compressed_view, 1);
    }
    const std::size_t n = r.items.size();
    requests.fetch_add(1, std::memory_order_relaxed);
    docs_sent.fetch_add(n, std::memory_order_relaxed);
    if (r.attempt > 0) docs_retried.fetch_add(n, std::memory_order_relaxed);
    bytes_u.fetch_add(plain_bytes, std::memory_order_relaxed);
    bytes_c.fetch_add(body_bytes, std::memory_order_relaxed);

    const std::size_t ep = pick_endpoint();
    std::string error;
    const auto t0 = Clock::now();
    const bool ok = client.post(ep, target, body, opt.gzip ? "gzip" : "", w.response, error);
    if (const auto again = static_cast<std::uint64_t>(w.response.resends)) {
      // A reused connection was closed under the first copy: that exchange counts as a
      // request that failed without a status, and its documents as sent again.
      requests.fetch_add(again, std::memory_order_relaxed);
      request_errors.fetch_add(again, std::memory_order_relaxed);
      by_status[0].fetch_add(again, std::memory_order_relaxed);
      docs_sent.fetch_add(again * n, std::memory_order_relaxed);
      docs_retried.fetch_add(again * n, std::memory_order_relaxed);
    }
    if (!ok) {
      {
        std::lock_guard lk(mu);
        if (aborting) return;  // shutdown cut the exchange: items stay undelivered
      }
      request_errors.fetch_add(1, std::memory_order_relaxed);
      by_status[0].fetch_add(1, std::memory_order_relaxed);
      endpoint_failed(ep);
      if (log_request.allow()) spdlog::warn("elasticsearch exporter: {}: {}", endpoints[ep].url, error);
      return retry_request(std::move(r), 0, endpoints[ep].url + ": " + error);
    }
    endpoint_ok(ep);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::size_t bucket = 0;
    while (bucket < BulkCounters::kLatencyBoundsMs.size() && ms > BulkCounters::kLatencyBoundsMs[bucket])
      ++bucket;
    latency[bucket].fetch_add(1, std::memory_order_relaxed);
    latency_sum_us.fetch_add(static_cast<std::uint64_t>(ms * 1000), std::memory_order_relaxed);
    const int status = w.response.status;
    by_status[std::clamp(status, 0, 599)].fetch_add(1, std::memory_order_relaxed);

    if (status >= 200 && status < 300) {
      if (!w.bulk_response.parse(w.response.body, n)) {
        // Without per-item results nothing is known: send it all again (at least once). Said,
        // as the other request failures are: a proxy answering 200 with its own page, or a
        // response without the items, was retried in silence.
        if (log_request.allow())
          spdlog::warn(
              "elasticsearch exporter: {}: HTTP {} without a bulk response for the {} documents sent "
              "({} bytes: {}); sending them again",
              endpoints[ep].url, status, n, w.response.body.size(), preview(w.response.body));
        return retry_request(std::move(r), status, "unreadable bulk response");
      }
      if (w.bulk_response.all_indexed()) {
        docs_indexed.fetch_add(n, std::memory_order_relaxed);
        settle_indexed(r.items);
        return;
      }
      Request again;
      again.attempt = r.attempt + 1;
      std::size_t dropped = 0, rejected = 0;  // logged once per response, below
      const BulkItemResult *first_dropped = nullptr, *first_rejected = nullptr;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& res = w.bulk_response.results()[i];
        const auto& ref = r.items[i];
        if (res.status == 200 || res.status == 201) {
          docs_indexed.fetch_add(1, std::memory_order_relaxed);
          settle(ref, Outcome::kIndexed);
        } else if (res.status == 409) {
          docs_duplicates.fetch_add(1, std::memory_order_relaxed);
          settle(ref, Outcome::kDuplicate);
        } else if (retriable_status(res.status)) {
          if (may_retry(r.attempt)) {
            again.items.push_back(ref);
            again.bytes += ref.sub->batch.items[ref.index].size;
          } else {
            drop(ref, res.status, fmt::format("{}: {}", res.type, res.reason));
            if (!dropped++) first_dropped = &res;
          }
        } else {
          permanent(ref, res.status, res.type, res.reason, res.index);
          if (!rejected++) first_rejected = &res;
        }
      }
      if (rejected)
        log_rejected(rejected, first_rejected->status, first_rejected->type, first_rejected->reason);
      if (const auto total = dropped ? log_dropped.count(dropped) : 0) {
        spdlog::error("elasticsearch exporter: dropping {} documents after {} retries: status {} {}: {}",
                      total, r.attempt, first_dropped->status, first_dropped->type, first_dropped->reason);
      }
      if (!again.items.empty()) {
        auto delay = backoff(again.attempt);
        enqueue(std::move(again), Clock::now() + delay);
      }
      return;
    }
    if (status == 413) {
      if (n > 1) {
        splits_413.fetch_add(1, std::memory_order_relaxed);
        return split(std::move(r));
      }
      auto [type, reason] = request_error(w.response.body);
      if (type.empty()) type = "content_too_long_exception";
      permanent(r.items[0], status, type, reason, "");
      return log_rejected(1, status, type, reason);
    }
    if (retriable_status(status) || status == 502 || status == 503 || status == 504 || status >= 500) {
      if (log_request.allow()) spdlog::warn("elasticsearch exporter: {}: HTTP {}", endpoints[ep].url, status);
      return retry_request(std::move(r), status, fmt::format("{}: HTTP {}", endpoints[ep].url, status));
    }
    // 400/401/403/404 and other 4xx for the whole request: a configuration problem, not a
    // data problem (bulk-delivery.md). The data stays queued (retried at the capped backoff,
    // never dropped) and the error is loud. A 400 too: a document Elasticsearch cannot take
    // is an item's 400, and the request itself is well formed (action lines come from
    // fixed templates, every line is JSON: fuzzed), so a whole-request 400 is the URL, a
    // parameter (`require_data_stream` on an old cluster, `pipeline`) or a proxy. Halving
    // it, as before, turned such a misconfiguration into every document failed for good.
    auto [type, reason] = request_error(w.response.body);
    if (!opt.hold_on_request_error) {
      // Each item fails for good (counted per reason, dead-lettered, logged rate-limited).
      if (type.empty()) type = fmt::format("http_{}", status);
      for (const auto& ref : r.items) permanent(ref, status, type, reason, "");
      return log_rejected(r.items.size(), status, type, reason);
    }
    if (log_config.allow(10'000'000'000)) {
      spdlog::error(
          "elasticsearch exporter: {} answered HTTP {} {}: {} (check the endpoint, credentials, "
          "privileges and parameters such as pipeline; data is kept and retried)",
          endpoints[ep].url, status, type, reason);
    }
    ++r.held;
    auto delay = backoff(std::min<std::uint32_t>(r.held, 32));
    enqueue(std::move(r), Clock::now() + delay);
  }

  void worker_loop(std::size_t index) {
    Worker w(opt.compression_level);
    HttpClient& client = *clients[index];
    std::unique_lock lk(mu);
    while (true) {
      if (aborting) break;  // shutdown() drains first, then aborts
      if (queue.empty()) {
        work_cv.wait(lk);
        continue;
      }
      auto it = queue.begin();
      if (it->first > Clock::now()) {
        // A copy: wait_until reads the deadline while the lock is released, and another
        // worker may take (erase) this entry meanwhile.
        const Clock::time_point ready = it->first;
        work_cv.wait_until(lk, ready);
        continue;
      }
      Request r = std::move(it->second);
      queue.erase(it);
      lk.unlock();
      process(w, client, std::move(r));
      lk.lock();
    }
  }

  void flusher_loop() {
    std::unique_lock lk(mu);
    while (!aborting && !stopping) {
      if (pending.items.empty()) {
        flush_cv.wait(lk);
        continue;
      }
      auto due = pending_since + opt.flush_interval;
      if (Clock::now() >= due) {
        cut_pending_locked();
      } else {
        flush_cv.wait_until(lk, due);
      }
    }
  }
};

BulkExporter::BulkExporter(BulkExporterOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

BulkExporter::~BulkExporter() { shutdown(milliseconds(0)); }

void BulkExporter::start() {
  auto& im = *impl_;
  std::lock_guard lk(im.mu);
  if (im.started) return;
  im.started = true;
  for (unsigned i = 0; i < im.opt.num_workers; ++i) {
    im.clients.push_back(std::make_unique<HttpClient>(im.endpoints, im.http, im.tls));
  }
  for (unsigned i = 0; i < im.opt.num_workers; ++i) im.workers.emplace_back([&im, i] { im.worker_loop(i); });
  im.flusher = std::thread([&im] { im.flusher_loop(); });
}

bool BulkExporter::submit(encoding::EncodedBatch&& batch, Done done, Clock::time_point deadline) {
  auto& im = *impl_;
  if (batch.empty()) {
    if (done) done(BulkResult{});
    return true;
  }
  const std::uint64_t bytes = batch.bytes();
  std::unique_lock lk(im.mu);
  if (!im.wait_for_room_locked(lk, bytes, deadline)) return false;

  auto owned = std::make_unique<Submission>();
  Submission* s = owned.get();
  s->batch = std::move(batch);
  s->done = std::move(done);
  s->id = im.next_id++;
  s->remaining.store(s->batch.size());
  im.live.emplace(s->id, std::move(owned));
  im.inflight_bytes += bytes;
  im.inflight_items += s->batch.size();
  im.docs_received.fetch_add(s->batch.size(), std::memory_order_relaxed);
  im.events_received.fetch_add(s->batch.event_count(), std::memory_order_relaxed);

  const bool was_empty = im.pending.items.empty();
  for (std::uint32_t i = 0; i < s->batch.size(); ++i) {
    const std::uint64_t size = s->batch.items[i].size;
    if (!im.pending.items.empty() && im.pending.bytes + size > im.opt.flush_bytes) im.cut_pending_locked();
    if (im.pending.items.empty()) im.pending_since = Clock::now();
    im.pending.items.push_back({s, i});
    im.pending.bytes += size;
  }
  if (im.pending.bytes >= im.opt.flush_bytes) im.cut_pending_locked();
  if (was_empty && !im.pending.items.empty()) im.flush_cv.notify_one();
  return true;
}

bool BulkExporter::wait_for_room(std::uint64_t bytes, Clock::time_point deadline) {
  auto& im = *impl_;
  std::unique_lock lk(im.mu);
  return im.wait_for_room_locked(lk, bytes, deadline);
}

bool BulkExporter::flush(Clock::time_point deadline) {
  auto& im = *impl_;
  std::unique_lock lk(im.mu);
  im.cut_pending_locked();
  auto drained = [&] { return im.inflight_items == 0 || im.aborting; };
  if (deadline == Clock::time_point::max()) {
    im.space_cv.wait(lk, drained);
  } else {
    im.space_cv.wait_until(lk, deadline, drained);
  }
  return im.inflight_items == 0;
}

bool BulkExporter::flush_submitted(Clock::time_point deadline) {
  auto& im = *impl_;
  std::unique_lock lk(im.mu);
  // Ids grow with each submit and `live` is ordered by id: the batches submitted before
  // this call are those below `mark`, all completed once the oldest live one is not.
  const std::uint64_t mark = im.next_id;
  im.cut_pending_locked();
  auto drained = [&] { return im.aborting || im.live.empty() || im.live.begin()->first >= mark; };
  if (deadline == Clock::time_point::max()) {
    im.space_cv.wait(lk, drained);
  } else {
    im.space_cv.wait_until(lk, deadline, drained);
  }
  return !im.aborting && (im.live.empty() || im.live.begin()->first >= mark);
}

void BulkExporter::send_pending() {
  auto& im = *impl_;
  std::lock_guard lk(im.mu);
  if (im.aborting) return;
  im.cut_pending_locked();
}

void BulkExporter::shutdown(milliseconds timeout) {
  auto& im = *impl_;
  {
    std::unique_lock lk(im.mu);
    if (im.stopping && im.workers.empty()) return;
    im.stopping = true;
    im.cut_pending_locked();
    im.space_cv.notify_all();
    im.flush_cv.notify_all();
    im.space_cv.wait_until(lk, Clock::now() + timeout, [&] { return im.inflight_items == 0; });
    im.aborting = true;
    im.work_cv.notify_all();
  }
  for (auto& c : im.clients) c->abort();
  for (auto& t : im.workers) t.join();
  if (im.flusher.joinable()) im.flusher.join();
  im.workers.clear();
  im.clients.clear();

  // Every worker is gone: what is still live was not delivered. Report it unacknowledged.
  std::map<std::uint64_t, std::unique_ptr<Submission>> left;
  {
    std::lock_guard lk(im.mu);
    left.swap(im.live);
    im.queue.clear();
    im.pending = Request{};
    im.inflight_bytes = im.inflight_items = 0;
  }
  std::uint64_t left_docs = 0;
  for (auto& [id, s] : left) {
    BulkResult r;
    r.items = s->batch.size();
    r.indexed = s->indexed.load();
    r.duplicates = s->duplicates.load();
    r.failed = s->failed.load();
    r.dropped = s->dropped.load();
    r.undelivered = s->remaining.load();
    im.docs_undelivered.fetch_add(r.undelivered, std::memory_order_relaxed);
    left_docs += r.undelivered;
    if (s->done) s->done(r);
  }
  if (!left.empty())
    spdlog::warn("elasticsearch exporter: shutdown left {} batches ({} documents) undelivered", left.size(),
                 left_docs);
  // What the rate-limited lines have not said yet.
  if (const auto n = im.log_permanent.take())
    spdlog::warn("elasticsearch exporter: {} documents rejected permanently since the last message", n);
  if (const auto n = im.log_dropped.take())
    spdlog::error("elasticsearch exporter: {} documents dropped after retries since the last message", n);
  if (const auto n = im.log_dead_letter.take())
    spdlog::error(
        "elasticsearch exporter: {} documents not written to dead_letter.path {} since the last message", n,
        im.opt.dead_letter_path);
  im.space_cv.notify_all();
}

BulkCounters BulkExporter::counters() const {
  auto& im = *impl_;
  BulkCounters c;
  c.docs_received = im.docs_received.load();
  c.events_received = im.events_received.load();
  c.docs_sent = im.docs_sent.load();
  c.docs_indexed = im.docs_indexed.load();
  c.docs_duplicates = im.docs_duplicates.load();
  c.docs_retried = im.docs_retried.load();
  c.docs_failed = im.docs_failed.load();
  c.docs_dropped = im.docs_dropped.load();
  c.docs_dead_lettered = im.docs_dead_lettered.load();
  c.docs_undelivered = im.docs_undelivered.load();
  {
    std::lock_guard lk(im.reasons_mu);
    c.failed_by_reason = im.failed_by_reason;
  }
  c.requests = im.requests.load();
  c.request_errors = im.request_errors.load();
  for (int i = 0; i < 600; ++i) {
    if (auto v = im.by_status[i].load()) c.requests_by_status[i] = v;
  }
  c.request_retries = im.request_retries.load();
  c.splits_413 = im.splits_413.load();
  c.bytes_uncompressed = im.bytes_u.load();
  c.bytes_compressed = im.bytes_c.load();
  {
    std::lock_guard lk(im.mu);
    c.queue_items = im.inflight_items;
    c.queue_bytes = im.inflight_bytes;
  }
  for (std::size_t i = 0; i < c.latency_buckets.size(); ++i) c.latency_buckets[i] = im.latency[i].load();
  c.latency_sum_ms = static_cast<double>(im.latency_sum_us.load()) / 1000.0;
  return c;
}

}  // namespace tern::exporter::es
