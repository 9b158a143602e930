#pragma once
// EncodedBatch: events already encoded for an output (early encoding), as one
// contiguous buffer plus item boundaries. The export path concatenates whole
// buffers; per-item retries and 413 splits pick items by index and reuse the bytes.
// Encoders append to a batch; queues hold batches; exporters send them.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tern::encoding {

// Why an event (or part of it) was not encoded. Counted, never silently dropped.
enum class EncodeReject : std::uint8_t {
  NanOrInf,             // a metric value that is NaN or +-Inf: left out of its document
  CumulativeHistogram,  // cumulative (exponential) histograms are not supported by ES histograms
  DuplicateMetricName,  // second data point with the same metric name in one document
  BadHistogram,         // bucket counts/bounds shape does not match
  EmptyMetric,          // metric with no data kind set
  UnsupportedMode,      // the configured mapping mode cannot encode this signal
  BodyNotMap,           // bodymap mode: a log record whose body is not a map has no document
  BadDataStreamType,    // bodymap mode: `data_stream.type` is neither "logs" nor "metrics"
  OutputTooLarge,       // the scope's documents would take the output past its bound (encoder.h)
  DocumentIdTooLong,    // logs_dynamic_id: an `_id` over 512 bytes, which fails the whole bulk request
  kCount
};

constexpr const char* to_string(EncodeReject r) {
  switch (r) {
    case EncodeReject::NanOrInf: return "nan_or_inf";
    case EncodeReject::CumulativeHistogram: return "cumulative_histogram";
    case EncodeReject::DuplicateMetricName: return "duplicate_metric_name";
    case EncodeReject::BadHistogram: return "bad_histogram";
    case EncodeReject::EmptyMetric: return "empty_metric";
    case EncodeReject::UnsupportedMode: return "unsupported_mode";
    case EncodeReject::BodyNotMap:
      return "body_not_map";
    case EncodeReject::BadDataStreamType:
      return "bad_data_stream_type";
    case EncodeReject::OutputTooLarge:
      return "output_too_large";
    case EncodeReject::DocumentIdTooLong:
      return "document_id_too_long";
    case EncodeReject::kCount: break;
  }
  return "unknown";
}

struct EncodeStats {
  std::array<std::uint64_t, static_cast<std::size_t>(EncodeReject::kCount)> rejected{};
  void count(EncodeReject r, std::uint64_t n = 1) { rejected[static_cast<std::size_t>(r)] += n; }
  std::uint64_t total_rejected() const {
    std::uint64_t t = 0;
    for (auto v : rejected) t += v;
    return t;
  }
  void merge(const EncodeStats& o) {
    for (std::size_t i = 0; i < rejected.size(); ++i) rejected[i] += o.rejected[i];
  }
};

// One bulk item: `action_size` bytes of action line (with its '\n'), then the
// document line (with its '\n'), `size` bytes in all on the wire.
//  - inline (`action_at == kInlineAction`): both lie at `offset`, back to back;
//  - shared action: only the document lies at `offset`; the action line is an identical
//    one written earlier in the same buffer, at `action_at` (an encoder option: a queued
//    batch then holds each distinct action line once, not once per document).
struct EncodedItem {
  static constexpr std::uint32_t kInlineAction = UINT32_MAX;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  std::uint32_t action_size = 0;
  std::uint32_t events = 1;  // telemetry events this item carries (metrics: data points)
  std::uint32_t action_at = kInlineAction;
  bool shares_action() const { return action_at != kInlineAction; }
};

struct EncodedBatch {
  std::string data;
  std::vector<EncodedItem> items;
  EncodeStats stats;

  void clear() {
    data.clear();
    items.clear();
    stats = {};
  }
  bool empty() const { return items.empty(); }
  std::size_t size() const { return items.size(); }
  std::size_t bytes() const { return data.size(); }
  // The bytes item `i` has at its own offset: action line and document when inline, the
  // document alone when it shares an action line.
  std::string_view stored(std::size_t i) const {
    const EncodedItem& it = items[i];
    return {data.data() + it.offset, it.shares_action() ? it.size - it.action_size : it.size};
  }
  std::string_view action(std::size_t i) const {
    const EncodedItem& it = items[i];
    return {data.data() + (it.shares_action() ? it.action_at : it.offset), it.action_size};
  }
  std::string_view document(std::size_t i) const {
    const EncodedItem& it = items[i];
    return {data.data() + it.offset + (it.shares_action() ? 0 : it.action_size), it.size - it.action_size};
  }
  std::uint64_t event_count() const {
    std::uint64_t n = 0;
    for (const auto& it : items) n += it.events;
    return n;
  }
  // Appends item `i` of `other`, inline (used to build retry and split batches from
  // encoded bytes).
  void append_item(const EncodedBatch& other, std::size_t i) {
    EncodedItem it = other.items[i];
    it.offset = static_cast<std::uint32_t>(data.size());
    it.action_at = EncodedItem::kInlineAction;
    data.append(other.action(i)).append(other.document(i));
    items.push_back(it);
  }
};

}  // namespace tern::encoding
