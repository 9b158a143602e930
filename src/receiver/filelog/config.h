#pragma once
// The `filelog` receiver's settings and its operators (see docs/receivers.md).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/reader.h"
#include "config/units.h"

namespace tern::receiver::filelog {

using namespace std::chrono_literals;
using config::Duration;

// One entry of a filelog receiver's `operators` (the Collector's stanza operators, the
// subset Tern runs; see docs/receivers.md). Fields are `body` or `attributes.<key>`.
struct FilelogOperatorConfig {
  enum class Type {
    kRegexParser,
    kJsonParser,
    kKeyValueParser,
    kTimeParser,
    kSeverityParser,
    kRemove,
    kMove,
    kCopy,
    kAdd,
    kRetain,
    kContainer,
    kTraceParser,
    kCsvParser
  };
  enum class OnError { kSend, kSendQuiet, kDrop, kDropQuiet };
  struct Timestamp {
    std::string parse_from;
    bool epoch = false;  // layout_type: epoch (else strptime)
    std::string layout;
    bool utc = false;  // location: UTC (else the local zone, the Collector's default)
  };
  // A severity mapping entry: a text value (lower-cased) or an inclusive integer range.
  struct SeverityMatch {
    std::int32_t number = 0;  // 1-24, what a match maps to
    std::string text;         // empty: the range applies
    std::int64_t min = 0, max = -1;
  };
  struct Severity {
    std::string parse_from;
    std::vector<SeverityMatch> mapping;  // the preset's entries first, then the config's
    bool overwrite_text = false;
  };
  Type type = Type::kRegexParser;
  std::string id;  // the operator's id (default: its type), in metrics and logs
  OnError on_error = OnError::kSend;
  std::string regex;                       // regex_parser
  std::string delimiter = "=";             // key_value_parser: between key and value
  std::string pair_delimiter;              // key_value_parser: between pairs (empty: whitespace)
  std::string parse_from = "body";         // parsers
  std::optional<Timestamp> timestamp;      // parsers' `timestamp` block, or time_parser's own fields
  std::optional<Severity> severity;        // parsers' `severity` block, or severity_parser's own
  std::string field;                       // remove, add
  std::string from, to;                    // move, copy
  std::vector<std::string> fields;         // retain: the attributes kept
  std::string format = "auto";             // container: auto, docker, crio or containerd
  bool add_metadata_from_filepath = true;  // container: k8s.* resource attributes from log.file.path
  std::uint64_t max_log_size = 0;          // container: bound on a joined partial line; 0 = the receiver's
  // trace_parser: where the hex trace id, span id and trace flags are read from.
  std::string trace_id_from = "attributes.trace_id", span_id_from = "attributes.span_id",
              trace_flags_from = "attributes.trace_flags";
  std::string value;  // add
  // csv_parser: the column names (from `header`), and how quotes are read.
  std::vector<std::string> csv_header;
  bool lazy_quotes = false, ignore_quotes = false;
};

struct FilelogReceiverConfig {
  enum class StartAt { kBeginning, kEnd };
  enum class Parse { kNone, kJson };
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  StartAt start_at = StartAt::kEnd;
  std::uint64_t max_log_size = 1024 * 1024;
  std::string encoding = "utf-8";
  Parse parse = Parse::kNone;
  std::map<std::string, std::string> attributes;
  std::string storage;                          // checkpoint directory; empty = offsets not persisted
  Duration poll_interval = 200ms;               // how often the include globs are re-scanned
  std::uint64_t fingerprint_size = 1000;        // leading bytes hashed to recognise a file
  bool include_file_name = true;                // adds the log.file.name attribute
  bool include_file_path = false;               // adds the log.file.path attribute
  bool include_file_name_resolved = false;      // log.file.name_resolved: the name after symlinks
  bool include_file_path_resolved = false;      // log.file.path_resolved: the path after symlinks
  std::map<std::string, std::string> resource;  // resource attributes of every record
  std::uint64_t max_concurrent_files = 1024;    // accepted (the Collector's); see docs
  Duration exclude_older_than = 0s;  // files not modified for this long are not started on (0: all)
  // Set by preserve_leading/trailing_whitespaces: false. Tern keeps the text as it is by
  // default (the Collector trims by default).
  bool trim_leading = false, trim_trailing = false;
  // A batch goes to the pipeline at this many lines or bytes of line text (or when the
  // files have nothing more to read). Larger batches mean fewer, larger disk-queue frames
  // and fsyncs; with a memory queue, up to 32 unsettled batches are held encoded.
  std::uint64_t max_batch_lines = 1000;
  std::uint64_t max_batch_size = 1024 * 1024;
  // Run in order on each record after it is read (and `parse`d).
  std::vector<FilelogOperatorConfig> operators;
  // `multiline`: lines gathered into one record (joined by '\n'). A line matching the start
  // pattern begins a record, or one matching the end pattern ends it (set one of the two).
  std::string multiline_start, multiline_end;
  // A gathered record that got no new line for this long is sent (0: only when the next
  // one starts or the file is closed). The Collector's force_flush_period.
  Duration force_flush_period = 500ms;
};

// Reads and checks the section at `r` (`at`: its key); problems go to `ctx`.
void decode(config::DecodeContext& ctx, config::MapReader& r, const YAML::Mark& at, FilelogReceiverConfig& c);

}  // namespace tern::receiver::filelog
