#include "processor/resourcedetection/resource_detection.h"
#include "text/ascii.h"

#include <netdb.h>
#include <spdlog/spdlog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace tern::processor {
namespace {

constexpr std::string_view kBlank = " \t";

std::string_view trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(kBlank);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kBlank) - b + 1);
}

// The first line of a small file, blanks trimmed; empty when unreadable.
std::string first_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return {};
  return std::string(trim(line));
}

// OpenTelemetry's host.arch values for the kernel's machine names.
std::string arch_name(const std::string& machine) {
  if (machine == "x86_64") return "amd64";
  if (machine == "aarch64" || machine == "arm64") return "arm64";
  if (machine == "i386" || machine == "i486" || machine == "i586" || machine == "i686") return "x86";
  if (machine.rfind("armv", 0) == 0) return "arm32";
  if (machine == "ppc64" || machine == "ppc64le") return "ppc64";
  if (machine == "ppc") return "ppc32";
  return machine;  // s390x, ia64, riscv64, ... as the kernel says
}

}  // namespace

std::optional<DetectedAttributes> parse_resource_attributes_env(std::string_view text, std::string& error) {
  DetectedAttributes out;
  if (trim(text).empty()) return out;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view pair = trim(text.substr(0, comma));
    // A trailing comma ends the list (the Collector's pattern takes `k=v,`): it threw away
    // every attribute.
    if (pair.empty() && comma == std::string_view::npos) break;
    const std::size_t eq = pair.find('=');
    const std::string_view key = eq == std::string_view::npos ? std::string_view() : trim(pair.substr(0, eq));
    if (key.empty()) {
      error = "\"" + std::string(pair) + "\" is not key=value";
      return std::nullopt;
    }
    const std::string_view raw = trim(pair.substr(eq + 1));
    std::string value;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '%') {
        value += raw[i];
        continue;
      }
      const int hi = i + 2 < raw.size() ? tern::text::hex_digit(raw[i + 1]) : -1;
      const int lo = i + 2 < raw.size() ? tern::text::hex_digit(raw[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        error = "the value of " + std::string(key) + " has a bad percent escape";
        return std::nullopt;
      }
      value += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    // A repeated key: the later value, as the Collector's map puts do.
    const auto same = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
    if (same != out.end())
      same->second = std::move(value);
    else
      out.emplace_back(std::string(key), std::move(value));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

SystemFacts read_system_facts(bool resolve_fqdn) {
  SystemFacts f;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) f.os_hostname = host;
  if (resolve_fqdn && !f.os_hostname.empty()) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_flags = AI_CANONNAME;
    addrinfo* res = nullptr;
    if (::getaddrinfo(f.os_hostname.c_str(), nullptr, &hints, &res) == 0 && res) {
      if (res->ai_canonname) f.fqdn = res->ai_canonname;
      ::freeaddrinfo(res);
    }
  }
  f.machine_id = first_line("/etc/machine-id");
  if (f.machine_id.empty()) f.machine_id = first_line("/var/lib/dbus/machine-id");
  utsname u{};
  if (::uname(&u) == 0) {
    f.machine = u.machine;
    f.os_release = u.release;
  }
  std::ifstream os("/etc/os-release");
  for (std::string line; std::getline(os, line);) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    f.pretty_name = v;
  }
  return f;
}

DetectedAttributes system_attributes(const processor::ResourceDetectionProcessorConfig& c,
                                     const SystemFacts& facts) {
  DetectedAttributes out;
  const auto enabled = [&](std::string_view name) {
    return std::find(c.system_attributes.begin(), c.system_attributes.end(), name) !=
           c.system_attributes.end();
  };
  if (enabled("host.name")) {
    for (const auto& source : c.hostname_sources) {
      const std::string& name = source == "dns" ? facts.fqdn : facts.os_hostname;
      if (name.empty()) continue;  // this source knows nothing: the next one
      out.emplace_back("host.name", name);
      break;
    }
  }
  if (enabled("host.id") && !facts.machine_id.empty()) out.emplace_back("host.id", facts.machine_id);
  if (enabled("host.arch") && !facts.machine.empty()) out.emplace_back("host.arch", arch_name(facts.machine));
  if (enabled("os.type")) out.emplace_back("os.type", "linux");
  if (enabled("os.description")) {
    std::string d = facts.pretty_name;
    if (!facts.os_release.empty())
      d += (d.empty() ? "Linux " : " (Linux ") + facts.os_release + (d.empty() ? "" : ")");
    if (!d.empty()) out.emplace_back("os.description", d);
  }
  return out;
}

processor::AttributesProcessorConfig detect_resource(const processor::ResourceDetectionProcessorConfig& c,
                                                     const std::string& id) {
  DetectedAttributes found;
  const auto add = [&](DetectedAttributes attrs) {
    for (auto& kv : attrs) {
      const bool seen =
          std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.first == kv.first; });
      if (!seen) found.push_back(std::move(kv));  // the first detector's value wins
    }
  };
  for (const auto& d : c.detectors) {
    if (d == "env") {
      const char* text = std::getenv("OTEL_RESOURCE_ATTRIBUTES");
      std::string error;
      if (auto attrs = parse_resource_attributes_env(text ? text : "", error))
        add(std::move(*attrs));
      else
        spdlog::warn("processor {}: OTEL_RESOURCE_ATTRIBUTES ignored: {}", id, error);
    } else if (d == "system") {
      const bool dns_first = !c.hostname_sources.empty() && c.hostname_sources.front() == "dns";
      add(system_attributes(c, read_system_facts(dns_first)));
    }
  }
  processor::AttributesProcessorConfig out;
  std::string listed;
  for (auto& [k, v] : found) {
    listed += (listed.empty() ? "" : ", ") + k + "=" + v;
    out.actions.push_back({k, v,
                           c.override_existing ? processor::AttributesProcessorConfig::Action::kUpsert
                                               : processor::AttributesProcessorConfig::Action::kInsert});
  }
  spdlog::info("processor {}: detected {}", id, listed.empty() ? "nothing" : listed);
  return out;
}

}  // namespace tern::processor
