#pragma once
// Baseline "objmodel" encoder: the same otel-mode documents built as an
// nlohmann::ordered_json tree per document, then dump()ed. Written plainly, the
// way an intermediate-object-model exporter would. Covers the rules the
// benchmark and the equivalence test use; geo merging is not implemented. With
// MappingMode::BodyMap, logs are the bodymap documents (the map body as the tree); with
// None, Raw or Ecs, logs and spans are built as the Collector builds them (objmodel_flat.cpp).
#include "encoding/elasticsearch/encoder.h"

namespace tern::bench {

class ObjModelEncoder {
 public:
  explicit ObjModelEncoder(encoding::es::EncoderConfig config) : config_(std::move(config)) {}
  void encode_logs(const pdata::LogsData& logs, encoding::EncodedBatch& out);
  void encode_traces(const pdata::TracesData& traces, encoding::EncodedBatch& out);
  void encode_metrics(const pdata::MetricsData& metrics, encoding::EncodedBatch& out);

 private:
  void encode_logs_bodymap(const pdata::LogsData& logs, encoding::EncodedBatch& out);
  void encode_logs_flat(const pdata::LogsData& logs, encoding::EncodedBatch& out);
  void encode_traces_flat(const pdata::TracesData& traces, encoding::EncodedBatch& out);
  void encode_logs_ecs(const pdata::LogsData& logs, encoding::EncodedBatch& out);
  void encode_traces_ecs(const pdata::TracesData& traces, encoding::EncodedBatch& out);
  encoding::es::EncoderConfig config_;
};

}  // namespace tern::bench
