#include "sink/sink_core.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sink/bulk_item.h"
#include "sink/es_json.h"
#include "sink/filter_path.h"
#include "sink/store.h"
#include "sink/strings.h"
#include "text/lowercase.h"

namespace tern::sink {

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative `*` matching with single backtrack point: linear-ish, no recursion.
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (pi < p.size() && p[pi] == s[si]) {
      ++pi;
      ++si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

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

// The metadata fields of an Elasticsearch 8 index (its MetadataFieldMappers) that a document
// may not carry at its root. `_doc_count` is one too but documents may set it (pre-aggregated
// data), so it is not listed.
bool is_metadata_field(std::string_view name) {
  static constexpr std::string_view kNames[] = {"_id",
                                                "_index",
                                                "_source",
                                                "_routing",
                                                "_ignored",
                                                "_seq_no",
                                                "_version",
                                                "_primary_term",
                                                "_field_names",
                                                "_tier",
                                                "_data_stream_timestamp",
                                                "_tsid",
                                                "_nested_path",
                                                "_feature"};
  if (name.size() < 3 || name[0] != '_') return false;
  for (auto n : kNames)
    if (n == name) return true;
  return false;
}

// Where the `member`-th member of the JSON object `doc` (valid JSON) has its value: the
// offsets of its first and last byte. Elasticsearch's errors name positions as
// [line:column] (Jackson's, 1-based bytes); simdjson gives none.
std::pair<size_t, size_t> member_value_span(std::string_view doc, size_t member) {
  size_t i = doc.find('{') + 1;
  auto ws = [&] {
    while (i < doc.size() && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r' || doc[i] == '\n')) ++i;
  };
  auto skip_string = [&] {  // at the opening quote; ends after the closing one
    for (++i; i < doc.size() && doc[i] != '"'; ++i)
      if (doc[i] == '\\') ++i;
    ++i;
  };
  auto skip_value = [&] {  // ends on the value's last byte
    if (doc[i] == '"') {
      skip_string();
      --i;
    } else if (doc[i] == '{' || doc[i] == '[') {
      int depth = 0;
      for (; i < doc.size(); ++i) {
        if (doc[i] == '"') {
          skip_string();
          --i;
        } else if (doc[i] == '{' || doc[i] == '[') {
          ++depth;
        } else if ((doc[i] == '}' || doc[i] == ']') && --depth == 0) {
          break;
        }
      }
    } else {
      while (i + 1 < doc.size() && std::string_view(",}] \t\r\n").find(doc[i + 1]) == std::string_view::npos)
        ++i;
    }
  };
  for (size_t m = 0;; ++m) {
    ws();
    skip_string();  // the key
    ws();
    ++i;  // ':'
    ws();
    const size_t first = i;
    skip_value();
    if (m == member || i >= doc.size()) return {first, i};
    ++i;
    ws();
    ++i;  // ','
  }
}

// A value as Java's toString prints what Elasticsearch parsed (the "Preview of field's
// value" of its mapping errors): maps as {k=v, k2=v2}, lists as [a, b].
void append_java_string(std::string& out, simdjson::dom::element v) {
  switch (v.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out += '{';
      bool first = true;
      simdjson::dom::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS) break;
      for (auto f : o) {
        if (!std::exchange(first, false)) out += ", ";
        out += f.key;
        out += '=';
        append_java_string(out, f.value);
      }
      out += '}';
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out += '[';
      bool first = true;
      simdjson::dom::array arr;
      if (v.get_array().get(arr) != simdjson::SUCCESS) break;
      for (auto e : arr) {
        if (!std::exchange(first, false)) out += ", ";
        append_java_string(out, e);
      }
      out += ']';
      break;
    }
    case simdjson::dom::element_type::STRING:
      out += v.get_string().value_unsafe();
      break;
    case simdjson::dom::element_type::INT64:
      out += std::to_string(v.get_int64().value_unsafe());
      break;
    case simdjson::dom::element_type::UINT64:
      out += std::to_string(v.get_uint64().value_unsafe());
      break;
    case simdjson::dom::element_type::DOUBLE: {
      // Java's Double.toString: a ".0" on whole numbers, E notation outside [1e-3, 1e7).
      double d = v.get_double().value_unsafe();
      double a = d < 0 ? -d : d;
      std::string t = (a != 0 && (a < 1e-3 || a >= 1e7)) ? fmt::format("{:e}", d) : fmt::format("{}", d);
      size_t e = t.find('e');
      if (e != std::string::npos) {
        std::string mant = t.substr(0, e), exp = t.substr(e + 1);
        while (mant.find('.') != std::string::npos && mant.back() == '0') mant.pop_back();
        if (mant.back() == '.') mant += '0';
        if (mant.find('.') == std::string::npos) mant += ".0";
        int x = std::stoi(exp);
        t = mant + "E" + std::to_string(x);
      } else if (t.find('.') == std::string::npos) {
        t += ".0";
      }
      out += t;
      break;
    }
    case simdjson::dom::element_type::BOOL:
      out += v.get_bool().value_unsafe() ? "true" : "false";
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      out += "null";
      break;
  }
}

thread_local simdjson::dom::parser t_parser;
// Elasticsearch field semantics: `a.b` names both {"a.b":..} and {"a":{"b":..}} (and mixes).
bool has_field(simdjson::dom::object obj, std::string_view name, int depth = 0) {
  if (depth > 64) return false;
  for (auto field : obj) {
    std::string_view key = field.key;
    if (key == name) return true;
    simdjson::dom::object sub;
    if (name.size() > key.size() && name[key.size()] == '.' && name.substr(0, key.size()) == key &&
        field.value.get_object().get(sub) == simdjson::SUCCESS &&
        has_field(sub, name.substr(key.size() + 1), depth + 1)) {
      return true;
    }
  }
  return false;
}

std::string_view trim_cr(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  return line;
}

}  // namespace

SinkCore::SinkCore(SinkOptions options) : opt_(std::move(options)), store_(std::make_unique<Store>()) {
  if (!opt_.dump_path.empty()) dump_ = std::make_unique<Dump>(opt_.dump_path);
}
SinkCore::~SinkCore() = default;

void SinkCore::flush_dump() {
  if (dump_) dump_->flush();
}

bool SinkCore::roll(std::atomic<uint64_t>& counter, uint64_t stream, double rate) {
  if (rate <= 0) return false;
  uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  uint64_t r = splitmix(splitmix(opt_.seed ^ (stream * 0x100000001b3ULL)) + n);
  return static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0) < rate;
}

void SinkCore::note_bulk_status(int status) {
  if (status >= 0 && status < 600) bulk_by_status_[status].fetch_add(1, std::memory_order_relaxed);
}

int64_t SinkCore::count(std::string_view pattern) const { return store_->count(pattern); }

SinkStats SinkCore::stats() const {
  SinkStats s;
  s.docs = docs_.load();
  s.requests = requests_.load();
  s.bulk_requests = bulk_requests_.load();
  s.bytes_compressed = bytes_c_.load();
  s.bytes_uncompressed = bytes_u_.load();
  for (int i = 0; i < 600; ++i) {
    if (uint64_t v = items_by_status_[i].load()) s.items_by_status[i] = v;
    if (uint64_t v = bulk_by_status_[i].load()) s.bulk_by_status[i] = v;
  }
  return s;
}

std::string SinkCore::stats_json() const {
  SinkStats s = stats();
  std::string out = fmt::format(
      R"({{"docs":{},"requests":{},"bulk_requests":{},"bytes_compressed":{},"bytes_uncompressed":{},"items_by_status":{{)",
      s.docs, s.requests, s.bulk_requests, s.bytes_compressed, s.bytes_uncompressed);
  bool first = true;
  for (auto& [k, v] : s.items_by_status)
    out += fmt::format(R"({}"{}":{})", std::exchange(first, false) ? "" : ",", k, v);
  out += R"(},"bulk_by_status":{)";
  first = true;
  for (auto& [k, v] : s.bulk_by_status)
    out += fmt::format(R"({}"{}":{})", std::exchange(first, false) ? "" : ",", k, v);
  out += R"(},"indices":{)";
  store_->append_index_counts(out);
  out += "}}";
  return out;
}

Reply SinkCore::bulk(std::string& body, std::string_view default_index, std::string_view filter_path,
                     const BulkDefaults& defaults) {
  auto t0 = std::chrono::steady_clock::now();
  const size_t n = body.size();
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return es_error(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;");
  }
  if (body.back() != '\n') {
    return es_error(400, "illegal_argument_exception",
                    "The bulk request must be terminated by a newline [\\n]");
  }
  // simdjson reads up to SIMDJSON_PADDING bytes past each line: make them exist.
  body.append(simdjson::SIMDJSON_PADDING, ' ');
  const std::string_view all(body.data(), n);
  auto& parser = t_parser;

  std::vector<Item> items;
  // What items point to beyond the request: copies of parsed names and ids (the parser's
  // strings live only until its next line). A deque: its strings never move. An index is
  // copied only when it differs from the one before, as consecutive items mostly share it.
  std::deque<std::string> owned;
  std::string_view last_index;
  size_t pos = 0, line_no = 0;
  auto next_line = [&](std::string_view& line) {
    if (pos >= n) return false;
    size_t e = all.find('\n', pos);
    line = trim_cr(all.substr(pos, e - pos));
    pos = e + 1;
    ++line_no;
    return true;
  };
  // Elasticsearch's limit on an `_id` (IndexRequest.validate), in UTF-8 bytes.
  constexpr size_t kMaxIdBytes = 512;
  std::vector<std::string> validation;
  std::string_view line;
  while (next_line(line)) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    size_t action_line = line_no;
    auto malformed = [&](std::string_view why) {
      return es_error(400, "illegal_argument_exception",
                      fmt::format("Malformed action/metadata line [{}], {}", action_line, why));
    };
    simdjson::dom::element el;
    if (parser.parse(line.data(), line.size(), false).get(el) != simdjson::SUCCESS) {
      return malformed("expected a JSON object");
    }
    simdjson::dom::object obj;
    if (el.get_object().get(obj) != simdjson::SUCCESS) return malformed("expected START_OBJECT");
    if (obj.size() != 1) return malformed("expected a single action object");
    auto field = *obj.begin();
    Item it;
    std::string_view key = field.key;
    if (key == "create") {
      it.op = Op::kCreate;
    } else if (key == "index") {
      it.op = Op::kIndex;
    } else if (key == "delete") {
      it.op = Op::kDelete;
    } else if (key == "update") {
      it.op = Op::kUpdate;
    } else {
      return malformed(
          fmt::format("expected field [create], [delete], [index] or [update] but found [{}]", key));
    }
    simdjson::dom::object meta;
    if (field.value.get_object().get(meta) != simdjson::SUCCESS)
      return malformed("expected START_OBJECT after the action name");
    // Elasticsearch 8's BulkRequestParser: these parameters only, each a simple value (null
    // is skipped), `_source` and `dynamic_templates` also objects; anything else fails the
    // whole request. Parameters the sink has no use for (routing, versions, ...) are
    // accepted and ignored.
    std::string_view op_type, pipeline = defaults.pipeline;
    it.require_alias = defaults.require_alias;
    it.require_data_stream = defaults.require_data_stream;
    bool dynamic_templates = false, empty_pipeline = false;
    for (auto param : meta) {
      const std::string_view name = param.key;
      const auto type = param.value.type();
      if (type == simdjson::dom::element_type::NULL_VALUE) continue;
      if (type == simdjson::dom::element_type::ARRAY ||
          (type == simdjson::dom::element_type::OBJECT && name != "_source" && name != "dynamic_templates")) {
        return malformed(
            fmt::format("expected a simple value for field [{}] but found [{}]", name,
                        type == simdjson::dom::element_type::ARRAY ? "START_ARRAY" : "START_OBJECT"));
      }
      std::string_view sv;
      const bool is_string = param.value.get_string().get(sv) == simdjson::SUCCESS;
      // Elasticsearch reads `_index` and `_id` with XContentParser.text(): a number or a
      // boolean is taken as its JSON text (`"_id": 1` is the id "1").
      const auto text = [&]() -> std::string_view {
        return is_string ? sv : std::string_view(owned.emplace_back(simdjson::minify(param.value)));
      };
      auto flag = [&](bool& out) -> std::optional<Reply> {
        std::optional<bool> b;
        if (type == simdjson::dom::element_type::BOOL)
          b = param.value.get_bool().value_unsafe();
        else if (is_string)
          b = parse_es_bool(sv);
        if (!b)
          return es_error(400, "illegal_argument_exception",
                          fmt::format("Failed to parse value [{}] as only [true] or [false] are allowed.",
                                      is_string ? std::string(sv) : simdjson::minify(param.value)));
        out = *b;
        return std::nullopt;
      };
      if (name == "_index") {
        const std::string_view index = text();
        if (!index.empty()) {  // an empty _index means the path's
          if (index != last_index) last_index = owned.emplace_back(index);
          it.index = last_index;
        }
      } else if (name == "_id") {
        it.id = owned.emplace_back(text());
        it.id_given = true;
      } else if (name == "op_type") {
        if (is_string) op_type = sv;
      } else if (name == "pipeline") {
        pipeline = is_string ? std::string_view(owned.emplace_back(sv)) : std::string_view();
        empty_pipeline = is_string && sv.empty();
      } else if (name == "require_alias") {
        if (auto e = flag(it.require_alias)) return std::move(*e);
      } else if (name == "require_data_stream") {
        if (auto e = flag(it.require_data_stream)) return std::move(*e);
      } else if (name == "list_executed_pipelines") {
        bool ignored;
        if (auto e = flag(ignored)) return std::move(*e);
      } else if (name == "dynamic_templates") {
        if (type != simdjson::dom::element_type::OBJECT) {
          return malformed(fmt::format("expected a simple value for field [{}] but found [{}]", name,
                                       "VALUE_STRING"));  // a scalar where a map of strings belongs
        }
        simdjson::dom::object templates;
        if (param.value.get_object().get(templates) != simdjson::SUCCESS) continue;
        for (auto t : templates) {
          const auto tt = t.value.type();
          if (tt == simdjson::dom::element_type::OBJECT || tt == simdjson::dom::element_type::ARRAY)
            return malformed(fmt::format("dynamic_templates [{}] must be a string", t.key));
        }
        dynamic_templates = templates.size() > 0;
      } else if (name != "routing" && name != "version" && name != "version_type" && name != "if_seq_no" &&
                 name != "if_primary_term" && name != "retry_on_conflict" && name != "_source") {
        return es_error(
            400, "illegal_argument_exception",
            fmt::format("Action/metadata line [{}] contains an unknown parameter [{}]", action_line, name));
      }
    }
    if (it.op == Op::kDelete && dynamic_templates) {
      return es_error(
          400, "illegal_argument_exception",
          fmt::format("Delete request in line [{}] does not accept dynamic_templates", action_line));
    }
    if (it.op == Op::kUpdate) {
      if (dynamic_templates)
        return es_error(
            400, "illegal_argument_exception",
            fmt::format("Update request in line [{}] does not accept dynamic_templates", action_line));
      if (it.require_data_stream)
        return es_error(
            400, "illegal_argument_exception",
            "Update requests do not support the `require_data_stream` flag, as data streams do not "
            "support update operations");
    }
    // Elasticsearch answers such an item as a `create` (the response names the op type).
    if (it.op == Op::kIndex && op_type == "create") it.op = Op::kCreate;
    if (it.op == Op::kDelete) {
      it.require_alias = it.require_data_stream = false;  // not delete parameters in Elasticsearch
    } else if (pipeline != "_none") {
      it.pipeline = pipeline;
    }
    if (it.op != Op::kDelete) {
      std::string_view doc;
      if (!next_line(doc)) {
        return es_error(400, "illegal_argument_exception",
                        fmt::format("Malformed action/metadata line [{}], missing the document source line",
                                    action_line));
      }
      it.doc = doc;
    }
    // Elasticsearch's BulkRequest.validate: every item's errors, numbered, fail the request.
    if (it.index.empty()) it.index = default_index;
    if (it.index.empty()) validation.emplace_back("index is missing");
    if (it.op == Op::kDelete && it.id.empty()) validation.emplace_back("id is missing");
    if (it.id.size() > kMaxIdBytes) {
      validation.push_back(fmt::format("id [{}] is too long, must be no longer than {} bytes but was: {}",
                                       it.id, kMaxIdBytes, it.id.size()));
    }
    if (it.op != Op::kDelete && empty_pipeline) validation.emplace_back("pipeline cannot be an empty string");
    items.push_back(std::move(it));
  }
  if (items.empty()) {
    return es_error(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;");
  }
  if (!validation.empty()) {
    std::string reason = "Validation Failed: ";
    for (size_t i = 0; i < validation.size(); ++i) reason += fmt::format("{}: {};", i + 1, validation[i]);
    return es_error(400, "action_request_validation_exception", reason);
  }

  // Elasticsearch generates missing ids on the coordinating node, before any shard-level
  // failure, so failed items carry their generated _id too. 20 characters each, all in
  // one buffer sized first (a string per id was an allocation per document).
  constexpr size_t kIdLength = 20;
  size_t generated = 0;
  for (const auto& it : items) generated += !it.id_given && it.op != Op::kDelete;
  std::string generated_ids(generated * kIdLength, 'A');
  char* next_id = generated_ids.data();
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

  // Per-item decisions that need no shared state: rejections and document validation. An
  // index name is checked when it differs from the item before's.
  std::string_view checked_index;
  std::string index_reason;
  bool data_stream_index = false;
  for (auto& it : items) {
    if (it.index != checked_index) {
      index_reason = invalid_index_reason(it.index);
      data_stream_index = is_data_stream(it.index);
      checked_index = it.index;
    }
    if (!index_reason.empty()) {
      it.fail(400, "invalid_index_name_exception",
              fmt::format("Invalid index name [{}], {}", it.index, index_reason));
      continue;
    }
    // What Elasticsearch checks before the shards, roughly in its order: ingest (the sink
    // has no pipelines), require_alias (it has no aliases), data streams, the _id.
    const bool writes = it.op == Op::kCreate || it.op == Op::kIndex;
    if (writes && !it.pipeline.empty()) {
      it.fail(400, "illegal_argument_exception",
              fmt::format("pipeline with id [{}] does not exist", it.pipeline));
      continue;
    }
    if (it.require_alias) {
      it.fail(404, "index_not_found_exception",
              fmt::format(
                  "no such index [{0}] and [require_alias] request flag is [true] and [{0}] is not an alias",
                  it.index));
      continue;
    }
    const bool data_stream = writes && data_stream_index;
    if (writes && it.require_data_stream && !data_stream) {
      it.fail(404, "resource_not_found_exception",
              fmt::format("[require_data_stream] request flag is [true] and [{}] is not a data stream",
                          it.index));
      continue;
    }
    if (data_stream && it.op == Op::kIndex) {
      it.fail(400, "illegal_argument_exception",
              "only write ops with an op_type of create are allowed in data streams");
      continue;
    }
    if (writes && it.id_given && it.id.empty()) {
      it.fail(400, "illegal_argument_exception", "if _id is specified it must not be empty");
      continue;
    }
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
    simdjson::dom::element doc;
    simdjson::dom::object obj;
    if (parser.parse(it.doc.data(), it.doc.size(), false).get(doc) != simdjson::SUCCESS ||
        doc.get_object().get(obj) != simdjson::SUCCESS) {
      it.fail(400, "mapper_parsing_exception", "failed to parse");
      continue;
    }
    // A metadata field at the root: Elasticsearch 8's MetadataFieldMapper refuses it at the
    // value's position, and FieldMapper wraps that with a preview of the value, positioned
    // where reading the value left the parser (its last token).
    size_t member = 0;
    for (auto f : obj) {
      if (is_metadata_field(f.key)) {
        auto [first, last] = member_value_span(it.doc, member);
        const bool container = f.value.type() == simdjson::dom::element_type::OBJECT ||
                               f.value.type() == simdjson::dom::element_type::ARRAY;
        std::string preview;
        append_java_string(preview, f.value);
        it.fail(
            400, "document_parsing_exception",
            fmt::format("[1:{}] failed to parse field [{}] of type [{}] in document with id '{}'. Preview of "
                        "field's value: '{}'",
                        (container ? last : first) + 1, f.key, f.key, it.id, preview));
        it.cause_type = "document_parsing_exception";
        it.cause_reason = fmt::format(
            "[1:{}] Field [{}] is a metadata field and cannot be added inside a document. Use the index API "
            "request parameters.",
            first + 1, f.key);
        break;
      }
      ++member;
    }
    if (it.status) continue;
    if (!opt_.mapping_error_field.empty() && has_field(obj, opt_.mapping_error_field)) {
      it.fail(400, "mapper_parsing_exception",
              fmt::format("failed to parse field [{}] of type [long] in document", opt_.mapping_error_field));
    }
  }

  const uint64_t accepted = store_->write(items);

  std::string dump;
  bool errors = false;
  for (auto& it : items) {
    items_by_status_[it.status].fetch_add(1, std::memory_order_relaxed);
    if (!it.error_type.empty()) errors = true;  // a failure; a delete's not_found is a result
    if (dump_ && (it.status == 200 || it.status == 201) && it.op != Op::kDelete) append_dump_line(dump, it);
  }
  if (dump_ && !dump.empty()) dump_->write(dump);
  docs_.fetch_add(accepted, std::memory_order_relaxed);

  PathFilter filter(filter_path);
  Reply reply;
  reply.body.reserve(items.size() * (filter_path.empty() ? 200 : 60) + 64);
  FilteredWriter w(reply.body, filter);
  auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  w.num("took", took);
  w.raw("errors", errors ? "true" : "false");
  w.begin("items", true);
  for (auto& it : items) {
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
  w.end();
  w.finish();
  return reply;
}

}  // namespace tern::sink
