#pragma once
// A pipeline (service.pipelines.<signal>[/name]): processors in order, then every
// exporter of the pipeline. And the fan-in/fan-out in front of it: a receiver feeds a
// ReceiverRouter, which hands each batch to every pipeline of its signal that lists the
// receiver (a copy for each extra pipeline when processors would change it).
#include <memory>
#include <string>
#include <vector>

#include "component/consumer.h"
#include "component/exporter.h"
#include "component/processor.h"
#include "pdata/signal.h"

namespace tern::pipeline {

using component::ConsumeCode;
using component::Consumer;
using component::ConsumeResult;
using component::Exporter;

class Pipeline final : public Consumer {
 public:
  Pipeline(std::string name, std::vector<std::shared_ptr<component::Processor>> processors,
           std::vector<std::shared_ptr<Exporter>> exporters)
      : name_(std::move(name)), processors_(std::move(processors)), exporters_(std::move(exporters)) {}

  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> batch) override;
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> batch) override;
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> batch) override;

  const std::string& name() const { return name_; }
  bool mutates() const;

 private:
  template <class Data, class Consume>
  ConsumeResult run(std::shared_ptr<Data> batch, Consume consume);

  std::string name_;
  std::vector<std::shared_ptr<component::Processor>> processors_;
  std::vector<std::shared_ptr<Exporter>> exporters_;
};

class ReceiverRouter final : public Consumer {
 public:
  void add(pdata::Signal signal, std::shared_ptr<Pipeline> pipeline);

  ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> batch) override;
  ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> batch) override;
  ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> batch) override;

 private:
  std::vector<std::shared_ptr<Pipeline>> logs_, traces_, metrics_;
};

// A deep copy with its own arena (through the protobuf codec, which copies every field).
std::shared_ptr<pdata::LogsData> clone(const pdata::LogsData& d);
std::shared_ptr<pdata::TracesData> clone(const pdata::TracesData& d);
std::shared_ptr<pdata::MetricsData> clone(const pdata::MetricsData& d);

}  // namespace tern::pipeline
