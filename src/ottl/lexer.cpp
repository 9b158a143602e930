#include "ottl/lexer.h"

#include <cctype>
#include <cstdint>
#include <utility>

namespace tern::ottl {

void report(std::string& error, std::size_t at, const std::string& what) {
  if (error.empty()) error = "column " + std::to_string(at + 1) + ": " + what;
}

namespace {

// The escape at src[j] (a backslash, with at least one byte after it) onto `out`, j moved
// past it. OTTL's lexer hands strings to Go's strconv.Unquote, whose escapes these are; any
// other is an error, not the escaped byte.
bool unescape(std::string_view src, std::size_t& j, std::string& out, std::string& error) {
  const std::size_t at = j;
  const char e = src[j + 1];
  j += 2;
  const auto bad = [&](const std::string& why) {
    report(error, at, "invalid quoted string: " + why);
    return false;
  };
  static constexpr std::string_view kSimple = "abfnrtv\\\"";
  static constexpr std::string_view kSimpleValue = "\a\b\f\n\r\t\v\\\"";
  if (const std::size_t k = kSimple.find(e); k != std::string_view::npos) {
    out += kSimpleValue[k];
    return true;
  }
  if (e >= '0' && e <= '7') {  // exactly three octal digits, at most \377
    unsigned v = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const char d = at + 1 + k < src.size() ? src[at + 1 + k] : '\0';
      if (d < '0' || d > '7') return bad(std::string("\\") + e + " takes 3 octal digits");
      v = v * 8 + static_cast<unsigned>(d - '0');
    }
    if (v > 255) return bad("octal " + std::string(src.substr(at, 4)) + " is above \\377");
    out += static_cast<char>(v);
    j = at + 4;
    return true;
  }
  if (e == 'x' || e == 'u' || e == 'U') {
    const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const char d = j + k < src.size() ? src[j + k] : '\0';
      if (!std::isxdigit(static_cast<unsigned char>(d)))
        return bad(std::string("\\") + e + " takes " + std::to_string(digits) + " hex digits");
      v = v * 16 + static_cast<std::uint32_t>(
                       std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : (d | 0x20) - 'a' + 10);
    }
    j += digits;
    if (e == 'x') {  // a byte, which need not be UTF-8
      out += static_cast<char>(v);
      return true;
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
      return bad(std::string(src.substr(at, 2 + digits)) + " is not a Unicode code point");
    if (v < 0x80) {  // UTF-8
      out += static_cast<char>(v);
    } else if (v < 0x800) {
      out += static_cast<char>(0xC0 | (v >> 6));
      out += static_cast<char>(0x80 | (v & 0x3F));
    } else if (v < 0x10000) {
      out += static_cast<char>(0xE0 | (v >> 12));
      out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (v & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (v >> 18));
      out += static_cast<char>(0x80 | ((v >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (v & 0x3F));
    }
    return true;
  }
  return bad(std::string("\\") + e + " is not an escape");
}

}  // namespace

bool tokenize(std::string_view src, std::vector<Token>& tokens, std::string& error) {
  const auto fail = [&](std::size_t at, const std::string& what) {
    report(error, at, what);
    return false;
  };
  std::size_t i = 0;
  while (i < src.size()) {
    const char c = src[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.at = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      t.type = Tok::kIdent;
      t.text = std::string(src.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      std::size_t j = i + 1;
      bool real = false;
      while (j < src.size()) {
        const char d = src[j];
        if (std::isdigit(static_cast<unsigned char>(d))) {
          ++j;
        } else if (d == '.' || d == 'e' || d == 'E' ||
                   ((d == '-' || d == '+') && (src[j - 1] == 'e' || src[j - 1] == 'E'))) {
          real = true;
          ++j;
        } else {
          break;
        }
      }
      t.type = real ? Tok::kDouble : Tok::kInt;
      t.text = std::string(src.substr(i, j - i));
      i = j;
    } else if (c == '"') {
      std::size_t j = i + 1;
      bool closed = false;
      while (j < src.size()) {
        const char d = src[j];
        if (d == '"') {
          closed = true;
          ++j;
          break;
        }
        if (d == '\n') return fail(j, "invalid quoted string: a line break must be written \\n");
        if (d == '\\') {
          if (j + 1 >= src.size()) break;  // not closed
          if (!unescape(src, j, t.text, error)) return false;
          continue;
        }
        t.text += d;
        ++j;
      }
      if (!closed) return fail(i, "the string is not closed");
      t.type = Tok::kString;
      i = j;
    } else if (c == '\'') {
      return fail(i, "strings are written in double quotes");
    } else if (c == '=' || c == '!' || c == '<' || c == '>') {
      const bool two = i + 1 < src.size() && src[i + 1] == '=';
      if ((c == '=' || c == '!') && !two)
        return fail(i, c == '=' ? "use == to compare" : "use not, or != to compare");
      t.type = Tok::kCmp;
      t.text = std::string(src.substr(i, two ? 2 : 1));
      i += two ? 2 : 1;
    } else {
      static constexpr std::string_view kPunct = "()[].,";
      const std::size_t p = kPunct.find(c);
      if (p == std::string_view::npos) return fail(i, std::string("unexpected \"") + c + "\"");
      static constexpr Tok kTypes[] = {Tok::kLParen,   Tok::kRParen, Tok::kLBracket,
                                       Tok::kRBracket, Tok::kDot,    Tok::kComma};
      t.type = kTypes[p];
      t.text = std::string(1, c);
      ++i;
    }
    tokens.push_back(std::move(t));
  }
  Token end;
  end.at = src.size();
  end.text = "end of condition";
  tokens.push_back(end);
  return true;
}

}  // namespace tern::ottl
