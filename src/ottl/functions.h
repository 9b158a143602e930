#pragma once
// OTTL's functions: the converters conditions call (IsMatch, IsString, ...) and the editors
// statements run (set, delete_key, ...). Internal to src/ottl.
#include <string_view>
#include <vector>

#include "ottl/ast.h"

namespace tern::ottl {

// Whether the converter call `n` (IsMatch ... IsList) holds on `it`.
bool converter_holds(const Condition::Node& n, const Item& it);

// Runs the statement's editor on `it` (`view` is `it` to be read).
void edit(const Statement::Impl& st, const MutableItem& it, const Item& view, const pdata::Arena& a);

// `replacement` as Go's regexp.Expand reads it against the groups of `re`.
std::vector<ReplacementPiece> go_expansion(std::string_view replacement, const re2::RE2& re);

}  // namespace tern::ottl
