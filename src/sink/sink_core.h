#pragma once
// The sink's HTTP semantics without any networking: routing, _bulk parsing and
// per-item responses, counts, stats, dump and fault decisions. Thread-safe; the
// server (sink_server.h) only moves bytes, so unit tests drive this directly.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sink/sink_options.h"

namespace tern::sink {

class Store;
class Dump;
struct Item;

struct Request {
  std::string_view method;  // "GET", "POST", ...
  std::string_view target;  // path + query, still percent-encoded
  std::string_view content_encoding;
  std::string body;  // moved in; may be modified (padding, decompression)
};

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool drop_connection = false;  // close the socket without answering (fault injection)
  int delay_ms = 0;              // answer after this delay (fault injection)
};

struct SinkStats {
  uint64_t docs = 0;  // documents accepted (created or updated)
  uint64_t requests = 0;
  uint64_t bulk_requests = 0;
  uint64_t bytes_compressed = 0;    // bulk bodies as received
  uint64_t bytes_uncompressed = 0;  // bulk bodies after gzip decoding
  std::map<int, uint64_t> items_by_status;
  std::map<int, uint64_t> bulk_by_status;  // whole bulk requests by HTTP status
};

// The `_bulk` URL parameters that apply to every item unless its action line says otherwise.
struct BulkDefaults {
  std::string pipeline;  // empty or `_none`: no ingest pipeline
  bool require_alias = false;
  bool require_data_stream = false;
};

class SinkCore {
 public:
  explicit SinkCore(SinkOptions options);
  ~SinkCore();
  SinkCore(const SinkCore&) = delete;
  SinkCore& operator=(const SinkCore&) = delete;

  Reply handle(Request& req);
  // `body` is uncompressed NDJSON; `default_index` comes from /{index}/_bulk.
  Reply bulk(std::string& body, std::string_view default_index, std::string_view filter_path,
             const BulkDefaults& defaults = {});
  // Documents in the indices matching a comma list of names / `*` patterns; -1 when a
  // concrete (pattern-free) name does not exist.
  int64_t count(std::string_view pattern) const;
  SinkStats stats() const;
  void flush_dump();

 private:
  bool roll(std::atomic<uint64_t>& counter, uint64_t stream, double rate);
  void note_bulk_status(int status);
  // `/_bulk` and `/{index}/_bulk`: the method, counters, a dropped connection, latency.
  Reply bulk_route(Request& req, std::string_view index, std::string_view query);
  // Request-level faults, body decoding and URL parameters, then bulk().
  Reply bulk_request(Request& req, std::string_view index, std::string_view query);
  // bulk()'s stages (bulk.cpp): ids for items without one (into `buf`), the checks that
  // need no shared state, then the status counts, dump and accepted count; true if any
  // item failed.
  void generate_ids(std::vector<Item>& items, std::string& buf);
  void check_items(std::vector<Item>& items);
  bool record(const std::vector<Item>& items, uint64_t accepted);
  std::string stats_json() const;

  SinkOptions opt_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Dump> dump_;
  std::atomic<uint64_t> item_rolls_{0}, request_rolls_{0}, id_counter_{0};
  std::atomic<uint64_t> docs_{0}, requests_{0}, bulk_requests_{0}, bytes_c_{0}, bytes_u_{0};
  std::array<std::atomic<uint64_t>, 600> items_by_status_{};
  std::array<std::atomic<uint64_t>, 600> bulk_by_status_{};
};

// Matches `name` against a glob with `*` only.
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace tern::sink
