#include "otlp/proto_split.h"

#include "otlp/proto_wire.h"

namespace tern::otlp {
namespace {

// The envelopes down to an item:
//   request -> resource_{logs,spans,metrics} (1) -> scope_* (2) -> log_records / spans (2)
//   metrics: ... -> scope_metrics (2) -> metrics (2) -> gauge, sum, histogram,
//   exponential_histogram, summary (5, 7, 9, 10, 11) -> data_points (1)
bool is_child(pdata::Signal signal, int depth, std::uint64_t field) {
  switch (depth) {
    case 0:
      return field == 1;
    case 1:
    case 2:
      return field == 2;
    case 3:
      return signal == pdata::Signal::Metrics &&
             (field == 5 || field == 7 || field == 9 || field == 10 || field == 11);
    case 4:
      return signal == pdata::Signal::Metrics && field == 1;
  }
  return false;
}
int leaf_depth(pdata::Signal signal) { return signal == pdata::Signal::Metrics ? 5 : 3; }

bool read_varint(std::string_view in, std::size_t& pos, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(in[pos++]);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

struct Slicer {
  pdata::Signal signal;
  std::uint64_t lo, hi;
  std::uint64_t index = 0;  // items seen so far

  // Walks `msg` at `depth`; with `out`, appends the message reduced to the items in
  // [lo, hi) and adds how many of them it holds to `selected`.
  bool walk(std::string_view msg, int depth, std::string* out, std::uint64_t& selected) {
    std::size_t pos = 0;
    while (pos < msg.size()) {
      const std::size_t start = pos;
      std::uint64_t tag = 0;
      if (!read_varint(msg, pos, tag)) return false;
      const std::uint64_t field = tag >> 3;
      std::string_view payload;
      switch (tag & 7) {
        case wire::kVarint: {
          std::uint64_t v;
          if (!read_varint(msg, pos, v)) return false;
          break;
        }
        case wire::kFixed64:
          if (msg.size() - pos < 8) return false;
          pos += 8;
          break;
        case wire::kFixed32:
          if (msg.size() - pos < 4) return false;
          pos += 4;
          break;
        case wire::kLen: {
          std::uint64_t len;
          if (!read_varint(msg, pos, len) || len > msg.size() - pos) return false;
          payload = msg.substr(pos, len);
          pos += len;
          break;
        }
        default:
          return false;  // groups: not in OTLP
      }
      const std::string_view raw = msg.substr(start, pos - start);
      if ((tag & 7) != wire::kLen || !is_child(signal, depth, field)) {
        if (out) out->append(raw);
        continue;
      }
      if (depth + 1 == leaf_depth(signal)) {
        if (index >= lo && index < hi) {
          if (out) out->append(raw);
          ++selected;
        }
        ++index;
        continue;
      }
      if (!out) {
        std::uint64_t ignored = 0;
        if (!walk(payload, depth + 1, nullptr, ignored)) return false;
        continue;
      }
      std::string sub;
      std::uint64_t sub_selected = 0;
      if (!walk(payload, depth + 1, &sub, sub_selected)) return false;
      if (sub_selected == 0) continue;  // an envelope without items in the slice
      put_varint(*out, tag);
      put_varint(*out, sub.size());
      out->append(sub);
      selected += sub_selected;
    }
    return true;
  }
};

}  // namespace

std::optional<std::uint64_t> count_items(pdata::Signal signal, std::string_view request) {
  Slicer s{signal, 0, 0};
  std::uint64_t ignored = 0;
  if (!s.walk(request, 0, nullptr, ignored)) return std::nullopt;
  return s.index;
}

bool slice_items(pdata::Signal signal, std::string_view request, std::uint64_t lo, std::uint64_t hi,
                 std::string& out) {
  Slicer s{signal, lo, hi};
  std::uint64_t selected = 0;
  return s.walk(request, 0, &out, selected);
}

}  // namespace tern::otlp
