#pragma once
// Evaluating conditions and running statements on an item. Internal to src/ottl.
#include "ottl/ast.h"

namespace tern::ottl {

// A value node's value on `it`: a literal's, or its path's.
inline Value value_of(const Condition::Node& n, const Item& it) {
  return n.op == Condition::Node::Op::kLiteral ? n.literal : read(n.path, it);
}

// Whether the condition holds on `it`.
bool truth(const Condition::Node& n, const Item& it);

// Runs the statement's editor on `it` when its `where` holds.
void run(const Statement::Impl& st, const MutableItem& it, const pdata::Arena& a);

}  // namespace tern::ottl
