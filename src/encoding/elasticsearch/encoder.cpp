// Elasticsearch otel-mode encoder. This hand-written serializer is Tern's edge:
// documents go byte by byte from pdata into the bulk body, with cached
// resource/scope fragments, table-driven escaping and no intermediate tree, so
// the steady state allocates nothing and costs little more than a memcpy.
#include "encoding/elasticsearch/encoder.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace tern::encoding::es {
namespace {

using pdata::AnyValue;
using pdata::Attributes;
using pdata::KeyValue;
using pdata::ValueKind;

constexpr std::uint32_t kNone = 0xffffffffu;
// Deeper AnyValue nesting is written as null: bounds recursion on hostile input.
constexpr int kMaxDepth = 64;

// 0: copy as is, 1: escape, 2: start of a multi-byte UTF-8 sequence (validate).
constexpr std::array<std::uint8_t, 256> kEscape = [] {
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 0x20; ++i) t[i] = 1;
  t['"'] = 1;
  t['\\'] = 1;
  for (int i = 0x80; i < 0x100; ++i) t[i] = 2;
  return t;
}();

constexpr char kHex[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence at p (n bytes left), or 0 if invalid
// (overlong, surrogate, > U+10FFFF, truncated).
inline std::size_t utf8_len(const unsigned char* p, std::size_t n) {
  const unsigned c = p[0];
  auto cont = [&](std::size_t i) { return i < n && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || !cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] > 0x8F) return 0;
    return 4;
  }
  return 0;
}

void escape_into(std::string& o, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t start = i;
    // Eight bytes at a time while none needs escaping or UTF-8 validation.
    while (i + 8 <= n) {
      std::uint64_t x;
      std::memcpy(&x, p + i, 8);
      constexpr std::uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
      const std::uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
      const std::uint64_t special =
          ((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x & high;  // < 0x20, '"', '\\'
      if ((special | (x & high)) != 0) break;
      i += 8;
    }
    while (i < n && kEscape[p[i]] == 0) ++i;
    o.append(s.data() + start, i - start);
    if (i == n) break;
    const unsigned char c = p[i];
    if (kEscape[c] == 1) {
      switch (c) {
        case '"':
          o.append("\\\"", 2);
          break;
        case '\\':
          o.append("\\\\", 2);
          break;
        case '\n':
          o.append("\\n", 2);
          break;
        case '\r':
          o.append("\\r", 2);
          break;
        case '\t':
          o.append("\\t", 2);
          break;
        case '\b':
          o.append("\\b", 2);
          break;
        case '\f':
          o.append("\\f", 2);
          break;
        default: {
          const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
          o.append(u, 6);
        }
      }
      ++i;
    } else {
      const std::size_t len = utf8_len(p + i, n - i);
      if (len == 0) {
        o.append("\xEF\xBF\xBD", 3);  // U+FFFD for each invalid byte
        ++i;
      } else {
        o.append(s.data() + i, len);
        i += len;
      }
    }
  }
}

inline void str(std::string& o, std::string_view s) {
  o.push_back('"');
  escape_into(o, s);
  o.push_back('"');
}

template <class Int>
inline void integer(std::string& o, Int v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  o.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

void hex(std::string& o, const std::uint8_t* p, std::size_t n) {
  const std::size_t at = o.size();
  o.resize(at + n * 2);
  char* d = o.data() + at;
  for (std::size_t i = 0; i < n; ++i) {
    d[2 * i] = kHex[p[i] >> 4];
    d[2 * i + 1] = kHex[p[i] & 15];
  }
}

template <std::size_t N>
void id_field(std::string& o, std::string_view key, const std::array<std::uint8_t, N>& id) {
  if (pdata::is_zero(id)) return;
  o.append(key);
  o.push_back('"');
  hex(o, id.data(), N);
  o.push_back('"');
}

// "<epoch_ms>.<6-digit ns remainder>" (the zero-padded rule, used everywhere).
void timestamp(std::string& o, std::uint64_t ns) {
  o.push_back('"');
  integer(o, ns / 1000000);
  std::uint32_t rem = static_cast<std::uint32_t>(ns % 1000000);
  char buf[7];
  buf[0] = '.';
  for (int i = 6; i >= 1; --i) {
    buf[i] = static_cast<char>('0' + rem % 10);
    rem /= 10;
  }
  o.append(buf, 7);
  o.push_back('"');
}

inline void field(std::string& o, bool& first, std::string_view quoted_key_colon) {
  if (!first) o.push_back(',');
  first = false;
  o.append(quoted_key_colon);
}

void write_value(std::string& o, const AnyValue& v, int depth);

void write_kvlist(std::string& o, const pdata::Vec<KeyValue>* kv, int depth) {
  o.push_back('{');
  if (kv) {
    bool first = true;
    for (const auto& e : *kv) {
      if (!first) o.push_back(',');
      first = false;
      str(o, e.key);
      o.push_back(':');
      write_value(o, e.value, depth + 1);
    }
  }
  o.push_back('}');
}

void write_array(std::string& o, const pdata::Vec<AnyValue>* a, int depth) {
  o.push_back('[');
  if (a) {
    bool first = true;
    for (const auto& e : *a) {
      if (!first) o.push_back(',');
      first = false;
      write_value(o, e, depth + 1);
    }
  }
  o.push_back(']');
}

void write_value(std::string& o, const AnyValue& v, int depth) {
  if (depth > kMaxDepth) {
    o.append("null", 4);
    return;
  }
  switch (v.kind) {
    case ValueKind::Empty:
      o.append("null", 4);
      return;
    case ValueKind::String:
      str(o, v.string_value);
      return;
    case ValueKind::Bool:
      v.bool_value ? o.append("true", 4) : o.append("false", 5);
      return;
    case ValueKind::Int:
      integer(o, v.int_value);
      return;
    case ValueKind::Double:
      append_double(o, v.double_value);
      return;
    case ValueKind::Bytes:
      o.push_back('"');
      hex(o, reinterpret_cast<const std::uint8_t*>(v.string_value.data()), v.string_value.size());
      o.push_back('"');
      return;
    case ValueKind::Array:
      write_array(o, v.array, depth);
      return;
    case ValueKind::KvList:
      write_kvlist(o, v.kvlist, depth);
      return;
  }
  o.append("null", 4);
}

bool is_excluded(std::string_view k) {
  if (k.size() < 13) return false;
  if (k[0] == 'd')
    return k == "data_stream.type" || k == "data_stream.dataset" || k == "data_stream.namespace";
  if (k[0] == 'e')
    return k == "elasticsearch.mapping.hints" || k == "elasticsearch.document_id" ||
           k == "elasticsearch.index";
  return false;
}

// 1: `<prefix>geo.location.lat`, 2: `...lon`, 0: neither. Prefix is empty or ends with '.'.
int geo_half(std::string_view k, std::size_t& prefix_len) {
  constexpr std::string_view base = "geo.location.";
  if (k.size() < base.size() + 3) return 0;
  const std::string_view tail = k.substr(k.size() - 3);
  const int half = tail == "lat" ? 1 : tail == "lon" ? 2 : 0;
  if (!half) return 0;
  prefix_len = k.size() - base.size() - 3;
  if (k.substr(prefix_len, base.size()) != base) return 0;
  if (prefix_len > 0 && k[prefix_len - 1] != '.') return 0;
  return half;
}

// The other half of a geo pair (double-valued), or null.
const KeyValue* geo_partner(const Attributes& attrs, const KeyValue& kv, std::size_t prefix_len, int half) {
  const std::string_view want = half == 1 ? "lon" : "lat";
  for (const auto& o : attrs) {
    if (o.value.kind != ValueKind::Double || o.key.size() != kv.key.size()) continue;
    if (o.key.substr(0, o.key.size() - 3) == kv.key.substr(0, kv.key.size() - 3) &&
        o.key.substr(o.key.size() - 3) == want)
      return &o;
  }
  (void)prefix_len;
  return nullptr;
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
  std::size_t n = in.size();
  if (n > max) {
    n = max;
    // Never split a UTF-8 character: back up over continuation bytes.
    while (n > 0 && (static_cast<unsigned char>(in[n]) & 0xC0) == 0x80) --n;
  }
  for (std::size_t i = 0; i < n; ++i) {
    char c = in[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    switch (c) {
      case '\\':
      case '/':
      case '*':
      case '?':
      case '"':
      case '<':
      case '>':
      case '|':
      case ',':
      case '#':
      case ':':
      case ' ':
        c = '_';
        break;
      case '-':
        if (dataset) c = '_';
        break;
      default:
        break;
    }
    out.push_back(c);
  }
}

bool has_hint(const Attributes& attrs, std::string_view hint) {
  const AnyValue* v = pdata::find_attribute(attrs, "elasticsearch.mapping.hints");
  if (!v || v->kind != ValueKind::Array || !v->array) return false;
  for (const auto& e : *v->array)
    if (e.kind == ValueKind::String && e.string_value == hint) return true;
  return false;
}

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return XXH64(&v, sizeof v, h); }

std::uint64_t hash_value(const AnyValue& v, std::uint64_t h, int depth) {
  h = mix(h, static_cast<std::uint64_t>(v.kind));
  if (depth > kMaxDepth) return h;
  switch (v.kind) {
    case ValueKind::Empty:
      return h;
    case ValueKind::String:
    case ValueKind::Bytes:
      return XXH64(v.string_value.data(), v.string_value.size(), h);
    case ValueKind::Bool:
      return mix(h, v.bool_value);
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
          h = XXH64(e.key.data(), e.key.size(), h);
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

inline bool finite(double d) { return std::isfinite(d); }

}  // namespace

// ---- public helpers ---------------------------------------------------------

void append_json_string(std::string& out, std::string_view s) { str(out, s); }

void append_double(std::string& o, double d) {
  if (!std::isfinite(d)) {
    o.append("null", 4);
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  const std::size_t n = static_cast<std::size_t>(r.ptr - buf);
  o.append(buf, n);
  // Elasticsearch must map the field as double: keep a radix point or exponent.
  if (!std::memchr(buf, '.', n) && !std::memchr(buf, 'e', n)) o.append(".0", 2);
}

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

void resolve_route(std::string_view static_index, std::string_view type, const Attributes* record,
                   const pdata::InstrumentationScope& scope, const Attributes& resource, Route& out) {
  out.type = type;
  if (!static_index.empty()) {
    out.data_stream = false;
    out.index.assign(static_index);
    return;
  }
  const std::string_view explicit_index = lookup(record, scope.attributes, resource, "elasticsearch.index");
  if (!explicit_index.empty()) {
    out.data_stream = false;
    out.index.assign(explicit_index);
    return;
  }
  out.data_stream = true;
  std::string_view dataset = lookup(record, scope.attributes, resource, "data_stream.dataset");
  if (dataset.empty()) dataset = receiver_from_scope_name(scope.name);
  if (dataset.empty()) dataset = "generic";
  std::string_view ns = lookup(record, scope.attributes, resource, "data_stream.namespace");
  if (ns.empty()) ns = "default";
  sanitize_dataset(dataset, out.dataset);
  out.dataset.append(".otel");
  sanitize_namespace(ns, out.ns);
  out.index.clear();
  out.index.append(type).append("-").append(out.dataset).append("-").append(out.ns);
}

// ---- Encoder ----------------------------------------------------------------

Encoder::Encoder(EncoderConfig config) : config_(std::move(config)) {}

namespace {
bool has_routing_key(const Attributes& attrs) {
  for (const auto& kv : attrs)
    if (kv.key.size() >= 19 && (kv.key == "elasticsearch.index" || kv.key == "data_stream.dataset" ||
                                kv.key == "data_stream.namespace"))
      return true;
  return false;
}
}  // namespace

void Encoder::begin_scope_route(std::string_view static_index, std::string_view type,
                                const pdata::InstrumentationScope& scope, const Attributes& resource) {
  static_index_ = static_index;
  type_ = type;
  scope_ = &scope;
  resource_ = &resource;
  resolve_route(static_index, type, nullptr, scope, resource, scope_route_);
}

const Route& Encoder::route_for(const Attributes& record) {
  if (!static_index_.empty() || !has_routing_key(record)) return scope_route_;
  resolve_route(static_index_, type_, &record, *scope_, *resource_, route_);
  return route_;
}

void Encoder::begin_item(EncodedBatch& out, const Route& route, std::string_view id,
                         std::string_view dynamic_templates) {
  std::string& o = out.data;
  item_start_ = o.size();
  o.append("{\"create\":{");
  if (!id.empty()) {
    o.append("\"_id\":");
    str(o, id);
    o.push_back(',');
  }
  o.append("\"_index\":");
  str(o, route.index);
  if (!dynamic_templates.empty()) {
    o.append(",\"dynamic_templates\":{");
    o.append(dynamic_templates);
    o.push_back('}');
  }
  o.append("}}\n");
  action_end_ = o.size();
}

void Encoder::end_item(EncodedBatch& out, std::uint32_t events) {
  out.data.push_back('\n');
  EncodedItem it;
  it.offset = static_cast<std::uint32_t>(item_start_);
  it.size = static_cast<std::uint32_t>(out.data.size() - item_start_);
  it.action_size = static_cast<std::uint32_t>(action_end_ - item_start_);
  it.events = events;
  out.items.push_back(it);
}

void Encoder::write_attributes(std::string& o, bool& first, const Attributes& attrs, bool metrics_mode,
                               std::string_view event_name) {
  if (attrs.empty() && event_name.empty()) return;
  field(o, first, "\"attributes\":{");
  bool f = true;
  bool any_geo = false;
  for (const auto& kv : attrs) {
    if (is_excluded(kv.key)) continue;
    if (kv.value.kind == ValueKind::Double) {
      std::size_t pl;
      if (int half = geo_half(kv.key, pl); half && geo_partner(attrs, kv, pl, half)) {
        any_geo = true;  // written merged, after the other attributes
        continue;
      }
    }
    if (!f) o.push_back(',');
    f = false;
    str(o, kv.key);
    o.push_back(':');
    if (metrics_mode && kv.value.kind == ValueKind::KvList) {
      // Dimensions can't be objects: a top-level map becomes its JSON text.
      tmp_.clear();
      write_kvlist(tmp_, kv.value.kvlist, 1);
      str(o, tmp_);
    } else {
      write_value(o, kv.value, 1);
    }
  }
  if (any_geo) {
    for (const auto& kv : attrs) {
      std::size_t pl;
      if (kv.value.kind != ValueKind::Double || geo_half(kv.key, pl) != 1) continue;
      const KeyValue* lon = geo_partner(attrs, kv, pl, 1);
      if (!lon) continue;
      if (!f) o.push_back(',');
      f = false;
      o.push_back('"');
      escape_into(o, kv.key.substr(0, pl));
      o.append("geo.location\":[");
      append_double(o, lon->value.double_value);
      o.push_back(',');
      append_double(o, kv.value.double_value);
      o.push_back(']');
    }
  }
  if (!event_name.empty()) {
    if (!f) o.push_back(',');
    o.append("\"event.name\":");
    str(o, event_name);
  }
  o.push_back('}');
}

void Encoder::write_resource(std::string& o, const pdata::Resource& r, std::string_view schema_url,
                             bool metrics_mode) {
  o.append("\"resource\":{");
  bool first = true;
  if (!schema_url.empty()) {
    field(o, first, "\"schema_url\":");
    str(o, schema_url);
  }
  write_attributes(o, first, r.attributes, metrics_mode);
  if (r.dropped_attributes_count) {
    field(o, first, "\"dropped_attributes_count\":");
    integer(o, r.dropped_attributes_count);
  }
  o.push_back('}');
}

void Encoder::write_scope(std::string& o, const pdata::InstrumentationScope& s, std::string_view schema_url,
                          bool metrics_mode) {
  o.append("\"scope\":{");
  bool first = true;
  if (!schema_url.empty()) {
    field(o, first, "\"schema_url\":");
    str(o, schema_url);
  }
  if (!s.name.empty()) {
    field(o, first, "\"name\":");
    str(o, s.name);
  }
  if (!s.version.empty()) {
    field(o, first, "\"version\":");
    str(o, s.version);
  }
  write_attributes(o, first, s.attributes, metrics_mode);
  if (s.dropped_attributes_count) {
    field(o, first, "\"dropped_attributes_count\":");
    integer(o, s.dropped_attributes_count);
  }
  o.push_back('}');
}

void Encoder::write_data_stream(std::string& o, const Route& r) {
  if (!r.data_stream) return;
  o.append(",\"data_stream\":{\"type\":");
  str(o, r.type);
  o.append(",\"dataset\":");
  str(o, r.dataset);
  o.append(",\"namespace\":");
  str(o, r.ns);
  o.push_back('}');
}

void Encoder::encode_logs(const pdata::LogsData& logs, EncodedBatch& out) {
  std::string& o = out.data;
  for (const auto& rl : logs.resource_logs) {
    resource_json_.clear();
    write_resource(resource_json_, rl.resource, rl.schema_url, false);
    for (const auto& sl : rl.scope_logs) {
      scope_json_.clear();
      write_scope(scope_json_, sl.scope, sl.schema_url, false);
      begin_scope_route(config_.logs_index, "logs", sl.scope, rl.resource.attributes);
      for (const auto& r : sl.log_records) {
        const Route& route = route_for(r.attributes);
        std::string_view id;
        if (config_.logs_dynamic_id)
          if (auto* v = find_string(&r.attributes, "elasticsearch.document_id")) id = v->string_value;
        begin_item(out, route, id, {});
        o.append("{\"@timestamp\":");
        timestamp(o, r.time_unix_nano ? r.time_unix_nano : r.observed_time_unix_nano);
        o.append(",\"observed_timestamp\":");
        timestamp(o, r.observed_time_unix_nano);
        write_data_stream(o, route);
        bool first = false;
        if (!r.severity_text.empty()) {
          o.append(",\"severity_text\":");
          str(o, r.severity_text);
        }
        if (r.severity_number) {
          o.append(",\"severity_number\":");
          integer(o, r.severity_number);
        }
        id_field(o, ",\"trace_id\":", r.trace_id);
        id_field(o, ",\"span_id\":", r.span_id);
        write_attributes(o, first, r.attributes, false);
        if (r.dropped_attributes_count) {
          o.append(",\"dropped_attributes_count\":");
          integer(o, r.dropped_attributes_count);
        }
        std::string_view event_name = r.event_name;
        if (event_name.empty())
          if (auto* v = find_string(&r.attributes, "event.name")) event_name = v->string_value;
        if (!event_name.empty()) {
          o.append(",\"event_name\":");
          str(o, event_name);
        }
        o.push_back(',');
        o.append(resource_json_);
        o.push_back(',');
        o.append(scope_json_);
        const AnyValue& b = r.body;
        switch (b.kind) {
          case ValueKind::Empty:
            break;
          case ValueKind::KvList:
            o.append(",\"body\":{\"structured\":");
            write_value(o, b, 1);
            o.push_back('}');
            break;
          case ValueKind::Array: {
            bool all_maps = true;
            if (b.array)
              for (const auto& e : *b.array) all_maps = all_maps && e.kind == ValueKind::KvList;
            o.append(all_maps ? ",\"body\":{\"structured\":" : ",\"body\":{\"structured\":{\"value\":");
            write_value(o, b, 1);
            o.append(all_maps ? "}" : "}}");
            break;
          }
          default:
            o.append(",\"body\":{\"text\":");
            write_value(o, b, 1);
            o.push_back('}');
        }
        o.push_back('}');
        end_item(out, 1);
      }
    }
  }
}

namespace {
std::string_view kind_name(pdata::SpanKind k) {
  switch (k) {
    case pdata::SpanKind::Internal:
      return "\"Internal\"";
    case pdata::SpanKind::Server:
      return "\"Server\"";
    case pdata::SpanKind::Client:
      return "\"Client\"";
    case pdata::SpanKind::Producer:
      return "\"Producer\"";
    case pdata::SpanKind::Consumer:
      return "\"Consumer\"";
    default:
      return "\"Unspecified\"";
  }
}
}  // namespace

void Encoder::encode_traces(const pdata::TracesData& traces, EncodedBatch& out) {
  std::string& o = out.data;
  for (const auto& rs : traces.resource_spans) {
    resource_json_.clear();
    write_resource(resource_json_, rs.resource, rs.schema_url, false);
    for (const auto& ss : rs.scope_spans) {
      scope_json_.clear();
      write_scope(scope_json_, ss.scope, ss.schema_url, false);
      begin_scope_route(config_.traces_index, "traces", ss.scope, rs.resource.attributes);
      for (const auto& s : ss.spans) {
        {
          const Route& route = route_for(s.attributes);
          begin_item(out, route, {}, {});
          o.append("{\"@timestamp\":");
          timestamp(o, s.start_time_unix_nano);
          write_data_stream(o, route);
        }
        id_field(o, ",\"trace_id\":", s.trace_id);
        id_field(o, ",\"span_id\":", s.span_id);
        if (!s.trace_state.empty()) {
          o.append(",\"trace_state\":");
          str(o, s.trace_state);
        }
        id_field(o, ",\"parent_span_id\":", s.parent_span_id);
        if (!s.name.empty()) {
          o.append(",\"name\":");
          str(o, s.name);
        }
        o.append(",\"kind\":");
        o.append(kind_name(s.kind));
        o.append(",\"duration\":");
        // Unsigned wrap then signed view: end < start gives a negative duration, no UB.
        integer(o, static_cast<std::int64_t>(s.end_time_unix_nano - s.start_time_unix_nano));
        bool first = false;
        write_attributes(o, first, s.attributes, false);
        if (s.dropped_attributes_count) {
          o.append(",\"dropped_attributes_count\":");
          integer(o, s.dropped_attributes_count);
        }
        if (s.dropped_events_count) {
          o.append(",\"dropped_events_count\":");
          integer(o, s.dropped_events_count);
        }
        o.append(",\"links\":[");
        for (std::size_t i = 0; i < s.links.size(); ++i) {
          const auto& l = s.links[i];
          if (i) o.push_back(',');
          o.push_back('{');
          bool lf = true;
          if (!pdata::is_zero(l.trace_id)) {
            field(o, lf, "\"trace_id\":\"");
            hex(o, l.trace_id.data(), 16);
            o.push_back('"');
          }
          if (!pdata::is_zero(l.span_id)) {
            field(o, lf, "\"span_id\":\"");
            hex(o, l.span_id.data(), 8);
            o.push_back('"');
          }
          if (!l.trace_state.empty()) {
            field(o, lf, "\"trace_state\":");
            str(o, l.trace_state);
          }
          write_attributes(o, lf, l.attributes, false);
          if (l.dropped_attributes_count) {
            field(o, lf, "\"dropped_attributes_count\":");
            integer(o, l.dropped_attributes_count);
          }
          o.push_back('}');
        }
        o.push_back(']');
        if (s.dropped_links_count) {
          o.append(",\"dropped_links_count\":");
          integer(o, s.dropped_links_count);
        }
        o.append(",\"status\":{");
        bool sf = true;
        if (!s.status.message.empty()) {
          field(o, sf, "\"message\":");
          str(o, s.status.message);
        }
        if (s.status.code == pdata::StatusCode::Ok) field(o, sf, "\"code\":\"Ok\"");
        if (s.status.code == pdata::StatusCode::Error) field(o, sf, "\"code\":\"Error\"");
        o.append("},");
        o.append(resource_json_);
        o.push_back(',');
        o.append(scope_json_);
        o.push_back('}');
        end_item(out, 1);

        for (const auto& e : s.events) {
          resolve_route(config_.logs_index, "logs", &e.attributes, ss.scope, rs.resource.attributes, route_);
          begin_item(out, route_, {}, {});
          o.append("{\"@timestamp\":");
          timestamp(o, e.time_unix_nano);
          write_data_stream(o, route_);
          id_field(o, ",\"trace_id\":", s.trace_id);
          id_field(o, ",\"span_id\":", s.span_id);
          if (e.dropped_attributes_count) {
            o.append(",\"dropped_attributes_count\":");
            integer(o, e.dropped_attributes_count);
          }
          if (!e.name.empty()) {
            o.append(",\"event_name\":");
            str(o, e.name);
          }
          bool ef = false;
          write_attributes(o, ef, e.attributes, false, e.name);
          o.push_back(',');
          o.append(resource_json_);
          o.push_back(',');
          o.append(scope_json_);
          o.push_back('}');
          end_item(out, 1);
        }
      }
    }
  }
}

void Encoder::encode_metrics(const pdata::MetricsData& metrics, EncodedBatch& out) {
  for (const auto& rm : metrics.resource_metrics) {
    resource_json_.clear();
    write_resource(resource_json_, rm.resource, rm.schema_url, true);
    for (const auto& sm : rm.scope_metrics) {
      scope_json_.clear();
      write_scope(scope_json_, sm.scope, sm.schema_url, true);
      encode_scope_metrics(sm, rm, out);
    }
  }
}

void Encoder::encode_scope_metrics(const pdata::ScopeMetrics& sm, const pdata::ResourceMetrics& rm,
                                   EncodedBatch& out) {
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

  for (const auto& m : sm.metrics) {
    const std::size_t n = m.point_count();
    if (m.type == pdata::MetricType::Empty) {
      out.stats.count(EncodeReject::EmptyMetric);
      continue;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      const PointView pv = point_view(m, i);
      if (!pv.attrs) continue;
      const Route& route = route_for(*pv.attrs);
      std::uint64_t h = XXH64(route.index.data(), route.index.size(), 0);
      h = mix(h, pv.ts);
      h = mix(h, pv.start);
      h = XXH64(m.unit.data(), m.unit.size(), h);
      for (const auto& kv : *pv.attrs) {
        h = XXH64(kv.key.data(), kv.key.size(), h);
        h = hash_value(kv.value, h, 1);
      }
      const auto pidx = static_cast<std::uint32_t>(points_.size());
      points_.push_back({&m, i, kNone});
      std::size_t slot = h & (cap - 1);
      for (;; slot = (slot + 1) & (cap - 1)) {
        const std::uint32_t g = table_[slot];
        if (g == kNone) {
          Group ng{};
          ng.hash = h;
          ng.head = ng.tail = pidx;
          ng.pool_off = static_cast<std::uint32_t>(pool_.size());
          ng.index_len = static_cast<std::uint32_t>(route.index.size());
          ng.dataset_len = static_cast<std::uint32_t>(route.dataset.size());
          ng.ns_len = static_cast<std::uint32_t>(route.ns.size());
          ng.data_stream = route.data_stream;
          pool_.append(route.index);
          if (route.data_stream) pool_.append(route.dataset).append(route.ns);
          table_[slot] = static_cast<std::uint32_t>(groups_.size());
          groups_.push_back(ng);
          break;
        }
        Group& grp = groups_[g];
        if (grp.hash != h) continue;
        const PointRef& rep = points_[grp.head];
        const PointView rv = point_view(*rep.metric, rep.index);
        if (rv.ts == pv.ts && rv.start == pv.start && rep.metric->unit == m.unit &&
            std::string_view(pool_).substr(grp.pool_off, grp.index_len) == route.index &&
            equal_attrs(*rv.attrs, *pv.attrs, 0)) {
          points_[grp.tail].next = pidx;
          grp.tail = pidx;
          break;
        }
      }
    }
  }

  std::string& o = out.data;
  for (const Group& g : groups_) {
    doc_.clear();
    templates_.clear();
    names_.clear();
    std::uint64_t doc_count = 0;
    doc_.append(",\"metrics\":{");
    for (std::uint32_t p = g.head; p != kNone; p = points_[p].next) {
      const PointRef& pr = points_[p];
      const std::string_view name = pr.metric->name;
      if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
        out.stats.count(EncodeReject::DuplicateMetricName);  // first wins
        continue;
      }
      const std::size_t mark = doc_.size();
      if (!names_.empty()) doc_.push_back(',');
      str(doc_, name);
      doc_.push_back(':');
      std::string_view tpl;
      if (!write_metric_value(doc_, *pr.metric, pr.index, tpl, doc_count, out.stats)) {
        doc_.resize(mark);
        continue;
      }
      if (!templates_.empty()) templates_.push_back(',');
      templates_.append("\"metrics.");
      escape_into(templates_, name);
      templates_.append("\":\"");
      templates_.append(tpl);
      templates_.push_back('"');
      names_.push_back(name);
    }
    if (names_.empty()) continue;  // every point rejected: no document
    doc_.push_back('}');
    if (doc_count) {
      doc_.append(",\"_doc_count\":");
      integer(doc_, doc_count);
    }
    std::sort(names_.begin(), names_.end());
    names_concat_.clear();
    for (auto n : names_) names_concat_.append(n);
    const std::uint64_t nh = XXH64(names_concat_.data(), names_concat_.size(), 0);
    doc_.append(",\"_metric_names_hash\":\"");
    for (int s = 60; s >= 0; s -= 4) doc_.push_back(kHex[(nh >> s) & 15]);
    doc_.push_back('"');

    const std::string_view pool(pool_);
    route_.index.assign(pool.substr(g.pool_off, g.index_len));
    route_.data_stream = g.data_stream;
    route_.type = "metrics";
    if (g.data_stream) {
      route_.dataset.assign(pool.substr(g.pool_off + g.index_len, g.dataset_len));
      route_.ns.assign(pool.substr(g.pool_off + g.index_len + g.dataset_len, g.ns_len));
    }
    begin_item(out, route_, {}, templates_);
    const PointRef& rep = points_[g.head];
    const PointView pv = point_view(*rep.metric, rep.index);
    o.append("{\"@timestamp\":");
    integer(o, pv.ts / 1000000);
    if (pv.start) {
      o.append(",\"start_timestamp\":");
      integer(o, pv.start / 1000000);
    }
    if (!rep.metric->unit.empty()) {
      o.append(",\"unit\":");
      str(o, rep.metric->unit);
    }
    write_data_stream(o, route_);
    bool first = false;
    write_attributes(o, first, *pv.attrs, true);
    o.push_back(',');
    o.append(resource_json_);
    o.push_back(',');
    o.append(scope_json_);
    o.append(doc_);
    o.push_back('}');
    end_item(out, static_cast<std::uint32_t>(names_.size()));
  }
}

bool Encoder::write_metric_value(std::string& o, const pdata::Metric& m, std::uint32_t i,
                                 std::string_view& tpl, std::uint64_t& doc_count, EncodeStats& stats) {
  using pdata::MetricType;
  switch (m.type) {
    case MetricType::Gauge:
    case MetricType::Sum: {
      const auto& p = m.number_points[i];
      const bool counter = m.type == MetricType::Sum && m.is_monotonic &&
                           m.temporality == pdata::AggregationTemporality::Cumulative;
      if (p.value_type == pdata::NumberType::Int) {
        integer(o, p.as_int);
        tpl = counter ? "counter_long" : "gauge_long";
      } else if (p.value_type == pdata::NumberType::Double) {
        if (!finite(p.as_double)) {
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        append_double(o, p.as_double);
        tpl = counter ? "counter_double" : "gauge_double";
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
      o.append("{\"sum\":");
      append_double(o, p.sum);
      o.append(",\"value_count\":");
      integer(o, p.count);
      o.push_back('}');
      tpl = "summary";
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
        o.append("{\"sum\":");
        append_double(o, sum);
        o.append(",\"value_count\":");
        integer(o, p.count);
        o.push_back('}');
        tpl = "summary";
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
          o.append("{\"counts\":[],\"values\":[]}");
        } else {
          const double v = p.sum / static_cast<double>(p.count);
          if (!finite(v)) {
            stats.count(EncodeReject::NanOrInf);
            return false;
          }
          o.append("{\"counts\":[");
          integer(o, p.count);
          o.append("],\"values\":[");
          append_double(o, v);
          o.append("]}");
        }
        tpl = "histogram";
        if (dc) doc_count = p.count;
        return true;
      }
      if (counts.size() != bounds.size() + 1) {
        stats.count(EncodeReject::BadHistogram);
        return false;
      }
      o.append("{\"counts\":[");
      bool f = true;
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        if (counts[b] == 0) continue;
        if (!f) o.push_back(',');
        f = false;
        integer(o, counts[b]);
        total += counts[b];
      }
      o.append("],\"values\":[");
      f = true;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        if (counts[b] == 0) continue;
        double v;
        if (b == 0)
          v = bounds[0] > 0 ? bounds[0] / 2 : bounds[0];
        else if (b == bounds.size())
          v = bounds[b - 1];
        else
          v = bounds[b - 1] + (bounds[b] - bounds[b - 1]) / 2;
        if (!finite(v)) {
          o.resize(mark);
          stats.count(EncodeReject::NanOrInf);
          return false;
        }
        if (!f) o.push_back(',');
        f = false;
        append_double(o, v);
      }
      o.append("]}");
      tpl = "histogram";
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
        o.append("{\"sum\":");
        append_double(o, sum);
        o.append(",\"value_count\":");
        integer(o, p.count);
        o.push_back('}');
        tpl = "summary";
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
        return lo + (hi - lo) / 2;
      };
      // Values first (may reject), into the tail of `o`; counts need the same order.
      const std::size_t mark = o.size();
      std::uint64_t total = 0;
      o.append("{\"counts\":[");
      bool f = true;
      auto emit_count = [&](std::uint64_t c) {
        if (!f) o.push_back(',');
        f = false;
        integer(o, c);
        total += c;
      };
      const auto& neg = p.negative.bucket_counts;
      const auto& pos = p.positive.bucket_counts;
      for (std::size_t k = neg.size(); k-- > 0;)
        if (neg[k]) emit_count(neg[k]);
      if (p.zero_count) emit_count(p.zero_count);
      for (std::size_t k = 0; k < pos.size(); ++k)
        if (pos[k]) emit_count(pos[k]);
      o.append("],\"values\":[");
      f = true;
      auto emit_value = [&](double v) {
        if (!finite(v)) return false;
        if (!f) o.push_back(',');
        f = false;
        append_double(o, v);
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
        o.resize(mark);
        stats.count(EncodeReject::NanOrInf);
        return false;
      }
      o.append("]}");
      tpl = "histogram";
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
