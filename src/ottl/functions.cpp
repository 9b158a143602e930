#include "ottl/functions.h"

#include <algorithm>
#include <cctype>

#include "ottl/evaluator.h"
#include "pdata/value_text.h"

namespace tern::ottl {

namespace {

using Node = Condition::Node;

// ---- converters -------------------------------------------------------------------------

bool is_match(const Node& call, const Item& it) {
  // The text OTTL's string-like getter makes of the value (pdata/value_text.h); nil, and
  // what it cannot write (a NaN), match nothing.
  const Value v = value_of(*call.operands[0], it);
  std::string text;
  std::string_view s = v.s;
  if (v.kind != Kind::kString) {
    if (!pdata::ottl_string_like(as_any(v), text)) return false;
    s = text;
  }
  return re2::RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *call.regex);
}

template <Kind K>
bool is_kind(const Node& call, const Item& it) {
  return value_of(*call.operands[0], it).kind == K;
}

// ---- editors ----------------------------------------------------------------------------

// Go's Regexp.ReplaceAllString into `out`; false when nothing matched. Its stepping: after
// each match, search on from its end, or one character further when it was empty; an empty
// match right after a match is not replaced (except at the very start).
bool replace_all(std::string_view s, const re2::RE2& re, const std::vector<ReplacementPiece>& with,
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

template <class Drop>
void erase_keys(const Statement::Impl& st, const MutableItem& it, Drop drop) {
  pdata::Attributes* m = map_of(st.target->path.field, it);
  if (m) m->erase(std::remove_if(m->begin(), m->end(), drop), m->end());
}

void set(const Statement::Impl& st, const MutableItem& it, const Item& view, const pdata::Arena& a) {
  assign(st.target->path, value_of(*st.args[0].value, view), it, a);
}

void delete_key(const Statement::Impl& st, const MutableItem& it, const Item&, const pdata::Arena&) {
  erase_keys(st, it, [&](const pdata::KeyValue& kv) { return kv.key == st.args[0].text; });
}

void delete_matching_keys(const Statement::Impl& st, const MutableItem& it, const Item&,
                          const pdata::Arena&) {
  const re2::RE2& re = *st.args[0].regex;
  erase_keys(st, it, [&](const pdata::KeyValue& kv) {
    return re2::RE2::PartialMatch(re2::StringPiece(kv.key.data(), kv.key.size()), re);
  });
}

void keep_keys(const Statement::Impl& st, const MutableItem& it, const Item&, const pdata::Arena&) {
  const std::vector<std::string>& keep = st.args[0].list;
  erase_keys(st, it, [&](const pdata::KeyValue& kv) {
    return std::find(keep.begin(), keep.end(), kv.key) == keep.end();
  });
}

void replace_pattern(const Statement::Impl& st, const MutableItem& it, const Item& view,
                     const pdata::Arena& a) {
  const Value cur = read(st.target->path, view);
  if (cur.kind != Kind::kString) return;  // only strings are rewritten
  std::string s;
  if (replace_all(cur.s, *st.args[0].regex, st.args[1].replacement, s))
    assign(st.target->path, text(s), it, a);
}

// ---- the tables -------------------------------------------------------------------------
// In the order errors list them.

constexpr ParamSpec kValueParam{Param::kValue, "a value"};

constexpr ConverterDef kConverters[] = {
    {"IsMatch", {kValueParam, {Param::kPattern, "a pattern"}}, is_match},
    {"IsString", {kValueParam}, is_kind<Kind::kString>},
    {"IsInt", {kValueParam}, is_kind<Kind::kInt>},
    {"IsDouble", {kValueParam}, is_kind<Kind::kDouble>},
    {"IsBool", {kValueParam}, is_kind<Kind::kBool>},
    {"IsMap", {kValueParam}, is_kind<Kind::kMap>},
    {"IsList", {kValueParam}, is_kind<Kind::kList>},
};

constexpr EditorDef kEditors[] = {
    {"set", Target::kSettable, {{Param::kValue, "the value"}}, set},
    {"delete_key", Target::kMap, {{Param::kString, "the key"}}, delete_key},
    {"delete_matching_keys", Target::kMap, {{Param::kPattern, "the pattern"}}, delete_matching_keys},
    {"keep_keys", Target::kMap, {{Param::kKeyList, "the keys"}}, keep_keys},
    {"replace_pattern",
     Target::kSettable,
     {{Param::kPattern, "the pattern"}, {Param::kReplacement, "the replacement"}},
     replace_pattern},
};

// What the parser relies on: a converter takes values and patterns only, an editor's
// replacement comes after a pattern.
constexpr bool signatures_read() {
  for (const auto& c : kConverters)
    for (const ParamSpec& p : c.params)
      if (p.kind != Param::kValue && p.kind != Param::kPattern) return false;
  for (const auto& e : kEditors) {
    bool pattern = false;
    for (const ParamSpec& p : e.params) {
      if (p.kind == Param::kReplacement && !pattern) return false;
      pattern = pattern || p.kind == Param::kPattern;
    }
  }
  return true;
}
static_assert(signatures_read());

template <class Def, std::size_t N>
const Def* find(const Def (&table)[N], std::string_view name) {
  for (const Def& d : table)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

const ConverterDef* find_converter(std::string_view name) { return find(kConverters, name); }
const EditorDef* find_editor(std::string_view name) { return find(kEditors, name); }

std::string converter_names() {
  std::string out;
  for (const auto& c : kConverters) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string editor_names() {
  std::string out;
  for (const auto& e : kEditors) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::string settable_editor_names() {
  std::vector<std::string_view> names;
  for (const auto& e : kEditors)
    if (e.target == Target::kSettable) names.push_back(e.name);
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k)
    out += (k == 0 ? "" : k + 1 == names.size() ? " and " : ", ") + std::string(names[k]);
  return out;
}

// A replacement as Go's regexp.Expand reads it (what ReplaceAllString, and so OTTL's
// replace_pattern, uses): `$$` is a '$'; `$name` takes the longest run of ASCII letters,
// digits and '_' ($1x is the group named "1x"), `${name}` delimits it; a name of digits
// without a leading zero is a group number. A group that does not exist is empty; a '$' that
// starts no name (`$-`, an unclosed `${x`) is itself. Resolved against `re` once, here.
std::vector<ReplacementPiece> go_expansion(std::string_view t, const re2::RE2& re) {
  std::vector<ReplacementPiece> out;
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

}  // namespace tern::ottl
