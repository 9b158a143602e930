#include "receiver/filelog/factory.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "receiver/filelog/config.h"
#include "receiver/filelog/filelog_receiver.h"

namespace tern::receiver::filelog {
namespace {

using component::MetricSample;

class Component final : public component::Receiver {
 public:
  Component(std::string id, const FilelogReceiverConfig& c, component::Consumer& next)
      : id_(id), receiver_(std::move(id), c, next) {}

  void start() override { receiver_.start(); }
  void shutdown() override { receiver_.shutdown(); }

  void collect_metrics(std::vector<MetricSample>& out) const override {
    const auto s = receiver_.stats();
    const std::string l = "receiver=\"" + component::escape_label(id_) + "\"";
    auto add = [&](const char* name, std::uint64_t v, const char* help, bool counter = true) {
      out.push_back({name, l, static_cast<double>(v), help, counter});
    };
    add("tern_filelog_lines_read_total", s.lines_read, "Lines read from files (log records made)");
    add("tern_filelog_bytes_read_total", s.bytes_read, "Bytes read from files");
    add("tern_filelog_lines_truncated_total", s.lines_truncated, "Lines cut to max_log_size");
    add("tern_filelog_files_open", s.files_open, "Files followed", false);
    add("tern_filelog_batches_sent_total", s.batches_sent, "Batches of lines accepted by the pipeline");
    add("tern_filelog_batches_refused_total", s.batches_refused, "Batches refused (back-pressure), resent");
    add("tern_filelog_batches_invalid_total", s.batches_invalid, "Batches refused as invalid (skipped)");
    add("tern_filelog_json_errors_total", s.json_errors, "Lines that were not a JSON object");
    add("tern_filelog_operator_errors_total", s.operator_errors, "Records on which an operator failed");
    add("tern_filelog_records_dropped_total", s.records_dropped,
        "Records dropped by an operator's on_error: drop");
    add("tern_filelog_file_errors_total", s.file_errors, "Files that could not be opened or read");
    add("tern_filelog_checkpoint_errors_total", s.checkpoint_errors, "Failed checkpoint writes");
  }

 private:
  std::string id_;
  FilelogReceiver receiver_;
};

// The checkpoint file of a receiver: <storage>/filelog-<id, '/' as '_'>.json.
std::string checkpoint_file(const config::ComponentConfig& c) {
  std::string file = c.id.str();
  std::replace(file.begin(), file.end(), '/', '_');
  return (std::filesystem::path(c.settings<FilelogReceiverConfig>().storage) / ("filelog-" + file + ".json"))
      .lexically_normal()
      .string();
}

class Factory final : public config::TypedComponent<FilelogReceiverConfig, component::ReceiverFactory> {
 public:
  std::string_view type() const override { return "filelog"; }
  std::string_view description() const override { return "tails files; lines become log records"; }
  std::vector<std::pair<config::Signal, config::Stability>> signals() const override {
    return {{config::Signal::Logs, config::Stability::kBeta}};
  }
  std::unique_ptr<component::Receiver> create(const config::ComponentConfig& c,
                                              component::Consumer& next) const override {
    return std::make_unique<Component>(c.id.str(), c.settings<FilelogReceiverConfig>(), next);
  }

  // Two ids that map to one checkpoint file (filelog/a/b, filelog/a_b) would overwrite each
  // other's checkpoint and read their files again after a restart.
  void check_together(config::DecodeContext& ctx,
                      const std::vector<const config::ComponentConfig*>& all) const override {
    std::map<std::string, std::string> owner;  // checkpoint path -> receiver id
    for (const auto* c : all) {
      if (c->settings<FilelogReceiverConfig>().storage.empty()) continue;
      const std::string path = checkpoint_file(*c);
      auto [it, inserted] = owner.emplace(path, c->id.str());
      if (!inserted)
        ctx.error(config::DecodeContext::mark_at(c->line, c->column),
                  fmt::format("receivers.{}: its checkpoint file {} is also that of receivers.{} (ids that "
                              "differ only by '/' and '_'); rename one of them",
                              c->id.str(), path, it->second));
    }
  }

 protected:
  void decode_settings(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at,
                       const config::ComponentId&, FilelogReceiverConfig& c,
                       std::vector<config::StorageRequest>& storage) const override {
    filelog::decode(ctx, r, at, c);
    if (c.storage.empty()) return;
    // The Collector's form names a file_storage extension; any other value is the directory
    // itself (Tern's first form).
    storage.push_back({r.own_mark("storage"), r.sub_path("storage"), c.storage,
                       [&c](const std::string& dir) { c.storage = dir; }, /*or_directory=*/true});
    ctx.check_environment(r.mark("storage"), [&c, key = r.sub_path("storage")] {
      return config::directory_unusable(key, c.storage);
    });
  }
};

}  // namespace

const component::ReceiverFactory& factory() {
  static const Factory f;
  return f;
}

}  // namespace tern::receiver::filelog
