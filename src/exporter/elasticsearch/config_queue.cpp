#include "exporter/elasticsearch/config_queue.h"

#include <fmt/format.h>

#include "exporter/helper/storage.h"

namespace tern::exporter::es {

using config::DecodeContext;
using config::MapReader;
using Q = ElasticsearchExporterConfig::SendingQueue;

namespace {

bool disk_queue_on(const Q& s) { return s.enabled && s.type == Q::Type::kDisk; }

// enabled, type, queue_size, max_bytes and num_consumers: the keys every queue has.
void read_queue(DecodeContext& ctx, MapReader& r, MapReader& q, ElasticsearchExporterConfig& c) {
  auto& s = c.sending_queue;
  q.boolean("enabled", s.enabled);
  q.choice("type", s.type, {{"memory", Q::Type::kMemory}, {"disk", Q::Type::kDisk}});
  q.uint("queue_size", s.queue_size);
  q.size("max_bytes", s.max_bytes);
  // The Collector's exporterhelper key for the number of concurrent senders (its
  // elasticsearch exporter deprecates num_workers for it): one setting, two spellings.
  const bool has_consumers = q.has("num_consumers");
  std::uint64_t consumers = 0;
  q.uint("num_consumers", consumers, 1024);
  if (has_consumers && r.has("num_workers")) {
    ctx.error(q.mark("num_consumers"),
              fmt::format("{}: set num_consumers or num_workers, not both (both are the number of "
                          "parallel bulk senders)",
                          q.sub_path("num_consumers")));
  } else if (has_consumers) {
    c.num_workers = consumers;
  }
}

// Where the disk queue lives: directory, or `storage: file_storage[/name]`, the Collector's
// persistent queue, here the disk queue in a directory of that extension (resolved once the
// extensions are read).
void read_queue_storage(DecodeContext& ctx, MapReader& q, Q& s, const config::ComponentId& id,
                        std::vector<config::StorageRequest>& storage) {
  q.str("directory", s.directory);
  q.str("storage", s.storage);
  if (q.has("storage")) {
    if (s.storage.empty()) {
      ctx.error(q.mark("storage"),
                fmt::format("{}: storage must name a file_storage extension", q.sub_path("storage")));
    } else if (q.has("type") && s.type != Q::Type::kDisk) {
      ctx.error(q.mark("storage"), fmt::format("{}: storage is a disk queue; it cannot go with type: memory",
                                               q.sub_path("storage")));
    } else if (!s.directory.empty()) {
      ctx.error(q.mark("storage"),
                fmt::format("{}: set storage (a file_storage extension) or directory, not both",
                            q.sub_path("storage")));
    } else {
      if (!q.has("enabled")) s.enabled = true;  // as in the Collector, where the queue is on by default
      s.type = Q::Type::kDisk;
    }
  }
  helper::request_queue_storage(ctx, q, id, s.storage, s.directory, storage);
}

// The disk queue's own keys: its size, segments, fsync policy and compression.
void read_disk_queue(DecodeContext& ctx, MapReader& q, Q& s) {
  q.size("max_size", s.max_size);
  q.size("segment_size", s.segment_size);
  q.choice("sync", s.sync,
           {{"batch", Q::Sync::kBatch}, {"interval", Q::Sync::kInterval}, {"none", Q::Sync::kNone}});
  q.duration("sync_interval", s.sync_interval);
  q.choice("compression", s.compress, {{"none", false}, {"zstd", true}});
  // `type: disk` asks for the disk queue, as `storage` does: on unless `enabled: false` says
  // otherwise (it was silently a memory queue). With the disk queue off, its keys are
  // pointed out.
  if (q.has("type") && s.type == Q::Type::kDisk && !q.has("enabled")) s.enabled = true;
  if (disk_queue_on(s)) return;
  for (const char* key : {"directory", "max_size", "segment_size", "sync", "sync_interval", "compression"}) {
    if (!q.has(key)) continue;
    ctx.warning(q.mark(key),
                fmt::format("{}: has no effect: the disk queue is off (it needs {})", q.sub_path(key),
                            s.type == Q::Type::kDisk ? "enabled: true" : "type: disk"));
  }
}

// The checks that need the whole queue read (and, for late encoding, the exporter's
// encoding key).
void check_queue(DecodeContext& ctx, MapReader& r, MapReader& q, const YAML::Mark& at_queue,
                 const ElasticsearchExporterConfig& c) {
  const Q& s = c.sending_queue;
  if (disk_queue_on(s) && s.directory.empty() && !q.has("storage")) {
    ctx.error(at_queue, fmt::format("{}: directory is required when type is disk", q.path()));
  }
  if (s.queue_size == 0) {  // the memory queue is always there, the disk queue or not
    ctx.error(q.mark("queue_size"), fmt::format("{}: queue_size must be greater than 0", q.path()));
  }
  if (disk_queue_on(s) && c.encoding == ElasticsearchExporterConfig::Encoding::kLate) {
    ctx.warning(r.mark("encoding"),
                fmt::format("{}: late has no effect with a disk queue: its reader loop encodes what it "
                            "reads from disk (early)",
                            r.sub_path("encoding")));
  }
  if (!disk_queue_on(s)) return;
  if (s.segment_size == 0) {
    ctx.error(q.mark("segment_size"), fmt::format("{}: segment_size must be greater than 0", q.path()));
  } else if (s.segment_size > s.max_size) {
    ctx.error(q.mark("segment_size"),
              fmt::format("{}: segment_size must not be larger than max_size", q.path()));
  }
  if (s.sync == Q::Sync::kInterval && s.sync_interval <= config::Duration{0}) {
    ctx.error(q.mark("sync_interval"), fmt::format("{}: sync_interval must be greater than 0", q.path()));
  }
}

}  // namespace

void decode_sending_queue(DecodeContext& ctx, MapReader& r, ElasticsearchExporterConfig& c,
                          const config::ComponentId& id, std::vector<config::StorageRequest>& storage) {
  const YAML::Node qn = r.get("sending_queue");
  MapReader q(ctx, qn, r.sub_path("sending_queue"));
  read_queue(ctx, r, q, c);
  read_queue_storage(ctx, q, c.sending_queue, id, storage);
  read_disk_queue(ctx, q, c.sending_queue);
  check_queue(ctx, r, q, qn.Mark(), c);
}

}  // namespace tern::exporter::es
