// Elasticsearch otel-mode encoder. This hand-written serializer is Tern's edge:
// documents go from pdata straight into the bulk body through a JsonWriter
// (raw pointer, chunked growth, SSE2 escaping), with the parts that are the
// same for every record of a scope written once per scope: the action line,
// the data_stream object and the resource/scope objects. The steady state
// allocates nothing.
#include "encoding/elasticsearch/encoder.h"

// xxHash's functions inlined from its header (its documented XXH_INLINE_ALL mode): the
// grouping hash of a data point takes four to six XXH3 calls on strings of a few bytes,
// where the call through the shared library and its dispatch cost more than the hashing.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "encoding/elasticsearch/encoder_internal.h"
#include "encoding/elasticsearch/flat_document.h"
#include "pdata/value_text.h"
#include "text/ascii.h"
#include "text/json_writer.h"
#include "text/lowercase.h"

namespace tern::encoding::es {
using internal::close_item;
using internal::document_id;
using internal::has_routing_key;
using internal::open_item;
using internal::push_item;
using internal::set_item;

namespace {

using pdata::AnyValue;
using pdata::Attributes;
using pdata::KeyValue;
using pdata::ValueKind;

constexpr std::uint32_t kNone = 0xffffffffu;
// Room for a log document's fixed part beyond the scope's action line and data_stream and
// severity_text's value: every key it may write (sizeof counts one byte more each), both
// timestamps, severity_number and the two ids in hex with their quotes.
constexpr std::size_t kLogFixedRoom =
    sizeof("{\"@timestamp\":") + sizeof(",\"observed_timestamp\":") + 2 * json::kTimestampRoom +
    sizeof(",\"severity_text\":") + sizeof(",\"severity_number\":") + json::kIntegerRoom +
    sizeof(",\"trace_id\":") + 2 * 16 + 2 + sizeof(",\"span_id\":") + 2 * 8 + 2 + sizeof(",\"attributes\":{");

// Deeper AnyValue nesting is written as null: bounds recursion on hostile input.
constexpr int kMaxDepth = 64;

// `key` then the id in hex, unless the id is all zero. Room: K + 2 * N + 2. Inlined: the
// zero test is all a log record without trace context needs, less than a call.
template <std::size_t K, std::size_t N>
[[gnu::always_inline]] inline char* id_field(char* d, const char (&key)[K],
                                             const std::array<std::uint8_t, N>& id) {
  if (pdata::is_zero(id)) return d;
  d = json::lit(d, key);
  *d++ = '"';
  d = json::hex(d, id.data(), N);
  *d++ = '"';
  return d;
}
template <std::size_t K, std::size_t N>
void id_field(JsonWriter& w, const char (&key)[K], const std::array<std::uint8_t, N>& id) {
  w.done(id_field(w.at(K + 2 * N + 2), key, id));
}

// `key` (a literal ending in ':') then `s` as a JSON string, in one reservation when short.
template <std::size_t K>
void string_field(JsonWriter& w, const char (&key)[K], std::string_view s) {
  if (s.size() <= json::kInlineString) {
    w.done(json::string(json::lit(w.at(K + json::string_room(s.size())), key), s));
  } else {
    w.lit(key);
    w.string(s);
  }
}

// Writes `,` unless this is the object's first field, then the key text.
template <std::size_t K>
inline void field(JsonWriter& w, bool& first, const char (&quoted_key_colon)[K]) {
  if (!first) w.put(',');
  first = false;
  w.lit(quoted_key_colon);
}

void write_value(JsonWriter& w, const AnyValue& v, int depth);

// `"key":value,` through the writer, for any key and value (what short_member leaves).
inline void long_member(JsonWriter& w, std::string_view key, const AnyValue& v, int depth) {
  w.string(key);
  w.put(':');
  write_value(w, v, depth);
  w.put(',');
}

// Keys and string values shorter than this go through the cursor (key_member, short_member).
constexpr std::size_t kShortMember = 64;

#if defined(TERN_JSON_PAGE_READS)
// `"key":value,` for the most common attributes: a key of 1 to 16 bytes that needs no
// escape, and a string value of 1 to 16 bytes that needs none either, an integer, a double
// or a bool. The key is tested once with one 16-byte load, then the value's kind picks
// what follows it; through the general path below the key went through json::escaped and
// the kind was tested again after it. kLongStrings (the members of a map: a body map's
// message and timestamp): a string value of up to kShortMember - 1 bytes too, escaped
// after the key; without it (attributes), a longer string value is turned away before the
// key is looked at (json::escaped inlined into the attribute loop cost it 10 instructions
// per log record). False, with nothing written, for anything else (the caller goes on
// with the general path).
constexpr std::size_t kKeyMemberRoom = 1 + 16 + 3 + std::max<std::size_t>(16 + 2, json::kDoubleRoom + 1);
constexpr std::size_t kKeyMemberLongRoom = 1 + 16 + 3 + json::escaped_room(kShortMember - 1) + 2;
template <bool kLongStrings>
[[gnu::always_inline]] inline bool key_member(JsonCursor& c, std::string_view key, const AnyValue& v) {
  const std::size_t nk = key.size(), nv = v.string_value.size();
  if (nk - 1 >= 16 || !json::page_holds16(key.data())) return false;  // 0 wraps
  const bool string = v.kind == ValueKind::String;
  if (!kLongStrings && string && nv - 1 >= 16) return false;
  const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key.data()));
  if (!json::clean_prefix16(k, nk)) return false;
  if (string) {  // tested first: the most common kind
    if (nv - 1 < 16 && json::page_holds16(v.string_value.data())) {
      const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v.string_value.data()));
      if (json::clean_prefix16(s, nv)) {
        char* d = c.room(kKeyMemberRoom);  // the stores write 16 bytes whatever the lengths
        *d = '"';
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 1), k);
        d += 1 + nk;
        std::memcpy(d, "\":\"", 4);  // the 4th byte is overwritten
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 3), s);
        d += 3 + nv;
        std::memcpy(d, "\",", 2);
        c.done(d + 2);
        return true;
      }
    }
    if (!kLongStrings || nv >= kShortMember) return false;
    char* d = c.room(kKeyMemberLongRoom);
    *d = '"';
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 1), k);
    d += 1 + nk;
    std::memcpy(d, "\":\"", 4);  // the 4th byte is overwritten
    d = json::escaped(d + 3, v.string_value);
    std::memcpy(d, "\",", 2);
    c.done(d + 2);
    return true;
  }
  char* d = c.room(kKeyMemberRoom);
  *d = '"';
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 1), k);
  d += 1 + nk;
  std::memcpy(d, "\":", 2);
  d += 2;
  switch (v.kind) {
    case ValueKind::Int:
      d = json::integer(d, v.int_value);
      break;
    case ValueKind::Double:
      d = json::dbl(d, v.double_value);
      break;
    case ValueKind::Bool:
      d = v.bool_value ? json::lit(d, "true") : json::lit(d, "false");
      break;
    default:
      return false;
  }
  *d++ = ',';
  c.done(d);
  return true;
}
#endif

// `"key":value,` through the cursor for a scalar whose key and (string) value are shorter
// than kShortMember bytes: one constant reservation, the lengths tested at once. False, with
// nothing written, for everything else.
constexpr std::size_t kShortMemberRoom = 2 * json::string_room(kShortMember) + 2;
static_assert(json::string_room(kShortMember) >= json::kDoubleRoom);
template <bool kLongStrings = false>
[[gnu::always_inline]] inline bool short_member(JsonCursor& c, std::string_view key, const AnyValue& v) {
#if defined(TERN_JSON_PAGE_READS)
  if (key_member<kLongStrings>(c, key, v)) return true;
#endif
  if ((key.size() | v.string_value.size()) >= kShortMember) return false;  // both below a power of 2
  char* d = c.room(kShortMemberRoom);
  *d = '"';
  d = json::escaped(d + 1, key);      // not kept unless the value is a scalar
  if (v.kind == ValueKind::String) {  // the quotes around ':' and before ',' go as one store each
    std::memcpy(d, "\":\"", 4);       // the 4th byte is overwritten
    d = json::escaped(d + 3, v.string_value);
    std::memcpy(d, "\",", 2);
    c.done(d + 2);
    return true;
  }
  std::memcpy(d, "\":", 2);
  d += 2;
  switch (v.kind) {
    case ValueKind::Int:
      d = json::integer(d, v.int_value);
      break;
    case ValueKind::Double:
      d = json::dbl(d, v.double_value);
      break;
    case ValueKind::Bool:
      d = v.bool_value ? json::lit(d, "true") : json::lit(d, "false");
      break;
    default:
      return false;
  }
  *d++ = ',';
  c.done(d);
  return true;
}

// An object's members, each followed by ','; the caller turns the last ',' into what
// closes the object. Scalars go through the cursor, the rest through write_value.
void write_members(JsonWriter& w, const pdata::Vec<KeyValue>& kv, int depth) {
  JsonCursor c(w);
  for (const auto& e : kv) {
    if (short_member<true>(c, e.key, e.value)) continue;
    c.sync();
    long_member(w, e.key, e.value, depth + 1);
    c.reload();
  }
  c.sync();
}

void write_kvlist(JsonWriter& w, const pdata::Vec<KeyValue>* kv, int depth) {
  if (!kv || kv->empty()) return w.lit("{}");
  w.put('{');
  write_members(w, *kv, depth);
  char* d = w.at(0);
  d[-1] = '}';  // the last member's ','
}

void write_array(JsonWriter& w, const pdata::Vec<AnyValue>* a, int depth) {
  w.put('[');
  if (a) {
    bool first = true;
    for (const auto& e : *a) {
      if (!first) w.put(',');
      first = false;
      write_value(w, e, depth + 1);
    }
  }
  w.put(']');
}

// Room a scalar value needs on the pointer path; 0 for values that take the
// writer path (arrays, maps, strings longer than json::kInlineString).
inline std::size_t scalar_room(const AnyValue& v) {
  switch (v.kind) {
    case ValueKind::String:
      return v.string_value.size() <= json::kInlineString ? json::string_room(v.string_value.size()) : 0;
    case ValueKind::Bytes:
      return v.string_value.size() <= json::kInlineString ? 2 * v.string_value.size() + 2 : 0;
    case ValueKind::Int:
      return json::kIntegerRoom;
    case ValueKind::Double:
      return json::kDoubleRoom;
    case ValueKind::Bool:
    case ValueKind::Empty:
      return 5;
    default:
      return 0;
  }
}

// Writes a value for which scalar_room() was non-zero.
inline char* write_scalar(char* d, const AnyValue& v) {
  switch (v.kind) {
    case ValueKind::String:
      return json::string(d, v.string_value);
    case ValueKind::Bytes:
      *d++ = '"';
      d = json::hex(d, reinterpret_cast<const std::uint8_t*>(v.string_value.data()), v.string_value.size());
      *d++ = '"';
      return d;
    case ValueKind::Int:
      return json::integer(d, v.int_value);
    case ValueKind::Double:
      return json::dbl(d, v.double_value);
    case ValueKind::Bool:
      return v.bool_value ? json::lit(d, "true") : json::lit(d, "false");
    default:
      return json::lit(d, "null");
  }
}

void write_value(JsonWriter& w, const AnyValue& v, int depth) {
  if (depth > kMaxDepth) {
    w.lit("null");
    return;
  }
  if (const std::size_t room = scalar_room(v)) {
    w.done(write_scalar(w.at(room), v));
    return;
  }
  switch (v.kind) {
    case ValueKind::String:
      w.string(v.string_value);
      return;
    case ValueKind::Bytes:
      w.put('"');
      w.hex(reinterpret_cast<const std::uint8_t*>(v.string_value.data()), v.string_value.size());
      w.put('"');
      return;
    case ValueKind::Array:
      write_array(w, v.array, depth);
      return;
    case ValueKind::KvList:
      write_kvlist(w, v.kvlist, depth);
      return;
    default:
      w.lit("null");
  }
}

void write_data_stream_json(JsonWriter& w, const Route& r) {
  if (!r.data_stream) return;
  w.lit(",\"data_stream\":{\"type\":");
  w.string(r.type);
  w.lit(",\"dataset\":");
  w.string(r.dataset);
  w.lit(",\"namespace\":");
  w.string(r.ns);
  w.put('}');
}

// The shortest geo key, `geo.location.lat`.
constexpr std::size_t kGeoKeyMin = 16;

// 1: `<prefix>geo.location.lat`, 2: `...lon`, 0: neither. Prefix is empty or ends with '.'.
int geo_half(std::string_view k, std::size_t& prefix_len) {
  constexpr std::string_view base = "geo.location.";
  static_assert(base.size() + 3 == kGeoKeyMin);
  if (k.size() < kGeoKeyMin) return 0;
  const std::string_view tail = k.substr(k.size() - 3);
  const int half = tail == "lat" ? 1 : tail == "lon" ? 2 : 0;
  if (!half) return 0;
  prefix_len = k.size() - base.size() - 3;
  if (k.substr(prefix_len, base.size()) != base) return 0;
  if (prefix_len > 0 && k[prefix_len - 1] != '.') return 0;
  return half;
}

// The other half of a geo pair (double-valued), or null. Only the first double of each key
// pairs: a repeated half (duplicate keys) stays in place as a plain attribute, so that no
// half is lost and no object gets two `geo.location` members.
const KeyValue* geo_partner(const Attributes& attrs, const KeyValue& kv, std::size_t prefix_len, int half) {
  const std::string_view want = half == 1 ? "lon" : "lat";
  const std::string_view stem = kv.key.substr(0, kv.key.size() - 3);
  const KeyValue* partner = nullptr;
  bool before = true;  // still before kv
  for (const auto& o : attrs) {
    if (&o == &kv) {
      before = false;
      if (partner) return partner;
      continue;
    }
    if (o.value.kind != ValueKind::Double || o.key.size() != kv.key.size()) continue;
    if (before && o.key == kv.key) return nullptr;  // kv repeats an earlier half
    if (!partner && o.key.substr(0, stem.size()) == stem && o.key.substr(o.key.size() - 3) == want) {
      partner = &o;
      if (!before) return partner;
    }
  }
  (void)prefix_len;
  return partner;
}

// The geo points of `attrs` (each lat with its lon partner) as `<prefix>geo.location":[lon,lat],`.
void write_geo_points(JsonWriter& w, const Attributes& attrs) {
  for (const auto& kv : attrs) {
    std::size_t pl;
    if (kv.value.kind != ValueKind::Double || geo_half(kv.key, pl) != 1) continue;
    const KeyValue* lon = geo_partner(attrs, kv, pl, 1);
    if (!lon) continue;
    w.put('"');
    w.escaped(kv.key.substr(0, pl));
    w.lit("geo.location\":[");
    w.dbl(lon->value.double_value);
    w.put(',');
    w.dbl(kv.value.double_value);
    w.lit("],");
  }
}

const AnyValue* find_string(const Attributes* a, std::string_view key) {
  if (!a) return nullptr;
  const AnyValue* v = pdata::find_attribute(*a, key);
  return v && v->kind == ValueKind::String && !v->string_value.empty() ? v : nullptr;
}

std::string_view lookup(const Attributes* rec, const Attributes& scope, const Attributes& res,
                        std::string_view key) {
  if (auto* v = find_string(rec, key)) return v->string_value;
  if (auto* v = find_string(&scope, key)) return v->string_value;
  if (auto* v = find_string(&res, key)) return v->string_value;
  return {};
}

void sanitize(std::string_view in, std::string& out, bool dataset, std::size_t max) {
  out.clear();
  // Lowered first (a lowercase letter may take more or fewer bytes than its capital), then
  // cut to `max` bytes. The first `max` characters decide those bytes, and they lie in the
  // first 4 * max bytes of the input: a long attribute is not lowered in full.
  text::append_lowercase(in.substr(0, 4 * max + 4), out);
  for (char& c : out)
    if (kIndexNameForbidden.find(c) != std::string_view::npos || (dataset && c == '-')) c = '_';
  if (out.size() > max) {
    std::size_t n = max;
    // Never split a UTF-8 character: back up over continuation bytes.
    while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
    out.resize(n);
  }
}

// The shortest key that routes a record: `elasticsearch.index`, `data_stream.dataset`.
constexpr std::size_t kRoutingKeyMin = 19;

// The middle of [lo, hi] as the Collector computes it (the same bytes for the same
// buckets), and without overflow when hi - lo exceeds the largest double
// (bounds [-1e308, 1e308]): then halved first.
double midpoint(double lo, double hi) {
  const double m = lo + (hi - lo) / 2;
  return std::isinf(m) && std::isfinite(lo) && std::isfinite(hi) ? lo / 2 + hi / 2 : m;
}

// Bucket counts summed for `_doc_count` stay at the top instead of wrapping round.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
// Elasticsearch stores `_doc_count` as a long: larger counts are written as its largest.
std::int64_t doc_count_value(std::uint64_t n) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(n, static_cast<std::uint64_t>(INT64_MAX)));
}

bool has_hint(const Attributes& attrs, std::string_view hint) {
  const AnyValue* v = pdata::find_attribute(attrs, "elasticsearch.mapping.hints");
  if (!v || v->kind != ValueKind::Array || !v->array) return false;
  for (const auto& e : *v->array)
    if (e.kind == ValueKind::String && e.string_value == hint) return true;
  return false;
}

// Grouping hash (internal only: groups are confirmed by comparison and kept in
// first-seen order, so the hash never shows in the output). Integers are
// folded with a multiply-xorshift, strings of up to 16 bytes with fold128,
// longer ones with XXH3.

// a * b to 128 bits, the halves xor-ed: every input bit reaches the low bits.
inline std::uint64_t fold128(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}
// Strings of up to 16 bytes (keys and most values) from two overlapping loads inside the
// string, folded by one 64 x 64 -> 128-bit multiply (wyhash's mix: every input bit reaches
// the low bits the table probes with; through the multiply-xorshift above, strings that
// differ only at their end, batch_1230..batch_1239, shared their low bits and the table's
// probes went from 0.2 to 15 a point). XXH3 for every string was an out-of-line call of
// ~30 instructions, four per data point of the benchmark workload.
inline std::uint64_t mix(std::uint64_t h, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::uint64_t a, b;
  if (n >= 8) {
    if (n > 16) return XXH3_64bits_withSeed(s.data(), n, h);
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    std::uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else {
    a = n ? p[0] | std::uint64_t{p[n / 2]} << 8 | std::uint64_t{p[n - 1]} << 16 : 0;
    b = 0;
  }
  return fold128(a ^ (h + n) ^ 0xa0761d6478bd642full, b ^ 0xe7037ed1a0b428dbull);
}

std::uint64_t hash_value(const AnyValue& v, std::uint64_t h, int depth) {
  h = mix(h, static_cast<std::uint64_t>(v.kind));
  if (depth > kMaxDepth) return h;
  switch (v.kind) {
    case ValueKind::Empty:
      return h;
    case ValueKind::String:
    case ValueKind::Bytes:
      return mix(h, v.string_value);
    case ValueKind::Bool:
      return mix(h, static_cast<std::uint64_t>(v.bool_value));
    case ValueKind::Int:
      return mix(h, static_cast<std::uint64_t>(v.int_value));
    case ValueKind::Double: {
      std::uint64_t bits;
      std::memcpy(&bits, &v.double_value, 8);
      return mix(h, bits);
    }
    case ValueKind::Array:
      if (v.array)
        for (const auto& e : *v.array) h = hash_value(e, h, depth + 1);
      return h;
    case ValueKind::KvList:
      if (v.kvlist)
        for (const auto& e : *v.kvlist) {
          h = mix(h, e.key);
          h = hash_value(e.value, h, depth + 1);
        }
      return h;
  }
  return h;
}

bool equal_value(const AnyValue& a, const AnyValue& b, int depth);

bool equal_attrs(const pdata::Vec<KeyValue>& a, const pdata::Vec<KeyValue>& b, int depth) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].key != b[i].key || !equal_value(a[i].value, b[i].value, depth + 1)) return false;
  return true;
}

bool equal_value(const AnyValue& a, const AnyValue& b, int depth) {
  if (a.kind != b.kind) return false;
  if (depth > kMaxDepth) return true;
  switch (a.kind) {
    case ValueKind::Empty:
      return true;
    case ValueKind::String:
    case ValueKind::Bytes:
      return a.string_value == b.string_value;
    case ValueKind::Bool:
      return a.bool_value == b.bool_value;
    case ValueKind::Int:
      return a.int_value == b.int_value;
    case ValueKind::Double:
      return std::memcmp(&a.double_value, &b.double_value, 8) == 0;
    case ValueKind::Array: {
      const std::size_t na = a.array ? a.array->size() : 0, nb = b.array ? b.array->size() : 0;
      if (na != nb) return false;
      for (std::size_t i = 0; i < na; ++i)
        if (!equal_value((*a.array)[i], (*b.array)[i], depth + 1)) return false;
      return true;
    }
    case ValueKind::KvList: {
      const std::size_t na = a.kvlist ? a.kvlist->size() : 0, nb = b.kvlist ? b.kvlist->size() : 0;
      if (na != nb) return false;
      return na == 0 || equal_attrs(*a.kvlist, *b.kvlist, depth);
    }
  }
  return false;
}

struct PointView {
  const Attributes* attrs;
  std::uint64_t ts, start;
};

PointView point_view(const pdata::Metric& m, std::uint32_t i) {
  switch (m.type) {
    case pdata::MetricType::Gauge:
    case pdata::MetricType::Sum: {
      const auto& p = m.number_points[i];
      return {&p.attributes, p.time_unix_nano, p.start_time_unix_nano};
    }
    case pdata::MetricType::Histogram: {
      const auto& p = m.histogram_points[i];
      return {&p.attributes, p.time_unix_nano, p.start_time_unix_nano};
    }
    case pdata::MetricType::ExponentialHistogram: {
      const auto& p = m.exponential_histogram_points[i];
      return {&p.attributes, p.time_unix_nano, p.start_time_unix_nano};
    }
    case pdata::MetricType::Summary: {
      const auto& p = m.summary_points[i];
      return {&p.attributes, p.time_unix_nano, p.start_time_unix_nano};
    }
    case pdata::MetricType::Empty:
      break;
  }
  return {nullptr, 0, 0};
}

// A data point's dynamic template (spec section 2, Metrics): the field type of the value
// write_metric_value writes for it (if it accepts the point). Names padded to 16 bytes:
// copied with one fixed move.
enum class Template : std::uint8_t { GaugeLong, GaugeDouble, CounterLong, CounterDouble, Summary, Histogram };
constexpr std::size_t kTemplateRoom = 16;
constexpr char kTemplateNames[][kTemplateRoom] = {"gauge_long",     "gauge_double", "counter_long",
                                                  "counter_double", "summary",      "histogram"};
constexpr std::uint8_t kTemplateLengths[] = {10, 12, 12, 14, 7, 9};
Template metric_template(const pdata::Metric& m, std::uint32_t i) {
  using pdata::MetricType;
  switch (m.type) {
    case MetricType::Gauge:
    case MetricType::Sum: {
      const bool counter = m.type == MetricType::Sum && m.is_monotonic &&
                           m.temporality == pdata::AggregationTemporality::Cumulative;
      const bool integer = m.number_points[i].value_type == pdata::NumberType::Int;
      return counter ? (integer ? Template::CounterLong : Template::CounterDouble)
                     : (integer ? Template::GaugeLong : Template::GaugeDouble);
    }
    case MetricType::Histogram:
      return has_hint(m.histogram_points[i].attributes, "aggregate_metric_double") ? Template::Summary
                                                                                   : Template::Histogram;
    case MetricType::ExponentialHistogram:
      return has_hint(m.exponential_histogram_points[i].attributes, "aggregate_metric_double")
                 ? Template::Summary
                 : Template::Histogram;
    case MetricType::Summary:
    case MetricType::Empty:
      break;
  }
  return Template::Summary;
}
// Room: kTemplateRoom.
char* write_template(char* d, Template t) {
  const auto k = static_cast<std::size_t>(t);
  std::memcpy(d, kTemplateNames[k], kTemplateRoom);
  return d + kTemplateLengths[k];
}

// `,"_metric_names_hash":"<16 hex digits>"`. Room: 40.
char* write_names_hash(char* d, std::uint64_t nh) {
  std::uint8_t be[8];
  for (int b = 0; b < 8; ++b) be[b] = static_cast<std::uint8_t>(nh >> (56 - 8 * b));
  d = json::lit(d, ",\"_metric_names_hash\":\"");
  d = json::hex(d, be, 8);
  *d++ = '"';
  return d;
}

inline bool finite(double d) { return std::isfinite(d); }

}  // namespace

// ---- public helpers ---------------------------------------------------------

std::string_view receiver_from_scope_name(std::string_view name) {
  // Equivalent of the first match of /receiver/(\w*receiver): the longest
  // word-character run after "/receiver/" cut back to its last "receiver".
  constexpr std::string_view marker = "/receiver/";
  auto is_word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  std::size_t pos = 0;
  while ((pos = name.find(marker, pos)) != std::string_view::npos) {
    const std::size_t start = pos + marker.size();
    std::size_t end = start;
    while (end < name.size() && is_word(name[end])) ++end;
    const std::string_view run = name.substr(start, end - start);
    const std::size_t r = run.rfind("receiver");
    if (r != std::string_view::npos) return run.substr(0, r + 8);
    ++pos;
  }
  return {};
}

void sanitize_dataset(std::string_view in, std::string& out) { sanitize(in, out, true, 95); }
void sanitize_namespace(std::string_view in, std::string& out) { sanitize(in, out, false, 100); }

namespace {
// How a mode names its data streams: otel adds ".otel" to the dataset; bodymap has no
// suffix and may take the type from `data_stream.type` (false when it is neither logs
// nor metrics); none and raw have no suffix and the signal's type.
enum class RouteStyle : std::uint8_t { Otel, BodyMap, Plain };

bool resolve_route_in(std::string_view static_index, std::string_view type, const Attributes* record,
                      const pdata::InstrumentationScope& scope, const Attributes& resource, RouteStyle style,
                      Route& out) {
  out.type = type;
  if (!static_index.empty()) {
    out.data_stream = false;
    out.index.assign(static_index);
    return true;
  }
  const std::string_view explicit_index = lookup(record, scope.attributes, resource, "elasticsearch.index");
  if (!explicit_index.empty()) {
    out.data_stream = false;
    out.index.assign(explicit_index);
    return true;
  }
  if (style == RouteStyle::BodyMap) {
    const std::string_view named = lookup(record, scope.attributes, resource, "data_stream.type");
    if (named == "metrics")
      out.type = "metrics";  // the literal: Route::type must outlive the record
    else if (!named.empty() && named != "logs")
      return false;
  }
  out.data_stream = true;
  std::string_view dataset = lookup(record, scope.attributes, resource, "data_stream.dataset");
  if (dataset.empty()) dataset = receiver_from_scope_name(scope.name);
  if (dataset.empty()) dataset = "generic";
  std::string_view ns = lookup(record, scope.attributes, resource, "data_stream.namespace");
  if (ns.empty()) ns = "default";
  sanitize_dataset(dataset, out.dataset);
  if (style == RouteStyle::Otel) out.dataset.append(".otel");
  sanitize_namespace(ns, out.ns);
  out.index.clear();
  out.index.append(out.type).append("-").append(out.dataset).append("-").append(out.ns);
  return true;
}

}  // namespace

bool resolve_bodymap_route(std::string_view static_index, const Attributes* record,
                           const pdata::InstrumentationScope& scope, const Attributes& resource, Route& out) {
  return resolve_route_in(static_index, "logs", record, scope, resource, RouteStyle::BodyMap, out);
}

void resolve_legacy_route(std::string_view static_index, std::string_view type, const Attributes* record,
                          const pdata::InstrumentationScope& scope, const Attributes& resource, Route& out) {
  resolve_route_in(static_index, type, record, scope, resource, RouteStyle::Plain, out);
}

void resolve_route(std::string_view static_index, std::string_view type, const Attributes* record,
                   const pdata::InstrumentationScope& scope, const Attributes& resource, Route& out) {
  resolve_route_in(static_index, type, record, scope, resource, RouteStyle::Otel, out);
}

std::optional<MappingMode> parse_mapping_mode(std::string_view given) {
  // As the Collector reads a mode's name: in any case, "" and "no" meaning none.
  const std::string name = text::ascii_lower(given);
  if (name.empty() || name == "no" || name == "none") return MappingMode::None;
  if (name == "otel") return MappingMode::Otel;
  if (name == "bodymap") return MappingMode::BodyMap;
  if (name == "raw") return MappingMode::Raw;
  if (name == "ecs") return MappingMode::Ecs;
  return std::nullopt;
}

// ---- Encoder ----------------------------------------------------------------

Encoder::Encoder(EncoderConfig config) : config_(std::move(config)), tail_room_(json::padded_room(tail_)) {}
Encoder::~Encoder() = default;

namespace {
// A control attribute's value as the Collector reads it (pcommon's AsString).
std::string_view attribute_text(const Attributes& record, std::string_view key, std::string& text) {
  const AnyValue* v = pdata::find_attribute(record, key);
  if (!v) return {};
  if (v->kind == ValueKind::String) return v->string_value;
  text = pdata::pcommon_as_string(*v);  // rare: ids and pipelines are strings nearly always
  return text;
}
}  // namespace

std::string_view internal::document_id(const Attributes& record, std::string& text) {
  return attribute_text(record, "elasticsearch.document_id", text);
}

std::string_view internal::ingest_pipeline(const Attributes& record, std::string& text) {
  return attribute_text(record, "elasticsearch.ingest_pipeline", text);
}

std::string_view Encoder::record_id(const Attributes& record) {
  return config_.logs_dynamic_id ? internal::document_id(record, id_text_) : std::string_view();
}

std::string_view Encoder::record_pipeline(const Attributes& record) {
  return config_.logs_dynamic_pipeline ? internal::ingest_pipeline(record, pipeline_text_)
                                       : std::string_view();
}

bool internal::has_routing_key(const Attributes& attrs) {
  for (const auto& kv : attrs)
    if (kv.key.size() >= kRoutingKeyMin &&
        (kv.key == "elasticsearch.index" || kv.key == "data_stream.dataset" ||
         kv.key == "data_stream.namespace"))
      return true;
  return false;
}

namespace {
// What the log path needs to know about a record's attribute keys, in one pass.
struct RecordKeys {
  bool routing = false;                  // has a key that can change the route
  const AnyValue* event_name = nullptr;  // first `event.name` attribute
};
RecordKeys scan_keys(const Attributes& attrs) {
  RecordKeys k;
  // Only keys of 10, 19 or 21 bytes can matter: one test rules out the rest.
  constexpr std::uint32_t kLengths = 1u << 10 | 1u << 19 | 1u << 21;
  for (const auto& kv : attrs) {
    const std::size_t n = kv.key.size();
    if (n > 21 || !(kLengths >> n & 1)) continue;
    if (n == 10 && !k.event_name && kv.key == "event.name")
      k.event_name = &kv.value;
    else if ((n == 19 && (kv.key == "elasticsearch.index" || kv.key == "data_stream.dataset")) ||
             (n == 21 && kv.key == "data_stream.namespace"))
      k.routing = true;
  }
  return k;
}
}  // namespace

void Encoder::CachedRoute::build() {
  index_field.clear();
  data_stream.clear();
  {
    JsonWriter w(index_field, 0);
    w.lit("{\"create\":{\"_index\":");
    w.string(route.index);
  }
  action.assign(index_field).append("}}\n");
  written_at = std::string::npos;
  {
    JsonWriter w(data_stream, 0);
    write_data_stream_json(w, route);
  }
  json::pad(action);
  json::pad(index_field);
  json::pad(data_stream);
  record_room = json::padded_room(action) + json::padded_room(data_stream) + kLogFixedRoom;
}

void Encoder::begin_scope_route(std::string_view static_index, std::string_view type,
                                const pdata::InstrumentationScope& scope, const Attributes& resource) {
  static_index_ = static_index;
  type_ = type;
  scope_ = &scope;
  resource_ = &resource;
  resolve_route(static_index, type, nullptr, scope, resource, scope_route_.route);
  scope_route_.build();
  event_route_ready_ = false;
}

const Route& Encoder::route_for(const Attributes& record) {
  // Without routing attributes of its own, a record resolves exactly as its scope.
  if (!static_index_.empty() || !has_routing_key(record)) return scope_route_.route;
  resolve_route(static_index_, type_, &record, *scope_, *resource_, route_);
  return route_;
}

const Route& Encoder::event_route_for(const Attributes& event) {
  if (!config_.logs_index.empty() || !has_routing_key(event)) {
    if (!event_route_ready_) {
      resolve_route(config_.logs_index, "logs", nullptr, *scope_, *resource_, event_route_.route);
      event_route_.build();
      event_route_ready_ = true;
    }
    return event_route_.route;
  }
  resolve_route(config_.logs_index, "logs", &event, *scope_, *resource_, route_);
  return route_;
}

Encoder::CachedRoute* Encoder::cached_route(const Route& route) {
  return &route == &scope_route_.route   ? &scope_route_
         : &route == &event_route_.route ? &event_route_
                                         : nullptr;
}

void Encoder::begin_output() {
  scope_route_.written_at = std::string::npos;
  event_route_.written_at = std::string::npos;
  shared_action_bytes_ = 0;
}

Encoder::SharedAction Encoder::write_action(JsonWriter& w, const Route& route, std::string_view id,
                                            std::string_view pipeline, std::string_view dynamic_templates) {
  CachedRoute* cached = cached_route(route);
  if (cached && id.empty() && pipeline.empty()) {
    if (dynamic_templates.empty()) {
      if (config_.share_action_lines) {
        if (cached->written_at != std::string::npos) {
          shared_action_bytes_ += cached->action.size();
          return {static_cast<std::uint32_t>(cached->written_at),
                  static_cast<std::uint32_t>(cached->action.size())};
        }
        cached->written_at = w.size();
      }
      w.padded(cached->action);
      return {};
    }
    // A metrics document's: the cached `{"create":{"_index":..`, its templates, the end.
    char* p = w.at(json::padded_room(cached->index_field) + json::padded_room(dynamic_templates.size()) + 26);
    p = json::lit(json::padded_copy(p, cached->index_field), ",\"dynamic_templates\":{");
    p = json::padded_copy(p, dynamic_templates.data(), dynamic_templates.size());
    w.done(json::lit(p, "}}}\n"));
    return {};
  } else {
    w.lit("{\"create\":{");
    if (!id.empty()) {
      w.lit("\"_id\":");
      w.string(id);
      w.put(',');
    }
    w.lit("\"_index\":");
    w.string(route.index);
    if (!pipeline.empty()) {
      w.lit(",\"pipeline\":");
      w.string(pipeline);
    }
  }
  if (!dynamic_templates.empty()) {
    w.lit(",\"dynamic_templates\":{");
    w.raw(dynamic_templates);
    w.put('}');
  }
  w.lit("}}\n");
  return {};
}

void Encoder::write_data_stream(JsonWriter& w, const Route& r) {
  if (const CachedRoute* cached = cached_route(r))
    w.padded(cached->data_stream);
  else
    write_data_stream_json(w, r);
}

bool Encoder::fits_output(std::size_t written, std::size_t docs, std::size_t per_doc, std::uint64_t events,
                          EncodeStats& stats) const {
  const std::size_t max = config_.max_output_bytes;
  // Counted as the bulk NDJSON the items make, shared action lines as if repeated: the same
  // scopes fit whether or not action lines are shared (found by es_encode_fuzz).
  written += shared_action_bytes_;
  // Both factors are counts and sizes from one request (far below 2^32): no wrap.
  if (written >= max ? docs == 0 : docs * per_doc <= max - written) return true;
  stats.count(EncodeReject::OutputTooLarge, events);
  return false;
}

std::size_t Encoder::scope_doc_bytes() const {
  return scope_route_.action.size() + scope_route_.data_stream.size() + tail_.size();
}

// The end of a resource, scope or link object: its attributes, dropped_attributes_count
// and `}`.
void Encoder::end_with_attributes(JsonWriter& w, bool& first, const Attributes& attrs, std::uint32_t dropped,
                                  bool metrics_mode) {
  write_attributes(w, first, attrs, metrics_mode);
  if (dropped) {
    field(w, first, "\"dropped_attributes_count\":");
    w.integer(dropped);
  }
  w.put('}');
}

void Encoder::cache_resource(const pdata::Resource& r, std::string_view schema_url, bool metrics_mode) {
  resource_json_.clear();
  JsonWriter w(resource_json_, 0);
  w.lit("\"resource\":{");
  bool first = true;
  if (!schema_url.empty()) {
    field(w, first, "\"schema_url\":");
    w.string(schema_url);
  }
  end_with_attributes(w, first, r.attributes, r.dropped_attributes_count, metrics_mode);
}

void Encoder::cache_scope(const pdata::InstrumentationScope& s, std::string_view schema_url,
                          bool metrics_mode) {
  tail_.clear();
  {
    JsonWriter w(tail_, 0);  // trims tail_ to what it wrote when it goes
    w.put(',');
    w.raw(resource_json_);
    w.lit(",\"scope\":{");
    bool first = true;
    if (!schema_url.empty()) {
      field(w, first, "\"schema_url\":");
      w.string(schema_url);
    }
    if (!s.name.empty()) {
      field(w, first, "\"name\":");
      w.string(s.name);
    }
    if (!s.version.empty()) {
      field(w, first, "\"version\":");
      w.string(s.version);
    }
    end_with_attributes(w, first, s.attributes, s.dropped_attributes_count, metrics_mode);
  }
  json::pad(tail_);
  tail_room_ = json::padded_room(tail_);
}

void Encoder::SizeGuess::reserve(std::string& data, std::size_t units) const {
  const std::size_t want = data.size() + units * per_unit + per_unit;
  if (want > data.capacity()) data.reserve(want);
}

void Encoder::SizeGuess::learn(std::size_t bytes, std::size_t units) {
  if (units == 0) return;
  // 1/32 over the last batch's average: equal batches fit without regrowing, and a batch
  // waiting in the queue carries little spare capacity.
  const std::size_t avg = bytes / units;
  per_unit = avg + avg / 32 + 16;
}

void Encoder::encode_logs(const pdata::LogsData& logs, EncodedBatch& out) {
  const std::size_t units = logs.record_count(), start_bytes = out.data.size();
  log_size_.reserve(out.data, units);
  out.items.reserve(out.items.size() + units);  // one document per record
  encode_logs_into(logs, out);
  log_size_.learn(out.data.size() - start_bytes, units);
}

std::optional<MappingMode> Encoder::scope_mode(const pdata::InstrumentationScope& scope) const {
  // As the Collector reads it: any value present decides, as its AsString text ("" is
  // none, an int 5 is "5", a mode nobody has).
  const AnyValue* v = pdata::find_attribute(scope.attributes, "elastic.mapping.mode");
  if (!v) return config_.mode;
  const std::optional<MappingMode> asked = parse_mapping_mode(
      v->kind == ValueKind::String ? std::string(v->string_value) : pdata::pcommon_as_string(*v));
  if (asked && !(config_.allowed_modes >> static_cast<unsigned>(*asked) & 1)) return std::nullopt;
  return asked;
}

bool Encoder::begin_flat_scope(std::size_t written, std::string_view static_index, std::string_view type,
                               const pdata::InstrumentationScope& scope, std::string_view schema_url,
                               const pdata::Resource& resource, std::size_t items, EncodedBatch& out) {
  resolve_legacy_route(static_index, type, nullptr, scope, resource.attributes, scope_route_.route);
  scope_route_.build();
  cache_scope(scope, schema_url, false);  // tail_: about what each document repeats
  return fits_output(written, items, scope_route_.action.size() + tail_.size(), items, out.stats);
}

const Route& Encoder::flat_route(std::string_view static_index, std::string_view type,
                                 const Attributes& attrs, const pdata::InstrumentationScope& scope,
                                 const pdata::Resource& resource) {
  if (!static_index.empty() || !internal::has_routing_key(attrs)) return scope_route_.route;
  resolve_legacy_route(static_index, type, &attrs, scope, resource.attributes, route_);
  return route_;
}

bool Encoder::begin_item(JsonWriter& w, const Route& route, const Attributes* record, EncodedBatch& out,
                         ItemStart& item) {
  const std::string_view id = record ? record_id(*record) : std::string_view();
  if (id.size() > internal::kMaxDocumentIdBytes) {
    out.stats.count(EncodeReject::DocumentIdTooLong);
    return false;
  }
  item.start = w.size();
  item.shared = write_action(w, route, id, record ? record_pipeline(*record) : std::string_view(), {});
  item.action_end = w.size();
  return true;
}

void Encoder::end_item(JsonWriter& w, const ItemStart& item, EncodedBatch& out) {
  w.put('\n');
  internal::push_item(out, item.start, item.action_end, w.size(), 1, item.shared.at, item.shared.size);
}

void Encoder::encode_scope_logs_bodymap(JsonWriter& w, std::size_t written, const pdata::ResourceLogs& rl,
                                        const pdata::ScopeLogs& sl, EncodedBatch& out) {
  // The scope's route, for the records without routing attributes of their own.
  const bool scope_ok = resolve_bodymap_route(config_.logs_index, nullptr, sl.scope, rl.resource.attributes,
                                              scope_route_.route);
  if (scope_ok) scope_route_.build();
  // A bodymap document repeats only its action line.
  if (!fits_output(written, sl.log_records.size(), scope_ok ? scope_route_.action.size() : 0,
                   sl.log_records.size(), out.stats))
    return;
  for (const auto& r : sl.log_records) {
    if (r.body.kind != ValueKind::KvList) {
      out.stats.count(EncodeReject::BodyNotMap);
      continue;
    }
    const Route* route = &scope_route_.route;
    bool ok = scope_ok;
    if (config_.logs_index.empty() &&
        (has_routing_key(r.attributes) || pdata::find_attribute(r.attributes, "data_stream.type"))) {
      ok = resolve_bodymap_route(config_.logs_index, &r.attributes, sl.scope, rl.resource.attributes, route_);
      route = &route_;
    }
    if (!ok) {
      out.stats.count(EncodeReject::BadDataStreamType);
      continue;
    }
    ItemStart item;
    if (!begin_item(w, *route, &r.attributes, out, item)) continue;
    write_kvlist(w, r.body.kvlist, 1);  // the document: the map, keys as they are
    end_item(w, item, out);
  }
}

namespace {
// What a log record's attribute means besides being written (otel mode). Only keys of
// the lengths below, and doubles of kGeoKeyMin bytes or more (geo points), can mean
// anything: one test rules out nearly every attribute before any key is compared.
enum class KeyRole : std::uint8_t { Plain, EventName, Routing, Excluded, Geo, Pipeline };
constexpr std::uint64_t kRoleLengths =
    1u << 10 | 1u << 16 | 1u << 19 | 1u << 21 | 1u << 25 | 1u << 27 | 1u << 29;
static_assert(std::string_view("event.name").size() == 10 &&
              std::string_view("elasticsearch.ingest_pipeline").size() == 29 &&
              std::string_view("data_stream.type").size() == 16 &&
              std::string_view("elasticsearch.index").size() == 19 &&
              std::string_view("data_stream.namespace").size() == 21 &&
              std::string_view("elasticsearch.document_id").size() == 25 &&
              std::string_view("elasticsearch.mapping.hints").size() == 27);
[[gnu::always_inline]] inline bool may_have_role(const KeyValue& kv) {
  const std::size_t n = kv.key.size();
  // Keys of 1 to 16 bytes (nearly all), those key_member() takes, need the bit test alone:
  // kGeoKeyMin is a role length. Tested first, the compiler keeps one length test for both.
  static_assert(kRoleLengths >> kGeoKeyMin & 1);
  if (n - 1 < 16) return kRoleLengths >> n & 1;
  // Lengths taken modulo 64 (one bit test): a longer key that lands on a bit only costs a
  // key_role() that finds nothing.
  return (kRoleLengths >> (n & 63) & 1) || (n >= kGeoKeyMin && kv.value.kind == ValueKind::Double);
}
// One switch on the key's length, then at most two comparisons of names of that length: a
// key of a role length without a role (item_index has event.name's length) was compared
// with every name in turn, the sizes one at a time.
[[gnu::always_inline]] inline KeyRole key_role(const Attributes& attrs, const KeyValue& kv) {
  const std::string_view k = kv.key;
  switch (k.size()) {
    case 10:
      return k == "event.name" ? KeyRole::EventName : KeyRole::Plain;  // no geo key is this short
    case 16:
      if (k == "data_stream.type") return KeyRole::Excluded;
      break;
    case 19:
      if (k == "elasticsearch.index" || k == "data_stream.dataset") return KeyRole::Routing;
      break;
    case 21:
      if (k == "data_stream.namespace") return KeyRole::Routing;
      break;
    case 25:
      if (k == "elasticsearch.document_id") return KeyRole::Excluded;
      break;
    case 27:
      if (k == "elasticsearch.mapping.hints") return KeyRole::Excluded;
      break;
    case 29:
      if (k == "elasticsearch.ingest_pipeline") return KeyRole::Pipeline;
      break;
  }
  std::size_t pl;
  if (kv.value.kind == ValueKind::Double)
    if (const int half = geo_half(k, pl); half && geo_partner(attrs, kv, pl, half)) return KeyRole::Geo;
  return KeyRole::Plain;
}

}  // namespace

// The members of an attributes object, each followed by ',', through the writer's cursor
// `c` (close_members() ends the object). One test (may_have_role) clears nearly every
// attribute of the roles a key can have before it is written. kMayTakeBack (a log record
// or span written in one pass): false, at once, for a routing attribute without a static
// index, the caller takes the document back; otherwise routing keys are only left out, as
// the route was resolved first. `event_attribute` (logs): set to the first `event.name`.
// `metrics_mode`: a map value is written as its JSON text (dimensions can't be objects).
// `log_record`: the map is a log record's, whose elasticsearch.ingest_pipeline is its
// pipeline under logs_dynamic_pipeline (left out then; in any other map it is written).
template <bool kMayTakeBack>
[[gnu::always_inline]] inline bool Encoder::write_attribute_members(JsonCursor& c, JsonWriter& w,
                                                                    const Attributes& attrs,
                                                                    const AnyValue** event_attribute,
                                                                    bool metrics_mode, bool log_record) {
  bool any_geo = false;
  for (const auto& kv : attrs) {
    if (may_have_role(kv)) [[unlikely]] {
      switch (key_role(attrs, kv)) {
        case KeyRole::Plain:
          break;
        case KeyRole::EventName:
          if (event_attribute && !*event_attribute) *event_attribute = &kv.value;
          break;  // and written as an attribute too
        case KeyRole::Routing:
          if (kMayTakeBack && static_index_.empty()) return false;  // a route of its own
          continue;                                                 // otherwise only left out
        case KeyRole::Excluded:
          continue;
        case KeyRole::Pipeline:  // left out when it is the record's pipeline, as in the Collector
          if (log_record && config_.logs_dynamic_pipeline) continue;
          break;
        case KeyRole::Geo:
          any_geo = true;  // written merged, after the other attributes
          continue;
      }
    }
    if (short_member(c, kv.key, kv.value)) continue;
    c.sync();
    if (metrics_mode && kv.value.kind == ValueKind::KvList) {
      tmp_.clear();
      {
        JsonWriter t(tmp_, 0);
        write_kvlist(t, kv.value.kvlist, 1);
      }
      w.string(kv.key);
      w.put(':');
      w.string(tmp_);
      w.put(',');
    } else {
      long_member(w, kv.key, kv.value, 1);
    }
    c.reload();
  }
  if (any_geo) {
    c.sync();
    write_geo_points(w, attrs);
    c.reload();
  }
  return true;
}

namespace {
// Ends an object whose members each came with a ',': the last one becomes the '}'.
[[gnu::always_inline]] inline void close_members(JsonCursor& c) {
  char* d = c.ptr();  // turning the last ',' into '}' needs no room
  if (d[-1] == ',') {
    d[-1] = '}';
    return;
  }
  d = c.room(1);
  *d = '}';  // no member was written (every attribute left out)
  c.done(d + 1);
}
}  // namespace

void Encoder::write_attributes(JsonWriter& w, bool& first, const Attributes& attrs, bool metrics_mode,
                               std::string_view event_name, bool log_record) {
  if (attrs.empty() && event_name.empty()) return;
  field(w, first, "\"attributes\":{");
  JsonCursor c(w);
  write_attribute_members<false>(c, w, attrs, nullptr, metrics_mode, log_record);
  if (!event_name.empty()) {
    c.sync();
    w.lit("\"event.name\":");
    w.string(event_name);
    w.put(',');
    c.reload();
  }
  close_members(c);
  c.sync();
}

// The action line of a document starting at `start` on a cached route: copied, or shared
// when config_.share_action_lines and the output already has it; `item` is opened
// (internal::open_item) with it. Kept in the item, start and the shared line need no
// register or stack slot through the document's attributes.
[[gnu::always_inline]] inline char* Encoder::inline_action(char* d, CachedRoute& route, std::size_t start,
                                                           EncodedItem& item) {
  const std::size_t size = route.action.size();
  if (config_.share_action_lines && route.written_at != std::string::npos) {
    open_item(item, start, size, static_cast<std::uint32_t>(route.written_at),
              static_cast<std::uint32_t>(size));
    shared_action_bytes_ += size;
    return d;
  }
  if (config_.share_action_lines) route.written_at = start;
  open_item(item, start, size, EncodedItem::kInlineAction, 0);
  return json::padded_copy(d, route.action);
}

// The document of `item` (opened by inline_action), taken back: as if it had not been
// started.
void Encoder::take_back(JsonWriter& w, CachedRoute& route, const EncodedItem& item) {
  w.truncate(item.offset);
  if (route.written_at == item.offset) route.written_at = std::string::npos;
  if (item.shares_action()) shared_action_bytes_ -= item.action_size;
}

// The common log record in one pass (otel mode, the scope's route, no `_id`): the document
// is written as its attributes are read, through one cursor kept in registers from the
// action line to the item (each hand-over through the writer is a store and a reload on the
// path every later byte waits for). A record that turns out to carry its own routing
// attributes is taken back (false, nothing written, nothing counted): the caller writes it
// on the scanning path.
[[gnu::always_inline]] inline bool Encoder::write_log_record(JsonWriter& w, const pdata::LogRecord& r,
                                                             EncodedItem& item) {
  CachedRoute& route = scope_route_;
  JsonCursor c(w);
  char* d = c.room(route.record_room + json::string_room(r.severity_text.size()));
  d = inline_action(d, route, w.pos(d), item);
  d = json::lit(d, "{\"@timestamp\":");
  d = w.timestamp(d, r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
  d = json::lit(d, ",\"observed_timestamp\":");
  d = w.timestamp(d, r.observed_time_unix_nano, 1);
  d = json::padded_copy(d, route.data_stream);
  if (!r.severity_text.empty()) d = json::string(json::lit(d, ",\"severity_text\":"), r.severity_text);
  if (r.severity_number) d = json::integer(json::lit(d, ",\"severity_number\":"), r.severity_number);
  d = id_field(d, ",\"trace_id\":", r.trace_id);
  d = id_field(d, ",\"span_id\":", r.span_id);
  const AnyValue* event_attribute = nullptr;
  c.done(d);
  if (!r.attributes.empty()) {
    c.done(json::lit(d, ",\"attributes\":{"));
    if (!write_attribute_members<true>(c, w, r.attributes, &event_attribute, false, true)) {
      take_back(w, route, item);
      return false;
    }
    close_members(c);
  }
  end_log_document(c, w, r, event_attribute, item);
  return true;
}

// What follows the attributes in every otel log document, and its item; `c` is the
// writer's cursor.
[[gnu::always_inline]] inline void Encoder::end_log_document(JsonCursor& c, JsonWriter& w,
                                                             const pdata::LogRecord& r,
                                                             const AnyValue* event_attribute,
                                                             EncodedItem& item) {
  std::string_view event_name = r.event_name;
  if (event_name.empty() && event_attribute && event_attribute->kind == ValueKind::String)
    event_name = event_attribute->string_value;
  const AnyValue& b = r.body;
  // Scalar bodies (the common case): resource, scope, body and the end in one go. Inlined
  // (a lambda's operator() takes the attribute this way): as a call it cost 78 instructions
  // per record.
  const auto end_scalar = [&](std::size_t room, auto write_body) __attribute__((always_inline)) {
    char* d = c.room(json::string_room(event_name.size()) + tail_room_ + room + 40);
    if (!event_name.empty()) d = json::string(json::lit(d, ",\"event_name\":"), event_name);
    d = json::padded_copy(d, tail_);
    d = json::lit(d, ",\"body\":{\"text\":");
    d = json::lit(write_body(d), "}}\n");
    c.done(d);
    c.sync();
    close_item(item, w.pos(d));
  };
  if (!r.dropped_attributes_count && event_name.size() <= json::kInlineString) [[likely]] {
    // String bodies (nearly all logs) on their own copy of it: the kind tested once, and
    // sized and written without scalar_room's and write_scalar's switches.
    if (b.kind == ValueKind::String) {
      if (b.string_value.size() <= json::kInlineString) [[likely]] {
        end_scalar(
            json::string_room(b.string_value.size()), [&](char* d) __attribute__((always_inline)) {
              return json::string(d, b.string_value);
            });
        return;
      }
    } else if (const std::size_t room = b.kind == ValueKind::Empty ? 0 : scalar_room(b)) {
      end_scalar(
          room, [&](char* d) __attribute__((always_inline)) { return write_scalar(d, b); });
      return;
    }
  }
  c.sync();
  if (r.dropped_attributes_count) {
    w.lit(",\"dropped_attributes_count\":");
    w.integer(r.dropped_attributes_count);
  }
  if (!event_name.empty()) string_field(w, ",\"event_name\":", event_name);
  w.padded(tail_);
  switch (b.kind) {
    case ValueKind::Empty:
      break;
    case ValueKind::KvList:
      w.lit(",\"body\":{\"structured\":");
      write_value(w, b, 1);
      w.put('}');
      break;
    case ValueKind::Array: {
      bool all_maps = true;
      if (b.array)
        for (const auto& e : *b.array) all_maps = all_maps && e.kind == ValueKind::KvList;
      if (all_maps)
        w.lit(",\"body\":{\"structured\":");
      else
        w.lit(",\"body\":{\"structured\":{\"value\":");
      write_value(w, b, 1);
      if (all_maps)
        w.put('}');
      else
        w.lit("}}");
      break;
    }
    default:
      w.lit(",\"body\":{\"text\":");
      write_value(w, b, 1);
      w.put('}');
  }
  w.lit("}\n");
  close_item(item, w.size());
}

void Encoder::encode_logs_into(const pdata::LogsData& logs, EncodedBatch& out) {
  JsonWriter w(out.data);
  const std::size_t base = w.size();
  begin_output();
  for (const auto& rl : logs.resource_logs) {
    cache_resource(rl.resource, rl.schema_url, false);
    for (const auto& sl : rl.scope_logs) {
      if (const std::optional<MappingMode> mode = scope_mode(sl.scope); mode != MappingMode::Otel) {
        if (mode == MappingMode::BodyMap)
          encode_scope_logs_bodymap(w, w.size() - base, rl, sl, out);
        else if (mode == MappingMode::Ecs)
          encode_scope_logs_ecs(w, w.size() - base, rl, sl, out);
        else if (mode)
          encode_scope_logs_flat(w, w.size() - base, *mode, rl, sl, out);
        else  // a mode this encoder does not have, or one the config does not allow
          out.stats.count(EncodeReject::UnsupportedMode, sl.log_records.size());
        continue;
      }
      cache_scope(sl.scope, sl.schema_url, false);
      begin_scope_route(config_.logs_index, "logs", sl.scope, rl.resource.attributes);
      if (!fits_output(w.size() - base, sl.log_records.size(), scope_doc_bytes(), sl.log_records.size(),
                       out.stats))
        continue;
      encode_scope_logs_otel(w, sl, out);
    }
  }
}

// Kept out of encode_logs_into, and the scanning path out of it: the record loop then has
// the registers to itself (inlined there, its cursor and iterators lived on the stack and
// every attribute waited for a reload: 20 % slower for the same instructions).
[[gnu::noinline]] void Encoder::encode_scope_logs_otel(JsonWriter& w, const pdata::ScopeLogs& sl,
                                                       EncodedBatch& out) {
  // Records are written in one pass until one routes itself; from then on this scope's
  // records are scanned for routing attributes before they are written.
  // One item per record, whichever path writes it: sized once, filled in place (a
  // push_back per record was a call GCC would not inline).
  const std::size_t first_item = out.items.size();
  out.items.resize(first_item + sl.log_records.size());
  EncodedItem* item = out.items.data() + first_item;
  bool scan_first = config_.logs_dynamic_id || config_.logs_dynamic_pipeline;
  for (const auto& r : sl.log_records) {
    EncodedItem& it = *item++;
    if (!scan_first && r.severity_text.size() <= json::kInlineString) [[likely]] {
      if (write_log_record(w, r, it)) continue;
      scan_first = true;
    }
    if (!write_scanned_log_record(w, r, it)) {
      out.stats.count(EncodeReject::DocumentIdTooLong);
      it.size = 0;  // no document: dropped below, out of this loop (which stays as it was)
      ++empty_items_;
    }
  }
  if (empty_items_) [[unlikely]] {
    const auto kept = std::remove_if(out.items.begin() + static_cast<std::ptrdiff_t>(first_item),
                                     out.items.end(), [](const EncodedItem& i) { return i.size == 0; });
    out.items.erase(kept, out.items.end());
    empty_items_ = 0;
  }
}

// A log record whose attributes are scanned first (routing, `_id`), for any route; false
// (nothing written) when its `_id` is too long for Elasticsearch.
[[gnu::noinline]] bool Encoder::write_scanned_log_record(JsonWriter& w, const pdata::LogRecord& r,
                                                         EncodedItem& item) {
  const std::string_view id = record_id(r.attributes);
  if (id.size() > internal::kMaxDocumentIdBytes) return false;
  const RecordKeys keys = scan_keys(r.attributes);
  const Route& route = keys.routing ? route_for(r.attributes) : scope_route_.route;
  const std::size_t start = w.size();
  const SharedAction shared = write_action(w, route, id, record_pipeline(r.attributes), {});
  open_item(item, start, w.size() - start + shared.size, shared.at, shared.size);
  char* d = json::lit(w.at(kLogFixedRoom), "{\"@timestamp\":");
  d = w.timestamp(d, r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
  d = json::lit(d, ",\"observed_timestamp\":");
  w.done(w.timestamp(d, r.observed_time_unix_nano, 1));
  write_data_stream(w, route);
  if (!r.severity_text.empty()) string_field(w, ",\"severity_text\":", r.severity_text);
  d = w.at(kLogFixedRoom);
  if (r.severity_number) d = json::integer(json::lit(d, ",\"severity_number\":"), r.severity_number);
  d = id_field(d, ",\"trace_id\":", r.trace_id);
  w.done(id_field(d, ",\"span_id\":", r.span_id));
  bool first = false;
  write_attributes(w, first, r.attributes, false, {}, /*log_record=*/true);
  JsonCursor c(w);
  end_log_document(c, w, r, keys.event_name, item);
  return true;
}

namespace {
char* write_kind(char* d, pdata::SpanKind k) {
  switch (k) {
    case pdata::SpanKind::Internal:
      return json::lit(d, ",\"kind\":\"Internal\"");
    case pdata::SpanKind::Server:
      return json::lit(d, ",\"kind\":\"Server\"");
    case pdata::SpanKind::Client:
      return json::lit(d, ",\"kind\":\"Client\"");
    case pdata::SpanKind::Producer:
      return json::lit(d, ",\"kind\":\"Producer\"");
    case pdata::SpanKind::Consumer:
      return json::lit(d, ",\"kind\":\"Consumer\"");
    default:
      return json::lit(d, ",\"kind\":\"Unspecified\"");
  }
}
}  // namespace

void Encoder::encode_traces(const pdata::TracesData& traces, EncodedBatch& out) {
  const std::size_t units = traces.span_count(), start_bytes = out.data.size();
  span_size_.reserve(out.data, units);
  encode_traces_into(traces, out);
  span_size_.learn(out.data.size() - start_bytes, units);
}

void Encoder::encode_traces_into(const pdata::TracesData& traces, EncodedBatch& out) {
  JsonWriter w(out.data);
  const std::size_t base = w.size();
  begin_output();
  for (const auto& rs : traces.resource_spans) {
    cache_resource(rs.resource, rs.schema_url, false);
    for (const auto& ss : rs.scope_spans) {
      if (const std::optional<MappingMode> mode = scope_mode(ss.scope); mode != MappingMode::Otel) {
        if (mode == MappingMode::None || mode == MappingMode::Raw)
          encode_scope_spans_flat(w, w.size() - base, *mode, rs, ss, out);
        else if (mode == MappingMode::Ecs)
          encode_scope_spans_ecs(w, w.size() - base, rs, ss, out);
        else  // bodymap is for logs only
          out.stats.count(EncodeReject::UnsupportedMode, ss.spans.size());
        continue;
      }
      cache_scope(ss.scope, ss.schema_url, false);
      begin_scope_route(config_.traces_index, "traces", ss.scope, rs.resource.attributes);
      std::size_t docs = ss.spans.size();  // and a document per span event
      for (const auto& s : ss.spans) docs += s.events.size();
      if (!fits_output(w.size() - base, docs, scope_doc_bytes(), docs, out.stats)) continue;
      encode_scope_spans_otel(w, ss, docs, out);
    }
  }
}

// Kept out of encode_traces_into, as encode_scope_logs_otel is: the span loop has the
// registers to itself. Spans are written in one pass until one routes itself; from then on
// this scope's spans are scanned for routing attributes first. Items: one per span and per
// event, sized once and filled in place.
[[gnu::noinline]] void Encoder::encode_scope_spans_otel(JsonWriter& w, const pdata::ScopeSpans& ss,
                                                        std::size_t docs, EncodedBatch& out) {
  const std::size_t first_item = out.items.size();
  out.items.resize(first_item + docs);
  EncodedItem* item = out.items.data() + first_item;
  bool scan_first = false;
  for (const auto& s : ss.spans) {
    EncodedItem& it = *item++;
    bool written = false;
    if (!scan_first && s.name.size() <= json::kInlineString && s.trace_state.size() <= json::kInlineString)
        [[likely]] {
      written = write_span(w, s, it);
      scan_first = !written;
    }
    if (!written) write_scanned_span(w, s, it);
    if (!s.events.empty()) item = write_span_events(w, s, item);
  }
}

namespace {
// A span status's `"code"` member (none when unset), with a ',' after its message.
constexpr std::size_t kStatusCodeRoom = sizeof(",\"code\":\"Error\"");
char* status_code(char* d, pdata::StatusCode code, bool after_message) {
  if (code != pdata::StatusCode::Ok && code != pdata::StatusCode::Error) return d;
  if (after_message) *d++ = ',';
  return code == pdata::StatusCode::Ok ? json::lit(d, "\"code\":\"Ok\"") : json::lit(d, "\"code\":\"Error\"");
}

// A span document's room up to its attributes, but for the values of trace_state and name:
// every key it may write (sizeof counts one byte more each), the timestamp, three ids in
// hex with their quotes, the longest kind and the duration.
constexpr std::size_t kSpanFixedRoom =
    sizeof("{\"@timestamp\":") + json::kTimestampRoom + sizeof(",\"trace_id\":") + 2 * 16 + 2 +
    sizeof(",\"span_id\":") + 2 * 8 + 2 + sizeof(",\"trace_state\":") + sizeof(",\"parent_span_id\":") +
    2 * 8 + 2 + sizeof(",\"name\":") + sizeof(",\"kind\":\"Unspecified\"") + sizeof(",\"duration\":") +
    json::kIntegerRoom + sizeof(",\"attributes\":{");
}  // namespace

// A span on the scope's route in one pass, as write_log_record writes a log record: false,
// nothing written, when it turns out to carry routing attributes of its own.
[[gnu::always_inline]] inline bool Encoder::write_span(JsonWriter& w, const pdata::Span& s,
                                                       EncodedItem& item) {
  CachedRoute& route = scope_route_;
  JsonCursor c(w);
  char* d = c.room(json::padded_room(route.action) + json::padded_room(route.data_stream) + kSpanFixedRoom +
                   json::string_room(s.trace_state.size()) + json::string_room(s.name.size()));
  d = inline_action(d, route, w.pos(d), item);
  d = json::lit(d, "{\"@timestamp\":");
  d = w.timestamp(d, s.start_time_unix_nano);
  d = json::padded_copy(d, route.data_stream);
  d = id_field(d, ",\"trace_id\":", s.trace_id);
  d = id_field(d, ",\"span_id\":", s.span_id);
  if (!s.trace_state.empty()) d = json::string(json::lit(d, ",\"trace_state\":"), s.trace_state);
  d = id_field(d, ",\"parent_span_id\":", s.parent_span_id);
  if (!s.name.empty()) d = json::string(json::lit(d, ",\"name\":"), s.name);
  d = write_kind(d, s.kind);
  // Unsigned wrap then signed view: end < start gives a negative duration, no UB.
  d = json::integer(json::lit(d, ",\"duration\":"),
                    static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano));
  c.done(d);
  if (!s.attributes.empty()) {
    c.done(json::lit(d, ",\"attributes\":{"));
    if (!write_attribute_members<true>(c, w, s.attributes, nullptr, false)) {
      take_back(w, route, item);
      return false;
    }
    close_members(c);
  }
  const std::string_view message = s.status.message;
  if (!s.dropped_attributes_count && !s.dropped_events_count && s.links.empty() && !s.dropped_links_count &&
      message.size() <= json::kInlineString) [[likely]] {
    d = c.room(json::string_room(message.size()) + tail_room_ + 64);
    d = json::lit(d, ",\"links\":[],\"status\":{");
    if (!message.empty()) d = json::string(json::lit(d, "\"message\":"), message);
    d = status_code(d, s.status.code, !message.empty());
    *d++ = '}';
    d = json::padded_copy(d, tail_);
    d = json::lit(d, "}\n");
    c.done(d);
    c.sync();
  } else {
    c.sync();
    end_span_document(w, s);
  }
  close_item(item, w.size());
  return true;
}

// A span whose attributes are scanned for routing first, on any route.
[[gnu::noinline]] void Encoder::write_scanned_span(JsonWriter& w, const pdata::Span& s, EncodedItem& item) {
  const Route& route = route_for(s.attributes);
  const std::size_t start = w.size();
  const SharedAction shared = write_action(w, route, {}, {}, {});
  const std::size_t action_end = w.size();
  char* d = w.at(json::kTimestampRoom + 16);
  d = json::lit(d, "{\"@timestamp\":");
  w.done(w.timestamp(d, s.start_time_unix_nano));
  write_data_stream(w, route);
  d = w.at(100);  // both ids: < 90 bytes
  d = id_field(d, ",\"trace_id\":", s.trace_id);
  w.done(id_field(d, ",\"span_id\":", s.span_id));
  if (!s.trace_state.empty()) string_field(w, ",\"trace_state\":", s.trace_state);
  id_field(w, ",\"parent_span_id\":", s.parent_span_id);
  if (!s.name.empty()) string_field(w, ",\"name\":", s.name);
  d = w.at(80);  // kind and duration: < 60 bytes
  d = write_kind(d, s.kind);
  d = json::lit(d, ",\"duration\":");
  w.done(json::integer(d, static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano)));
  bool first = false;
  write_attributes(w, first, s.attributes, false);
  end_span_document(w, s);
  set_item(item, start, action_end, w.size(), 1, shared.at, shared.size);
}

// A span document from after its attributes to its end: dropped counts, links, status,
// resource and scope.
void Encoder::end_span_document(JsonWriter& w, const pdata::Span& s) {
  if (s.dropped_attributes_count) {
    w.lit(",\"dropped_attributes_count\":");
    w.integer(s.dropped_attributes_count);
  }
  if (s.dropped_events_count) {
    w.lit(",\"dropped_events_count\":");
    w.integer(s.dropped_events_count);
  }
  w.lit(",\"links\":[");
  for (std::size_t i = 0; i < s.links.size(); ++i) {
    const auto& l = s.links[i];
    if (i) w.put(',');
    w.put('{');
    bool lf = true;
    if (!pdata::is_zero(l.trace_id)) {
      field(w, lf, "\"trace_id\":\"");
      w.hex(l.trace_id.data(), 16);
      w.put('"');
    }
    if (!pdata::is_zero(l.span_id)) {
      field(w, lf, "\"span_id\":\"");
      w.hex(l.span_id.data(), 8);
      w.put('"');
    }
    if (!l.trace_state.empty()) {
      field(w, lf, "\"trace_state\":");
      w.string(l.trace_state);
    }
    end_with_attributes(w, lf, l.attributes, l.dropped_attributes_count, false);
  }
  w.put(']');
  if (s.dropped_links_count) {
    w.lit(",\"dropped_links_count\":");
    w.integer(s.dropped_links_count);
  }
  w.lit(",\"status\":{");
  if (!s.status.message.empty()) string_field(w, "\"message\":", s.status.message);
  char* d = status_code(w.at(kStatusCodeRoom + tail_room_ + 3), s.status.code, !s.status.message.empty());
  d = json::lit(d, "}");
  d = json::padded_copy(d, tail_);
  w.done(json::lit(d, "}\n"));
}

// The documents of a span's events (logs, on the events' route), one item each from `item`;
// returns the item after the last.
EncodedItem* Encoder::write_span_events(JsonWriter& w, const pdata::Span& s, EncodedItem* item) {
  for (const auto& e : s.events) {
    const Route& route = event_route_for(e.attributes);
    const std::size_t start = w.size();
    const SharedAction shared = write_action(w, route, {}, {}, {});
    const std::size_t action_end = w.size();
    w.lit("{\"@timestamp\":");
    w.timestamp(e.time_unix_nano, 1);  // the span's start has slot 0
    write_data_stream(w, route);
    id_field(w, ",\"trace_id\":", s.trace_id);
    id_field(w, ",\"span_id\":", s.span_id);
    if (e.dropped_attributes_count) {
      w.lit(",\"dropped_attributes_count\":");
      w.integer(e.dropped_attributes_count);
    }
    if (!e.name.empty()) {
      w.lit(",\"event_name\":");
      w.string(e.name);
    }
    bool ef = false;
    write_attributes(w, ef, e.attributes, false, e.name);
    w.padded(tail_);
    w.lit("}\n");
    set_item(*item++, start, action_end, w.size(), 1, shared.at, shared.size);
  }
  return item;
}

void Encoder::encode_metrics(const pdata::MetricsData& metrics, EncodedBatch& out) {
  const std::size_t units = metrics.data_point_count(), start_bytes = out.data.size();
  point_size_.reserve(out.data, units);
  encode_metrics_into(metrics, out);
  point_size_.learn(out.data.size() - start_bytes, units);
}

void Encoder::encode_metrics_into(const pdata::MetricsData& metrics, EncodedBatch& out) {
  JsonWriter w(out.data);
  const std::size_t base = w.size();
  begin_output();
  for (const auto& rm : metrics.resource_metrics) {
    cache_resource(rm.resource, rm.schema_url, true);
    for (const auto& sm : rm.scope_metrics) {
      if (scope_mode(sm.scope) != MappingMode::Otel) {  // bodymap, none, raw and ecs: logs and spans only
        std::uint64_t points = 0;
        for (const auto& m : sm.metrics) points += m.point_count();
        out.stats.count(EncodeReject::UnsupportedMode, points);
        continue;
      }
      cache_scope(sm.scope, sm.schema_url, true);
      encode_scope_metrics(w, w.size() - base, sm, rm, out);
    }
  }
}

void Encoder::encode_scope_metrics(JsonWriter& w, std::size_t written, const pdata::ScopeMetrics& sm,
                                   const pdata::ResourceMetrics& rm, EncodedBatch& out) {
  // Group the scope's data points into documents (spec section 2, Metrics):
  // open-addressing table over the group key, groups kept in first-seen order.
  points_.clear();
  groups_.clear();
  pool_.clear();
  std::size_t total = 0;
  for (const auto& m : sm.metrics) total += m.point_count();
  std::size_t cap = 16;
  while (cap < total * 2) cap <<= 1;
  table_.assign(cap, kNone);
  begin_scope_route(config_.metrics_index, "metrics", sm.scope, rm.resource.attributes);
  const std::uint64_t scope_index_hash = mix(0, std::string_view(scope_route_.route.index));

  for (const auto& m : sm.metrics) {
    const std::size_t n = m.point_count();
    if (m.type == pdata::MetricType::Empty) {
      out.stats.count(EncodeReject::EmptyMetric);
      continue;
    }
    // The group key: route index, unit, timestamps, attributes (the metric's part once).
    const std::uint64_t metric_hash = mix(scope_index_hash, m.unit);
    for (std::uint32_t i = 0; i < n; ++i) {
      const PointView pv = point_view(m, i);
      if (!pv.attrs) continue;
      // The dimensions first: the same pass tells whether a key is long enough to route the
      // point (a routing-key scan per point was 34 of its instructions).
      std::uint64_t h = mix(mix(0, pv.ts), pv.start);
      bool long_key = false;
      for (const auto& kv : *pv.attrs) {
        h = mix(h, kv.key);
        h = hash_value(kv.value, h, 1);
        long_key |= kv.key.size() >= kRoutingKeyMin;
      }
      const Route& route = long_key ? route_for(*pv.attrs) : scope_route_.route;
      const bool on_scope_route = &route == &scope_route_.route;
      h = mix(on_scope_route ? metric_hash : mix(mix(0, std::string_view(route.index)), m.unit), h);
      const auto pidx = static_cast<std::uint32_t>(points_.size());
      points_.push_back({&m, i, kNone});
      // The table's slot from the hash through one more fold: a last mix(h, integer) whose
      // inputs differ only in their high bits leaves the low bits alike.
      std::size_t slot = fold128(h, 0x8ebc6af09c88c6e3ull) & (cap - 1);
      for (;; slot = (slot + 1) & (cap - 1)) {
        const std::uint32_t g = table_[slot];
        if (g == kNone) {
          Group ng{};
          ng.hash = h;
          ng.head = ng.tail = pidx;
          ng.scope_route = on_scope_route;
          if (!on_scope_route) {  // a route of its own: kept until the document is written
            ng.pool_off = static_cast<std::uint32_t>(pool_.size());
            ng.index_len = static_cast<std::uint32_t>(route.index.size());
            ng.dataset_len = static_cast<std::uint32_t>(route.dataset.size());
            ng.ns_len = static_cast<std::uint32_t>(route.ns.size());
            ng.data_stream = route.data_stream;
            pool_.append(route.index);
            if (route.data_stream) pool_.append(route.dataset).append(route.ns);
          }
          table_[slot] = static_cast<std::uint32_t>(groups_.size());
          groups_.push_back(ng);
          break;
        }
        Group& grp = groups_[g];
        if (grp.hash != h) continue;
        const PointRef& rep = points_[grp.head];
        const PointView rv = point_view(*rep.metric, rep.index);
        const std::string_view group_index =
            grp.scope_route ? std::string_view(scope_route_.route.index)
                            : std::string_view(pool_).substr(grp.pool_off, grp.index_len);
        if (rv.ts == pv.ts && rv.start == pv.start && rep.metric->unit == m.unit &&
            ((grp.scope_route && on_scope_route) || group_index == route.index) &&
            equal_attrs(*rv.attrs, *pv.attrs, 0)) {
          points_[grp.tail].next = pidx;
          grp.tail = pidx;
          break;
        }
      }
    }
  }

  // Every document repeats the resource and scope (tail_) and an action line.
  if (!fits_output(written, groups_.size(), tail_.size() + scope_route_.action.size(), points_.size(),
                   out.stats))
    return;

  one_name_ = {};  // with its hash: the empty name's view may compare equal to it
  one_name_hash_ = XXH64(nullptr, 0, 0);
  // The metrics object and the dynamic templates of a document of several points are only
  // known once its points are written (rejects drop out): built aside, copied after. The
  // scratch writers live across groups so their room is reused.
  doc_.clear();
  templates_.clear();
  JsonWriter d(doc_, 1024), t(templates_, 1024);
  for (const Group& g : groups_) {
    if (g.head == g.tail && write_point_document(w, g, out)) [[likely]]
      continue;
    names_.clear();
    std::uint64_t doc_count = 0;
    d.truncate(0);
    t.truncate(0);
    {
      d.lit(",\"metrics\":{");
      for (std::uint32_t p = g.head; p != kNone; p = points_[p].next) {
        const PointRef& pr = points_[p];
        const std::string_view name = pr.metric->name;
        if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
          out.stats.count(EncodeReject::DuplicateMetricName);  // first wins
          continue;
        }
        const std::size_t mark = d.size(), t_mark = t.size();
        // The name escaped once, into the document, and its escaped text copied into the
        // template's key (`"metrics.<name>":"<template>"`).
        std::size_t name_at;
        if (name.size() <= json::kInlineString) {
          char* q = d.at(json::string_room(name.size()) + 2);
          if (!names_.empty()) *q++ = ',';
          name_at = d.pos(q) + 1;
          q = json::string(q, name);
          *q++ = ':';
          d.done(q);
        } else {
          if (!names_.empty()) d.put(',');
          name_at = d.size() + 1;
          d.string(name);
          d.put(':');
        }
        const std::size_t name_len = d.size() - 2 - name_at;
        char* q = t.at(name_len + 16);
        if (!names_.empty()) *q++ = ',';
        q = json::lit(q, "\"metrics.");
        std::memcpy(q, doc_.data() + name_at, name_len);
        t.done(json::lit(q + name_len, "\":\""));
        if (!write_metric_value(d, *pr.metric, pr.index, doc_count, out.stats)) {
          d.truncate(mark);
          t.truncate(t_mark);
          continue;
        }
        t.done(write_template(t.at(kTemplateRoom + 1), metric_template(*pr.metric, pr.index)));
        t.put('"');
        names_.push_back(name);
      }
      if (names_.empty()) continue;  // every point rejected: no document
      char* q = json::lit(d.at(json::kIntegerRoom + 16), "}");
      if (doc_count) q = json::integer(json::lit(q, ",\"_doc_count\":"), doc_count_value(doc_count));
      d.done(q);
      // XXH64 of the sorted names concatenated (one name: the name itself).
      std::uint64_t nh;
      if (names_.size() == 1) {
        nh = name_hash(names_[0]);
      } else {
        std::sort(names_.begin(), names_.end());
        names_concat_.clear();
        for (auto n : names_) names_concat_.append(n);
        nh = XXH64(names_concat_.data(), names_concat_.size(), 0);
      }
      d.done(write_names_hash(d.at(40), nh));
    }

    // Most groups follow the scope's route: reuse its cached fragments (a group a routed
    // point opened may still have resolved to it).
    const Route* route = &scope_route_.route;
    if (!g.scope_route) route = &group_route(g);
    const std::size_t start = w.size();
    const SharedAction shared = write_action(w, *route, {}, {}, t.padded_view());
    const std::size_t action_end = w.size();
    const PointRef& rep = points_[g.head];
    const PointView pv = point_view(*rep.metric, rep.index);
    write_point_head(w, *route, *pv.attrs, pv.ts, pv.start, rep.metric->unit);
    const std::string_view metrics_object = d.padded_view();
    char* p = json::padded_copy(w.at(tail_room_ + json::padded_room(metrics_object.size()) + 2), tail_);
    p = json::padded_copy(p, metrics_object.data(), metrics_object.size());
    w.done(json::lit(p, "}\n"));
    push_item(out, start, action_end, w.size(), static_cast<std::uint32_t>(names_.size()), shared.at,
              shared.size);
  }
}

// A document of one data point written in one pass, its template straight into the action
// line: nothing is built aside and copied. A metric whose points differ in their attributes
// has a document per point, the common case (the spec's workload: with the name hashed once
// per metric, 1,396 -> 1,102 instructions per point). A rejected value (NaN, a cumulative
// histogram, ...) is counted and takes its document back. False, with nothing written, when
// the point is not on the scope's cached route or its name is long: the general path
// writes it.
bool Encoder::write_point_document(JsonWriter& w, const Group& g, EncodedBatch& out) {
  const PointRef& pr = points_[g.head];
  const pdata::Metric& m = *pr.metric;
  const std::string_view name = m.name;
  if (!g.scope_route || name.size() > json::kInlineString) return false;
  const CachedRoute& route = scope_route_;
  const std::size_t start = w.size();
  char* p = w.at(json::padded_room(route.index_field) + json::escaped_room(name.size()) + kTemplateRoom + 40);
  p = json::lit(json::padded_copy(p, route.index_field), ",\"dynamic_templates\":{\"metrics.");
  p = json::escaped(p, name);
  p = write_template(json::lit(p, "\":\""), metric_template(m, pr.index));
  w.done(json::lit(p, "\"}}}\n"));
  const std::size_t action_end = w.size();
  const PointView pv = point_view(m, pr.index);
  write_point_head(w, route.route, *pv.attrs, pv.ts, pv.start, m.unit);
  p = json::padded_copy(w.at(tail_room_ + json::string_room(name.size()) + 16), tail_);
  p = json::string(json::lit(p, ",\"metrics\":{"), name);
  *p++ = ':';
  w.done(p);
  std::uint64_t doc_count = 0;
  if (!write_metric_value(w, m, pr.index, doc_count, out.stats)) {
    w.truncate(start);
    return true;
  }
  p = json::lit(w.at(json::kIntegerRoom + 64), "}");
  if (doc_count) p = json::integer(json::lit(p, ",\"_doc_count\":"), doc_count_value(doc_count));
  p = write_names_hash(p, name_hash(name));
  w.done(json::lit(p, "}\n"));
  push_item(out, start, action_end, w.size(), 1);
  return true;
}

// A metrics document's fields from `@timestamp` to its attributes (the group's first point
// gives the timestamps and attributes the group shares).
void Encoder::write_point_head(JsonWriter& w, const Route& route, const Attributes& attrs, std::uint64_t ts,
                               std::uint64_t start, std::string_view unit) {
  const CachedRoute* cached = cached_route(route);
  // Timestamps, unit and data_stream in one reservation when the unit is short and the
  // route cached (nearly always).
  const bool one_room = cached && unit.size() <= json::kInlineString;
  char* p =
      w.at(2 * json::kIntegerRoom + 40 +
           (one_room ? json::string_room(unit.size()) + 8 + json::padded_room(cached->data_stream) : 0));
  p = json::lit(p, "{\"@timestamp\":");
  p = w.millis(p, ts);
  if (start) {
    p = json::lit(p, ",\"start_timestamp\":");
    p = w.millis(p, start);
  }
  if (one_room) {
    if (!unit.empty()) p = json::string(json::lit(p, ",\"unit\":"), unit);
    w.done(json::padded_copy(p, cached->data_stream));
  } else {
    w.done(p);
    if (!unit.empty()) string_field(w, ",\"unit\":", unit);
    write_data_stream(w, route);
  }
  if (!attrs.empty()) {  // write_attributes' work, without its call
    JsonCursor c(w);
    c.done(json::lit(c.room(16), ",\"attributes\":{"));
    write_attribute_members<false>(c, w, attrs, nullptr, true);
    close_members(c);
    c.sync();
  }
}

// XXH64 of one metric name. A metric whose points differ in their attributes is a document
// per point, all of the same name: hashed once (its bytes don't change within the call).
std::uint64_t Encoder::name_hash(std::string_view name) {
  if (name.data() != one_name_.data() || name.size() != one_name_.size()) {
    one_name_ = name;
    one_name_hash_ = XXH64(name.data(), name.size(), 0);
  }
  return one_name_hash_;
}

// The route of a group that a point with routing attributes opened: the scope's when it
// resolved to the same, else route_ set to it.
const Route& Encoder::group_route(const Group& g) {
  const std::string_view pool(pool_);
  const std::string_view index = pool.substr(g.pool_off, g.index_len);
  // dataset and namespace are in the pool only for data streams.
  const std::string_view dataset = g.data_stream ? pool.substr(g.pool_off + g.index_len, g.dataset_len) : "";
  const std::string_view ns =
      g.data_stream ? pool.substr(g.pool_off + g.index_len + g.dataset_len, g.ns_len) : "";
  const Route& sr = scope_route_.route;
  if (index == sr.index && g.data_stream == sr.data_stream &&
      (!g.data_stream || (dataset == sr.dataset && ns == sr.ns)))
    return sr;
  route_.index.assign(index);
  route_.data_stream = g.data_stream;
  route_.type = "metrics";
  if (g.data_stream) {
    route_.dataset.assign(dataset);
    route_.ns.assign(ns);
  }
  return route_;
}

bool Encoder::write_metric_value(JsonWriter& o, const pdata::Metric& m, std::uint32_t i,
                                 std::uint64_t& doc_count, EncodeStats& stats) {
  using pdata::MetricType;
  switch (m.type) {
    case MetricType::Gauge:
    case MetricType::Sum: {
      const auto& p = m.number_points[i];
      if (p.value_type == pdata::NumberType::Int) {
        o.integer(p.as_int);
      } else if (p.value_type == pdata::NumberType::Double) {
        if (!finite(p.as_double)) {
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        o.dbl(p.as_double);
      } else {
        stats.count(EncodeReject::EmptyMetric);
        return false;
      }
      if (has_hint(p.attributes, "_doc_count")) doc_count = 1;
      return true;
    }
    case MetricType::Summary: {
      const auto& p = m.summary_points[i];
      if (!finite(p.sum)) {
        stats.count(EncodeReject::NanOrInf);
        return false;
      }
      o.lit("{\"sum\":");
      o.dbl(p.sum);
      o.lit(",\"value_count\":");
      o.integer(p.count);
      o.put('}');
      if (has_hint(p.attributes, "_doc_count")) doc_count = p.count;
      return true;
    }
    case MetricType::Histogram: {
      const auto& p = m.histogram_points[i];
      const bool dc = has_hint(p.attributes, "_doc_count");
      if (has_hint(p.attributes, "aggregate_metric_double")) {
        const double sum = p.has_sum ? p.sum : 0.0;
        if (!finite(sum)) {
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        o.lit("{\"sum\":");
        o.dbl(sum);
        o.lit(",\"value_count\":");
        o.integer(p.count);
        o.put('}');
        if (dc) doc_count = p.count;
        return true;
      }
      if (m.temporality == pdata::AggregationTemporality::Cumulative) {
        stats.count(EncodeReject::CumulativeHistogram);
        return false;
      }
      const auto& counts = p.bucket_counts;
      const auto& bounds = p.explicit_bounds;
      const std::size_t mark = o.size();
      if (counts.empty() || bounds.empty()) {
        if (!counts.empty() && counts.size() != 1) {
          stats.count(EncodeReject::BadHistogram);
          return false;
        }
        if (p.count == 0) {
          o.lit("{\"counts\":[],\"values\":[]}");
        } else {
          const double v = p.sum / static_cast<double>(p.count);
          if (!finite(v)) {
            stats.count(EncodeReject::NanOrInf);
            return false;
          }
          o.lit("{\"counts\":[");
          o.integer(p.count);
          o.lit("],\"values\":[");
          o.dbl(v);
          o.lit("]}");
        }
        if (dc) doc_count = p.count;
        return true;
      }
      if (counts.size() != bounds.size() + 1) {
        stats.count(EncodeReject::BadHistogram);
        return false;
      }
      o.lit("{\"counts\":[");
      bool f = true;
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        if (counts[b] == 0) continue;
        if (!f) o.put(',');
        f = false;
        o.integer(counts[b]);
        total = saturating_add(total, counts[b]);
      }
      o.lit("],\"values\":[");
      f = true;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        if (counts[b] == 0) continue;
        double v;
        if (b == 0)
          v = bounds[0] > 0 ? bounds[0] / 2 : bounds[0];
        else if (b == bounds.size())
          v = bounds[b - 1];
        else
          v = midpoint(bounds[b - 1], bounds[b]);
        if (!finite(v)) {
          o.truncate(mark);
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        if (!f) o.put(',');
        f = false;
        o.dbl(v);
      }
      o.lit("]}");
      if (dc) doc_count = total;
      return true;
    }
    case MetricType::ExponentialHistogram: {
      const auto& p = m.exponential_histogram_points[i];
      const bool dc = has_hint(p.attributes, "_doc_count");
      if (has_hint(p.attributes, "aggregate_metric_double")) {
        const double sum = p.has_sum ? p.sum : 0.0;
        if (!finite(sum)) {
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        o.lit("{\"sum\":");
        o.dbl(sum);
        o.lit(",\"value_count\":");
        o.integer(p.count);
        o.put('}');
        if (dc) doc_count = p.count;
        return true;
      }
      if (m.temporality == pdata::AggregationTemporality::Cumulative) {
        stats.count(EncodeReject::CumulativeHistogram);
        return false;
      }
      const double base_exp = std::exp2(-static_cast<double>(std::clamp(p.scale, -100, 100)));
      auto mid = [&](std::int64_t idx) {
        const double lo = std::exp2(static_cast<double>(idx) * base_exp);
        const double hi = std::exp2(static_cast<double>(idx + 1) * base_exp);
        if (std::isinf(hi) && !std::isinf(lo))  // the top bucket's upper bound overflows, not its middle
          return lo * ((1 + std::exp2(base_exp)) / 2);
        return midpoint(lo, hi);
      };
      // Values first (may reject), into the tail of `o`; counts need the same order.
      const std::size_t mark = o.size();
      std::uint64_t total = 0;
      o.lit("{\"counts\":[");
      bool f = true;
      auto emit_count = [&](std::uint64_t c) {
        if (!f) o.put(',');
        f = false;
        o.integer(c);
        total = saturating_add(total, c);
      };
      const auto& neg = p.negative.bucket_counts;
      const auto& pos = p.positive.bucket_counts;
      for (std::size_t k = neg.size(); k-- > 0;)
        if (neg[k]) emit_count(neg[k]);
      if (p.zero_count) emit_count(p.zero_count);
      for (std::size_t k = 0; k < pos.size(); ++k)
        if (pos[k]) emit_count(pos[k]);
      o.lit("],\"values\":[");
      f = true;
      auto emit_value = [&](double v) {
        if (!finite(v)) return false;
        if (!f) o.put(',');
        f = false;
        o.dbl(v);
        return true;
      };
      bool ok = true;
      for (std::size_t k = neg.size(); ok && k-- > 0;)
        if (neg[k])
          ok = emit_value(-mid(static_cast<std::int64_t>(p.negative.offset) + static_cast<std::int64_t>(k)));
      if (ok && p.zero_count) ok = emit_value(0.0);
      for (std::size_t k = 0; ok && k < pos.size(); ++k)
        if (pos[k])
          ok = emit_value(mid(static_cast<std::int64_t>(p.positive.offset) + static_cast<std::int64_t>(k)));
      if (!ok) {
        o.truncate(mark);
        stats.count(EncodeReject::NanOrInf);
        return false;
      }
      o.lit("]}");
      if (dc) doc_count = total;
      return true;
    }
    case MetricType::Empty:
      break;
  }
  stats.count(EncodeReject::EmptyMetric);
  return false;
}

}  // namespace tern::encoding::es
