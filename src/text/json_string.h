#pragma once
// One-off JSON values appended to a std::string, for code that writes a few JSON pieces
// (error bodies, status answers, bulk responses) rather than whole documents
// (text/json_writer.h). Each grows the string exactly: callers append small pieces to
// long-lived strings.
#include <string>
#include <string_view>

namespace tern::text {

// Appends `s` as a JSON string (quotes included), invalid UTF-8 -> U+FFFD.
void append_json_string(std::string& out, std::string_view s);
// Appends a double in shortest round-trip form, always with '.' or exponent.
// Non-finite values are written as null (JSON has no NaN).
void append_json_double(std::string& out, double d);

}  // namespace tern::text
