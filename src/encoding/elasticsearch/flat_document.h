#pragma once
// The document model of the OpenTelemetry Collector's "none" and "raw" mapping modes (its
// objmodel package), for Tern's `mapping.mode: none | raw`.
//
// A document is a list of fields named by dotted paths: nested maps are flattened
// (`Attributes.http.request.method`), then the fields are sorted by path (as the JSON
// text it is written as: keys that differ only in invalid UTF-8 are one key), de-duplicated
// (of equal paths the last one added wins; a scalar whose path is also an object's prefix
// is renamed `<path>.value`) and written de-dotted, as nested objects. Unlike the otel
// mode this needs a sort, so a document cannot stream straight out: its fields are
// collected here first, as views into the pdata plus keys and text in buffers reused from
// one document to the next, so steady-state encoding still allocates nothing.
//
// Where the Collector's model would write a key twice (a scalar `a` beside an object `a`
// when another key sorts between them, e.g. `a`, `a-b`, `a.c`; or a renamed `a.value`
// meeting an object `a.value`), this one renames again: no object ever has a duplicate key.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pdata/common.h"
#include "text/json_writer.h"

namespace tern::encoding::es {

using text::JsonWriter;
namespace json = text::json;

class FlatDocument {
 public:
  FlatDocument();
  ~FlatDocument();
  FlatDocument(const FlatDocument&) = delete;
  FlatDocument& operator=(const FlatDocument&) = delete;

  void clear();

  // "2006-01-02T15:04:05.000000000Z" (UTC, always nine fraction digits).
  void add_timestamp(std::string_view key, std::uint64_t unix_nano);
  // Nothing when `v` is empty (as the Collector's AddString).
  void add_string(std::string_view key, std::string_view v);
  // Written even when empty (scope name and version).
  void add_string_always(std::string_view key, std::string_view v);
  // Lowercase hex; nothing when the id is all zero.
  template <std::size_t N>
  void add_id(std::string_view key, const std::array<std::uint8_t, N>& id) {
    if (!pdata::is_zero(id)) add_hex(key, id.data(), N);
  }
  void add_int(std::string_view key, std::int64_t v);
  // A value that is JSON text already (an object written by another FlatDocument), written
  // as is. `json` must outlive write().
  void add_fragment(std::string_view key, std::string_view json);
  // Text the document keeps a copy of (a span's links as JSON text); nothing when empty.
  void add_text(std::string_view key, std::string_view text);
  // A value under `key`: a map is flattened into `key.<k>`; empty and bytes values are
  // dropped (the Collector's model has no bytes kind).
  void add_value(std::string_view key, const pdata::AnyValue& v);
  // Each attribute under `prefix.<key>`, or `<key>` when `prefix` is empty.
  void add_attributes(std::string_view prefix, const pdata::Attributes& attrs);

  // Sorts, de-duplicates and writes the document as one JSON object.
  void write(JsonWriter& w);
  bool empty() const { return fields_.empty(); }

 private:
  enum class Kind : std::uint8_t { Ignore, String, Text, Int, Double, Bool, Timestamp, Array, Fragment };
  struct Field {
    std::uint64_t head;  // the key's first 8 bytes, big-endian: most comparisons end here
    std::uint32_t key_off, key_len;
    std::uint32_t seq;  // insertion order: equal paths keep it through the sort
    Kind kind;
    union {
      std::int64_t i;
      double d;
      bool b;
      std::uint64_t ts;
      const pdata::Vec<pdata::AnyValue>* array;
      std::uint32_t text_off;
    };
    std::uint32_t text_len = 0;
    std::string_view s;  // String; Fragment: JSON text written as is
  };
  // The field paths, back to back, as the JSON text they are written as (escaped). Grown
  // without zero-filling what is reused, and always kSlack bytes longer than the keys, so
  // that comparisons may load 8 bytes at any key's start.
  class KeyBuffer {
   public:
    static constexpr std::size_t kSlack = 8;
    std::uint32_t size() const { return static_cast<std::uint32_t>(len_); }
    const char* data() const { return buf_.data(); }
    void clear() { len_ = 0; }
    // At least n writable bytes at the end; commit() the end of what was written.
    char* room(std::size_t n) {
      if (len_ + n + kSlack > buf_.size()) buf_.resize(2 * buf_.size() + n + kSlack + 64);
      return buf_.data() + len_;
    }
    void commit(const char* end) { len_ = static_cast<std::size_t>(end - buf_.data()); }
    void append(std::string_view s) { commit(json::raw(room(s.size()), s)); }
    void append_own(std::uint32_t off, std::uint32_t len) {  // a copy of keys already here
      char* d = room(len);
      std::memcpy(d, buf_.data() + off, len);
      commit(d + len);
    }

   private:
    std::string buf_;
    std::size_t len_ = 0;
  };

  // A new field named `prefix.key` (prefix: a range of keys_, or none).
  Field& push(std::uint32_t prefix_off, std::uint32_t prefix_len, std::string_view key, Kind kind);
  Field& push(std::string_view key, Kind kind);
  void append_key(std::string_view k);  // to keys_, JSON-escaped
  void add_hex(std::string_view key, const std::uint8_t* id, std::size_t n);
  void add_value_at(std::uint32_t prefix_off, std::uint32_t prefix_len, std::string_view key,
                    const pdata::AnyValue& v, int depth);
  void add_attributes_at(std::uint32_t prefix_off, std::uint32_t prefix_len, const pdata::Attributes& attrs,
                         int depth);
  std::string_view key(const Field& f) const { return {keys_.data() + f.key_off, f.key_len}; }
  void set_head(Field& f) const;
  bool less(const Field& a, const Field& b) const;
  void sort();
  void dedup();
  void write_dedotted(JsonWriter& w, int depth);
  void write_value(JsonWriter& w, const Field& f, int depth);
  // Room write_scalar needs for `f`; 0 for values written through write_value (arrays,
  // long strings).
  std::size_t scalar_room(const Field& f) const;
  char* write_scalar(char* d, const Field& f) const;
  void write_array(JsonWriter& w, const pdata::Vec<pdata::AnyValue>* a, int depth);
  FlatDocument& child();  // the document for maps inside this one's arrays

  std::vector<Field> fields_;
  KeyBuffer keys_;
  std::string text_;
  std::unique_ptr<FlatDocument> child_;
};

// `unix_nano` as "2006-01-02T15:04:05.000000000Z", no quotes. Room: kRfc3339NanoRoom.
constexpr std::size_t kRfc3339NanoRoom = 32;
char* rfc3339_nano(char* d, std::uint64_t unix_nano);

}  // namespace tern::encoding::es
