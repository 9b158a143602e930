#include <algorithm>
#include <cstdio>
#include <syncstream>

#include "tern/sdk/logs/exporters.h"

namespace tern::sdk::logs {

namespace {

void WriteValue(std::ostream& out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
      out << '"' << v.as_string() << '"';
      break;
    case ValueKind::kBool:
      out << (v.as_bool() ? "true" : "false");
      break;
    case ValueKind::kInt:
      out << v.as_int();
      break;
    case ValueKind::kDouble:
      out << v.as_double();
      break;
    case ValueKind::kEmpty:
      out << "null";
      break;
  }
}

template <std::size_t N>
void WriteHex(std::ostream& out, const std::array<std::uint8_t, N>& id) {
  char buf[2 * N + 1];
  for (std::size_t i = 0; i < N; ++i) std::snprintf(buf + 2 * i, 3, "%02x", id[i]);
  out.write(buf, 2 * N);
}

template <std::size_t N>
bool IsZero(const std::array<std::uint8_t, N>& id) {
  return std::all_of(id.begin(), id.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace

ExportResult OStreamLogRecordExporter::Export(const LogRecordBatchView& batch) const noexcept {
  try {
    std::osyncstream out(*out_);
    for (const auto& entry : batch) {
      const LogRecord& r = *entry.record;
      out << "ts=" << r.timestamp() << " observed=" << r.observed_timestamp()
          << " severity=" << static_cast<int>(r.severity());
      if (!r.severity_text().empty()) out << " severity_text=" << r.severity_text();
      out << " scope=" << entry.scope->name;
      if (!r.event_name().empty()) out << " event=" << r.event_name();
      out << " body=";
      WriteValue(out, r.body());
      for (const auto& a : r.attributes()) {
        out << ' ' << a.key << '=';
        WriteValue(out, a.value);
      }
      if (r.dropped_attributes_count() != 0) out << " dropped_attributes=" << r.dropped_attributes_count();
      if (!IsZero(r.trace_id())) {
        out << " trace_id=";
        WriteHex(out, r.trace_id());
        out << " span_id=";
        WriteHex(out, r.span_id());
        out << " flags=" << static_cast<int>(r.trace_flags());
      }
      out << '\n';
    }
    out.emit();
    return out.good() ? ExportResult::kSuccess : ExportResult::kFailure;  // emit() sets failbit on error
  } catch (...) {
    return ExportResult::kFailure;
  }
}

InMemoryLogRecordExporter::~InMemoryLogRecordExporter() {
  const Node* n = head_.load(std::memory_order_acquire);
  while (n != nullptr) {
    const Node* next = n->next;
    delete n;
    n = next;
  }
}

ExportResult InMemoryLogRecordExporter::Export(const LogRecordBatchView& batch) const noexcept {
  auto* node = new Node;
  node->records.reserve(batch.size());
  for (const auto& entry : batch)
    node->records.push_back(Record{LogRecordData(*entry.record), entry.scope->name, entry.scope->version});
  node->next = head_.load(std::memory_order_relaxed);
  while (
      !head_.compare_exchange_weak(node->next, node, std::memory_order_release, std::memory_order_relaxed)) {
  }
  record_count_.fetch_add(batch.size(), std::memory_order_release);
  return ExportResult::kSuccess;
}

std::vector<const InMemoryLogRecordExporter::Node*> InMemoryLogRecordExporter::NodesInOrder() const {
  std::vector<const Node*> nodes;
  for (const Node* n = head_.load(std::memory_order_acquire); n != nullptr; n = n->next) nodes.push_back(n);
  std::reverse(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<InMemoryLogRecordExporter::Record> InMemoryLogRecordExporter::records() const {
  std::vector<Record> out;
  for (const Node* n : NodesInOrder()) out.insert(out.end(), n->records.begin(), n->records.end());
  return out;
}

std::vector<std::size_t> InMemoryLogRecordExporter::batch_sizes() const {
  std::vector<std::size_t> out;
  for (const Node* n : NodesInOrder()) out.push_back(n->records.size());
  return out;
}

}  // namespace tern::sdk::logs
