// SinkCore::bulk: a `_bulk` body, already decoded, through its stages: parse, generate ids,
// check items, store, count and dump, write the reply.
#include <simdjson.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "sink/bulk_item.h"
#include "sink/bulk_parse.h"
#include "sink/document_checks.h"
#include "sink/filter_path.h"
#include "sink/item_checks.h"
#include "sink/sink_core.h"
#include "sink/store.h"
#include "sink/strings.h"

namespace tern::sink {

namespace {

thread_local simdjson::dom::parser t_parser;

// One item of the reply, in Elasticsearch's field order.
void write_item(FilteredWriter& w, const Item& it) {
  w.begin({}, false);
  w.begin(op_name(it.op), false);
  w.str("_index", it.index);
  w.str("_id", it.id);
  if (it.result) {
    w.num("_version", it.version);
    w.str("result", it.result);
    // Written field by field so that filter_path can select inside it (items.*._shards.failed).
    w.begin("_shards", false);
    w.num("total", 1);
    w.num("successful", 1);
    w.num("failed", 0);
    w.end();
    w.num("_seq_no", 0);
    w.num("_primary_term", 1);
  }
  w.num("status", it.status);
  if (!it.error_type.empty()) {
    w.begin("error", false);
    w.str("type", it.error_type);
    w.str("reason", it.error_reason);
    w.str("index", it.index);
    if (!it.cause_type.empty()) {
      w.begin("caused_by", false);
      w.str("type", it.cause_type);
      w.str("reason", it.cause_reason);
      w.end();
    }
    w.end();
  }
  w.end();
  w.end();
}

// `{"took":..,"errors":..,"items":[..]}`, filtered by `filter_path`; `took` counts from `t0`.
Reply write_reply(const std::vector<Item>& items, bool errors, std::string_view filter_path,
                  std::chrono::steady_clock::time_point t0) {
  PathFilter filter(filter_path);
  Reply reply;
  reply.body.reserve(items.size() * (filter_path.empty() ? 200 : 60) + 64);
  FilteredWriter w(reply.body, filter);
  auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  w.num("took", took);
  w.raw("errors", errors ? "true" : "false");
  w.begin("items", true);
  for (const auto& it : items) write_item(w, it);
  w.end();
  w.finish();
  return reply;
}

}  // namespace

Reply SinkCore::bulk(std::string& body, std::string_view default_index, std::string_view filter_path,
                     const BulkDefaults& defaults) {
  const auto t0 = std::chrono::steady_clock::now();
  ParsedBulk parsed;
  if (auto error = parse_bulk(body, default_index, defaults, t_parser, parsed)) return std::move(*error);
  std::vector<Item>& items = parsed.items;
  std::string generated_ids;
  generate_ids(items, generated_ids);
  check_items(items);
  const uint64_t accepted = store_->write(items);
  const bool errors = record(items, accepted);
  return write_reply(items, errors, filter_path, t0);
}

void SinkCore::generate_ids(std::vector<Item>& items, std::string& buf) {
  // Elasticsearch generates missing ids on the coordinating node, before any shard-level
  // failure, so failed items carry their generated _id too. 20 characters each, all in
  // one buffer sized first (a string per id was an allocation per document).
  constexpr size_t kIdLength = 20;
  size_t generated = 0;
  for (const auto& it : items) generated += !it.id_given && it.op != Op::kDelete;
  buf.assign(generated * kIdLength, 'A');
  char* next_id = buf.data();
  const uint64_t hi = splitmix(opt_.seed + 7);
  for (auto& it : items) {
    if (it.id_given || it.op == Op::kDelete) continue;
    uint64_t k = splitmix(opt_.seed) ^ id_counter_.fetch_add(1, std::memory_order_relaxed);
    static constexpr char kAlpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (int i = 0; i < 9; ++i) next_id[i] = kAlpha[(hi >> (6 * i)) & 63];
    for (int i = 0; i < 11; ++i) next_id[19 - i] = kAlpha[(k >> (6 * i)) & 63];
    it.id = {next_id, kIdLength};
    next_id += kIdLength;
  }
}

void SinkCore::check_items(std::vector<Item>& items) {
  // Decisions that need no shared state, the first that applies deciding (docs/sink.md).
  ItemChecks checks;
  for (auto& it : items) {
    if (checks.reject(it)) continue;
    if (roll(item_rolls_, 1, opt_.item_429_rate)) {
      it.fail(429, "es_rejected_execution_exception",
              "rejected execution of coordinating operation [tern sink fault injection]");
      continue;
    }
    if (it.op == Op::kUpdate) {
      it.fail(400, "illegal_argument_exception", "tern sink does not support the update action");
      continue;
    }
    if (it.op == Op::kDelete) continue;
    check_document(it, t_parser, opt_.mapping_error_field);
  }
}

bool SinkCore::record(const std::vector<Item>& items, uint64_t accepted) {
  std::string dump;
  bool errors = false;
  for (const auto& it : items) {
    items_by_status_[it.status].fetch_add(1, std::memory_order_relaxed);
    if (!it.error_type.empty()) errors = true;  // a failure; a delete's not_found is a result
    if (dump_ && (it.status == 200 || it.status == 201) && it.op != Op::kDelete) append_dump_line(dump, it);
  }
  if (dump_ && !dump.empty()) dump_->write(dump);
  docs_.fetch_add(accepted, std::memory_order_relaxed);
  return errors;
}

}  // namespace tern::sink
