// Unicode lowercasing of UTF-8 text, for names a peer compares in lowercase (Elasticsearch
// rejects an index name that Java's toLowerCase would change, non-ASCII letters included).
#pragma once

#include <string>
#include <string_view>

namespace tern::text {

// Appends `in` to `out` with every letter mapped to its lowercase (Unicode simple case
// mapping, one code point to one). ASCII takes a byte loop; other code points go through the
// C library's C.UTF-8 locale (glibc ships it in libc-bin, an essential Debian package).
// Bytes that are not valid UTF-8 are copied as they are: whoever writes the text out decides
// what they become. Without that locale only ASCII is lowered (unicode_lowercase() says so).
void append_lowercase(std::string_view in, std::string& out);

// True when non-ASCII letters can be lowered on this machine (the locale was found).
bool unicode_lowercase();

}  // namespace tern::text
