#pragma once
// Counters of the file receiver (a snapshot: FilelogReceiver::stats()).
#include <cstdint>

namespace tern::receiver::filelog {

struct FilelogReceiverStats {
  std::uint64_t lines_read = 0;         // log records made from lines
  std::uint64_t bytes_read = 0;         // bytes read from files, newlines included
  std::uint64_t lines_truncated = 0;    // lines longer than max_log_size, cut
  std::uint64_t files_open = 0;         // files followed right now (gauge)
  std::uint64_t batches_sent = 0;       // batches accepted by the pipeline
  std::uint64_t batches_refused = 0;    // back-pressure answers (the batch is retried)
  std::uint64_t batches_invalid = 0;    // batches the pipeline refused as invalid (skipped)
  std::uint64_t json_errors = 0;        // lines that were not a JSON object (kept as text)
  std::uint64_t operator_errors = 0;    // records on which an operator failed
  std::uint64_t records_dropped = 0;    // of those, records dropped (on_error: drop)
  std::uint64_t file_errors = 0;        // files that could not be opened or read
  std::uint64_t checkpoint_errors = 0;  // failed checkpoint writes
};

}  // namespace tern::receiver::filelog
