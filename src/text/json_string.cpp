#include "text/json_string.h"

#include "text/json_writer.h"

namespace tern::text {

void append_json_string(std::string& out, std::string_view s) {
  JsonWriter w(out, 0);
  if (s.size() <= json::kInlineString)
    w.done(json::string(w.at(json::string_room(s.size())), s));  // one resize, then the trim
  else
    w.string(s);
}

void append_json_double(std::string& out, double d) {
  JsonWriter w(out, 0);
  w.dbl(d);
}

}  // namespace tern::text
