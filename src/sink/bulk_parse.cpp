#include "sink/bulk_parse.h"

#include <fmt/format.h>

#include <utility>

#include "sink/es_json.h"
#include "sink/strings.h"

namespace tern::sink {

namespace {

using simdjson::dom::element_type;

// Elasticsearch's limit on an `_id` (IndexRequest.validate), in UTF-8 bytes.
constexpr size_t kMaxIdBytes = 512;

std::string_view trim_cr(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  return line;
}

// What an action line says beyond the item's own fields.
struct ActionParams {
  std::string_view op_type;
  std::string_view pipeline;
  bool dynamic_templates = false;
  bool empty_pipeline = false;
};

class BulkParser {
 public:
  BulkParser(std::string_view all, std::string_view default_index, const BulkDefaults& defaults,
             simdjson::dom::parser& parser, ParsedBulk& out)
      : all_(all), default_index_(default_index), defaults_(defaults), parser_(parser), out_(out) {}

  std::optional<Reply> run() {
    std::string_view line;
    while (next_line(line)) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      if (auto error = read_item(line)) return error;
    }
    if (out_.items.empty()) {
      return es_error(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;");
    }
    if (!validation_.empty()) {
      std::string reason = "Validation Failed: ";
      for (size_t i = 0; i < validation_.size(); ++i) reason += fmt::format("{}: {};", i + 1, validation_[i]);
      return es_error(400, "action_request_validation_exception", reason);
    }
    return std::nullopt;
  }

 private:
  bool next_line(std::string_view& line) {
    if (pos_ >= all_.size()) return false;
    size_t e = all_.find('\n', pos_);
    line = trim_cr(all_.substr(pos_, e - pos_));
    pos_ = e + 1;
    ++line_no_;
    return true;
  }

  Reply malformed(std::string_view why) const {
    return es_error(400, "illegal_argument_exception",
                    fmt::format("Malformed action/metadata line [{}], {}", action_line_, why));
  }

  // An action line and, unless it is a delete, the document line after it.
  std::optional<Reply> read_item(std::string_view line) {
    action_line_ = line_no_;
    Item it;
    simdjson::dom::object meta;
    if (auto error = read_action(line, it, meta)) return error;
    ActionParams params;
    params.pipeline = defaults_.pipeline;
    it.require_alias = defaults_.require_alias;
    it.require_data_stream = defaults_.require_data_stream;
    for (auto param : meta) {
      if (auto error = read_param(param.key, param.value, it, params)) return error;
    }
    if (auto error = check_params(it, params)) return error;
    // Elasticsearch answers such an item as a `create` (the response names the op type).
    if (it.op == Op::kIndex && params.op_type == "create") it.op = Op::kCreate;
    if (it.op == Op::kDelete) {
      it.require_alias = it.require_data_stream = false;  // not delete parameters in Elasticsearch
    } else if (params.pipeline != "_none") {
      it.pipeline = params.pipeline;
    }
    if (it.op != Op::kDelete) {
      std::string_view doc;
      if (!next_line(doc)) {
        return es_error(400, "illegal_argument_exception",
                        fmt::format("Malformed action/metadata line [{}], missing the document source line",
                                    action_line_));
      }
      it.doc = doc;
    }
    validate(it, params.empty_pipeline);
    out_.items.push_back(std::move(it));
    return std::nullopt;
  }

  // `{"ACTION":{...}}`: the op into `it`, the parameters object into `meta`.
  std::optional<Reply> read_action(std::string_view line, Item& it, simdjson::dom::object& meta) {
    simdjson::dom::element el;
    if (parser_.parse(line.data(), line.size(), false).get(el) != simdjson::SUCCESS) {
      return malformed("expected a JSON object");
    }
    simdjson::dom::object obj;
    if (el.get_object().get(obj) != simdjson::SUCCESS) return malformed("expected START_OBJECT");
    if (obj.size() != 1) return malformed("expected a single action object");
    auto field = *obj.begin();
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
    if (field.value.get_object().get(meta) != simdjson::SUCCESS)
      return malformed("expected START_OBJECT after the action name");
    return std::nullopt;
  }

  // Elasticsearch 8's BulkRequestParser: these parameters only, each a simple value (null
  // is skipped), `_source` and `dynamic_templates` also objects; anything else fails the
  // whole request. Parameters the sink has no use for (routing, versions, ...) are
  // accepted and ignored.
  std::optional<Reply> read_param(std::string_view name, simdjson::dom::element value, Item& it,
                                  ActionParams& params) {
    const auto type = value.type();
    if (type == element_type::NULL_VALUE) return std::nullopt;
    if (type == element_type::ARRAY ||
        (type == element_type::OBJECT && name != "_source" && name != "dynamic_templates")) {
      return malformed(fmt::format("expected a simple value for field [{}] but found [{}]", name,
                                   type == element_type::ARRAY ? "START_ARRAY" : "START_OBJECT"));
    }
    std::string_view sv;
    const bool is_string = value.get_string().get(sv) == simdjson::SUCCESS;
    if (name == "_index") {
      const std::string_view index = text(value, is_string, sv);
      if (!index.empty()) {  // an empty _index means the path's
        // Copied only when it differs from the item before's, as consecutive items mostly share it.
        if (index != last_index_) last_index_ = out_.owned.emplace_back(index);
        it.index = last_index_;
      }
    } else if (name == "_id") {
      it.id = out_.owned.emplace_back(text(value, is_string, sv));
      it.id_given = true;
    } else if (name == "op_type") {
      if (is_string) params.op_type = sv;
    } else if (name == "pipeline") {
      params.pipeline = is_string ? std::string_view(out_.owned.emplace_back(sv)) : std::string_view();
      params.empty_pipeline = is_string && sv.empty();
    } else if (name == "require_alias") {
      return read_flag(value, is_string, sv, it.require_alias);
    } else if (name == "require_data_stream") {
      return read_flag(value, is_string, sv, it.require_data_stream);
    } else if (name == "list_executed_pipelines") {
      bool ignored;
      return read_flag(value, is_string, sv, ignored);
    } else if (name == "dynamic_templates") {
      return read_dynamic_templates(value, params);
    } else if (name != "routing" && name != "version" && name != "version_type" && name != "if_seq_no" &&
               name != "if_primary_term" && name != "retry_on_conflict" && name != "_source") {
      return es_error(
          400, "illegal_argument_exception",
          fmt::format("Action/metadata line [{}] contains an unknown parameter [{}]", action_line_, name));
    }
    return std::nullopt;
  }

  // Elasticsearch reads `_index` and `_id` with XContentParser.text(): a number or a
  // boolean is taken as its JSON text (`"_id": 1` is the id "1").
  std::string_view text(simdjson::dom::element value, bool is_string, std::string_view sv) {
    return is_string ? sv : std::string_view(out_.owned.emplace_back(simdjson::minify(value)));
  }

  std::optional<Reply> read_flag(simdjson::dom::element value, bool is_string, std::string_view sv,
                                 bool& out) {
    std::optional<bool> b;
    if (value.type() == element_type::BOOL)
      b = value.get_bool().value_unsafe();
    else if (is_string)
      b = parse_es_bool(sv);
    if (!b)
      return es_error(400, "illegal_argument_exception",
                      fmt::format("Failed to parse value [{}] as only [true] or [false] are allowed.",
                                  is_string ? std::string(sv) : simdjson::minify(value)));
    out = *b;
    return std::nullopt;
  }

  std::optional<Reply> read_dynamic_templates(simdjson::dom::element value, ActionParams& params) {
    if (value.type() != element_type::OBJECT) {
      return malformed(fmt::format("expected a simple value for field [{}] but found [{}]",
                                   "dynamic_templates",
                                   "VALUE_STRING"));  // a scalar where a map of strings belongs
    }
    simdjson::dom::object templates;
    if (value.get_object().get(templates) != simdjson::SUCCESS) return std::nullopt;
    for (auto t : templates) {
      const auto tt = t.value.type();
      if (tt == element_type::OBJECT || tt == element_type::ARRAY)
        return malformed(fmt::format("dynamic_templates [{}] must be a string", t.key));
    }
    params.dynamic_templates = templates.size() > 0;
    return std::nullopt;
  }

  // Parameters a delete or an update does not accept.
  std::optional<Reply> check_params(const Item& it, const ActionParams& params) const {
    if (it.op == Op::kDelete && params.dynamic_templates) {
      return es_error(
          400, "illegal_argument_exception",
          fmt::format("Delete request in line [{}] does not accept dynamic_templates", action_line_));
    }
    if (it.op == Op::kUpdate) {
      if (params.dynamic_templates)
        return es_error(
            400, "illegal_argument_exception",
            fmt::format("Update request in line [{}] does not accept dynamic_templates", action_line_));
      if (it.require_data_stream)
        return es_error(
            400, "illegal_argument_exception",
            "Update requests do not support the `require_data_stream` flag, as data streams do not "
            "support update operations");
    }
    return std::nullopt;
  }

  // Elasticsearch's BulkRequest.validate: every item's errors, numbered, fail the request.
  void validate(Item& it, bool empty_pipeline) {
    if (it.index.empty()) it.index = default_index_;
    if (it.index.empty()) validation_.emplace_back("index is missing");
    if (it.op == Op::kDelete && it.id.empty()) validation_.emplace_back("id is missing");
    if (it.id.size() > kMaxIdBytes) {
      validation_.push_back(fmt::format("id [{}] is too long, must be no longer than {} bytes but was: {}",
                                        it.id, kMaxIdBytes, it.id.size()));
    }
    if (it.op != Op::kDelete && empty_pipeline)
      validation_.emplace_back("pipeline cannot be an empty string");
  }

  const std::string_view all_;
  const std::string_view default_index_;
  const BulkDefaults& defaults_;
  simdjson::dom::parser& parser_;
  ParsedBulk& out_;
  std::string_view last_index_;
  size_t pos_ = 0, line_no_ = 0;
  size_t action_line_ = 0;  // 1-based line of the item being read, for error messages
  std::vector<std::string> validation_;
};

}  // namespace

std::optional<Reply> parse_bulk(std::string& body, std::string_view default_index,
                                const BulkDefaults& defaults, simdjson::dom::parser& parser,
                                ParsedBulk& out) {
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
  return BulkParser(std::string_view(body.data(), n), default_index, defaults, parser, out).run();
}

}  // namespace tern::sink
