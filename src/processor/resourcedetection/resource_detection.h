#pragma once
// The `resourcedetection` processor's detectors (`env`, `system`): what they find, once at
// start-up, becomes a `resource` processor's actions (upsert with `override`, else insert).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "processor/attributes/config.h"
#include "processor/resourcedetection/config.h"

namespace tern::processor {

using DetectedAttributes = std::vector<std::pair<std::string, std::string>>;

// OTEL_RESOURCE_ATTRIBUTES: `key=value` pairs split by ',', blanks around them trimmed,
// values percent-decoded. As the OpenTelemetry spec says, a malformed value is discarded
// whole: nullopt, with `error` saying why.
std::optional<DetectedAttributes> parse_resource_attributes_env(std::string_view text, std::string& error);

// What the system detector reads about this host (read_system_facts), apart for tests.
struct SystemFacts {
  std::string os_hostname;  // gethostname()
  std::string fqdn;         // the canonical name of os_hostname (getaddrinfo); empty if unknown
  std::string machine_id;   // /etc/machine-id (or /var/lib/dbus/machine-id); empty if unknown
  std::string machine;      // uname's machine, e.g. x86_64
  std::string os_release;   // uname's release, e.g. 6.1.0-18-amd64
  std::string pretty_name;  // PRETTY_NAME of /etc/os-release, e.g. Debian GNU/Linux 12 (bookworm)
};
// `resolve_fqdn`: ask the resolver for the canonical name (hostname_sources has dns first).
SystemFacts read_system_facts(bool resolve_fqdn);

// The enabled system attributes from `facts`: host.name (by hostname_sources), host.id,
// host.arch (semantic-convention names: amd64, arm64, ...), os.type ("linux"),
// os.description ("<PRETTY_NAME> (Linux <release>)"). Unknown facts give no attribute.
DetectedAttributes system_attributes(const processor::ResourceDetectionProcessorConfig& c,
                                     const SystemFacts& facts);

// Runs the configured detectors on this host, in order (the first value of a key wins), and
// returns the resource processor's actions.
processor::AttributesProcessorConfig detect_resource(const processor::ResourceDetectionProcessorConfig& c,
                                                     const std::string& id);

}  // namespace tern::processor
