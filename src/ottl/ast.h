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

// The comparison operators of conditions.
enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

struct ConverterDef;
struct EditorDef;

struct Condition::Node {
  enum class Op { kOr, kAnd, kNot, kCompare, kLiteral, kPath, kConverter };
  Op op = Op::kLiteral;
  std::unique_ptr<Node> a, b;  // kNot: a; kCompare: a `cmp` b
  // kOr, kAnd: every operand of a chain (`x or y or z`), evaluated in a loop. A chain as
  // nested binary nodes was evaluated and freed by recursion as deep as the chain was long.
  // kConverter: its value arguments.
  std::vector<std::unique_ptr<Node>> operands;
  Cmp cmp = Cmp::kEq;
  Value literal;
  std::string literal_text;  // what a string literal's value points into
  Path path;
  const ConverterDef* converter = nullptr;  // kConverter
  std::unique_ptr<re2::RE2> regex;          // kConverter: its pattern argument
};

// replace_pattern's replacement, resolved against the regex's groups as Go's regexp.Expand
// reads it: literal text, and the groups whose text goes between.
struct ReplacementPiece {
  std::string text;
  int group = -1;  // >= 0: that group's match instead of text
};

// An editor's argument after its target; which member is set depends on its parameter kind
// (functions.h).
struct Arg {
  std::unique_ptr<Condition::Node> value;     // Param::kValue: a literal or a path
  std::string text;                           // Param::kString
  std::vector<std::string> list;              // Param::kKeyList
  std::unique_ptr<re2::RE2> regex;            // Param::kPattern
  std::vector<ReplacementPiece> replacement;  // Param::kReplacement
};

struct Statement::Impl {
  const EditorDef* editor = nullptr;
  std::unique_ptr<Condition::Node> target;  // a path
  std::vector<Arg> args;
  std::unique_ptr<Condition::Node> where;  // null: always
};

}  // namespace tern::ottl
