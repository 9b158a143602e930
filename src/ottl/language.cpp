#include "ottl/condition.h"
#include "ottl/statement.h"
#include "text/numbers.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

namespace tern::ottl {

const char* to_string(Context c) {
  switch (c) {
    case Context::kLog:
      return "log_record";
    case Context::kSpan:
      return "span";
    case Context::kSpanEvent:
      return "spanevent";
    case Context::kMetric:
      return "metric";
    case Context::kDataPoint:
      return "datapoint";
    case Context::kResource:
      return "resource";
    case Context::kScope:
      return "scope";
  }
  return "?";
}

namespace {

enum class Kind { kNil, kBool, kInt, kDouble, kString, kBytes, kMap, kList };

struct Value {
  Kind kind = Kind::kNil;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string_view s;
  const pdata::AnyValue* any = nullptr;  // kMap, kList: for further keys
};

Value from_any(const pdata::AnyValue* v) {
  Value out;
  if (!v) return out;
  out.any = v;
  switch (v->kind) {
    case pdata::ValueKind::Empty:
      break;
    case pdata::ValueKind::String:
      out.kind = Kind::kString;
      out.s = v->string_value;
      break;
    case pdata::ValueKind::Bytes:
      out.kind = Kind::kBytes;
      out.s = v->string_value;
      break;
    case pdata::ValueKind::Bool:
      out.kind = Kind::kBool;
      out.b = v->bool_value;
      break;
    case pdata::ValueKind::Int:
      out.kind = Kind::kInt;
      out.i = v->int_value;
      break;
    case pdata::ValueKind::Double:
      out.kind = Kind::kDouble;
      out.d = v->double_value;
      break;
    case pdata::ValueKind::Array:
      out.kind = Kind::kList;
      break;
    case pdata::ValueKind::KvList:
      out.kind = Kind::kMap;
      break;
  }
  return out;
}

Value integer(std::int64_t i) {
  Value v;
  v.kind = Kind::kInt;
  v.i = i;
  return v;
}
Value text(std::string_view s) {
  Value v;
  v.kind = Kind::kString;
  v.s = s;
  return v;
}

enum class Field {
  kAttributes,
  kResourceAttributes,
  kScopeAttributes,
  kScopeName,
  kScopeVersion,
  kLogBody,
  kLogSeverityNumber,
  kLogSeverityText,
  kLogFlags,
  kLogEventName,
  kLogTime,
  kLogObservedTime,
  kSpanName,
  kSpanKind,
  kSpanStatusCode,
  kSpanStatusMessage,
  kSpanStart,
  kSpanEnd,
  kSpanTraceState,
  kEventName,
  kEventTime,
  kMetricName,
  kMetricDescription,
  kMetricUnit,
  kMetricType,
  kMetricTemporality,
  kMetricIsMonotonic,
  kPointStart,
  kPointTime,
};

// OTTL's enums (pkg/ottl/contexts): the OTLP numbers.
struct EnumValue {
  const char* name;
  std::int64_t value;
};
constexpr EnumValue kEnums[] = {
    {"SEVERITY_NUMBER_UNSPECIFIED", 0},
    {"SEVERITY_NUMBER_TRACE", 1},
    {"SEVERITY_NUMBER_TRACE2", 2},
    {"SEVERITY_NUMBER_TRACE3", 3},
    {"SEVERITY_NUMBER_TRACE4", 4},
    {"SEVERITY_NUMBER_DEBUG", 5},
    {"SEVERITY_NUMBER_DEBUG2", 6},
    {"SEVERITY_NUMBER_DEBUG3", 7},
    {"SEVERITY_NUMBER_DEBUG4", 8},
    {"SEVERITY_NUMBER_INFO", 9},
    {"SEVERITY_NUMBER_INFO2", 10},
    {"SEVERITY_NUMBER_INFO3", 11},
    {"SEVERITY_NUMBER_INFO4", 12},
    {"SEVERITY_NUMBER_WARN", 13},
    {"SEVERITY_NUMBER_WARN2", 14},
    {"SEVERITY_NUMBER_WARN3", 15},
    {"SEVERITY_NUMBER_WARN4", 16},
    {"SEVERITY_NUMBER_ERROR", 17},
    {"SEVERITY_NUMBER_ERROR2", 18},
    {"SEVERITY_NUMBER_ERROR3", 19},
    {"SEVERITY_NUMBER_ERROR4", 20},
    {"SEVERITY_NUMBER_FATAL", 21},
    {"SEVERITY_NUMBER_FATAL2", 22},
    {"SEVERITY_NUMBER_FATAL3", 23},
    {"SEVERITY_NUMBER_FATAL4", 24},
    {"SPAN_KIND_UNSPECIFIED", 0},
    {"SPAN_KIND_INTERNAL", 1},
    {"SPAN_KIND_SERVER", 2},
    {"SPAN_KIND_CLIENT", 3},
    {"SPAN_KIND_PRODUCER", 4},
    {"SPAN_KIND_CONSUMER", 5},
    {"STATUS_CODE_UNSET", 0},
    {"STATUS_CODE_OK", 1},
    {"STATUS_CODE_ERROR", 2},
    {"METRIC_DATA_TYPE_NONE", 0},
    {"METRIC_DATA_TYPE_GAUGE", 1},
    {"METRIC_DATA_TYPE_SUM", 2},
    {"METRIC_DATA_TYPE_HISTOGRAM", 3},
    {"METRIC_DATA_TYPE_EXPONENTIAL_HISTOGRAM", 4},
    {"METRIC_DATA_TYPE_SUMMARY", 5},
    {"AGGREGATION_TEMPORALITY_UNSPECIFIED", 0},
    {"AGGREGATION_TEMPORALITY_DELTA", 1},
    {"AGGREGATION_TEMPORALITY_CUMULATIVE", 2},
};

// OTLP's MetricType numbering differs from Tern's enum order only in name: Empty is NONE.
std::int64_t metric_type_number(pdata::MetricType t) {
  switch (t) {
    case pdata::MetricType::Empty:
      return 0;
    case pdata::MetricType::Gauge:
      return 1;
    case pdata::MetricType::Sum:
      return 2;
    case pdata::MetricType::Histogram:
      return 3;
    case pdata::MetricType::ExponentialHistogram:
      return 4;
    case pdata::MetricType::Summary:
      return 5;
  }
  return 0;
}

}  // namespace

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
  Value literal;
  std::string literal_text;  // what a string literal's value points into
  Field field = Field::kAttributes;
  std::vector<std::string> keys;  // attributes["k"]["nested"]
  std::unique_ptr<re2::RE2> regex;
};

struct Statement::Impl {
  enum class Editor { kSet, kDeleteKey, kDeleteMatchingKeys, kKeepKeys, kReplacePattern };
  Editor editor = Editor::kSet;
  std::unique_ptr<Condition::Node> target, value, where;
  std::string key;                  // delete_key
  std::vector<std::string> keep;    // keep_keys
  std::unique_ptr<re2::RE2> regex;  // delete_matching_keys, replace_pattern
  std::string replacement;          // replace_pattern, in RE2's \1 form
};

namespace {

using Node = Condition::Node;
using Op = Node::Op;

// ---- evaluation -------------------------------------------------------------------------

const pdata::AnyValue* find(const pdata::Attributes* attrs, std::string_view key) {
  return attrs ? pdata::find_attribute(*attrs, key) : nullptr;
}

Value keyed(const pdata::Attributes* attrs, const std::vector<std::string>& keys) {
  if (keys.empty()) {
    Value v;
    v.kind = attrs ? Kind::kMap : Kind::kNil;
    return v;
  }
  const pdata::AnyValue* v = find(attrs, keys[0]);
  for (std::size_t k = 1; v && k < keys.size(); ++k)
    v = v->kind == pdata::ValueKind::KvList && v->kvlist ? pdata::find_attribute(*v->kvlist, keys[k])
                                                         : nullptr;
  return from_any(v);
}

const pdata::Attributes* own_attributes(const Item& it) {
  if (it.log) return &it.log->attributes;
  if (it.event) return &it.event->attributes;
  if (it.span) return &it.span->attributes;
  return it.point_attributes;
}

Value value_of(const Node& n, const Item& it) {
  if (n.op == Op::kLiteral) return n.literal;
  switch (n.field) {
    case Field::kAttributes:
      return keyed(own_attributes(it), n.keys);
    case Field::kResourceAttributes:
      return keyed(it.resource ? &it.resource->attributes : nullptr, n.keys);
    case Field::kScopeAttributes:
      return keyed(it.scope ? &it.scope->attributes : nullptr, n.keys);
    case Field::kScopeName:
      return text(it.scope ? it.scope->name : std::string_view());
    case Field::kScopeVersion:
      return text(it.scope ? it.scope->version : std::string_view());
    case Field::kLogBody: {
      if (n.keys.empty()) return from_any(&it.log->body);
      const auto* body = it.log->body.kind == pdata::ValueKind::KvList ? it.log->body.kvlist : nullptr;
      return keyed(body, n.keys);
    }
    case Field::kLogSeverityNumber:
      return integer(it.log->severity_number);
    case Field::kLogSeverityText:
      return text(it.log->severity_text);
    case Field::kLogFlags:
      return integer(it.log->flags);
    case Field::kLogEventName:
      return text(it.log->event_name);
    case Field::kLogTime:
      return integer(static_cast<std::int64_t>(it.log->time_unix_nano));
    case Field::kLogObservedTime:
      return integer(static_cast<std::int64_t>(it.log->observed_time_unix_nano));
    case Field::kSpanName:
      return text(it.span->name);
    case Field::kSpanKind:
      return integer(static_cast<std::int64_t>(it.span->kind));
    case Field::kSpanStatusCode:
      return integer(static_cast<std::int64_t>(it.span->status.code));
    case Field::kSpanStatusMessage:
      return text(it.span->status.message);
    case Field::kSpanStart:
      return integer(static_cast<std::int64_t>(it.span->start_time_unix_nano));
    case Field::kSpanEnd:
      return integer(static_cast<std::int64_t>(it.span->end_time_unix_nano));
    case Field::kSpanTraceState:
      return text(it.span->trace_state);
    case Field::kEventName:
      return text(it.event->name);
    case Field::kEventTime:
      return integer(static_cast<std::int64_t>(it.event->time_unix_nano));
    case Field::kMetricName:
      return text(it.metric->name);
    case Field::kMetricDescription:
      return text(it.metric->description);
    case Field::kMetricUnit:
      return text(it.metric->unit);
    case Field::kMetricType:
      return integer(metric_type_number(it.metric->type));
    case Field::kMetricTemporality:
      return integer(static_cast<std::int64_t>(it.metric->temporality));
    case Field::kMetricIsMonotonic: {
      Value v;
      v.kind = Kind::kBool;
      v.b = it.metric->is_monotonic;
      return v;
    }
    case Field::kPointStart:
      return integer(static_cast<std::int64_t>(it.point_start_time));
    case Field::kPointTime:
      return integer(static_cast<std::int64_t>(it.point_time));
  }
  return {};
}

bool numeric(const Value& v) { return v.kind == Kind::kInt || v.kind == Kind::kDouble; }
double as_double(const Value& v) { return v.kind == Kind::kInt ? static_cast<double>(v.i) : v.d; }

// -1, 0, 1; nullopt when the two cannot be ordered (or compared at all).
std::optional<int> order(const Value& x, const Value& y) {
  if (x.kind == Kind::kInt && y.kind == Kind::kInt) return (x.i > y.i) - (x.i < y.i);
  if (numeric(x) && numeric(y)) {
    const double a = as_double(x), b = as_double(y);
    if (std::isnan(a) || std::isnan(b)) return std::nullopt;
    return (a > b) - (a < b);
  }
  if (x.kind == Kind::kString && y.kind == Kind::kString) {
    const int c = x.s.compare(y.s);
    return (c > 0) - (c < 0);
  }
  return std::nullopt;
}

bool equal(const Value& x, const Value& y) {
  if (x.kind == Kind::kNil || y.kind == Kind::kNil) return x.kind == y.kind;
  if (x.kind == Kind::kBool && y.kind == Kind::kBool) return x.b == y.b;
  if (x.kind == Kind::kBytes && y.kind == Kind::kBytes) return x.s == y.s;
  const auto o = order(x, y);
  return o && *o == 0;
}

bool truth(const Node& n, const Item& it) {
  switch (n.op) {
    case Op::kOr:
      return truth(*n.a, it) || truth(*n.b, it);
    case Op::kAnd:
      return truth(*n.a, it) && truth(*n.b, it);
    case Op::kNot:
      return !truth(*n.a, it);
    case Op::kEq:
      return equal(value_of(*n.a, it), value_of(*n.b, it));
    case Op::kNe:
      return !equal(value_of(*n.a, it), value_of(*n.b, it));
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe: {
      const auto o = order(value_of(*n.a, it), value_of(*n.b, it));
      if (!o) return false;
      return n.op == Op::kLt ? *o < 0 : n.op == Op::kLe ? *o <= 0 : n.op == Op::kGt ? *o > 0 : *o >= 0;
    }
    case Op::kLiteral:
      return n.literal.kind == Kind::kBool && n.literal.b;
    case Op::kPath:
      return false;  // not reached: the parser keeps bare paths out of conditions
    case Op::kIsMatch: {
      const Value v = value_of(*n.a, it);
      char buf[32];
      std::string_view s;
      if (v.kind == Kind::kString) {
        s = v.s;
      } else if (v.kind == Kind::kInt) {
        s = std::string_view(buf,
                             static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v.i).ptr - buf));
      } else if (v.kind == Kind::kDouble) {
        s = std::string_view(buf,
                             static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v.d).ptr - buf));
      } else if (v.kind == Kind::kBool) {
        s = v.b ? "true" : "false";
      } else {
        return false;  // nil, bytes, maps and lists match nothing
      }
      return re2::RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *n.regex);
    }
    case Op::kIsString:
      return value_of(*n.a, it).kind == Kind::kString;
    case Op::kIsInt:
      return value_of(*n.a, it).kind == Kind::kInt;
    case Op::kIsDouble:
      return value_of(*n.a, it).kind == Kind::kDouble;
    case Op::kIsBool:
      return value_of(*n.a, it).kind == Kind::kBool;
    case Op::kIsMap:
      return value_of(*n.a, it).kind == Kind::kMap;
    case Op::kIsList:
      return value_of(*n.a, it).kind == Kind::kList;
  }
  return false;
}

// ---- parsing ----------------------------------------------------------------------------

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

class Parser {
 public:
  Parser(std::string_view src, Context ctx, std::string& error) : src_(src), ctx_(ctx), error_(error) {}

  std::unique_ptr<Node> parse() {
    if (!tokenize()) return nullptr;
    auto n = disjunction();
    if (!n) return nullptr;
    if (peek().type != Tok::kEnd) return fail(peek().at, "unexpected \"" + peek().text + "\"");
    return n;
  }

  // `editor(arguments) [where condition]` into `out`; false with the error set.
  bool parse_statement(Statement::Impl& out);

 private:
  std::unique_ptr<Node> fail(std::size_t at, const std::string& what) {
    if (error_.empty()) error_ = "column " + std::to_string(at + 1) + ": " + what;
    return nullptr;
  }

  bool tokenize() {
    std::size_t i = 0;
    while (i < src_.size()) {
      const char c = src_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.at = i;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[j])) || src_[j] == '_')) ++j;
        t.type = Tok::kIdent;
        t.text = std::string(src_.substr(i, j - i));
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '-' && i + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[i + 1])))) {
        std::size_t j = i + 1;
        bool real = false;
        while (j < src_.size()) {
          const char d = src_[j];
          if (std::isdigit(static_cast<unsigned char>(d))) {
            ++j;
          } else if (d == '.' || d == 'e' || d == 'E' ||
                     ((d == '-' || d == '+') && (src_[j - 1] == 'e' || src_[j - 1] == 'E'))) {
            real = true;
            ++j;
          } else {
            break;
          }
        }
        t.type = real ? Tok::kDouble : Tok::kInt;
        t.text = std::string(src_.substr(i, j - i));
        i = j;
      } else if (c == '"') {
        std::size_t j = i + 1;
        bool closed = false;
        while (j < src_.size()) {
          const char d = src_[j++];
          if (d == '"') {
            closed = true;
            break;
          }
          if (d == '\\' && j < src_.size()) {
            const char e = src_[j++];
            t.text += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            continue;
          }
          t.text += d;
        }
        if (!closed) return static_cast<bool>(fail(i, "the string is not closed"));
        t.type = Tok::kString;
        i = j;
      } else if (c == '\'') {
        return static_cast<bool>(fail(i, "strings are written in double quotes"));
      } else if (c == '=' || c == '!' || c == '<' || c == '>') {
        const bool two = i + 1 < src_.size() && src_[i + 1] == '=';
        if ((c == '=' || c == '!') && !two)
          return static_cast<bool>(fail(i, c == '=' ? "use == to compare" : "use not, or != to compare"));
        t.type = Tok::kCmp;
        t.text = std::string(src_.substr(i, two ? 2 : 1));
        i += two ? 2 : 1;
      } else {
        static constexpr std::string_view kPunct = "()[].,";
        const std::size_t p = kPunct.find(c);
        if (p == std::string_view::npos)
          return static_cast<bool>(fail(i, std::string("unexpected \"") + c + "\""));
        static constexpr Tok kTypes[] = {Tok::kLParen,   Tok::kRParen, Tok::kLBracket,
                                         Tok::kRBracket, Tok::kDot,    Tok::kComma};
        t.type = kTypes[p];
        t.text = std::string(1, c);
        ++i;
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.at = src_.size();
    end.text = "end of condition";
    tokens_.push_back(end);
    return true;
  }

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

  std::unique_ptr<Node> disjunction() {
    auto n = conjunction();
    while (n && keyword("or")) {
      next();
      auto rhs = conjunction();
      if (!rhs) return nullptr;
      n = join(Op::kOr, std::move(n), std::move(rhs));
    }
    return n;
  }

  std::unique_ptr<Node> conjunction() {
    auto n = unary();
    while (n && keyword("and")) {
      next();
      auto rhs = unary();
      if (!rhs) return nullptr;
      n = join(Op::kAnd, std::move(n), std::move(rhs));
    }
    return n;
  }

  std::unique_ptr<Node> unary() {
    if (keyword("not")) {
      next();
      auto n = unary();
      return n ? join(Op::kNot, std::move(n), nullptr) : nullptr;
    }
    if (peek().type == Tok::kLParen) {
      next();
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
        n->literal.kind = Kind::kDouble;
        n->literal.d = *d;
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
      n->literal.kind = Kind::kBool;
      n->literal.b = id == "true";
      return n;
    }
    if (id == "nil") {
      next();
      return n;  // a kNil literal
    }
    if (peek(1).type == Tok::kLParen) return converter();
    if (std::isupper(static_cast<unsigned char>(id[0]))) {
      for (const auto& e : kEnums) {
        if (id == e.name) {
          next();
          n->literal = integer(e.value);
          return n;
        }
      }
      return fail(t.at, "unknown enum \"" + id + "\"");
    }
    return path();
  }

  std::unique_ptr<Node> converter() {
    const Token name = next();
    next();  // (
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
      n->keys.push_back(next().text);
      if (peek().type != Tok::kRBracket) return fail(peek().at, "expected \"]\"");
      next();
    }
    std::string joined;
    for (const auto& s : segs) joined += (joined.empty() ? "" : ".") + s;
    // The context's own name may lead the path (log.body, span.name, ...).
    static constexpr std::pair<Context, std::string_view> kPrefixes[] = {
        {Context::kLog, "log."},
        {Context::kSpan, "span."},
        {Context::kSpanEvent, "spanevent."},
        {Context::kMetric, "metric."},
        {Context::kDataPoint, "datapoint."},
        {Context::kResource, "resource."},
        {Context::kScope, "instrumentation_scope."},
        {Context::kScope, "scope."}};
    for (const auto& [c, prefix] : kPrefixes)
      if (c == ctx_ && joined.starts_with(prefix)) joined.erase(0, prefix.size());
    if (!resolve(joined, *n)) {
      return fail(at, "path \"" + joined + "\" is not one Tern has in the " + std::string(to_string(ctx_)) +
                          " context");
    }
    const bool keyed = n->field == Field::kAttributes || n->field == Field::kResourceAttributes ||
                       n->field == Field::kScopeAttributes || n->field == Field::kLogBody;
    if (!n->keys.empty() && !keyed) return fail(at, "\"" + joined + "\" takes no [\"key\"]");
    return n;
  }

  bool resolve(const std::string& p, Node& n) const {
    struct Entry {
      std::string_view path;
      Field field;
      unsigned contexts;  // bit per Context
    };
    constexpr unsigned kLog = 1u << static_cast<unsigned>(Context::kLog);
    constexpr unsigned kSpan = 1u << static_cast<unsigned>(Context::kSpan);
    constexpr unsigned kEvent = 1u << static_cast<unsigned>(Context::kSpanEvent);
    constexpr unsigned kMetric = 1u << static_cast<unsigned>(Context::kMetric);
    constexpr unsigned kPoint = 1u << static_cast<unsigned>(Context::kDataPoint);
    constexpr unsigned kResourceCtx = 1u << static_cast<unsigned>(Context::kResource);
    constexpr unsigned kScopeCtx = 1u << static_cast<unsigned>(Context::kScope);
    constexpr unsigned kItems = kLog | kSpan | kEvent | kMetric | kPoint;
    static constexpr Entry kPaths[] = {
        {"attributes", Field::kAttributes, kLog | kSpan | kEvent | kPoint},
        {"attributes", Field::kResourceAttributes, kResourceCtx},  // the resource's own
        {"attributes", Field::kScopeAttributes, kScopeCtx},
        {"name", Field::kScopeName, kScopeCtx},
        {"version", Field::kScopeVersion, kScopeCtx},
        {"resource.attributes", Field::kResourceAttributes, kItems | kScopeCtx},
        {"instrumentation_scope.attributes", Field::kScopeAttributes, kItems},
        {"instrumentation_scope.name", Field::kScopeName, kItems},
        {"instrumentation_scope.version", Field::kScopeVersion, kItems},
        {"body", Field::kLogBody, kLog},
        {"severity_number", Field::kLogSeverityNumber, kLog},
        {"severity_text", Field::kLogSeverityText, kLog},
        {"flags", Field::kLogFlags, kLog},
        {"event_name", Field::kLogEventName, kLog},
        {"time_unix_nano", Field::kLogTime, kLog},
        {"observed_time_unix_nano", Field::kLogObservedTime, kLog},
        {"name", Field::kSpanName, kSpan},
        {"kind", Field::kSpanKind, kSpan},
        {"status.code", Field::kSpanStatusCode, kSpan},
        {"status.message", Field::kSpanStatusMessage, kSpan},
        {"start_time_unix_nano", Field::kSpanStart, kSpan},
        {"end_time_unix_nano", Field::kSpanEnd, kSpan},
        {"trace_state", Field::kSpanTraceState, kSpan},
        {"name", Field::kEventName, kEvent},
        {"time_unix_nano", Field::kEventTime, kEvent},
        {"name", Field::kMetricName, kMetric},
        {"description", Field::kMetricDescription, kMetric},
        {"unit", Field::kMetricUnit, kMetric},
        {"type", Field::kMetricType, kMetric},
        {"aggregation_temporality", Field::kMetricTemporality, kMetric},
        {"is_monotonic", Field::kMetricIsMonotonic, kMetric},
        {"metric.name", Field::kMetricName, kPoint},
        {"metric.description", Field::kMetricDescription, kPoint},
        {"metric.unit", Field::kMetricUnit, kPoint},
        {"metric.type", Field::kMetricType, kPoint},
        {"start_time_unix_nano", Field::kPointStart, kPoint},
        {"time_unix_nano", Field::kPointTime, kPoint},
    };
    const unsigned bit = 1u << static_cast<unsigned>(ctx_);
    for (const auto& e : kPaths) {
      if (e.path == p && (e.contexts & bit)) {
        n.field = e.field;
        return true;
      }
    }
    return false;
  }

  std::string_view src_;
  Context ctx_;
  std::string& error_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

using Editor = Statement::Impl::Editor;

bool is_map(const Node& n) {
  return n.keys.empty() && (n.field == Field::kAttributes || n.field == Field::kResourceAttributes ||
                            n.field == Field::kScopeAttributes);
}

// A path set() and replace_pattern() may write: one attribute, or a field of the item.
bool settable(const Node& n) {
  switch (n.field) {
    case Field::kAttributes:
    case Field::kResourceAttributes:
    case Field::kScopeAttributes:
      return n.keys.size() == 1;
    case Field::kLogBody:
    case Field::kLogSeverityText:
    case Field::kLogSeverityNumber:
    case Field::kSpanName:
    case Field::kSpanStatusMessage:
    case Field::kEventName:
    case Field::kMetricName:
    case Field::kMetricDescription:
    case Field::kMetricUnit:
      return n.keys.empty();
    default:
      return false;
  }
}

// Go's regexp expansion ($1, ${1}, $$) as RE2's rewrite string (\1, \$ is not needed).
std::optional<std::string> rewrite_string(std::string_view go, std::string& why) {
  std::string out;
  for (std::size_t i = 0; i < go.size(); ++i) {
    const char c = go[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (c != '$') {
      out += c;
    } else if (i + 1 < go.size() && go[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (i + 1 < go.size() && std::isdigit(static_cast<unsigned char>(go[i + 1]))) {
      out += '\\';
      out += go[++i];
    } else if (i + 3 < go.size() && go[i + 1] == '{' && std::isdigit(static_cast<unsigned char>(go[i + 2])) &&
               go[i + 3] == '}') {
      out += '\\';
      out += go[i + 2];
      i += 3;
    } else {
      why = "replace_pattern: only $1..$9 (or ${1}) refer to groups, and $$ is a $";
      return std::nullopt;
    }
  }
  return out;
}

bool Parser::parse_statement(Statement::Impl& out) {
  if (!tokenize()) return false;
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
      if (!settable(*out.target)) {
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
        std::string pattern, replacement, why;
        const std::size_t pat = peek().at;
        if (!string_arg(pattern, "the pattern") || !comma()) return false;
        out.regex = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
        if (!out.regex->ok()) {
          fail(pat, "replace_pattern: " + out.regex->error());
          return false;
        }
        const std::size_t rat = peek().at;
        if (!string_arg(replacement, "the replacement")) return false;
        const auto rewrite = rewrite_string(replacement, why);
        if (!rewrite) {
          fail(rat, why);
          return false;
        }
        std::string check_error;
        if (!out.regex->CheckRewriteString(*rewrite, &check_error)) {
          fail(rat, "replace_pattern: " + check_error);
          return false;
        }
        out.replacement = *rewrite;
      }
      break;
    case Editor::kDeleteKey:
    case Editor::kDeleteMatchingKeys:
    case Editor::kKeepKeys:
      if (!is_map(*out.target)) {
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

// ---- execution --------------------------------------------------------------------------

pdata::Attributes* map_of(Field f, const MutableItem& it) {
  switch (f) {
    case Field::kAttributes:
      if (it.log) return &it.log->attributes;
      if (it.event) return &it.event->attributes;
      if (it.span) return &it.span->attributes;
      return it.point_attributes;
    case Field::kResourceAttributes:
      return it.resource ? &it.resource->attributes : nullptr;
    case Field::kScopeAttributes:
      return it.scope ? &it.scope->attributes : nullptr;
    default:
      return nullptr;
  }
}

pdata::AnyValue to_any(const Value& v, const pdata::Arena& a) {
  switch (v.kind) {
    case Kind::kString:
      return pdata::AnyValue::string(a.copy(v.s));
    case Kind::kBytes:
      return pdata::AnyValue::bytes(a.copy(v.s));
    case Kind::kBool:
      return pdata::AnyValue::boolean(v.b);
    case Kind::kInt:
      return pdata::AnyValue::integer(v.i);
    case Kind::kDouble:
      return pdata::AnyValue::dbl(v.d);
    case Kind::kMap:
    case Kind::kList:
      return *v.any;  // the same batch's arena holds what it points to
    case Kind::kNil:
      break;
  }
  return {};
}

pdata::Str* text_field(Field f, const MutableItem& it) {
  switch (f) {
    case Field::kLogSeverityText:
      return &it.log->severity_text;
    case Field::kSpanName:
      return &it.span->name;
    case Field::kSpanStatusMessage:
      return &it.span->status.message;
    case Field::kEventName:
      return &it.event->name;
    case Field::kMetricName:
      return &it.metric->name;
    case Field::kMetricDescription:
      return &it.metric->description;
    case Field::kMetricUnit:
      return &it.metric->unit;
    default:
      return nullptr;
  }
}

void assign(const Node& target, const Value& v, const MutableItem& it, const pdata::Arena& a) {
  if (v.kind == Kind::kNil) return;  // OTTL: setting nil changes nothing
  // A whole attribute map (`attributes` with no key) is no AnyValue; pointing one at it would
  // let a map hold itself (set(attributes["x"], attributes)), so it is not set (found by
  // ottl_fuzz).
  if ((v.kind == Kind::kMap || v.kind == Kind::kList) && !v.any) return;
  if (pdata::Attributes* m = map_of(target.field, it)) {
    const std::string_view key = target.keys.front();
    for (auto& kv : *m) {
      if (kv.key == key) {
        kv.value = to_any(v, a);
        return;
      }
    }
    m->push_back({a.copy(key), to_any(v, a)});
    return;
  }
  if (target.field == Field::kLogBody) {
    it.log->body = to_any(v, a);
  } else if (target.field == Field::kLogSeverityNumber) {
    if (v.kind == Kind::kInt && v.i >= INT32_MIN && v.i <= INT32_MAX)
      it.log->severity_number = static_cast<std::int32_t>(v.i);
  } else if (pdata::Str* t = text_field(target.field, it)) {
    if (v.kind == Kind::kString) *t = a.copy(v.s);
  }
}

void run(const Statement::Impl& st, const MutableItem& it, const pdata::Arena& a) {
  const Item view = it.view();
  if (st.where && !truth(*st.where, view)) return;
  const auto erase_keys = [&](auto drop) {
    pdata::Attributes* m = map_of(st.target->field, it);
    if (m) m->erase(std::remove_if(m->begin(), m->end(), drop), m->end());
  };
  switch (st.editor) {
    case Editor::kSet:
      assign(*st.target, value_of(*st.value, view), it, a);
      break;
    case Editor::kDeleteKey:
      erase_keys([&](const pdata::KeyValue& kv) { return kv.key == st.key; });
      break;
    case Editor::kDeleteMatchingKeys:
      erase_keys([&](const pdata::KeyValue& kv) {
        return re2::RE2::PartialMatch(re2::StringPiece(kv.key.data(), kv.key.size()), *st.regex);
      });
      break;
    case Editor::kKeepKeys:
      erase_keys([&](const pdata::KeyValue& kv) {
        return std::find(st.keep.begin(), st.keep.end(), kv.key) == st.keep.end();
      });
      break;
    case Editor::kReplacePattern: {
      const Value cur = value_of(*st.target, view);
      if (cur.kind != Kind::kString) break;  // only strings are rewritten
      std::string s(cur.s);
      if (re2::RE2::GlobalReplace(&s, *st.regex, st.replacement) > 0) assign(*st.target, text(s), it, a);
      break;
    }
  }
}

}  // namespace

std::optional<Condition> Condition::parse(std::string_view text, Context context, std::string& error) {
  error.clear();
  Parser p(text, context, error);
  auto root = p.parse();
  if (!root) {
    if (error.empty()) error = "not a condition";
    return std::nullopt;
  }
  Condition c;
  c.text_ = std::string(text);
  c.root_ = std::move(root);
  return c;
}

Condition::Condition(Condition&&) noexcept = default;
Condition& Condition::operator=(Condition&&) noexcept = default;
Condition::~Condition() = default;

bool Condition::matches(const Item& item) const { return truth(*root_, item); }

std::optional<Statement> Statement::parse(std::string_view text, Context context, std::string& error) {
  error.clear();
  auto impl = std::make_unique<Impl>();
  Parser p(text, context, error);
  if (!p.parse_statement(*impl)) {
    if (error.empty()) error = "not a statement";
    return std::nullopt;
  }
  Statement st;
  st.text_ = std::string(text);
  st.impl_ = std::move(impl);
  return st;
}

Statement::Statement(Statement&&) noexcept = default;
Statement& Statement::operator=(Statement&&) noexcept = default;
Statement::~Statement() = default;

void Statement::execute(const MutableItem& item, const pdata::Arena& arena) const {
  run(*impl_, item, arena);
}

}  // namespace tern::ottl
