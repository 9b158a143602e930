#include "ottl/evaluator.h"

#include "ottl/functions.h"

namespace tern::ottl {

using Op = Condition::Node::Op;

// Here rather than with the values: inlined into truth(), where conditions spend their time.
namespace {

template <class T>
bool ordered(const T& a, const T& b, Cmp op) {
  switch (op) {
    case Cmp::kEq:
      return a == b;
    case Cmp::kNe:
      return a != b;
    case Cmp::kLt:
      return a < b;
    case Cmp::kLe:
      return a <= b;
    case Cmp::kGt:
      return a > b;
    case Cmp::kGe:
      return a >= b;
  }
  return false;
}

// pkg/ottl/compare.go. nil equals only nil (and so is <= and >= it); empty bytes are nil there
// too (pdata hands them to OTTL as a nil slice). Values of different types are only unequal,
// except integers and doubles, which compare as numbers. Booleans order false < true, strings
// and bytes bytewise; maps and lists are equal or not, by content, and have no order.
bool compare(const Value& x, const Value& y, Cmp op) {
  const auto nil = [](const Value& v) {
    return v.kind == Kind::kNil || (v.kind == Kind::kBytes && v.s.empty());
  };
  if (nil(x) && nil(y)) return op == Cmp::kEq || op == Cmp::kLe || op == Cmp::kGe;
  if (nil(x) || nil(y)) return op == Cmp::kNe;
  if (x.kind == Kind::kInt && y.kind == Kind::kInt) return ordered(x.i, y.i, op);
  const auto number = [](const Value& v) { return v.kind == Kind::kInt ? static_cast<double>(v.i) : v.d; };
  const auto numeric = [](const Value& v) { return v.kind == Kind::kInt || v.kind == Kind::kDouble; };
  if (numeric(x) && numeric(y)) return ordered(number(x), number(y), op);  // NaN: only != holds
  if (x.kind != y.kind) return op == Cmp::kNe;
  switch (x.kind) {
    case Kind::kBool:
      return ordered(static_cast<int>(x.b), static_cast<int>(y.b), op);
    case Kind::kString:
    case Kind::kBytes:
      return ordered(x.s, y.s, op);  // string_view compares bytes as unsigned char
    case Kind::kMap:
    case Kind::kList:
      if (op != Cmp::kEq && op != Cmp::kNe) return false;
      return deep_equal(as_any(x), as_any(y)) == (op == Cmp::kEq);
    default:
      return false;
  }
}

}  // namespace

bool truth(const Condition::Node& n, const Item& it) {
  switch (n.op) {
    case Op::kOr:
      for (const auto& o : n.operands)
        if (truth(*o, it)) return true;
      return false;
    case Op::kAnd:
      for (const auto& o : n.operands)
        if (!truth(*o, it)) return false;
      return true;
    case Op::kNot:
      return !truth(*n.a, it);
    case Op::kCompare:
      return compare(value_of(*n.a, it), value_of(*n.b, it), n.cmp);
    case Op::kLiteral:
      return n.literal.kind == Kind::kBool && n.literal.b;
    case Op::kPath:
      return false;  // not reached: the parser keeps bare paths out of conditions
    case Op::kConverter:
      return n.converter->test(n, it);
  }
  return false;
}

void run(const Statement::Impl& st, const MutableItem& it, const pdata::Arena& a) {
  const Item view = it.view();
  if (st.where && !truth(*st.where, view)) return;
  st.editor->run(st, it, view, a);
}

}  // namespace tern::ottl
