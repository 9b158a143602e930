#pragma once
// The ecs mapping mode's field names (ecs_mode.cpp): which semantic-convention attributes
// take which Elastic Common Schema names, and the fields ECS derives from resource
// attributes, as the OpenTelemetry Collector's ecs mode has them. Shared with the
// benchmark's object-model baseline, which builds the same documents the plain way.
#include <cstddef>
#include <string>
#include <string_view>

#include "pdata/common.h"
#include "pdata/trace.h"

namespace tern::encoding::es::ecs {

// What becomes of an attribute: written under `to` (`skip`: not written at all); `preserve`
// writes it under its own name too; `unless_present`: not under `to` when the same
// attributes already hold `to` (host.name beside an explicit host.hostname).
struct EcsConversion {
  std::string_view from, to;
  bool skip = false, preserve = false, unless_present = false;
};

// Resource attributes: semantic conventions (1.22 to 1.38) to ECS, as the Collector maps them.
inline constexpr EcsConversion kResourceConversions[] = {
    {"service.instance.id", "service.node.name"},
    {"deployment.environment", "service.environment"},
    {"deployment.environment.name", "service.environment"},
    {"telemetry.sdk.name", {}, true},  // these five make agent.name and agent.version
    {"telemetry.sdk.language", {}, true},
    {"telemetry.sdk.version", {}, true},
    {"telemetry.distro.name", {}, true},
    {"telemetry.distro.version", {}, true},
    {"cloud.platform", "cloud.service.name"},
    {"container.image.tags", "container.image.tag"},
    {"host.name", "host.hostname", false, true, true},
    {"host.arch", "host.architecture"},
    {"process.parent_pid", "process.parent.pid"},
    {"process.executable.name", "process.title"},
    {"process.executable.path", "process.executable"},
    {"process.command_line", "process.args"},
    {"process.runtime.name", "service.runtime.name"},
    {"process.runtime.version", "service.runtime.version"},
    {"os.name", "host.os.name"},
    {"os.type", "host.os.platform"},
    {"os.description", "host.os.full"},
    {"os.version", "host.os.version"},
    {"client.address", "client.ip"},
    {"source.address", "source.ip"},
    {"k8s.deployment.name", "kubernetes.deployment.name"},
    {"k8s.namespace.name", "kubernetes.namespace"},
    {"k8s.node.name", "kubernetes.node.name"},
    {"k8s.pod.name", "kubernetes.pod.name"},
    {"k8s.pod.uid", "kubernetes.pod.uid"},
    {"k8s.job.name", "kubernetes.job.name"},
    {"k8s.cronjob.name", "kubernetes.cronjob.name"},
    {"k8s.statefulset.name", "kubernetes.statefulset.name"},
    {"k8s.replicaset.name", "kubernetes.replicaset.name"},
    {"k8s.daemonset.name", "kubernetes.daemonset.name"},
    {"k8s.container.name", "kubernetes.container.name"},
    {"k8s.cluster.name", "orchestrator.cluster.name"},
    {"faas.instance", "faas.id"},
    {"faas.trigger", "faas.trigger.type"},
};

inline constexpr EcsConversion kLogConversions[] = {
    {"event.name", "event.action"},
    {"exception.message", "error.message"},
    {"exception.stacktrace", "error.stacktrace"},
    {"exception.type", "error.type"},
    {"exception.escaped", "event.error.exception.handled"},
    {"http.response.body.size", "http.response.encoded_body_size"},
};

// messaging.destination.name's target depends on the span (span_queue_key).
inline constexpr EcsConversion kSpanConversions[] = {
    {"messaging.destination.name", {}},     {"messaging.operation.name", "span.action"},
    {"db.system", "span.db.type"},          {"db.namespace", "span.db.instance"},
    {"db.query.text", "span.db.statement"}, {"http.response.body.size", "http.response.encoded_body_size"},
};

template <std::size_t N>
inline const EcsConversion* find_conversion(const EcsConversion (&table)[N], std::string_view key) {
  for (const auto& c : table)
    if (c.from == key) return &c;
  return nullptr;
}

// agent.name: "<telemetry.sdk.name>[/<language>[/<telemetry.distro.name>]]", "otlp" without
// an SDK name; a distro without a language says "unknown". Into `out`.
void agent_name(const pdata::Attributes& resource, std::string& out);
// agent.version: telemetry.distro.version, else telemetry.sdk.version; "" without either.
std::string_view agent_version(const pdata::Attributes& resource);
// host.os.type from os.type and os.name: linux, windows, macos, unix, android or ios; ""
// for any other system (ECS: "should not be populated").
std::string_view host_os_type(const pdata::Attributes& resource);
// span.kind: INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER; "" for unspecified.
std::string_view span_kind(pdata::SpanKind k);
// The first attribute called `key`, or null.
const pdata::AnyValue* find(const pdata::Attributes& attrs, std::string_view key);
// A value as Go's Value.Str() reads it: a string's text, "" for any other kind or none.
std::string_view str(const pdata::AnyValue* v);

}  // namespace tern::encoding::es::ecs
