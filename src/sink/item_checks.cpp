#include "sink/item_checks.h"

#include <fmt/format.h>

#include "sink/es_json.h"
#include "text/lowercase.h"

namespace tern::sink {

namespace {

// Why Elasticsearch refuses `name` as an index to write to (MetadataCreateIndexService's
// validateIndexOrAliasName), or empty: lowercase as Java's toLowerCase(Locale.ROOT) keeps
// it, none of `\ / * ? " < > | , # :` and space, no leading `_ - +`, not `.` or `..`, at
// most 255 bytes. A sender that routes by attribute values must have sanitized them.
std::string invalid_index_reason(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name == "." || name == "..") return "must not be '.' or '..'";
  if (name.find_first_of(kIndexNameForbidden) != std::string_view::npos)
    return R"(must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?, #, :])";
  if (name.front() == '_' || name.front() == '-' || name.front() == '+')
    return "must not start with '_', '-', or '+'";
  if (name.size() > 255) return "index name is too long, (" + std::to_string(name.size()) + " > 255)";
  std::string lower;
  lower.reserve(name.size());
  text::append_lowercase(name, lower);
  if (lower != name) return "must be lowercase";
  return {};
}

// Names Elasticsearch 8 makes data streams out of the box (the built-in logs, metrics and
// traces index templates), so writing to them creates a data stream, not an index.
bool is_data_stream(std::string_view index) {
  return glob_match("logs-*-*", index) || glob_match("metrics-*-*", index) || glob_match("traces-*-*", index);
}

}  // namespace

bool ItemChecks::reject(Item& it) {
  if (it.index != checked_index_) {
    index_reason_ = invalid_index_reason(it.index);
    data_stream_index_ = is_data_stream(it.index);
    checked_index_ = it.index;
  }
  if (!index_reason_.empty()) {
    it.fail(400, "invalid_index_name_exception",
            fmt::format("Invalid index name [{}], {}", it.index, index_reason_));
    return true;
  }
  // What Elasticsearch checks before the shards, roughly in its order: ingest (the sink
  // has no pipelines), require_alias (it has no aliases), data streams, the _id.
  const bool writes = it.op == Op::kCreate || it.op == Op::kIndex;
  if (writes && !it.pipeline.empty()) {
    it.fail(400, "illegal_argument_exception",
            fmt::format("pipeline with id [{}] does not exist", it.pipeline));
    return true;
  }
  if (it.require_alias) {
    it.fail(404, "index_not_found_exception",
            fmt::format(
                "no such index [{0}] and [require_alias] request flag is [true] and [{0}] is not an alias",
                it.index));
    return true;
  }
  const bool data_stream = writes && data_stream_index_;
  if (writes && it.require_data_stream && !data_stream) {
    it.fail(
        404, "resource_not_found_exception",
        fmt::format("[require_data_stream] request flag is [true] and [{}] is not a data stream", it.index));
    return true;
  }
  if (data_stream && it.op == Op::kIndex) {
    it.fail(400, "illegal_argument_exception",
            "only write ops with an op_type of create are allowed in data streams");
    return true;
  }
  if (writes && it.id_given && it.id.empty()) {
    it.fail(400, "illegal_argument_exception", "if _id is specified it must not be empty");
    return true;
  }
  return false;
}

}  // namespace tern::sink
