#include "config/reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tern::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

YAML::Mark mark_of(const YAML::Node& root, std::initializer_list<std::string_view> path) {
  YAML::Node node;
  node.reset(root);  // reset() rebinds; operator= would assign into the config's own tree
  for (const auto key : path) {
    if (!node.IsMap()) break;
    const YAML::Node child = std::as_const(node)[std::string(key)];  // const: creates nothing
    if (!child.IsDefined()) break;
    node.reset(child);
  }
  return node.Mark();
}

std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_d && d < c.size()) best_d = d, best = c;
  }
  return best.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", best);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// ---- component decoders; each reads a mapping at `r` and validates it ----

void check_host_port(DecodeContext& ctx, const MapReader& r, std::string_view key, const std::string& value) {
  auto colon = value.rfind(':');
  std::string_view host =
      colon == std::string::npos ? std::string_view() : std::string_view(value).substr(0, colon);
  std::string_view port =
      colon == std::string::npos ? std::string_view() : std::string_view(value).substr(colon + 1);
  const std::optional<unsigned> p = tern::text::parse_whole<unsigned>(port);
  bool ok = colon != std::string::npos && p && *p <= 65535 && value.find("://") == std::string::npos;
  if (ok && host.find(':') != std::string_view::npos) ok = host.starts_with('[') && host.ends_with(']');
  if (!ok) {
    ctx.error(r.mark(key), fmt::format("{}: expected host:port (e.g. \"127.0.0.1:4318\"), got \"{}\"",
                                       r.sub_path(key), value));
  }
}

void check_backoff(DecodeContext& ctx, MapReader& rt, Duration initial, Duration max) {
  if (initial < std::chrono::milliseconds(1))
    ctx.error(rt.mark("initial_interval"),
              fmt::format("{}: initial_interval must be at least 1ms", rt.path()));
  else if (max < initial)
    ctx.error(rt.mark("max_interval"),
              fmt::format("{}: max_interval must not be smaller than initial_interval", rt.path()));
}

std::optional<std::string> file_unreadable(const std::string& key_path, const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    return fmt::format("{}: {} is a directory, not a file", key_path, file);
  std::ifstream in(file, std::ios::binary);
  if (!in) return fmt::format("{}: cannot read {}: {}", key_path, file, std::strerror(errno));
  return std::nullopt;
}

// Usable: an existing directory Tern may write in, or one it can create (its nearest
// existing ancestor is a writable directory). Nothing is created here.
std::optional<std::string> directory_unusable(const std::string& key_path, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return fmt::format("{}: {}: {}", key_path, dir, ec.message());
  while (!p.empty()) {
    const auto st = fs::status(p, ec);
    if (fs::exists(st)) {
      if (!fs::is_directory(st)) return fmt::format("{}: {} is not a directory", key_path, p.string());
      if (::access(p.c_str(), W_OK | X_OK) != 0)
        return fmt::format("{}: cannot write in {}: {}", key_path, p.string(), std::strerror(errno));
      return std::nullopt;
    }
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return fmt::format("{}: {} cannot be created", key_path, dir);
}

}  // namespace tern::config
