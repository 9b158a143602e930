#include "text/lowercase.h"

#include <clocale>
#include <cstdint>
#include <cwctype>

#include <locale.h>  // newlocale, towlower_l (POSIX 2008)

namespace tern::text {
namespace {

// The locale whose LC_CTYPE carries Unicode's case tables; made once, never freed (a process
// lifetime object). The C locale lowers ASCII only.
locale_t utf8_ctype() {
  static const locale_t loc = [] {
    for (const char* name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"})
      if (locale_t l = newlocale(LC_CTYPE_MASK, name, static_cast<locale_t>(nullptr))) return l;
    return static_cast<locale_t>(nullptr);
  }();
  return loc;
}

// One code point of `in` from `i` (advanced past it), or -1 with `i` advanced by one byte
// when the bytes there are not a well-formed UTF-8 sequence (overlong forms, surrogates and
// values above U+10FFFF included).
std::int32_t decode(std::string_view in, std::size_t& i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(in[k]); };
  const unsigned c = b(i);
  std::size_t len;
  std::uint32_t cp, min;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    ++i;
    return -1;
  }
  if (in.size() - i < len) {
    ++i;
    return -1;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) {
      ++i;
      return -1;
    }
    cp = cp << 6 | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return -1;
  }
  i += len;
  return static_cast<std::int32_t>(cp);
}

void encode(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | cp >> 6));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | cp >> 12));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | cp >> 18));
    out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool unicode_lowercase() { return utf8_ctype() != nullptr; }

void append_lowercase(std::string_view in, std::string& out) {
  const locale_t loc = utf8_ctype();
  for (std::size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (static_cast<unsigned char>(c) < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
      ++i;
      continue;
    }
    const std::size_t at = i;
    const std::int32_t cp = decode(in, i);
    if (cp < 0 || !loc) {
      out.append(in.substr(at, i - at));  // invalid bytes, or no case tables: as they are
      continue;
    }
    const auto lower = static_cast<std::uint32_t>(towlower_l(static_cast<wint_t>(cp), loc));
    // A mapping out of Unicode's range or into the surrogates would be a broken table: keep
    // the original then.
    if (lower > 0x10FFFF || (lower >= 0xD800 && lower <= 0xDFFF))
      out.append(in.substr(at, i - at));
    else
      encode(lower, out);
  }
}

}  // namespace tern::text
