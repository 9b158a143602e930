#pragma once
// Text helpers shared by the sink's routes, filter_path and bulk parsing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tern::sink {

// The parts of `s` between separators, empty ones included.
std::vector<std::string_view> split(std::string_view s, char sep);

// `plus_is_space`: only query strings (form encoding) turn '+' into ' '; in a path it is a '+'.
std::string percent_decode(std::string_view s, bool plus_is_space);

// The decoded value of the first `name` in a query string; empty when absent or valueless.
std::string query_param(std::string_view query, std::string_view name);
bool has_query_param(std::string_view query, std::string_view name);

// Elasticsearch's booleans (Booleans.parseBoolean): "true" or "false", nothing else.
std::optional<bool> parse_es_bool(std::string_view v);

// The fault decisions' and generated ids' mixing function (docs/sink.md).
inline uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace tern::sink
