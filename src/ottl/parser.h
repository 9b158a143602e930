#pragma once
// The OTTL parser: text to the nodes of ast.h, for a context (which decides the paths there
// are). Errors say what and where ("column 12: ..."). Internal to src/ottl.
#include <memory>
#include <string>
#include <string_view>

#include "ottl/ast.h"

namespace tern::ottl {

// A condition; null with `error` set (`error` must be empty on entry).
std::unique_ptr<Condition::Node> parse_condition(std::string_view text, Context context, std::string& error);

// `editor(arguments) [where condition]` into `out`; false with `error` set (`error` must be
// empty on entry).
bool parse_statement(std::string_view text, Context context, Statement::Impl& out, std::string& error);

}  // namespace tern::ottl
