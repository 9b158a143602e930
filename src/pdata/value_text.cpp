#include "pdata/value_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "text/base64.h"

namespace tern::pdata {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// One UTF-8 sequence at s[i] as Go's utf8.DecodeRuneInString reads it: its code point and
// length, or -1 and 1 for an invalid byte (overlong forms, surrogates and code points past
// U+10FFFF are invalid, as in Go).
std::pair<std::int32_t, std::size_t> decode_rune(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  const std::size_t left = s.size() - i;
  const auto cont = [&](std::size_t k) { return k < left && (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF && cont(1)) return {((c & 0x1F) << 6) | (b(1) & 0x3F), 2};
  if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
    const std::int32_t r = ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) return {r, 3};
  } else if (c >= 0xF0 && c <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    const std::int32_t r = ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    if (r >= 0x10000 && r <= 0x10FFFF) return {r, 4};
  }
  return {-1, 1};
}

// A JSON string as Go's encoders write it with HTML escaping on (both the Collector's
// encoders have it on).
void append_json_string(std::string& out, std::string_view s, GoJson flavor) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
        out += static_cast<char>(c);
        continue;
      }
      out += '\\';
      switch (c) {
        case '"':
        case '\\':
          out += static_cast<char>(c);
          continue;
        case '\n':
          out += 'n';
          continue;
        case '\r':
          out += 'r';
          continue;
        case '\t':
          out += 't';
          continue;
        case '\b':
        case '\f':
          if (flavor == GoJson::kEncodingJson) {
            out += c == '\b' ? 'b' : 'f';
            continue;
          }
          break;
        default:
          break;
      }
      out += "u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      continue;
    }
    const auto [r, n] = decode_rune(s, i);
    if (r < 0) {
      out += "\\ufffd";
    } else if (r == 0x2028 || r == 0x2029) {
      out += r == 0x2028 ? "\\u2028" : "\\u2029";
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

// A JSON scalar; false for a NaN or an infinity.
bool append_json_scalar(std::string& out, const AnyValue& v, GoJson flavor) {
  switch (v.kind) {
    case ValueKind::String:
      append_json_string(out, v.string_value, flavor);
      return true;
    case ValueKind::Bool:
      out += v.bool_value ? "true" : "false";
      return true;
    case ValueKind::Int: {
      char buf[24];
      out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v.int_value).ptr - buf));
      return true;
    }
    case ValueKind::Double:
      if (!std::isfinite(v.double_value)) return false;
      append_go_float(out, v.double_value, flavor);
      return true;
    case ValueKind::Bytes:
      // Go's AsRaw gives empty bytes as a nil slice, which both encoders write as null.
      if (v.string_value.empty()) {
        out += "null";
      } else {
        out += '"';
        out += text::base64(v.string_value);
        out += '"';
      }
      return true;
    case ValueKind::Empty:
    case ValueKind::Array:
    case ValueKind::KvList:
      break;
  }
  out += "null";
  return true;
}

}  // namespace

void append_go_float(std::string& out, double d, GoJson flavor) {
  // Go takes the shortest digits that read back as d, then lays them out in %f or %e form.
  // C++'s shortest scientific form gives those digits; laying them out here (rather than
  // asking for C++'s fixed form, which may print a large number's exact binary value)
  // matches Go's zero padding ("1.2345678901234567e20" -> 123456789012345670000).
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific).ptr;
  std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  const double a = std::fabs(d);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    // Go's 'e' form is C++'s (at least two exponent digits); encoding/json then trims a
    // negative one-digit exponent's zero (e-07 -> e-7), jsoniter does not.
    const std::size_t n = sci.size();
    if (flavor == GoJson::kEncodingJson && n >= 4 && sci[n - 4] == 'e' && sci[n - 3] == '-' &&
        sci[n - 2] == '0') {
      out.append(sci.substr(0, n - 2));
      out += sci[n - 1];
    } else {
      out.append(sci);
    }
    return;
  }
  const std::size_t e = sci.find('e');
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'), sci.data() + sci.size(), exp);
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c >= '0' && c <= '9') digits += c;
  if (sci[0] == '-') out += '-';
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
    return;
  }
  const auto whole = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= whole) {
    out += digits;
    out.append(whole - digits.size(), '0');
  } else {
    out.append(digits, 0, whole);
    out += '.';
    out.append(digits, whole);
  }
}

bool append_go_json(std::string& out, const AnyValue& root, GoJson flavor) {
  // One frame per open map or list: its members in the order they are written.
  struct Frame {
    const Vec<KeyValue>* map = nullptr;
    const Vec<AnyValue>* list = nullptr;
    std::vector<std::size_t> order;  // a map's members: sorted by key, the last of each key
    std::size_t next = 0;
  };
  std::vector<Frame> stack;
  const auto open = [&](const AnyValue& v) {
    if (v.kind == ValueKind::KvList) {
      Frame f;
      f.map = v.kvlist;
      if (f.map) {
        const auto& m = *f.map;
        f.order.resize(m.size());
        for (std::size_t k = 0; k < m.size(); ++k) f.order[k] = k;
        std::stable_sort(f.order.begin(), f.order.end(),
                         [&](std::size_t x, std::size_t y) { return m[x].key < m[y].key; });
        // Go's AsRaw fills a Go map: a repeated key keeps its last value.
        std::vector<std::size_t> last;
        for (std::size_t k = 0; k < f.order.size(); ++k)
          if (k + 1 == f.order.size() || m[f.order[k]].key != m[f.order[k + 1]].key)
            last.push_back(f.order[k]);
        f.order = std::move(last);
      }
      out += '{';
      stack.push_back(std::move(f));
      return true;
    }
    if (v.kind == ValueKind::Array) {
      Frame f;
      f.list = v.array;
      out += '[';
      stack.push_back(std::move(f));
      return true;
    }
    return append_json_scalar(out, v, flavor);
  };
  if (!open(root)) return false;
  while (!stack.empty()) {
    Frame& f = stack.back();
    const std::size_t count = f.list ? f.list->size() : f.order.size();
    if (f.next == count) {
      out += f.list ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (f.next > 0) out += ',';
    const AnyValue* v;
    if (f.list) {
      v = &(*f.list)[f.next];
    } else {
      const KeyValue& kv = (*f.map)[f.order[f.next]];
      append_json_string(out, kv.key, flavor);
      out += ':';
      v = &kv.value;
    }
    ++f.next;
    if (!open(*v)) return false;  // may push a frame: `f` is not used after this
  }
  return true;
}

bool append_go_json(std::string& out, const Attributes& map, GoJson flavor) {
  // Only read: the value merely carries the pointer.
  return append_go_json(out, AnyValue::make_kvlist(const_cast<Attributes*>(&map)), flavor);
}

std::string pcommon_as_string(const AnyValue& v) {
  std::string out;
  switch (v.kind) {
    case ValueKind::Empty:
      break;
    case ValueKind::String:
      out = v.string_value;
      break;
    case ValueKind::Bytes:
      out = text::base64(v.string_value);
      break;
    case ValueKind::Double:
      if (std::isnan(v.double_value)) {
        out = "json: unsupported value: NaN";
      } else if (std::isinf(v.double_value)) {
        out = v.double_value > 0 ? "json: unsupported value: +Inf" : "json: unsupported value: -Inf";
      } else {
        append_go_float(out, v.double_value, GoJson::kEncodingJson);
      }
      break;
    case ValueKind::Bool:
    case ValueKind::Int:
      append_json_scalar(out, v, GoJson::kEncodingJson);
      break;
    case ValueKind::Array:
    case ValueKind::KvList:
      // AsString ignores encoding/json's error and returns the empty text it got.
      if (!append_go_json(out, v, GoJson::kEncodingJson)) out.clear();
      break;
  }
  return out;
}

bool ottl_string_like(const AnyValue& v, std::string& out) {
  switch (v.kind) {
    case ValueKind::Empty:
      return false;
    case ValueKind::String:
      out.append(v.string_value);
      return true;
    case ValueKind::Bytes:
      for (const char c : v.string_value) {
        out += kHex[static_cast<unsigned char>(c) >> 4];
        out += kHex[static_cast<unsigned char>(c) & 0xF];
      }
      return true;
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Double:
    case ValueKind::Array:
    case ValueKind::KvList:
      break;
  }
  return append_go_json(out, v, GoJson::kJsoniter);
}

}  // namespace tern::pdata
