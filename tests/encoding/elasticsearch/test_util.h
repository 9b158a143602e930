#pragma once
// Shared helpers: pdata builders, NDJSON validation (simdjson) and JSON comparison.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "encoding/elasticsearch/encoder.h"
#include "support/json_keys.h"

namespace tern::encoding::es::test {

using Json = nlohmann::json;
using namespace tern::pdata;

inline EncoderConfig config(std::string logs = {}, std::string metrics = {}, std::string traces = {},
                            bool dynamic_id = false) {
  EncoderConfig c;
  c.logs_index = std::move(logs);
  c.metrics_index = std::move(metrics);
  c.traces_index = std::move(traces);
  c.logs_dynamic_id = dynamic_id;
  return c;
}

// How many items of `b` the encoder rejected for `r`.
inline std::uint64_t rejected(const EncodedBatch& b, EncodeReject r) {
  return b.stats.rejected[std::size_t(r)];
}

// An id of N bytes counting up from `first`.
template <std::size_t N>
std::array<std::uint8_t, N> id(std::uint8_t first) {
  std::array<std::uint8_t, N> x{};
  for (std::size_t i = 0; i < N; ++i) x[i] = static_cast<std::uint8_t>(first + i);
  return x;
}

// A time with every digit set: 2024-07-18T14:48:33.467654123Z.
inline constexpr std::uint64_t kT = 1721314113467654123ull;

inline KeyValue kv(const Arena& a, std::string_view k, AnyValue v) { return {a.copy(k), v}; }
inline AnyValue s(const Arena& a, std::string_view v) { return AnyValue::string(a.copy(v)); }
inline AnyValue kvlist(const Arena& a, std::initializer_list<KeyValue> items) {
  auto* l = a.make<Vec<KeyValue>>(a.vec<KeyValue>());
  for (const auto& i : items) l->push_back(i);
  return AnyValue::make_kvlist(l);
}
inline AnyValue array(const Arena& a, std::initializer_list<AnyValue> items) {
  auto* l = a.make<Vec<AnyValue>>(a.vec<AnyValue>());
  for (const auto& i : items) l->push_back(i);
  return AnyValue::make_array(l);
}

// Every line of every item must be valid JSON (simdjson).
inline void expect_valid(const EncodedBatch& b) {
  simdjson::dom::parser parser;
  std::size_t expect_offset = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    ASSERT_EQ(b.items[i].offset, expect_offset);
    expect_offset += b.stored(i).size();
    if (b.items[i].shares_action()) {  // an action line written earlier in the buffer
      ASSERT_LT(b.items[i].action_at, b.items[i].offset);
      ASSERT_EQ(b.action(i).substr(0, 10), "{\"create\":");
    }
    for (std::string_view line : {b.action(i), b.document(i)}) {
      ASSERT_FALSE(line.empty());
      ASSERT_EQ(line.back(), '\n');
      line.remove_suffix(1);
      ASSERT_EQ(line.find('\n'), std::string_view::npos);
      simdjson::padded_string p(line);
      simdjson::dom::element e;
      auto err = parser.parse(p).get(e);
      ASSERT_EQ(err, simdjson::SUCCESS) << line;
      ASSERT_TRUE(e.is_object()) << line;
    }
  }
  ASSERT_EQ(expect_offset, b.data.size());
}

// No object of any document (at any depth) has the same key twice.
inline void expect_no_duplicate_keys(const EncodedBatch& b) {
  simdjson::dom::parser parser;
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::string_view line = b.document(i);
    line.remove_suffix(1);
    simdjson::padded_string p(line);
    simdjson::dom::element e;
    ASSERT_EQ(parser.parse(p).get(e), simdjson::SUCCESS) << line;
    EXPECT_FALSE(tern::test::repeats_a_key(e)) << "duplicate key in " << line;
  }
}

// One resource with one scope; add() appends a record to it.
struct LogsFixture {
  LogsData d;
  ResourceLogs* rl;
  ScopeLogs* sl;
  LogsFixture() {
    rl = &d.resource_logs.emplace_back(d.arena);
    sl = &rl->scope_logs.emplace_back(d.arena);
  }
  LogRecord& add() { return sl->log_records.emplace_back(d.arena); }
  EncodedBatch encode(EncoderConfig cfg = {}) {
    EncodedBatch b;
    Encoder(cfg).encode_logs(d, b);
    expect_valid(b);
    return b;
  }
};

// `shared` (encoded with share_action_lines) is `plain` (encoded without) item for item,
// in no more bytes; items copied out of it (retries, splits) are inline again.
inline void expect_shared_equivalent(const EncodedBatch& shared, const EncodedBatch& plain) {
  expect_valid(shared);
  ASSERT_EQ(shared.size(), plain.size());
  std::string ndjson;  // the bulk NDJSON, action line then document line per item
  for (std::size_t i = 0; i < shared.size(); ++i) ndjson.append(shared.action(i)).append(shared.document(i));
  EXPECT_EQ(ndjson, plain.data);
  EXPECT_LE(shared.data.size(), plain.data.size());
  EncodedBatch copy;
  for (std::size_t i = 0; i < shared.size(); ++i) {
    EXPECT_EQ(shared.items[i].size, plain.items[i].size);
    EXPECT_EQ(shared.items[i].action_size, plain.items[i].action_size);
    EXPECT_EQ(shared.items[i].events, plain.items[i].events);
    copy.append_item(shared, i);
    EXPECT_FALSE(copy.items.back().shares_action());
  }
  EXPECT_EQ(copy.data, plain.data);
}

inline EncoderConfig sharing(EncoderConfig c) {
  c.share_action_lines = true;
  return c;
}

inline Json doc(const EncodedBatch& b, std::size_t i) {
  auto d = b.document(i);
  return Json::parse(d.substr(0, d.size() - 1));
}
inline Json action(const EncodedBatch& b, std::size_t i) {
  auto d = b.action(i);
  return Json::parse(d.substr(0, d.size() - 1));
}
inline std::string doc_text(const EncodedBatch& b, std::size_t i) {
  auto d = b.document(i);
  return std::string(d.substr(0, d.size() - 1));
}

}  // namespace tern::encoding::es::test
