#pragma once
// The parsed form of conditions (Condition::Node) and statements (Statement::Impl), built
// by parser.cpp, run by evaluator.cpp and functions.cpp. Internal to src/ottl.
#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "ottl/condition.h"
#include "ottl/path.h"
#include "ottl/statement.h"
#include "ottl/value.h"

namespace tern::ottl {

struct Condition::Node {
  enum class Op {
    kOr,
    kAnd,
    kNot,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kLiteral,
    kPath,
    kIsMatch,
    kIsString,
    kIsInt,
    kIsDouble,
    kIsBool,
    kIsMap,
    kIsList,
  };
  Op op = Op::kLiteral;
  std::unique_ptr<Node> a, b;
  // kOr, kAnd: every operand of a chain (`x or y or z`), evaluated in a loop. A chain as
  // nested binary nodes was evaluated and freed by recursion as deep as the chain was long.
  std::vector<std::unique_ptr<Node>> operands;
  Value literal;
  std::string literal_text;  // what a string literal's value points into
  Path path;
  std::unique_ptr<re2::RE2> regex;
};

// replace_pattern's replacement, resolved against the regex's groups as Go's regexp.Expand
// reads it: literal text, and the groups whose text goes between.
struct ReplacementPiece {
  std::string text;
  int group = -1;  // >= 0: that group's match instead of text
};

struct Statement::Impl {
  enum class Editor { kSet, kDeleteKey, kDeleteMatchingKeys, kKeepKeys, kReplacePattern };
  Editor editor = Editor::kSet;
  std::unique_ptr<Condition::Node> target, value, where;
  std::string key;                  // delete_key
  std::vector<std::string> keep;    // keep_keys
  std::unique_ptr<re2::RE2> regex;  // delete_matching_keys, replace_pattern
  std::vector<ReplacementPiece> replacement;
};

}  // namespace tern::ottl
