#pragma once
// The component seam. A factory is a component type (config/component.h: its name, signals,
// stability, and the decoder that reads and checks its config section) plus `create`, which
// builds a component from its checked config. Every factory is listed once, in
// service/components.cpp; nothing else in the service knows a component by name.
#include <memory>

#include "component/consumer.h"
#include "component/exporter.h"
#include "component/extension.h"
#include "component/processor.h"
#include "component/receiver.h"
#include "config/component.h"

namespace tern::component {

using config::ComponentConfig;
using config::Kind;
using config::Signal;
using config::Stability;

class ReceiverFactory : public config::ComponentType {
 public:
  Kind kind() const final { return Kind::kReceiver; }
  // `next`: the pipelines the receiver feeds; it outlives the receiver.
  virtual std::unique_ptr<Receiver> create(const ComponentConfig& c, Consumer& next) const = 0;
};

class ProcessorFactory : public config::ComponentType {
 public:
  Kind kind() const final { return Kind::kProcessor; }
  // Called for each pipeline that lists the processor when per_pipeline(), else once per id.
  virtual std::shared_ptr<Processor> create(const ComponentConfig& c) const = 0;
  // One instance per pipeline (a memory_limiter measures each pipeline on its own).
  virtual bool per_pipeline() const { return false; }
};

class ExporterFactory : public config::ComponentType {
 public:
  Kind kind() const final { return Kind::kExporter; }
  // One instance per id, shared by every pipeline that lists it. `batch`: the batching of
  // the first pipeline that lists it (see BatchSettings). Throws with a reason when the
  // exporter cannot be built (a TLS file it cannot load, a queue directory it cannot use).
  virtual std::shared_ptr<Exporter> create(const ComponentConfig& c, const BatchSettings& batch) const = 0;
};

class ExtensionFactory : public config::ComponentType {
 public:
  Kind kind() const final { return Kind::kExtension; }
  std::vector<std::pair<Signal, Stability>> signals() const final { return {}; }
  virtual std::unique_ptr<Extension> create(const ComponentConfig& c, Host& host) const = 0;
};

// The signal sets most types have.
inline std::vector<std::pair<Signal, Stability>> all_signals(Stability s) {
  return {{Signal::Logs, s}, {Signal::Traces, s}, {Signal::Metrics, s}};
}

}  // namespace tern::component
