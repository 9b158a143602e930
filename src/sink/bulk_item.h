#pragma once
// One `_bulk` item from its action line to its result: what the parser read, then the
// verdict the checks and the store give it, which the reply writes.
#include <string>
#include <string_view>
#include <utility>

namespace tern::sink {

enum class Op { kCreate, kIndex, kDelete, kUpdate };

inline const char* op_name(Op op) {
  switch (op) {
    case Op::kCreate:
      return "create";
    case Op::kIndex:
      return "index";
    case Op::kDelete:
      return "delete";
    case Op::kUpdate:
      return "update";
  }
  return "index";
}

struct Item {
  Op op;
  std::string_view index;  // into the request, the parser's copies or the path (bulk_parse.h)
  std::string_view id;
  bool id_given = false;
  std::string_view doc;
  std::string_view pipeline;  // empty: none
  bool require_alias = false, require_data_stream = false;
  int status = 0;  // 0 until decided
  const char* result = nullptr;
  int version = 1;
  std::string error_type, error_reason;
  std::string cause_type, cause_reason;  // `caused_by`, when Elasticsearch gives one
  void fail(int s, std::string type, std::string reason) {
    status = s;
    error_type = std::move(type);
    error_reason = std::move(reason);
  }
};

}  // namespace tern::sink
