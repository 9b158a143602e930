#pragma once
// Problems found while loading a configuration. Loading never stops at the first
// problem: every one is collected so `tern validate` can show them all at once.
#include <string>
#include <vector>

namespace tern::config {

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;
  int line = 0;  // 1-based; 0 when the position is unknown
  int column = 0;
  std::string message;

  // "file:line:col: error: message" (position left out when unknown).
  std::string format() const;
};

struct Diagnostics {
  std::vector<Diagnostic> items;

  void add(Severity s, std::string file, int line, int column, std::string message);
  int error_count() const;
  int warning_count() const;
  bool has_errors() const { return error_count() > 0; }
};

}  // namespace tern::config
