#include "processor/resourcedetection/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::join;
using config::MapReader;
using config::suggest;

// `resourcedetection`: Tern has the Collector's `env` and `system` detectors; the others ask
// cloud or container APIs and are refused by name.
void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, ResourceDetectionProcessorConfig& c) {
  static const std::vector<std::string> kDetectors{"env", "system"};
  static const std::vector<std::string> kSystemAttributes{"host.name", "host.id", "host.arch", "os.type",
                                                          "os.description"};
  // The Collector's other detectors, named as such rather than "did you mean env".
  static const std::set<std::string> kCollectorOnly{
      "aks",       "akamai",      "alibaba_ecs", "azure",   "consul",  "digitalocean",
      "docker",    "dynatrace",   "ec2",         "ecs",     "eks",     "elasticbeanstalk",
      "gcp",       "heroku",      "hetzner",     "k8snode", "kubeadm", "lambda",
      "openshift", "oraclecloud", "scaleway",    "upcloud", "vultr"};
  r.strings("detectors", c.detectors);
  for (const auto& d : c.detectors) {
    if (std::find(kDetectors.begin(), kDetectors.end(), d) != kDetectors.end()) continue;
    if (kCollectorOnly.count(d))
      ctx.error(r.mark("detectors"),
                fmt::format("{}: detector \"{}\" is not in Tern, which has env and system only (set such "
                            "attributes with a resource processor)",
                            r.sub_path("detectors"), d));
    else
      ctx.error(r.mark("detectors"), fmt::format("{}: unknown detector \"{}\" (Tern has: env, system){}",
                                                 r.sub_path("detectors"), d, suggest(d, kDetectors)));
  }
  if (c.detectors.empty())
    ctx.error(r.has("detectors") ? r.mark("detectors") : at,
              fmt::format("{}: detectors must list at least one detector (env, system)", r.path()));
  r.boolean("override", c.override_existing);
  Duration timeout{};
  r.duration("timeout", timeout);  // detection here is local and does not wait on anything
  MapReader sys(ctx, r.get("system"), r.sub_path("system"));
  sys.strings("hostname_sources", c.hostname_sources);
  for (const auto& src : c.hostname_sources) {
    if (src != "dns" && src != "os")
      ctx.error(sys.mark("hostname_sources"),
                fmt::format("{}: hostname source \"{}\" is not one Tern has (it has: dns, os)",
                            sys.sub_path("hostname_sources"), src));
  }
  if (sys.has("hostname_sources") && c.hostname_sources.empty())
    ctx.error(sys.mark("hostname_sources"),
              fmt::format("{}: hostname_sources must not be empty", sys.sub_path("hostname_sources")));
  MapReader attrs(ctx, sys.get("resource_attributes"), sys.sub_path("resource_attributes"));
  for (auto& e : attrs.entries()) {
    MapReader one(ctx, e.value, attrs.sub_path(e.key));
    if (std::find(kSystemAttributes.begin(), kSystemAttributes.end(), e.key) == kSystemAttributes.end()) {
      one.entries();  // the attribute is what is wrong, not its keys
      ctx.error(e.key_node.Mark(),
                fmt::format("{}: the system detector in Tern has no attribute \"{}\" (it has: {}){}",
                            attrs.path(), e.key, join(kSystemAttributes),
                            // host.ip, os.version, ...: the Collector's, not a misspelling
                            e.key.starts_with("host.") || e.key.starts_with("os.")
                                ? std::string()
                                : suggest(e.key, kSystemAttributes)));
      continue;
    }
    auto& on = c.system_attributes;
    bool enabled = std::find(on.begin(), on.end(), e.key) != on.end();
    one.boolean("enabled", enabled);
    on.erase(std::remove(on.begin(), on.end(), e.key), on.end());
    if (enabled) on.push_back(e.key);
  }
}

}  // namespace tern::processor
