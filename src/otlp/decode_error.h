#pragma once
// The error every OTLP decoder (protobuf and JSON) reports for bad input: where it
// happened (byte offset into the input, dotted field path) and what was wrong.
#include <cstddef>
#include <string>

namespace tern::otlp {

struct DecodeError {
  std::size_t offset = 0;  // byte offset into the input where the problem was found
  std::string field;       // e.g. "resource_logs.scope_logs.log_records.body"
  std::string message;     // e.g. "length 300 past end of input (12 bytes left)"

  std::string to_string() const {
    return "at byte " + std::to_string(offset) + (field.empty() ? "" : " in " + field) + ": " + message;
  }
};

struct DecodeOptions {
  int max_depth = 64;          // nesting limit for AnyValue arrays/kvlists (and JSON objects)
  bool validate_utf8 = false;  // reject invalid UTF-8 in string fields instead of keeping the bytes
};

}  // namespace tern::otlp
