#include "ottl/condition.h"
#include "ottl/statement.h"
#include "pdata/value_text.h"
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
  const pdata::Attributes* map = nullptr;             // kMap (null: an empty one)
  const pdata::Vec<pdata::AnyValue>* list = nullptr;  // kList (null: an empty one)
};

Value from_any(const pdata::AnyValue* v) {
  Value out;
  if (!v) return out;
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
      out.list = v->array;
      break;
    case pdata::ValueKind::KvList:
      out.kind = Kind::kMap;
      out.map = v->kvlist;
      break;
  }
  return out;
}

// The value as an AnyValue that points at the same data (to be read only), for the shared
// value-to-text conversion and deep comparisons.
pdata::AnyValue as_any(const Value& v) {
  switch (v.kind) {
    case Kind::kNil:
      break;
    case Kind::kBool:
      return pdata::AnyValue::boolean(v.b);
    case Kind::kInt:
      return pdata::AnyValue::integer(v.i);
    case Kind::kDouble:
      return pdata::AnyValue::dbl(v.d);
    case Kind::kString:
      return pdata::AnyValue::string(v.s);
    case Kind::kBytes:
      return pdata::AnyValue::bytes(v.s);
    case Kind::kMap:
      return pdata::AnyValue::make_kvlist(const_cast<pdata::Attributes*>(v.map));
    case Kind::kList:
      return pdata::AnyValue::make_array(const_cast<pdata::Vec<pdata::AnyValue>*>(v.list));
  }
  return {};
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
  // kOr, kAnd: every operand of a chain (`x or y or z`), evaluated in a loop. A chain as
  // nested binary nodes was evaluated and freed by recursion as deep as the chain was long.
  std::vector<std::unique_ptr<Node>> operands;
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
  // replace_pattern's replacement, resolved against the regex's groups as Go's
  // regexp.Expand reads it: literal text, and the groups whose text goes between.
  struct Piece {
    std::string text;
    int group = -1;  // >= 0: that group's match instead of text
  };
  std::vector<Piece> replacement;
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
    v.map = attrs;
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

template <class T>
bool ordered(const T& a, const T& b, Op op) {
  switch (op) {
    case Op::kEq:
      return a == b;
    case Op::kNe:
      return a != b;
    case Op::kLt:
      return a < b;
    case Op::kLe:
      return a <= b;
    case Op::kGt:
      return a > b;
    case Op::kGe:
      return a >= b;
    default:
      return false;
  }
}

// pcommon's Value.Equal, on a stack instead of recursion: same kind and content; maps equal
// when they have as many keys and each key's (first) value is equal, in any order; lists
// element by element.
bool deep_equal(const pdata::AnyValue& x, const pdata::AnyValue& y) {
  using K = pdata::ValueKind;
  std::vector<std::pair<const pdata::AnyValue*, const pdata::AnyValue*>> todo{{&x, &y}};
  while (!todo.empty()) {
    const auto [a, b] = todo.back();
    todo.pop_back();
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case K::Empty:
        break;
      case K::String:
      case K::Bytes:
        if (a->string_value != b->string_value) return false;
        break;
      case K::Bool:
        if (a->bool_value != b->bool_value) return false;
        break;
      case K::Int:
        if (a->int_value != b->int_value) return false;
        break;
      case K::Double:
        if (!(a->double_value == b->double_value)) return false;
        break;
      case K::Array: {
        const std::size_t n = a->array ? a->array->size() : 0;
        if (n != (b->array ? b->array->size() : 0)) return false;
        for (std::size_t k = 0; k < n; ++k) todo.push_back({&(*a->array)[k], &(*b->array)[k]});
        break;
      }
      case K::KvList: {
        const std::size_t n = a->kvlist ? a->kvlist->size() : 0;
        if (n != (b->kvlist ? b->kvlist->size() : 0)) return false;
        for (std::size_t k = 0; k < n; ++k) {
          const pdata::KeyValue& kv = (*a->kvlist)[k];
          const pdata::AnyValue* other = pdata::find_attribute(*b->kvlist, kv.key);
          if (!other) return false;
          todo.push_back({&kv.value, other});
        }
        break;
      }
    }
  }
  return true;
}

// pkg/ottl/compare.go. nil equals only nil (and so is <= and >= it); empty bytes are nil there
// too (pdata hands them to OTTL as a nil slice). Values of different types are only unequal,
// except integers and doubles, which compare as numbers. Booleans order false < true, strings
// and bytes bytewise; maps and lists are equal or not, by content, and have no order.
bool compare(const Value& x, const Value& y, Op op) {
  const auto nil = [](const Value& v) {
    return v.kind == Kind::kNil || (v.kind == Kind::kBytes && v.s.empty());
  };
  if (nil(x) && nil(y)) return op == Op::kEq || op == Op::kLe || op == Op::kGe;
  if (nil(x) || nil(y)) return op == Op::kNe;
  if (x.kind == Kind::kInt && y.kind == Kind::kInt) return ordered(x.i, y.i, op);
  const auto number = [](const Value& v) { return v.kind == Kind::kInt ? static_cast<double>(v.i) : v.d; };
  const auto numeric = [](const Value& v) { return v.kind == Kind::kInt || v.kind == Kind::kDouble; };
  if (numeric(x) && numeric(y)) return ordered(number(x), number(y), op);  // NaN: only != holds
  if (x.kind != y.kind) return op == Op::kNe;
  switch (x.kind) {
    case Kind::kBool:
      return ordered(static_cast<int>(x.b), static_cast<int>(y.b), op);
    case Kind::kString:
    case Kind::kBytes:
      return ordered(x.s, y.s, op);  // string_view compares bytes as unsigned char
    case Kind::kMap:
    case Kind::kList:
      if (op != Op::kEq && op != Op::kNe) return false;
      return deep_equal(as_any(x), as_any(y)) == (op == Op::kEq);
    default:
      return false;
  }
}

bool truth(const Node& n, const Item& it) {
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
    case Op::kEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
      return compare(value_of(*n.a, it), value_of(*n.b, it), n.op);
    case Op::kLiteral:
      return n.literal.kind == Kind::kBool && n.literal.b;
    case Op::kPath:
      return false;  // not reached: the parser keeps bare paths out of conditions
    case Op::kIsMatch: {
      // The text OTTL's string-like getter makes of the value (pdata/value_text.h); nil, and
      // what it cannot write (a NaN), match nothing.
      const Value v = value_of(*n.a, it);
      std::string text;
      std::string_view s = v.s;
      if (v.kind != Kind::kString) {
        if (!pdata::ottl_string_like(as_any(v), text)) return false;
        s = text;
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

  // The escape at src_[j] (a backslash, with at least one byte after it) onto `out`, j moved
  // past it. OTTL's lexer hands strings to Go's strconv.Unquote, whose escapes these are; any
  // other is an error, not the escaped byte.
  bool unescape(std::size_t& j, std::string& out) {
    const std::size_t at = j;
    const char e = src_[j + 1];
    j += 2;
    const auto bad = [&](const std::string& why) {
      return static_cast<bool>(fail(at, "invalid quoted string: " + why));
    };
    static constexpr std::string_view kSimple = "abfnrtv\\\"";
    static constexpr std::string_view kSimpleValue = "\a\b\f\n\r\t\v\\\"";
    if (const std::size_t k = kSimple.find(e); k != std::string_view::npos) {
      out += kSimpleValue[k];
      return true;
    }
    if (e >= '0' && e <= '7') {  // exactly three octal digits, at most \377
      unsigned v = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        const char d = at + 1 + k < src_.size() ? src_[at + 1 + k] : '\0';
        if (d < '0' || d > '7') return bad(std::string("\\") + e + " takes 3 octal digits");
        v = v * 8 + static_cast<unsigned>(d - '0');
      }
      if (v > 255) return bad("octal " + std::string(src_.substr(at, 4)) + " is above \\377");
      out += static_cast<char>(v);
      j = at + 4;
      return true;
    }
    if (e == 'x' || e == 'u' || e == 'U') {
      const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      std::uint32_t v = 0;
      for (std::size_t k = 0; k < digits; ++k) {
        const char d = j + k < src_.size() ? src_[j + k] : '\0';
        if (!std::isxdigit(static_cast<unsigned char>(d)))
          return bad(std::string("\\") + e + " takes " + std::to_string(digits) + " hex digits");
        v = v * 16 + static_cast<std::uint32_t>(
                         std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : (d | 0x20) - 'a' + 10);
      }
      j += digits;
      if (e == 'x') {  // a byte, which need not be UTF-8
        out += static_cast<char>(v);
        return true;
      }
      if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return bad(std::string(src_.substr(at, 2 + digits)) + " is not a Unicode code point");
      if (v < 0x80) {  // UTF-8
        out += static_cast<char>(v);
      } else if (v < 0x800) {
        out += static_cast<char>(0xC0 | (v >> 6));
        out += static_cast<char>(0x80 | (v & 0x3F));
      } else if (v < 0x10000) {
        out += static_cast<char>(0xE0 | (v >> 12));
        out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (v & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (v >> 18));
        out += static_cast<char>(0x80 | ((v >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (v & 0x3F));
      }
      return true;
    }
    return bad(std::string("\\") + e + " is not an escape");
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
          const char d = src_[j];
          if (d == '"') {
            closed = true;
            ++j;
            break;
          }
          if (d == '\n')
            return static_cast<bool>(fail(j, "invalid quoted string: a line break must be written \\n"));
          if (d == '\\') {
            if (j + 1 >= src_.size()) break;  // not closed
            if (!unescape(j, t.text)) return false;
            continue;
          }
          t.text += d;
          ++j;
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
  int depth_ = 0;  // see Nesting
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

// A replacement as Go's regexp.Expand reads it (what ReplaceAllString, and so OTTL's
// replace_pattern, uses): `$$` is a '$'; `$name` takes the longest run of ASCII letters,
// digits and '_' ($1x is the group named "1x"), `${name}` delimits it; a name of digits
// without a leading zero is a group number. A group that does not exist is empty; a '$' that
// starts no name (`$-`, an unclosed `${x`) is itself. Resolved against `re` once, here.
std::vector<Statement::Impl::Piece> go_expansion(std::string_view t, const re2::RE2& re) {
  std::vector<Statement::Impl::Piece> out;
  std::string text;
  const auto& names = re.NamedCapturingGroups();
  const int groups = re.NumberOfCapturingGroups();
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t dollar; (dollar = t.find('$')) != std::string_view::npos;) {
    text.append(t.substr(0, dollar));
    t.remove_prefix(dollar + 1);
    if (!t.empty() && t[0] == '$') {
      text += '$';
      t.remove_prefix(1);
      continue;
    }
    const bool brace = !t.empty() && t[0] == '{';
    const std::string_view rest = t.substr(brace ? 1 : 0);
    std::size_t len = 0;
    while (len < rest.size() && name_char(rest[len])) ++len;
    if (len == 0 || (brace && (len == rest.size() || rest[len] != '}'))) {
      text += '$';  // no name: the '$' is text, and what follows it is read on
      continue;
    }
    const std::string_view name = rest.substr(0, len);
    t = rest.substr(len + (brace ? 1 : 0));
    long num = 0;  // Go: digits only, no leading zero, given up past 1e8
    for (const char c : name) {
      if (c < '0' || c > '9' || num >= 100000000) {
        num = -1;
        break;
      }
      num = num * 10 + (c - '0');
    }
    if (name.size() > 1 && name[0] == '0') num = -1;
    int group = -1;
    if (num >= 0) {
      if (num <= groups) group = static_cast<int>(num);
    } else if (const auto it = names.find(std::string(name)); it != names.end()) {
      group = it->second;
    }
    if (group < 0) continue;  // no such group: nothing
    if (!text.empty()) out.push_back({std::move(text), -1});
    text.clear();
    out.push_back({std::string(), group});
  }
  text.append(t);
  if (!text.empty()) out.push_back({std::move(text), -1});
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

// A copy of `v` in `a`, maps and lists too, as OTTL's set copies them (pcommon CopyTo): the
// target never shares, or contains, the map it was set from (set(attributes["x"], attributes)
// copies what the map held before). Built a container at a time from a stack of pending
// ones, each given its full size before it is filled (so no member moves), not by recursion.
pdata::AnyValue deep_copy(const pdata::AnyValue& v, const pdata::Arena& a) {
  struct Pending {
    const pdata::AnyValue* from;  // an Array or KvList
    pdata::AnyValue* to;          // its copy, empty so far
  };
  std::vector<Pending> pending;
  const auto one = [&](const pdata::AnyValue& from, pdata::AnyValue& to) {
    switch (from.kind) {
      case pdata::ValueKind::String:
        to = pdata::AnyValue::string(a.copy(from.string_value));
        break;
      case pdata::ValueKind::Bytes:
        to = pdata::AnyValue::bytes(a.copy(from.string_value));
        break;
      case pdata::ValueKind::KvList:
        to = pdata::AnyValue::make_kvlist(a.make<pdata::Vec<pdata::KeyValue>>(a.vec<pdata::KeyValue>()));
        if (from.kvlist && !from.kvlist->empty()) pending.push_back({&from, &to});
        break;
      case pdata::ValueKind::Array:
        to = pdata::AnyValue::make_array(a.make<pdata::Vec<pdata::AnyValue>>(a.vec<pdata::AnyValue>()));
        if (from.array && !from.array->empty()) pending.push_back({&from, &to});
        break;
      default:
        to = from;
    }
  };
  pdata::AnyValue out;
  one(v, out);
  while (!pending.empty()) {
    const Pending p = pending.back();
    pending.pop_back();
    if (p.from->kind == pdata::ValueKind::KvList) {
      auto& dst = *p.to->kvlist;
      dst.resize(p.from->kvlist->size());
      for (std::size_t k = 0; k < dst.size(); ++k) {
        dst[k].key = a.copy((*p.from->kvlist)[k].key);
        one((*p.from->kvlist)[k].value, dst[k].value);
      }
    } else {
      auto& dst = *p.to->array;
      dst.resize(p.from->array->size());
      for (std::size_t k = 0; k < dst.size(); ++k) one((*p.from->array)[k], dst[k]);
    }
  }
  return out;
}

// The value as an AnyValue of its own, its strings and containers copied into `a`.
pdata::AnyValue to_any(const Value& v, const pdata::Arena& a) { return deep_copy(as_any(v), a); }

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
  if (pdata::Attributes* m = map_of(target.field, it)) {
    // The copy first: `v` may be this very map (set(attributes["x"], attributes)).
    pdata::AnyValue copy = to_any(v, a);
    const std::string_view key = target.keys.front();
    for (auto& kv : *m) {
      if (kv.key == key) {
        kv.value = copy;
        return;
      }
    }
    m->push_back({a.copy(key), copy});
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

// Go's Regexp.ReplaceAllString into `out`; false when nothing matched. Its stepping: after
// each match, search on from its end, or one character further when it was empty; an empty
// match right after a match is not replaced (except at the very start).
bool replace_all(std::string_view s, const re2::RE2& re, const std::vector<Statement::Impl::Piece>& with,
                 std::string& out) {
  const int n = 1 + re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> m(static_cast<std::size_t>(n));
  const re2::StringPiece text(s.data(), s.size());
  // The length of the UTF-8 character at i (1 for a byte that starts none), as Go steps.
  const auto width = [&](std::size_t i) -> std::size_t {
    if (i >= s.size()) return 0;
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 1;
    if (len > s.size() - i) return 1;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
    return len;
  };
  bool matched = false;
  std::size_t pos = 0, last_end = 0;
  while (pos <= s.size() && re.Match(text, pos, s.size(), re2::RE2::UNANCHORED, m.data(), n)) {
    matched = true;
    const auto begin = static_cast<std::size_t>(m[0].data() - s.data());
    const std::size_t end = begin + m[0].size();
    out.append(s.substr(last_end, begin - last_end));
    if (end > last_end || begin == 0) {
      for (const auto& piece : with) {
        if (piece.group < 0)
          out += piece.text;
        else if (m[static_cast<std::size_t>(piece.group)].data())
          out.append(m[static_cast<std::size_t>(piece.group)].data(),
                     m[static_cast<std::size_t>(piece.group)].size());
      }
    }
    last_end = end;
    const std::size_t w = width(pos);
    pos = pos + w > end ? pos + w : pos + 1 > end ? pos + 1 : end;
  }
  if (matched) out.append(s.substr(last_end));
  return matched;
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
      std::string s;
      if (replace_all(cur.s, *st.regex, st.replacement, s)) assign(*st.target, text(s), it, a);
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
