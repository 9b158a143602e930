#include "ottl/parser.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include "ottl/functions.h"
#include "ottl/lexer.h"
#include "text/numbers.h"

namespace tern::ottl {

namespace {

using Node = Condition::Node;
using Op = Node::Op;

class Parser {
 public:
  Parser(std::string_view src, Context ctx, std::string& error) : src_(src), ctx_(ctx), error_(error) {}

  std::unique_ptr<Node> parse() {
    if (!tokenize(src_, tokens_, error_)) return nullptr;
    auto n = disjunction();
    if (!n) return nullptr;
    if (peek().type != Tok::kEnd) return fail(peek().at, "unexpected \"" + peek().text + "\"");
    return n;
  }

  bool parse_statement(Statement::Impl& out);

 private:
  std::unique_ptr<Node> fail(std::size_t at, const std::string& what) {
    report(error_, at, what);
    return nullptr;
  }

  // Parentheses, `not` and converter arguments nest by recursion; deeper than this is a
  // config error rather than a stack overflow (50,000 parentheses crashed the config check).
  static constexpr int kMaxDepth = 256;
  class Nesting {
   public:
    Nesting(Parser& p, std::size_t at) : p_(p) {
      if (++p_.depth_ > kMaxDepth)
        p_.fail(at,
                "nesting deeper than " + std::to_string(kMaxDepth) + " (parentheses, not and converters)");
    }
    ~Nesting() { --p_.depth_; }
    bool ok() const { return p_.depth_ <= kMaxDepth; }

   private:
    Parser& p_;
  };

  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }
  bool keyword(std::string_view k) const { return peek().type == Tok::kIdent && peek().text == k; }

  static std::unique_ptr<Node> negate(std::unique_ptr<Node> a) {
    auto n = std::make_unique<Node>();
    n->op = Op::kNot;
    n->a = std::move(a);
    return n;
  }

  // `x or y or ...` (op kOr, operands from conjunction) and `x and y and ...` (kAnd, from
  // unary): one node holding every operand, however long the chain.
  std::unique_ptr<Node> chain(Op op, std::string_view word, std::unique_ptr<Node> (Parser::*operand)()) {
    auto first = (this->*operand)();
    if (!first || !keyword(word)) return first;
    auto n = std::make_unique<Node>();
    n->op = op;
    n->operands.push_back(std::move(first));
    while (keyword(word)) {
      next();
      auto rhs = (this->*operand)();
      if (!rhs) return nullptr;
      n->operands.push_back(std::move(rhs));
    }
    return n;
  }
  std::unique_ptr<Node> disjunction() { return chain(Op::kOr, "or", &Parser::conjunction); }
  std::unique_ptr<Node> conjunction() { return chain(Op::kAnd, "and", &Parser::unary); }

  std::unique_ptr<Node> unary() {
    if (keyword("not")) {
      const Nesting nest(*this, next().at);
      if (!nest.ok()) return nullptr;
      auto n = unary();
      return n ? negate(std::move(n)) : nullptr;
    }
    if (peek().type == Tok::kLParen) {
      const Nesting nest(*this, next().at);
      if (!nest.ok()) return nullptr;
      auto n = disjunction();
      if (!n) return nullptr;
      if (peek().type != Tok::kRParen) return fail(peek().at, "expected \")\"");
      next();
      return n;
    }
    const std::size_t at = peek().at;
    auto lhs = value();
    if (!lhs) return nullptr;
    if (peek().type != Tok::kCmp) {
      // Alone, a value must be a boolean: true, false or a converter such as IsMatch.
      if (lhs->op == Op::kLiteral && lhs->literal.kind == Kind::kBool) return lhs;
      if (lhs->op == Op::kConverter) return lhs;
      return fail(at, "a condition needs a comparison (==, !=, <, <=, >, >=) or a converter such as IsMatch");
    }
    const std::string op = next().text;
    auto rhs = value();
    if (!rhs) return nullptr;
    const Cmp cmp = op == "=="   ? Cmp::kEq
                    : op == "!=" ? Cmp::kNe
                    : op == "<"  ? Cmp::kLt
                    : op == "<=" ? Cmp::kLe
                    : op == ">"  ? Cmp::kGt
                                 : Cmp::kGe;
    if (lhs->op == Op::kConverter || rhs->op == Op::kConverter) {
      // A converter's boolean compared with true / false.
      if (cmp != Cmp::kEq && cmp != Cmp::kNe)
        return fail(at, "a converter's result can only be compared with == or !=");
      auto& conv = lhs->op == Op::kConverter ? lhs : rhs;
      auto& other = lhs->op == Op::kConverter ? rhs : lhs;
      if (other->op != Op::kLiteral || other->literal.kind != Kind::kBool)
        return fail(at, "a converter's result can only be compared with true or false");
      const bool want = other->literal.b == (cmp == Cmp::kEq);
      return want ? std::move(conv) : negate(std::move(conv));
    }
    auto n = std::make_unique<Node>();
    n->op = Op::kCompare;
    n->cmp = cmp;
    n->a = std::move(lhs);
    n->b = std::move(rhs);
    return n;
  }

  std::unique_ptr<Node> value() {
    const Token& t = peek();
    auto n = std::make_unique<Node>();
    switch (t.type) {
      case Tok::kString:
        n->literal_text = next().text;
        n->literal = text(n->literal_text);
        return n;
      case Tok::kInt: {
        const std::string s = next().text;
        const std::optional<std::int64_t> i = tern::text::parse_whole<std::int64_t>(s);
        if (!i) return fail(t.at, "\"" + s + "\" is not a 64-bit integer");
        n->literal = integer(*i);
        return n;
      }
      case Tok::kDouble: {
        const std::string s = next().text;
        const std::optional<double> d = tern::text::parse_whole<double>(s);
        if (!d) return fail(t.at, "\"" + s + "\" is not a number");
        n->literal = real(*d);
        return n;
      }
      case Tok::kIdent:
        break;
      default:
        return fail(t.at, "expected a value, got \"" + t.text + "\"");
    }
    const std::string& id = t.text;
    if (id == "true" || id == "false") {
      next();
      n->literal = boolean(id == "true");
      return n;
    }
    if (id == "nil") {
      next();
      return n;  // a kNil literal
    }
    if (peek(1).type == Tok::kLParen) return converter();
    if (std::isupper(static_cast<unsigned char>(id[0]))) {
      std::int64_t e = 0;
      if (!find_enum(id, e)) return fail(t.at, "unknown enum \"" + id + "\"");
      next();
      n->literal = integer(e);
      return n;
    }
    return path();
  }

  // "a value and a pattern": a function's parameters as its errors name them.
  static std::string described(const Signature& params) {
    std::string out;
    for (std::size_t k = 0; k < params.size; ++k)
      out += (k == 0 ? "" : k + 1 == params.size ? " and " : ", ") + std::string(params.params[k].what);
    return out;
  }

  std::unique_ptr<Node> converter() {
    const Token name = next();
    next();  // (
    const Nesting nest(*this, name.at);
    if (!nest.ok()) return nullptr;
    auto n = std::make_unique<Node>();
    n->op = Op::kConverter;
    n->converter = find_converter(name.text);
    if (!n->converter)
      return fail(name.at,
                  "function \"" + name.text + "\" is not one Tern has (it has: " + converter_names() + ")");
    const Signature& params = n->converter->params;
    for (std::size_t k = 0; k < params.size; ++k) {
      if (k > 0) {
        if (peek().type != Tok::kComma) return fail(peek().at, name.text + " takes " + described(params));
        next();
      }
      if (params.params[k].kind == Param::kValue) {
        auto v = value();
        if (!v) return nullptr;
        n->operands.push_back(std::move(v));
      } else {  // Param::kPattern, the only other kind a converter takes (functions.cpp)
        const Token pattern = next();
        if (pattern.type != Tok::kString) return fail(pattern.at, name.text + "'s pattern must be a string");
        n->regex = std::make_unique<re2::RE2>(pattern.text, re2::RE2::Quiet);
        if (!n->regex->ok()) return fail(pattern.at, name.text + ": " + n->regex->error());
      }
    }
    if (peek().type != Tok::kRParen) return fail(peek().at, "expected \")\"");
    next();
    return n;
  }

  // A path: segments joined by '.', then ["key"] lookups.
  std::unique_ptr<Node> path() {
    const std::size_t at = peek().at;
    std::vector<std::string> segs{next().text};
    while (peek().type == Tok::kDot) {
      next();
      if (peek().type != Tok::kIdent) return fail(peek().at, "expected a name after \".\"");
      segs.push_back(next().text);
    }
    auto n = std::make_unique<Node>();
    n->op = Op::kPath;
    while (peek().type == Tok::kLBracket) {
      next();
      if (peek().type != Tok::kString) return fail(peek().at, "keys are strings: [\"key\"]");
      n->path.keys.push_back(next().text);
      if (peek().type != Tok::kRBracket) return fail(peek().at, "expected \"]\"");
      next();
    }
    std::string joined;
    for (const auto& s : segs) joined += (joined.empty() ? "" : ".") + s;
    if (!resolve(joined, ctx_, n->path.field)) {
      return fail(at, "path \"" + joined + "\" is not one Tern has in the " + std::string(to_string(ctx_)) +
                          " context");
    }
    if (!n->path.keys.empty() && !takes_keys(n->path.field))
      return fail(at, "\"" + joined + "\" takes no [\"key\"]");
    return n;
  }

  bool editor_arguments(const std::string& name, Statement::Impl& out);

  std::string_view src_;
  Context ctx_;
  std::string& error_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // see Nesting
};

bool Parser::parse_statement(Statement::Impl& out) {
  if (!tokenize(src_, tokens_, error_)) return false;
  const Token name = peek();
  if (name.type != Tok::kIdent || peek(1).type != Tok::kLParen) {
    fail(name.at, "expected an editor, such as set(attributes[\"k\"], \"v\")");
    return false;
  }
  out.editor = find_editor(name.text);
  if (!out.editor) {
    fail(name.at, "editor \"" + name.text + "\" is not one Tern has (it has: " + editor_names() + ")");
    return false;
  }
  next();
  next();  // (
  const std::size_t at = peek().at;
  if (peek().type != Tok::kIdent || peek(1).type == Tok::kLParen ||
      std::isupper(static_cast<unsigned char>(peek().text[0]))) {
    fail(at, name.text + "'s first argument is the path it changes");
    return false;
  }
  out.target = path();
  if (!out.target) return false;
  switch (out.editor->target) {
    case Target::kSettable:
      if (!settable(out.target->path)) {
        fail(at, settable_editor_names() +
                     " write one attribute (attributes[\"k\"]) or a field such as body, severity_text, name");
        return false;
      }
      break;
    case Target::kMap:
      if (!is_map(out.target->path)) {
        fail(at,
             name.text + " takes a map: attributes, resource.attributes or instrumentation_scope.attributes");
        return false;
      }
      break;
  }
  if (!editor_arguments(name.text, out)) return false;
  if (peek().type != Tok::kRParen) {
    fail(peek().at, "expected \")\"");
    return false;
  }
  next();
  if (keyword("where")) {
    next();
    out.where = disjunction();
    if (!out.where) return false;
  }
  if (peek().type != Tok::kEnd) {
    fail(peek().at, "unexpected \"" + peek().text + "\"");
    return false;
  }
  return true;
}

// The arguments after the target, each after a comma, read as the editor's parameters say.
// A pattern is compiled once the comma after it is read: with that comma missing too, the
// comma is the error reported.
bool Parser::editor_arguments(const std::string& name, Statement::Impl& out) {
  const Signature& params = out.editor->params;
  out.args.resize(params.size);
  Arg* uncompiled = nullptr;  // the pattern read last, if not compiled yet
  std::string pattern;
  std::size_t pattern_at = 0;
  const re2::RE2* last_regex = nullptr;
  const auto compile = [&]() {
    if (!uncompiled) return true;
    Arg& arg = *std::exchange(uncompiled, nullptr);
    arg.regex = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
    last_regex = arg.regex.get();
    if (arg.regex->ok()) return true;
    fail(pattern_at, name + ": " + arg.regex->error());
    return false;
  };
  const auto string_arg = [&](std::string& into, const char* what) {
    if (peek().type != Tok::kString) {
      fail(peek().at, name + " takes " + what + " as a string");
      return false;
    }
    into = next().text;
    return true;
  };
  for (std::size_t k = 0; k < params.size; ++k) {
    const ParamSpec& param = params.params[k];
    Arg& arg = out.args[k];
    if (peek().type != Tok::kComma) {
      fail(peek().at, "expected \",\"");
      return false;
    }
    next();
    if (!compile()) return false;
    const std::size_t at = peek().at;
    switch (param.kind) {
      case Param::kValue:
        arg.value = value();
        if (!arg.value) return false;
        if (arg.value->op != Op::kLiteral && arg.value->op != Op::kPath) {
          fail(at, name + " takes a literal or a path as its value");
          return false;
        }
        break;
      case Param::kString:
        if (!string_arg(arg.text, param.what)) return false;
        break;
      case Param::kPattern:
        if (!string_arg(pattern, param.what)) return false;
        uncompiled = &arg;
        pattern_at = at;
        break;
      case Param::kReplacement: {
        std::string replacement;
        if (!string_arg(replacement, param.what)) return false;
        // The groups are those of the pattern before it (functions.cpp checks there is one).
        arg.replacement = go_expansion(replacement, *last_regex);
        break;
      }
      case Param::kKeyList:
        if (peek().type != Tok::kLBracket) {
          fail(peek().at, name + " takes a list of keys: [\"a\", \"b\"]");
          return false;
        }
        next();
        while (peek().type == Tok::kString) {
          arg.list.push_back(next().text);
          if (peek().type != Tok::kComma) break;
          next();
        }
        if (peek().type != Tok::kRBracket) {
          fail(peek().at, "expected a key or \"]\"");
          return false;
        }
        next();
        break;
    }
  }
  return compile();
}

}  // namespace

std::unique_ptr<Condition::Node> parse_condition(std::string_view text, Context context, std::string& error) {
  return Parser(text, context, error).parse();
}

bool parse_statement(std::string_view text, Context context, Statement::Impl& out, std::string& error) {
  return Parser(text, context, error).parse_statement(out);
}

}  // namespace tern::ottl
