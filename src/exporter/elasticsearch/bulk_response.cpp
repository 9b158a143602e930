#include "exporter/elasticsearch/bulk_response.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tern::exporter::es {

namespace {
// The common answer, every item indexed, recognized on the bytes without parsing them (most
// responses, ~60 bytes per document; parsing them item by item cost ~70 ns per item): the
// exact compact layout Elasticsearch writes for kBulkFilterPath when every item succeeded,
//   {"items":[{"create":{"_index":"...","status":201}},{"index":{"status":200}}]}
// Only its colons are looked at (about three per item, found 16 bytes at a time): each must
// be an item's `{"create":{` or `{"index":{`, then optionally its `"_index":"`, then its
// `"status":200` or `201` closing the item (`}}` and `,` or the final `]}`); `expected`
// items. Anything else (a failure, an error, another key, another layout, another count) is
// parsed. The bytes between colons are not validated: a 2xx body in this shape is taken at
// its word, as one starting `{"errors":false` was before; the fuzz target checks that a
// body which is JSON reads the same when parsed. Not inlined into parse(): its speed then
// does not depend on how parse()'s slow path is laid out (inlined, it ran 10 % slower after
// that path changed, with the same instructions).
[[gnu::noinline]] bool every_item_indexed(std::string_view body, std::size_t expected) {
  constexpr std::string_view kHead = R"({"items":[)", kTail = "]}";
  // Every item starts `{"`: its first colon (which must be its action's) follows; a
  // request has at least one item.
  if (expected == 0 || body.size() < kHead.size() + 2 + kTail.size() ||
      body.substr(0, kHead.size()) != kHead || body.substr(kHead.size(), 2) != R"({")" ||
      body.substr(body.size() - kTail.size()) != kTail)
    return false;
  const char* const begin = body.data();
  const char* const end = begin + body.size();
  const auto before = [&](const char* c, std::string_view key) {
    return c - begin >= static_cast<std::ptrdiff_t>(key.size()) &&
           std::memcmp(c - key.size(), key.data(), key.size()) == 0;
  };
  std::size_t items = 0;
  bool in_item = false;  // an item's action key came, its status not yet
  const auto visit = [&](const char* c) {
    if (end - c < 8) return false;
    if (c[1] == '{' && (before(c, R"({"create")") || before(c, R"({"index")"))) {
      if (in_item || ++items > expected) return false;
      in_item = true;
      return true;
    }
    if (!in_item) return false;
    if (c[1] == '"' && before(c, R"("_index")")) return true;
    if (!before(c, R"("status")")) return false;
    const char* v = c + 1;  // 200}}, or 201}}]}
    if (v[0] != '2' || v[1] != '0' || (v[2] != '0' && v[2] != '1') || v[3] != '}' || v[4] != '}')
      return false;
    if (v + 5 != end - kTail.size() && (end - v < 8 || v[5] != ',' || v[6] != '{' || v[7] != '"'))
      return false;
    in_item = false;
    return true;
  };
  const char* p = begin + kHead.size();  // after the ':' of `"items":[`
#if defined(__SSE2__)
  const __m128i colon = _mm_set1_epi8(':');
  for (; end - p >= 16; p += 16) {
    auto m = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), colon)));
    for (; m; m &= m - 1)
      if (!visit(p + __builtin_ctz(m))) return false;
  }
#endif
  for (; p < end; ++p)
    if (*p == ':' && !visit(p)) return false;
  return !in_item && items == expected;
}
}  // namespace

bool BulkResponseParser::parse(std::string& body, std::size_t expected) {
  namespace dom = simdjson::dom;
  results_.clear();
  all_indexed_ = false;
  if (every_item_indexed(body, expected)) {
    all_indexed_ = true;
    return true;
  }
  // Only this path parses: pad the body for simdjson here, not on every response. The DOM
  // parser validates the whole body: a 2xx whose items read well but whose JSON breaks after
  // them is not an answer (On-Demand stopped reading at the items and settled every item of
  // such a body by its status: 400s dead-lettered, never sent again).
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  dom::element doc;
  if (parser_.parse(body.data(), body.size(), false).get(doc)) return false;
  dom::array items;
  if (doc["items"].get_array().get(items)) return false;
  if (items.size() != expected) return false;  // fewer or more items than were sent
  for (dom::element item_v : items) {
    dom::object item;
    if (item_v.get_object().get(item) || item.size() != 1) return false;
    // Each item is {"<action>": {...}}: the one field's value holds the result.
    dom::object inner;
    if ((*item.begin()).value.get_object().get(inner)) return false;
    BulkItemResult res;
    std::string_view index;  // the parser's, until the next parse: copied for failures only
    for (const auto f : inner) {
      if (f.key == "status") {
        std::int64_t st;
        if (f.value.get_int64().get(st)) return false;
        if (st <= 0 || st > 999) return false;  // not an HTTP status
        res.status = static_cast<int>(st);
      } else if (f.key == "_index") {
        if (f.value.get_string().get(index)) index = {};
      } else if (f.key == "error") {
        dom::object err;
        if (f.value.get_object().get(err)) continue;
        std::string_view ev;
        if (!err["type"].get_string().get(ev)) res.type = ev;
        if (!err["reason"].get_string().get(ev)) res.reason = ev;
      }
    }
    if (res.status == 0) return false;
    if (res.status >= 300)
      res.index = index;  // only kept for failures (dead letter): a
                          // copy per success was an allocation per item
    results_.push_back(std::move(res));
  }
  return true;
}

}  // namespace tern::exporter::es
