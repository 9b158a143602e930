#pragma once
// The file receiver's `operators`: the Collector's stanza operators that Tern runs
// (regex_parser, json_parser, key_value_parser, time_parser, severity_parser, remove, move,
// copy, add, retain, container, trace_parser, csv_parser), compiled once per receiver and run in order
// on each record, in the reading thread.
#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.h"
#include "pdata/logs.h"

namespace tern::receiver::filelog {

class Operators {
 public:
  // Throws std::invalid_argument for a regex or layout that does not compile (the config
  // loader reports those first, with their position).
  explicit Operators(const std::vector<config::FilelogOperatorConfig>& ops);
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
