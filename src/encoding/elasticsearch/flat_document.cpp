#include "encoding/elasticsearch/flat_document.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>

namespace tern::encoding::es {

using pdata::AnyValue;
using pdata::ValueKind;

namespace {
// Deeper nesting is dropped (maps) or written as null (arrays): bounds recursion on
// hostile input, as the otel mode's writer does.
constexpr int kMaxDepth = 64;

static_assert(std::endian::native == std::endian::little, "key comparisons load keys as little-endian words");

// True when the n bytes at a and b are equal; both may be read up to 7 bytes past n (the
// KeyBuffer's slack). Keys are short: inline 8-byte steps beat a libc memcmp call.
inline bool same_bytes(const char* a, const char* b, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t u, v;
    std::memcpy(&u, a + i, 8);
    std::memcpy(&v, b + i, 8);
    if (u != v) return false;
  }
  if (i == n) return true;
  std::uint64_t u, v;
  std::memcpy(&u, a + i, 8);
  std::memcpy(&v, b + i, 8);
  return ((u ^ v) << (8 * (8 - (n - i)))) == 0;  // little-endian: the first n - i bytes
}

char* two_digits(char* d, unsigned v) {
  std::memcpy(d, &json::kDigitPairs[2 * v], 2);
  return d + 2;
}
}  // namespace

char* rfc3339_nano(char* d, std::uint64_t unix_nano) {
  using namespace std::chrono;
  const std::uint64_t secs = unix_nano / 1'000'000'000;
  const auto frac = static_cast<std::uint32_t>(unix_nano % 1'000'000'000);
  const auto days = static_cast<std::int64_t>(secs / 86400);
  const auto in_day = static_cast<unsigned>(secs % 86400);
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  const unsigned y = static_cast<unsigned>(static_cast<int>(ymd.year()));  // 1970..2554
  d = two_digits(d, y / 100);
  d = two_digits(d, y % 100);
  *d++ = '-';
  d = two_digits(d, static_cast<unsigned>(ymd.month()));
  *d++ = '-';
  d = two_digits(d, static_cast<unsigned>(ymd.day()));
  *d++ = 'T';
  d = two_digits(d, in_day / 3600);
  *d++ = ':';
  d = two_digits(d, in_day / 60 % 60);
  *d++ = ':';
  d = two_digits(d, in_day % 60);
  *d++ = '.';
  d = two_digits(d, frac / 10'000'000);
  d = two_digits(d, frac / 100'000 % 100);
  d = two_digits(d, frac / 1'000 % 100);
  d = two_digits(d, frac / 10 % 100);
  *d++ = static_cast<char>('0' + frac % 10);
  *d++ = 'Z';
  return d;
}

FlatDocument::FlatDocument() = default;
FlatDocument::~FlatDocument() = default;

void FlatDocument::clear() {
  fields_.clear();
  keys_.clear();
  text_.clear();
}

FlatDocument::Field& FlatDocument::push(std::uint32_t prefix_off, std::uint32_t prefix_len,
                                        std::string_view k, Kind kind) {
  const auto off = keys_.size();
  if (prefix_len) {
    keys_.append_own(prefix_off, prefix_len);
    keys_.append(".");
  }
  append_key(k);
  Field& f = fields_.emplace_back();
  f.key_off = off;
  f.key_len = keys_.size() - off;
  set_head(f);
  f.seq = static_cast<std::uint32_t>(fields_.size() - 1);
  f.kind = kind;
  f.i = 0;
  return f;
}

FlatDocument::Field& FlatDocument::push(std::string_view k, Kind kind) { return push(0, 0, k, kind); }

void FlatDocument::add_timestamp(std::string_view k, std::uint64_t unix_nano) {
  push(k, Kind::Timestamp).ts = unix_nano;
}

void FlatDocument::add_string(std::string_view k, std::string_view v) {
  if (!v.empty()) add_string_always(k, v);
}

void FlatDocument::add_string_always(std::string_view k, std::string_view v) { push(k, Kind::String).s = v; }

void FlatDocument::add_int(std::string_view k, std::int64_t v) { push(k, Kind::Int).i = v; }

void FlatDocument::add_text(std::string_view k, std::string_view text) {
  if (text.empty()) return;
  Field& f = push(k, Kind::Text);
  f.text_off = static_cast<std::uint32_t>(text_.size());
  f.text_len = static_cast<std::uint32_t>(text.size());
  text_.append(text);
}

void FlatDocument::add_hex(std::string_view k, const std::uint8_t* id, std::size_t n) {
  Field& f = push(k, Kind::Text);
  f.text_off = static_cast<std::uint32_t>(text_.size());
  f.text_len = static_cast<std::uint32_t>(2 * n);
  text_.resize(text_.size() + 2 * n);
  json::hex(text_.data() + f.text_off, id, n);
}

void FlatDocument::add_value(std::string_view k, const AnyValue& v) { add_value_at(0, 0, k, v, 0); }

void FlatDocument::add_attributes(std::string_view prefix, const pdata::Attributes& attrs) {
  const auto off = keys_.size();
  append_key(prefix);
  add_attributes_at(off, keys_.size() - off, attrs, 0);
}

void FlatDocument::append_key(std::string_view k) {
  // Kept as the JSON text it will be written as: two keys that differ only in invalid
  // UTF-8 (both written U+FFFD) are then the same key to the sort and de-duplication.
  keys_.commit(json::escaped(keys_.room(json::escaped_room(k.size())), k));
}

void FlatDocument::add_fragment(std::string_view k, std::string_view json) {
  push(k, Kind::Fragment).s = json;
}

void FlatDocument::set_head(Field& f) const {
  std::uint64_t h;
  std::memcpy(&h, keys_.data() + f.key_off, 8);  // KeyBuffer's slack: in bounds
  h = __builtin_bswap64(h);
  if (f.key_len == 0)
    h = 0;
  else if (f.key_len < 8)
    h &= ~std::uint64_t{0} << (8 * (8 - f.key_len));  // bytes past the key: 0
  f.head = h;
}

// Byte order (as memcmp, then the shorter first), 8 bytes at a time inline: the keys are
// short, and a libc memcmp call per comparison cost more than the rest of the sort.
bool FlatDocument::less(const Field& a, const Field& b) const {
  if (a.head != b.head) return a.head < b.head;
  const std::size_t n = std::min(a.key_len, b.key_len);
  const char* x = keys_.data() + a.key_off;
  const char* y = keys_.data() + b.key_off;
  for (std::size_t i = 8; i < n; i += 8) {
    std::uint64_t u, v;
    std::memcpy(&u, x + i, 8);
    std::memcpy(&v, y + i, 8);
    if (u == v) continue;
    u = __builtin_bswap64(u);
    v = __builtin_bswap64(v);
    if (n - i < 8) {  // only the bytes both keys have decide here
      const unsigned shift = static_cast<unsigned>(8 * (8 - (n - i)));
      u >>= shift;
      v >>= shift;
      if (u == v) break;
    }
    return u < v;
  }
  if (a.key_len != b.key_len) return a.key_len < b.key_len;
  return a.seq < b.seq;
}

void FlatDocument::add_attributes_at(std::uint32_t prefix_off, std::uint32_t prefix_len,
                                     const pdata::Attributes& attrs, int depth) {
  for (const auto& kv : attrs) add_value_at(prefix_off, prefix_len, kv.key, kv.value, depth);
}

void FlatDocument::add_value_at(std::uint32_t prefix_off, std::uint32_t prefix_len, std::string_view k,
                                const AnyValue& v, int depth) {
  switch (v.kind) {
    case ValueKind::Empty:
    case ValueKind::Bytes:
      return;
    case ValueKind::KvList: {
      if (depth >= kMaxDepth || !v.kvlist) return;
      // The nested keys' prefix is `prefix.k`, written once into the key buffer.
      const auto off = keys_.size();
      if (prefix_len) {
        keys_.append_own(prefix_off, prefix_len);
        keys_.append(".");
      }
      append_key(k);
      add_attributes_at(off, keys_.size() - off, *v.kvlist, depth + 1);
      return;
    }
    case ValueKind::String:
      push(prefix_off, prefix_len, k, Kind::String).s = v.string_value;
      return;
    case ValueKind::Int:
      push(prefix_off, prefix_len, k, Kind::Int).i = v.int_value;
      return;
    case ValueKind::Double:
      push(prefix_off, prefix_len, k, Kind::Double).d = v.double_value;
      return;
    case ValueKind::Bool:
      push(prefix_off, prefix_len, k, Kind::Bool).b = v.bool_value;
      return;
    case ValueKind::Array:
      // An empty array is no field at all, as in the Collector's model.
      if (!v.array || v.array->empty()) return;
      push(prefix_off, prefix_len, k, Kind::Array).array = v.array;
      return;
  }
}

void FlatDocument::sort() {
  std::sort(fields_.begin(), fields_.end(), [this](const Field& a, const Field& b) { return less(a, b); });
}

void FlatDocument::dedup() {
  sort();
  // A scalar at a path that is also an object's prefix (`a` beside `a.b`) moves to
  // `a.value`. Keys sharing a prefix are contiguous once sorted, but `a`, `a-b`, `a.c`
  // shows the object need not come right after the scalar: look through the whole run
  // of keys that start with it. A renamed key can meet an object of its own
  // (`a.value.x`): repeat until nothing moves (each rename lengthens a key, and only a
  // longer key can force one, so this ends).
  for (bool renamed = true; renamed;) {
    renamed = false;
    for (std::size_t i = 0; i + 1 < fields_.size(); ++i) {
      Field& f = fields_[i];
      if (f.kind == Kind::Ignore) continue;
      const std::string_view k = key(f);
      for (std::size_t j = i + 1; j < fields_.size(); ++j) {
        const std::string_view n = key(fields_[j]);
        if (n.size() < k.size() || !same_bytes(n.data(), k.data(), k.size())) break;
        if (n.size() == k.size()) continue;  // equal keys (duplicates) sort together: step over them
        if (n[k.size()] != '.') continue;
        const auto off = keys_.size();
        keys_.append_own(f.key_off, f.key_len);
        keys_.append(".value");
        f.key_off = off;
        f.key_len = keys_.size() - off;
        set_head(f);
        renamed = true;
        break;
      }
    }
    if (renamed) {
      // Ties now keep the order they have: a renamed `a.value` sorts before an
      // `a.value` that was there, which wins below (the Collector's rule).
      for (std::size_t i = 0; i < fields_.size(); ++i) fields_[i].seq = static_cast<std::uint32_t>(i);
      sort();
    }
  }
  // Of equal paths the last one added wins.
  for (std::size_t i = 0; i + 1 < fields_.size(); ++i)
    if (const Field& a = fields_[i], &b = fields_[i + 1];
        a.head == b.head && a.key_len == b.key_len && same_bytes(key(a).data(), key(b).data(), a.key_len))
      fields_[i].kind = Kind::Ignore;
}

void FlatDocument::write(JsonWriter& w) {
  dedup();
  write_dedotted(w, 0);
}

void FlatDocument::write_dedotted(JsonWriter& w, int depth) {
  w.put('{');
  std::string_view open;  // path of the innermost open object, ending in '.'
  int level = 0;
  bool comma = false;
  for (const Field& f : fields_) {
    if (f.kind == Kind::Ignore) continue;
    const std::string_view k = key(f);
    // One reservation for the closing braces, the key's segments and a scalar value.
    const std::size_t value = scalar_room(f);
    char* d = w.at(open.size() + 6 * k.size() + 8 + value);
    // Close the objects this key is not inside of.
    if (k.size() < open.size() || !same_bytes(k.data(), open.data(), open.size())) {
      std::size_t l = 0;
      while (l < open.size() && l < k.size() && open[l] == k[l]) ++l;
      while (l > 0 && k[l - 1] != '.') --l;
      for (std::size_t p = l; p < open.size(); ++p)
        if (open[p] == '.') {
          *d++ = '}';
          --level;
        }
      open = k.substr(0, l);
      comma = true;
    }
    // Open the objects of the key's remaining path segments.
    std::size_t seg = open.size();
    for (std::size_t i = seg; i < k.size(); ++i) {
      if (k[i] != '.') continue;
      if (comma) *d++ = ',';
      *d++ = '"';
      d = json::raw(d, k.substr(seg, i - seg));
      d = json::lit(d, "\":{");
      ++level;
      seg = i + 1;
      comma = false;
    }
    open = k.substr(0, seg);
    if (comma) *d++ = ',';
    *d++ = '"';
    d = json::raw(d, k.substr(seg));
    d = json::lit(d, "\":");
    if (value) {
      w.done(write_scalar(d, f));
    } else {
      w.done(d);
      write_value(w, f, depth);
    }
    comma = true;
  }
  char* d = w.at(static_cast<std::size_t>(level) + 1);
  for (; level > 0; --level) *d++ = '}';
  *d++ = '}';
  w.done(d);
}

std::size_t FlatDocument::scalar_room(const Field& f) const {
  switch (f.kind) {
    case Kind::String:
      return f.s.size() <= json::kInlineString ? json::string_room(f.s.size()) : 0;
    case Kind::Text:
      return f.text_len <= json::kInlineString ? json::string_room(f.text_len) : 0;
    case Kind::Int:
      return json::kIntegerRoom;
    case Kind::Double:
      return json::kDoubleRoom;
    case Kind::Bool:
      return 5;
    case Kind::Timestamp:
      return kRfc3339NanoRoom + 2;
    case Kind::Fragment:
      return f.s.size() <= 4096 ? f.s.size() : 0;
    case Kind::Array:
    case Kind::Ignore:
      return 0;
  }
  return 0;
}

char* FlatDocument::write_scalar(char* d, const Field& f) const {
  switch (f.kind) {
    case Kind::String:
      return json::string(d, f.s);
    case Kind::Text:
      return json::string(d, {text_.data() + f.text_off, f.text_len});
    case Kind::Int:
      return json::integer(d, f.i);
    case Kind::Double:
      return json::dbl(d, f.d);  // NaN and infinities: null
    case Kind::Bool:
      return f.b ? json::lit(d, "true") : json::lit(d, "false");
    case Kind::Timestamp:
      *d++ = '"';
      d = rfc3339_nano(d, f.ts);
      *d++ = '"';
      return d;
    case Kind::Fragment:
      return json::raw(d, f.s);
    case Kind::Array:
    case Kind::Ignore:
      break;
  }
  return d;
}

void FlatDocument::write_value(JsonWriter& w, const Field& f, int depth) {
  switch (f.kind) {
    case Kind::String:
      w.string(f.s);
      return;
    case Kind::Text:
      w.string({text_.data() + f.text_off, f.text_len});
      return;
    case Kind::Int:
      w.integer(f.i);
      return;
    case Kind::Double:
      w.dbl(f.d);  // NaN and infinities: null
      return;
    case Kind::Bool:
      f.b ? w.lit("true") : w.lit("false");
      return;
    case Kind::Timestamp: {
      char* d = w.at(kRfc3339NanoRoom + 2);
      *d++ = '"';
      d = rfc3339_nano(d, f.ts);
      *d++ = '"';
      w.done(d);
      return;
    }
    case Kind::Array:
      write_array(w, f.array, depth + 1);
      return;
    case Kind::Fragment:
      w.raw(f.s);
      return;
    case Kind::Ignore:
      return;
  }
}

void FlatDocument::write_array(JsonWriter& w, const pdata::Vec<AnyValue>* a, int depth) {
  if (depth > kMaxDepth) return w.lit("null");
  w.put('[');
  bool comma = false;
  for (const AnyValue& v : *a) {
    if (comma) w.put(',');
    comma = true;
    switch (v.kind) {
      case ValueKind::String:
        w.string(v.string_value);
        break;
      case ValueKind::Int:
        w.integer(v.int_value);
        break;
      case ValueKind::Double:
        w.dbl(v.double_value);
        break;
      case ValueKind::Bool:
        v.bool_value ? w.lit("true") : w.lit("false");
        break;
      case ValueKind::Array:
        if (v.array)
          write_array(w, v.array, depth + 1);
        else
          w.lit("[]");
        break;
      case ValueKind::KvList: {
        // A map in an array is a document of its own: flattened, sorted, de-duplicated
        // and de-dotted; null when it has no fields.
        FlatDocument& c = child();
        c.clear();
        if (v.kvlist && depth < kMaxDepth) {
          c.add_attributes_at(0, 0, *v.kvlist, depth + 1);
        }
        if (c.fields_.empty()) {
          w.lit("null");
        } else {
          c.dedup();
          c.write_dedotted(w, depth + 1);
        }
        break;
      }
      case ValueKind::Empty:
      case ValueKind::Bytes:
        w.lit("null");
        break;
    }
  }
  w.put(']');
}

FlatDocument& FlatDocument::child() {
  if (!child_) child_ = std::make_unique<FlatDocument>();
  return *child_;
}

}  // namespace tern::encoding::es
