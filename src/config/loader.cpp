#include "config/loader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "config/reader.h"

namespace tern::config {
namespace {

struct Defined {
  YAML::Mark mark;
  std::vector<Signal> signals;
  bool used = false;
  std::string signals_note;  // why a component handles fewer signals than its type
};
using DefinedMap = std::map<std::string, Defined>;

// Decodes one of receivers/processors/exporters/extensions into `out`, each section by the
// catalog's type of its kind.
DefinedMap decode_section(DecodeContext& ctx, MapReader& top, const Catalog& catalog, Kind kind,
                          std::vector<StorageRequest>& storage, std::vector<ComponentConfig>& out) {
  DefinedMap defined;
  const std::string section_name(section(kind));
  MapReader sec(ctx, top.get(section_name), section_name);
  const std::vector<std::string> type_names = catalog.names(kind);
  for (auto& e : sec.entries()) {
    const YAML::Mark at = e.key_node.Mark();
    ComponentConfig comp;
    auto slash = e.key.find('/');
    comp.id.type = e.key.substr(0, slash);
    if (slash != std::string::npos) comp.id.name = e.key.substr(slash + 1);
    if (comp.id.type.empty() || (slash != std::string::npos && comp.id.name.empty())) {
      ctx.error(at, fmt::format("invalid {} id \"{}\" (expected type or type/name)", to_string(kind), e.key));
      continue;
    }
    const ComponentType* type = catalog.find(kind, comp.id.type);
    if (!type) {
      ctx.error(at,
                fmt::format("unknown {} type \"{}\" in {} (known types: {}){}", to_string(kind), comp.id.type,
                            section_name, join(type_names), suggest(comp.id.type, type_names)));
      continue;
    }
    MapReader r(ctx, e.value, section_name + "." + e.key);
    comp.type = type;
    comp.data = type->decode(ctx, r, at, comp.id, storage);
    comp.data_type = type->settings_type();
    const YAML::Mark where = e.value.IsNull() ? at : e.value.Mark();  // its section, else its key
    comp.line = where.line >= 0 ? where.line + 1 : 0;
    comp.column = where.column >= 0 ? where.column + 1 : 0;
    Defined d{at, {}, false, {}};
    d.signals = type->signals_of(comp.data.get(), d.signals_note);
    defined[e.key] = std::move(d);
    out.push_back(std::move(comp));
  }
  return defined;
}

// Reads a pipeline's receivers/processors/exporters list and checks every reference.
void decode_refs(DecodeContext& ctx, MapReader& p, Kind kind, Signal signal, const std::string& pipeline,
                 DefinedMap& defined, std::vector<std::string>& out) {
  const std::string key(section(kind));
  YAML::Node list = p.get(key);
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) return ctx.error(list.Mark(), fmt::format("{}: expected a list", p.sub_path(key)));
  std::vector<std::string> names;
  for (const auto& [name, d] : defined) names.push_back(name);
  for (const auto& item : list) {
    auto id = ctx.scalar(item, p.sub_path(key));
    if (!id) continue;
    if (std::find(out.begin(), out.end(), *id) != out.end()) {
      ctx.error(item.Mark(),
                fmt::format("{} \"{}\" is listed twice in pipeline \"{}\"", to_string(kind), *id, pipeline));
      continue;
    }
    out.push_back(*id);
    auto d = defined.find(*id);
    if (d == defined.end()) {
      ctx.error(item.Mark(), fmt::format("pipeline \"{}\" references {} \"{}\" which is not defined in {}{}",
                                         pipeline, to_string(kind), *id, key, suggest(*id, names)));
      continue;
    }
    d->second.used = true;
    if (std::find(d->second.signals.begin(), d->second.signals.end(), signal) == d->second.signals.end()) {
      ctx.error(item.Mark(), fmt::format("{} \"{}\" does not support {} (pipeline \"{}\"){}", to_string(kind),
                                         *id, pdata::to_string(signal), pipeline, d->second.signals_note));
    }
  }
}

// Tern batches in an exporter's queue (the `batch` processor sizes its consumers' batches)
// and keeps one queue per exporter, so an exporter shared by pipelines batches as the first
// of them says. Pipelines that batch differently are told, not silently merged.
void warn_shared_batching(DecodeContext& ctx, MapReader& pipes, const Config& cfg) {
  const auto batching = [&](const Pipeline& p) {
    std::optional<std::string> b;
    for (const auto& id : p.processors)
      if (const auto* pc = cfg.find(Kind::kProcessor, id))
        if (auto asked = pc->type->batching(pc->data.get())) b = std::move(asked);
    return b;
  };
  const auto batches = [&](const std::string& exporter) {
    const auto* ec = cfg.find(Kind::kExporter, exporter);
    return ec && ec->type->batches();
  };
  std::map<std::string, const Pipeline*> first_user;  // exporter id -> first pipeline using it
  for (const auto& p : cfg.pipelines) {
    for (const auto& ex : p.exporters) {
      if (!batches(ex)) continue;
      auto [it, inserted] = first_user.emplace(ex, &p);
      if (inserted || batching(*it->second) == batching(p)) continue;
      const std::string id = p.id();
      ctx.warning(pipes.has(id) ? pipes.mark(id) : YAML::Mark::null_mark(),
                  fmt::format("pipeline \"{}\" batches differently from pipeline \"{}\", and both export to "
                              "\"{}\": Tern batches in the exporter's queue, one per exporter, so \"{}\" "
                              "batches as \"{}\" says; give \"{}\" an exporter of its own (e.g. {}/{}) to "
                              "batch it differently",
                              id, it->second->id(), ex, ex, it->second->id(), id, ex.substr(0, ex.find('/')),
                              p.name.empty() ? std::string(pdata::to_string(p.signal)) : p.name));
    }
  }
}

// Resolves the components' references to storage extensions (file_storage): each gets the
// extension's directory. Returns the uses, for the service.extensions check.
std::vector<const StorageRequest*> resolve_storage(DecodeContext& ctx, const Config& cfg,
                                                   const Catalog& catalog,
                                                   const std::vector<StorageRequest>& requests,
                                                   DefinedMap& extensions) {
  std::vector<std::string> names;  // the storage extensions
  for (const auto& ext : cfg.extensions)
    if (ext.type->provides_storage()) names.push_back(ext.id.str());
  std::vector<const StorageRequest*> uses;
  for (const auto& req : requests) {
    const auto* ext = cfg.find(Kind::kExtension, req.extension_id);
    const auto dir = ext ? ext->type->storage_directory(ext->data.get()) : std::nullopt;
    if (dir) {
      if (auto d = extensions.find(req.extension_id); d != extensions.end()) d->second.used = true;
      req.resolve(*dir);
      uses.push_back(&req);
      continue;
    }
    // A plain directory, unless it looks like a storage extension's id (one not defined).
    const auto* type = catalog.find(Kind::kExtension, req.extension_id.substr(0, req.extension_id.find('/')));
    if (req.or_directory && !(type && type->provides_storage())) continue;
    ctx.error(req.mark, fmt::format("{}: \"{}\" is not a file_storage extension defined in extensions{}",
                                    req.key_path, req.extension_id, suggest(req.extension_id, names)));
  }
  return uses;
}

void decode_config(DecodeContext& ctx, const YAML::Node& root, const Catalog& catalog, Config& cfg) {
  if (!root.IsDefined() || root.IsNull()) {
    ctx.error(YAML::Mark::null_mark(), "the config is empty");
    return;
  }
  MapReader top(ctx, root, "");
  if (!root.IsMap()) return;

  std::map<Kind, DefinedMap> defined;
  std::vector<StorageRequest> storage;
  for (const Kind kind : {Kind::kReceiver, Kind::kProcessor, Kind::kExporter, Kind::kExtension})
    defined[kind] = decode_section(ctx, top, catalog, kind, storage, cfg.of(kind));
  const auto storage_uses = resolve_storage(ctx, cfg, catalog, storage, defined[Kind::kExtension]);
  // Checks across the components of one type (each type once, in catalog order).
  for (const auto* type : catalog.types) {
    std::vector<const ComponentConfig*> same;
    for (const auto& c : cfg.of(type->kind()))
      if (c.type == type) same.push_back(&c);
    if (!same.empty()) type->check_together(ctx, same);
  }

  YAML::Node service_node = top.get("service");
  if (!service_node.IsDefined() || service_node.IsNull()) {
    ctx.error(root.Mark(), "the config has no service section (it defines the pipelines)");
  } else {
    MapReader service(ctx, service_node, "service");
    YAML::Node ext = service.get("extensions");
    if (ext.IsSequence()) {
      std::vector<std::string> names;
      for (const auto& [name, d] : defined[Kind::kExtension]) names.push_back(name);
      for (const auto& item : ext) {
        auto id = ctx.scalar(item, "service.extensions");
        if (!id) continue;
        if (std::find(cfg.service_extensions.begin(), cfg.service_extensions.end(), *id) !=
            cfg.service_extensions.end()) {
          ctx.error(item.Mark(), fmt::format("extension \"{}\" is listed twice in service.extensions", *id));
          continue;
        }
        auto d = defined[Kind::kExtension].find(*id);
        if (d == defined[Kind::kExtension].end()) {
          ctx.error(item.Mark(),
                    fmt::format("service.extensions references extension \"{}\" which is not defined in "
                                "extensions{}",
                                *id, suggest(*id, names)));
        } else {
          d->second.used = true;
        }
        cfg.service_extensions.push_back(*id);
      }
    } else if (ext.IsDefined() && !ext.IsNull()) {
      ctx.error(ext.Mark(), "service.extensions: expected a list");
    }
    // Tern uses the directory of a file_storage extension that a component names whether or
    // not service.extensions lists it; the Collector starts only listed extensions and
    // refuses such a config. Said once per key, where the key names the extension.
    for (const auto* use : storage_uses) {
      if (std::find(cfg.service_extensions.begin(), cfg.service_extensions.end(), use->extension_id) ==
          cfg.service_extensions.end())
        ctx.warning(use->mark, fmt::format("{} names extension \"{}\", which service.extensions does not "
                                           "list (Tern uses it anyway; the OpenTelemetry Collector refuses "
                                           "this config): add it to service.extensions",
                                           use->key_path, use->extension_id));
    }

    YAML::Node pipes_node = service.get("pipelines");
    MapReader pipes(ctx, pipes_node, "service.pipelines");
    for (auto& e : pipes.entries()) {
      const YAML::Mark at = e.key_node.Mark();
      Pipeline p;
      auto slash = e.key.find('/');
      std::string sig = e.key.substr(0, slash);
      if (slash != std::string::npos) p.name = e.key.substr(slash + 1);
      if (slash != std::string::npos && p.name.empty()) {
        ctx.error(at, fmt::format("invalid pipeline id \"{}\" (expected signal or signal/name)", e.key));
        continue;
      }
      if (const auto s = pdata::parse_signal(sig)) {
        p.signal = *s;
      } else {
        ctx.error(
            at, fmt::format("unknown pipeline signal type \"{}\" in service.pipelines (expected logs, traces "
                            "or metrics){}",
                            sig, suggest(sig, {"logs", "traces", "metrics"})));
        continue;
      }
      MapReader pr(ctx, e.value, "service.pipelines." + e.key);
      decode_refs(ctx, pr, Kind::kReceiver, p.signal, e.key, defined[Kind::kReceiver], p.receivers);
      decode_refs(ctx, pr, Kind::kProcessor, p.signal, e.key, defined[Kind::kProcessor], p.processors);
      decode_refs(ctx, pr, Kind::kExporter, p.signal, e.key, defined[Kind::kExporter], p.exporters);
      if (p.receivers.empty()) ctx.error(at, fmt::format("pipeline \"{}\" has no receivers", e.key));
      if (p.exporters.empty()) ctx.error(at, fmt::format("pipeline \"{}\" has no exporters", e.key));
      cfg.pipelines.push_back(std::move(p));
    }
    if (pipes.entries().empty()) {
      ctx.error(service.has("pipelines") ? service.mark("pipelines") : service_node.Mark(),
                "service.pipelines must define at least one pipeline");
    }
    warn_shared_batching(ctx, pipes, cfg);

    MapReader tel(ctx, service.get("telemetry"), "service.telemetry");
    {
      using T = Telemetry;
      MapReader logs(ctx, tel.get("logs"), "service.telemetry.logs");
      logs.choice("level", cfg.telemetry.log_level,
                  {{"debug", T::Level::kDebug},
                   {"info", T::Level::kInfo},
                   {"warn", T::Level::kWarn},
                   {"error", T::Level::kError}},
                  /*any_case=*/true);
      logs.choice("encoding", cfg.telemetry.log_encoding,
                  {{"console", T::Encoding::kConsole}, {"json", T::Encoding::kJson}});
      MapReader metrics(ctx, tel.get("metrics"), "service.telemetry.metrics");
      metrics.str("address", cfg.telemetry.metrics_address);
      check_host_port(ctx, metrics, "address", cfg.telemetry.metrics_address);
      // The Collector's verbosity of its own metrics: `none` turns the endpoint off; Tern has
      // one set of metrics, so the other levels all serve it.
      bool serve = true;
      metrics.choice("level", serve,
                     {{"none", false}, {"basic", true}, {"normal", true}, {"detailed", true}});
      if (!serve) cfg.telemetry.metrics_address.clear();
    }
    service.duration("shutdown_timeout", cfg.shutdown_timeout);
  }

  auto warn_unused = [&](Kind kind, const char* where) {
    for (const auto& [name, d] : defined[kind]) {
      if (!d.used)
        ctx.warning(d.mark,
                    fmt::format("{} \"{}\" is defined but not used in {}", to_string(kind), name, where));
    }
  };
  warn_unused(Kind::kReceiver, "any pipeline");
  warn_unused(Kind::kProcessor, "any pipeline");
  warn_unused(Kind::kExporter, "any pipeline");
  warn_unused(Kind::kExtension, "service.extensions");
}

}  // namespace

LoadResult load_config_string(std::string_view yaml, const std::string& file, const Catalog& catalog,
                              const LoadOptions& options) {
  LoadResult result;
  DecodeContext ctx(file, options.env, result.diagnostics);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    ctx.error(e.mark, fmt::format("YAML syntax error: {}", e.msg));
    return result;
  }
  try {
    decode_config(ctx, root, catalog, result.config);
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws on some odd node shapes (e.g. aliases to the wrong kind); report, don't crash.
    ctx.error(e.mark, fmt::format("invalid config: {}", e.msg));
  }
  if (options.check_environment) ctx.run_environment_checks();
  // Decoders report as they go (unknown keys only when a mapping is done), so put the
  // errors in file order, then the warnings, which is how people read and fix them.
  std::stable_sort(result.diagnostics.items.begin(), result.diagnostics.items.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return std::tie(a.severity, a.line, a.column) < std::tie(b.severity, b.line, b.column);
                   });
  return result;
}

LoadResult load_config_file(const std::string& path, const Catalog& catalog, const LoadOptions& options) {
  const auto failed = [&](const std::string& why) {
    LoadResult result;
    result.diagnostics.add(Severity::kError, path, 0, 0, "cannot read the config file: " + why);
    return result;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return failed("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult result;
    result.diagnostics.add(Severity::kError, path, 0, 0,
                           fmt::format("cannot open the config file: {}", std::strerror(errno)));
    return result;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return failed(std::strerror(errno));
  return load_config_string(ss.str(), path, catalog, options);
}

}  // namespace tern::config
