#pragma once
// The error every OTLP decoder (protobuf and JSON) reports for bad input: where it
// happened (byte offset into the input, dotted field path) and what was wrong.
#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// The max_decoded_bytes the receivers and `tern convert` give an input of `input_size` bytes.
// Real telemetry decodes into a few times its wire size (a record carries ids, times, a body
// and attributes; the worst legitimate shape, an array of empty values, is 24x), but an empty
// message is 2 bytes on the wire and a log record or span of 170-250 bytes in memory: 32x
// the input, at least 64 MiB, keeps the first and refuses an input made of millions of empty
// items (a 20 MiB body would otherwise decode into ~1.7 GB).
inline std::size_t max_decoded_bytes_for(std::size_t input_size) {
  constexpr std::size_t kPerInputByte = 32, kFloor = std::size_t{64} << 20;
  return input_size > (SIZE_MAX - kFloor) / kPerInputByte ? SIZE_MAX
                                                          : std::max(kFloor, kPerInputByte * input_size);
}

}  // namespace tern::otlp
