#pragma once
// OTTL's tokens. Internal to src/ottl.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tern::ottl {

enum class Tok {
  kEnd,
  kIdent,
  kString,
  kInt,
  kDouble,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kDot,
  kComma,
  kCmp
};

struct Token {
  Tok type = Tok::kEnd;
  std::string text;  // identifier, unescaped string, number, or the comparison operator
  std::size_t at = 0;
};

// Sets `error` to `what` at byte `at` of the text (shown as a 1-based column), unless an
// error is already there: the first one found is the one reported.
void report(std::string& error, std::size_t at, const std::string& what);

// The tokens of `src`, ending with a kEnd token; false with `error` reported.
bool tokenize(std::string_view src, std::vector<Token>& tokens, std::string& error);

}  // namespace tern::ottl
