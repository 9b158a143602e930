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

struct Slicer {
  pdata::Signal signal;
  std::uint64_t lo, hi;
  std::uint64_t index = 0;  // items seen so far

  // Walks `msg` at `depth`; with `out`, appends the message reduced to the items in
  // [lo, hi) and adds how many of them it holds to `selected`.
  bool walk(std::string_view msg, int depth, std::string* out, std::uint64_t& selected) {
    while (!msg.empty()) {
      const char* const start = msg.data();
      wire::Field f;
      if (!wire::next_field(msg, f)) return false;
      const std::uint64_t field = f.number;
      const std::string_view payload = f.bytes;
      const std::string_view raw(start, static_cast<std::size_t>(msg.data() - start));
      if (f.type != wire::kLen || !is_child(signal, depth, field)) {
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
      wire::put_varint(*out, (field << 3) | wire::kLen);
      wire::put_varint(*out, sub.size());
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
