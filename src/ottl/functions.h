#pragma once
// OTTL's functions: the converters conditions call (IsMatch, IsString, ...) and the editors
// statements run (set, delete_key, ...). Each is one entry in a table in functions.cpp: its
// name, the kinds of its parameters (which the parser reads and checks, with the errors
// they give) and its implementation. Internal to src/ottl.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ottl/ast.h"

namespace tern::ottl {

enum class Param {
  kValue,        // a literal or a path (in a converter, a nested converter too)
  kString,       // a string literal
  kPattern,      // a string literal, an RE2 pattern
  kReplacement,  // a string literal: $1, ${name} for the groups of the pattern before it
  kKeyList,      // ["a", "b"]
};

struct ParamSpec {
  Param kind = Param::kValue;
  const char* what = "";  // how errors name it: "takes the key as a string", "takes a value and a pattern"
};

// The parameters a function takes, in order (a few at most).
struct Signature {
  constexpr Signature(std::initializer_list<ParamSpec> ps) {
    for (const ParamSpec& p : ps) params[size++] = p;
  }
  constexpr const ParamSpec* begin() const { return params; }
  constexpr const ParamSpec* end() const { return params + size; }

  ParamSpec params[4]{};
  std::size_t size = 0;
};

// A converter: `Name(value[, pattern])`, evaluated to a boolean. `test` sees the call's
// node, its value arguments in `operands`, a pattern in `regex`.
struct ConverterDef {
  std::string_view name;
  Signature params;
  bool (*test)(const Condition::Node& call, const Item& it);
};

// What an editor's first argument, the path it changes, must be.
enum class Target {
  kSettable,  // one attribute or a field of the item (path.h settable())
  kMap,       // a whole map: attributes, resource.attributes, ... (path.h is_map())
};

// An editor: `name(target, params...)`. `run` sees the statement, its arguments after the
// target in `args` (ast.h Arg), and runs only when the statement's `where` held.
struct EditorDef {
  std::string_view name;
  Target target;
  Signature params;
  void (*run)(const Statement::Impl& st, const MutableItem& it, const Item& view, const pdata::Arena& a);
};

// The function of that name; null when Tern has none.
const ConverterDef* find_converter(std::string_view name);
const EditorDef* find_editor(std::string_view name);

// For errors: every converter's name ("IsMatch, IsString, ..."), every editor's, and the
// editors whose target is kSettable ("set and replace_pattern").
std::string converter_names();
std::string editor_names();
std::string settable_editor_names();

// `replacement` as Go's regexp.Expand reads it against the groups of `re`.
std::vector<ReplacementPiece> go_expansion(std::string_view replacement, const re2::RE2& re);

}  // namespace tern::ottl
