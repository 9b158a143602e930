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

  static std::unique_ptr<Node> join(Op op, std::unique_ptr<Node> a, std::unique_ptr<Node> b) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->a = std::move(a);
    n->b = std::move(b);
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
      return n ? join(Op::kNot, std::move(n), nullptr) : nullptr;
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
      if (lhs->op >= Op::kIsMatch) return lhs;
      return fail(at, "a condition needs a comparison (==, !=, <, <=, >, >=) or a converter such as IsMatch");
    }
    const std::string op = next().text;
    auto rhs = value();
    if (!rhs) return nullptr;
    const Op o = op == "=="   ? Op::kEq
                 : op == "!=" ? Op::kNe
                 : op == "<"  ? Op::kLt
                 : op == "<=" ? Op::kLe
                 : op == ">"  ? Op::kGt
                              : Op::kGe;
    if (lhs->op >= Op::kIsMatch || rhs->op >= Op::kIsMatch) {  // the converters come last in Op
      // A converter's boolean compared with true / false.
      if (o != Op::kEq && o != Op::kNe)
        return fail(at, "a converter's result can only be compared with == or !=");
      auto& conv = lhs->op >= Op::kIsMatch ? lhs : rhs;
      auto& other = lhs->op >= Op::kIsMatch ? rhs : lhs;
      if (other->op != Op::kLiteral || other->literal.kind != Kind::kBool)
        return fail(at, "a converter's result can only be compared with true or false");
      const bool want = other->literal.b == (o == Op::kEq);
      return want ? std::move(conv) : join(Op::kNot, std::move(conv), nullptr);
    }
    return join(o, std::move(lhs), std::move(rhs));
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

  std::unique_ptr<Node> converter() {
    const Token name = next();
    next();  // (
    const Nesting nest(*this, name.at);
    if (!nest.ok()) return nullptr;
    static constexpr std::pair<std::string_view, Op> kConverters[] = {
        {"IsMatch", Op::kIsMatch},   {"IsString", Op::kIsString}, {"IsInt", Op::kIsInt},
        {"IsDouble", Op::kIsDouble}, {"IsBool", Op::kIsBool},     {"IsMap", Op::kIsMap},
        {"IsList", Op::kIsList},
    };
    auto n = std::make_unique<Node>();
    const auto* found = std::find_if(std::begin(kConverters), std::end(kConverters),
                                     [&](const auto& c) { return c.first == name.text; });
    if (found == std::end(kConverters))
      return fail(name.at,
                  "function \"" + name.text +
                      "\" is not one Tern has (it has: IsMatch, IsString, IsInt, IsDouble, IsBool, IsMap, "
                      "IsList)");
    n->op = found->second;
    n->a = value();
    if (!n->a) return nullptr;
    if (n->op == Op::kIsMatch) {
      if (peek().type != Tok::kComma) return fail(peek().at, "IsMatch takes a value and a pattern");
      next();
      const Token pattern = next();
      if (pattern.type != Tok::kString) return fail(pattern.at, "IsMatch's pattern must be a string");
      n->regex = std::make_unique<re2::RE2>(pattern.text, re2::RE2::Quiet);
      if (!n->regex->ok()) return fail(pattern.at, "IsMatch: " + n->regex->error());
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

  std::string_view src_;
  Context ctx_;
  std::string& error_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // see Nesting
};

using Editor = Statement::Impl::Editor;

bool Parser::parse_statement(Statement::Impl& out) {
  if (!tokenize(src_, tokens_, error_)) return false;
  const Token name = peek();
  if (name.type != Tok::kIdent || peek(1).type != Tok::kLParen) {
    fail(name.at, "expected an editor, such as set(attributes[\"k\"], \"v\")");
    return false;
  }
  static constexpr std::pair<std::string_view, Editor> kEditors[] = {
      {"set", Editor::kSet},
      {"delete_key", Editor::kDeleteKey},
      {"delete_matching_keys", Editor::kDeleteMatchingKeys},
      {"keep_keys", Editor::kKeepKeys},
      {"replace_pattern", Editor::kReplacePattern},
  };
  const auto* found = std::find_if(std::begin(kEditors), std::end(kEditors),
                                   [&](const auto& e) { return e.first == name.text; });
  if (found == std::end(kEditors)) {
    fail(name.at, "editor \"" + name.text +
                      "\" is not one Tern has (it has: set, delete_key, delete_matching_keys, keep_keys, "
                      "replace_pattern)");
    return false;
  }
  out.editor = found->second;
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
  const auto comma = [&]() {
    if (peek().type == Tok::kComma) {
      next();
      return true;
    }
    fail(peek().at, "expected \",\"");
    return false;
  };
  const auto string_arg = [&](std::string& into, const char* what) {
    if (peek().type != Tok::kString) {
      fail(peek().at, name.text + " takes " + what + " as a string");
      return false;
    }
    into = next().text;
    return true;
  };
  switch (out.editor) {
    case Editor::kSet:
    case Editor::kReplacePattern:
      if (!settable(out.target->path)) {
        fail(at,
             "set and replace_pattern write one attribute (attributes[\"k\"]) or a field such as body, "
             "severity_text, name");
        return false;
      }
      if (!comma()) return false;
      if (out.editor == Editor::kSet) {
        const std::size_t vat = peek().at;
        out.value = value();
        if (!out.value) return false;
        if (out.value->op != Op::kLiteral && out.value->op != Op::kPath) {
          fail(vat, "set takes a literal or a path as its value");
          return false;
        }
        break;
      }
      {
        std::string pattern, replacement;
        const std::size_t pat = peek().at;
        if (!string_arg(pattern, "the pattern") || !comma()) return false;
        out.regex = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
        if (!out.regex->ok()) {
          fail(pat, "replace_pattern: " + out.regex->error());
          return false;
        }
        if (!string_arg(replacement, "the replacement")) return false;
        out.replacement = go_expansion(replacement, *out.regex);
      }
      break;
    case Editor::kDeleteKey:
    case Editor::kDeleteMatchingKeys:
    case Editor::kKeepKeys:
      if (!is_map(out.target->path)) {
        fail(at,
             name.text + " takes a map: attributes, resource.attributes or instrumentation_scope.attributes");
        return false;
      }
      if (!comma()) return false;
      if (out.editor == Editor::kDeleteKey) {
        if (!string_arg(out.key, "the key")) return false;
      } else if (out.editor == Editor::kDeleteMatchingKeys) {
        std::string pattern;
        const std::size_t pat = peek().at;
        if (!string_arg(pattern, "the pattern")) return false;
        out.regex = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
        if (!out.regex->ok()) {
          fail(pat, "delete_matching_keys: " + out.regex->error());
          return false;
        }
      } else {
        if (peek().type != Tok::kLBracket) {
          fail(peek().at, "keep_keys takes a list of keys: [\"a\", \"b\"]");
          return false;
        }
        next();
        while (peek().type == Tok::kString) {
          out.keep.push_back(next().text);
          if (peek().type != Tok::kComma) break;
          next();
        }
        if (peek().type != Tok::kRBracket) {
          fail(peek().at, "expected a key or \"]\"");
          return false;
        }
        next();
      }
      break;
  }
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

}  // namespace

std::unique_ptr<Condition::Node> parse_condition(std::string_view text, Context context, std::string& error) {
  return Parser(text, context, error).parse();
}

bool parse_statement(std::string_view text, Context context, Statement::Impl& out, std::string& error) {
  return Parser(text, context, error).parse_statement(out);
}

}  // namespace tern::ottl
