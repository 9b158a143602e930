#include "pipeline/pipeline.h"

#include "otlp/proto_codec.h"

namespace tern::pipeline {

bool Pipeline::mutates() const {
  for (const auto& p : processors_)
    if (p->mutates()) return true;
  return false;
}

namespace {
// Folds the answer of one more consumer of a batch into `into`: the first refusal is the
// answer (consumers that took the batch keep it: the client's retry duplicates there, at
// least once); among acceptances, the largest partial rejection (each consumer counts the
// same items: a sum would count an item twice).
void fold(ConsumeResult& into, ConsumeResult&& r) {
  if (!into.accepted()) return;
  if (!r.accepted() || r.rejected > into.rejected) into = std::move(r);
}
}  // namespace

template <class Data, class Consume>
ConsumeResult Pipeline::run(std::shared_ptr<Data> batch, Consume consume) {
  for (const auto& p : processors_) {
    ConsumeResult r = p->process(*batch);
    if (!r.accepted()) return r;
  }
  // Every exporter gets the batch (fold: which answer the client gets).
  ConsumeResult result = ConsumeResult::ok();
  for (const auto& e : exporters_) fold(result, consume(*e, batch));
  return result;
}

ConsumeResult Pipeline::consume_logs(std::shared_ptr<pdata::LogsData> batch) {
  return run(std::move(batch), [](Consumer& c, auto b) { return c.consume_logs(std::move(b)); });
}
ConsumeResult Pipeline::consume_traces(std::shared_ptr<pdata::TracesData> batch) {
  return run(std::move(batch), [](Consumer& c, auto b) { return c.consume_traces(std::move(b)); });
}
ConsumeResult Pipeline::consume_metrics(std::shared_ptr<pdata::MetricsData> batch) {
  return run(std::move(batch), [](Consumer& c, auto b) { return c.consume_metrics(std::move(b)); });
}

void ReceiverRouter::add(pdata::Signal signal, std::shared_ptr<Pipeline> pipeline) {
  switch (signal) {
    case pdata::Signal::Logs:
      logs_.push_back(std::move(pipeline));
      break;
    case pdata::Signal::Traces:
      traces_.push_back(std::move(pipeline));
      break;
    case pdata::Signal::Metrics:
      metrics_.push_back(std::move(pipeline));
      break;
  }
}

namespace {
template <class Data, class Consume>
ConsumeResult fan_out(const std::vector<std::shared_ptr<Pipeline>>& pipelines, std::shared_ptr<Data> batch,
                      Consume consume) {
  if (pipelines.empty())
    return {ConsumeCode::kInvalid, "no pipeline takes this signal from this receiver", {}, 0};
  ConsumeResult result = ConsumeResult::ok();
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    const bool last = i + 1 == pipelines.size();
    // A pipeline that changes batches gets its own copy unless it is the last user.
    auto b = (!last && pipelines[i]->mutates()) ? clone(*batch) : batch;
    fold(result, consume(*pipelines[i], std::move(b)));
  }
  return result;
}

template <class Data, class Enc, class Dec>
std::shared_ptr<Data> clone_via_proto(const Data& d, Enc enc, Dec dec) {
  std::string bytes;
  enc(d, bytes);
  auto out = std::make_shared<Data>();
  const std::string_view view = out->arena.hold(std::move(bytes));
  dec(view, *out, otlp::DecodeOptions{});  // cannot fail: our own encoder wrote it
  out->delivery = d.delivery;               // the copy is settled with the original
  return out;
}
}  // namespace

ConsumeResult ReceiverRouter::consume_logs(std::shared_ptr<pdata::LogsData> batch) {
  return fan_out(logs_, std::move(batch), [](Pipeline& p, auto b) { return p.consume_logs(std::move(b)); });
}
ConsumeResult ReceiverRouter::consume_traces(std::shared_ptr<pdata::TracesData> batch) {
  return fan_out(traces_, std::move(batch),
                 [](Pipeline& p, auto b) { return p.consume_traces(std::move(b)); });
}
ConsumeResult ReceiverRouter::consume_metrics(std::shared_ptr<pdata::MetricsData> batch) {
  return fan_out(metrics_, std::move(batch),
                 [](Pipeline& p, auto b) { return p.consume_metrics(std::move(b)); });
}

std::shared_ptr<pdata::LogsData> clone(const pdata::LogsData& d) {
  return clone_via_proto(d, otlp::encode_logs_proto, [](std::string_view in, auto& out, const auto& o) {
    return otlp::decode_logs_proto(in, out, o);
  });
}
std::shared_ptr<pdata::TracesData> clone(const pdata::TracesData& d) {
  return clone_via_proto(d, otlp::encode_traces_proto, [](std::string_view in, auto& out, const auto& o) {
    return otlp::decode_traces_proto(in, out, o);
  });
}
std::shared_ptr<pdata::MetricsData> clone(const pdata::MetricsData& d) {
  return clone_via_proto(d, otlp::encode_metrics_proto, [](std::string_view in, auto& out, const auto& o) {
    return otlp::decode_metrics_proto(in, out, o);
  });
}

}  // namespace tern::pipeline
