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
  // A log body or attribute value may sit inside at most this many AnyValue arrays/kvlists
  // (both decoders: 64 nested levels decode, 65 are an error); protobuf also bounds the
  // nesting of unknown groups by it.
  int max_depth = 64;
  bool validate_utf8 = false;  // reject invalid UTF-8 in string fields instead of keeping the bytes
  // Bound on the memory the decoded batch takes in its arena (records, attributes, values;
  // strings stay views into the input and do not count); 0 = none. Empty messages are 2
  // bytes on the wire and a record of ~170 in memory, so without a bound a 20 MiB request
  // of empty log records decodes into ~1.7 GB. Over it the request is refused.
  std::size_t max_decoded_bytes = 0;
};

// The message of a decode refused by max_decoded_bytes.
inline std::string decoded_size_message(std::size_t limit) {
  return "the decoded request would take more than " + std::to_string(limit) +
         " bytes of memory (empty or tiny items in great number)";
}

}  // namespace tern::otlp
