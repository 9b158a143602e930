#pragma once
// The file receiver's `operators`: the Collector's stanza operators that Tern runs
// (regex_parser, json_parser, key_value_parser, time_parser, severity_parser, remove, move,
// copy, add, retain, container, trace_parser, csv_parser), compiled once per receiver and run in order
// on each record, in the reading thread.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "pdata/logs.h"
#include "receiver/filelog/config.h"

namespace tern::receiver::filelog {

// A CRI-O / containerd log line, "<time> <stdout|stderr> <tag> <log>", as views of it
// (read by the container operator, and by the receiver to join partial lines); nullopt when
// the line is not one. A line that ends right after its tag has no log (`log_at` is npos).
struct CriLine {
  std::string_view time, stream, tag, log;
  std::size_t log_at = std::string_view::npos;  // where the log starts: the bytes before are the head
};
std::optional<CriLine> split_cri_line(std::string_view line);

class Operators {
 public:
  // Throws std::invalid_argument for a regex or layout that does not compile (the config
  // loader reports those first, with their position).
  explicit Operators(const std::vector<receiver::filelog::FilelogOperatorConfig>& ops);
  ~Operators();
  Operators(const Operators&) = delete;
  Operators& operator=(const Operators&) = delete;

  bool empty() const;
  // Runs the operators on `rec`; strings they make go into `a`, the record's arena. False
  // when an operator failed with `on_error: drop` / `drop_quiet`: the record is to be dropped.
  // `resource`: the attributes of the record's resource (the container operator's k8s.*).
  bool apply(pdata::LogRecord& rec, const pdata::Arena& a, pdata::Attributes* resource = nullptr);
  // Records on which an operator failed (each counted once), and records dropped for it.
  std::uint64_t errors() const;
  std::uint64_t dropped() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::receiver::filelog
