#include "sink/es_json.h"

#include <fmt/format.h>

namespace tern::sink {

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

Reply es_error(int status, std::string_view type, std::string_view reason) {
  std::string t = json_string(type), r = json_string(reason);
  return Reply{
      status,
      fmt::format(
          R"({{"error":{{"root_cause":[{{"type":{0},"reason":{1}}}],"type":{0},"reason":{1}}},"status":{2}}})",
          t, r, status)};
}

}  // namespace tern::sink
