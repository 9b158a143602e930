#include "sink/document_checks.h"

#include <fmt/format.h>

#include <utility>

namespace tern::sink {

namespace {

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

// A metadata field at the root: Elasticsearch 8's MetadataFieldMapper refuses it at the
// value's position, and FieldMapper wraps that with a preview of the value, positioned
// where reading the value left the parser (its last token). Returns whether `it` failed.
bool reject_metadata_field(Item& it, simdjson::dom::object obj) {
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
      return true;
    }
    ++member;
  }
  return false;
}

}  // namespace

void check_document(Item& it, simdjson::dom::parser& parser, const std::string& mapping_error_field) {
  simdjson::dom::element doc;
  simdjson::dom::object obj;
  if (parser.parse(it.doc.data(), it.doc.size(), false).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(obj) != simdjson::SUCCESS) {
    it.fail(400, "mapper_parsing_exception", "failed to parse");
    return;
  }
  if (reject_metadata_field(it, obj)) return;
  if (!mapping_error_field.empty() && has_field(obj, mapping_error_field)) {
    it.fail(400, "mapper_parsing_exception",
            fmt::format("failed to parse field [{}] of type [long] in document", mapping_error_field));
  }
}

}  // namespace tern::sink
