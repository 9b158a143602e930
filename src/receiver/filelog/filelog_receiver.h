#pragma once
// The `filelog` receiver: follows files matching glob patterns and turns each line into a
// log record (see docs/receivers.md). One thread per receiver polls, reads and sends.
//
// At least once: a file's offset is checkpointed (in `<storage>/filelog-<id>.json`) only
// past lines whose batch the pipeline accepted *and* whose delivery token settled as
// delivered; after a restart, reading resumes there. Back-pressure makes the receiver wait
// and resend the same batch.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "component/consumer.h"
#include "receiver/filelog/config.h"
#include "receiver/filelog/stats.h"

namespace tern::receiver::filelog {

// Tuning that is not in the config file (batch bounds are: max_batch_lines, max_batch_size).
struct FilelogReceiverOptions {
  std::size_t read_chunk = 64 * 1024;  // bytes read from one file before turning to the next
  // While running, a changed checkpoint is written at most this often (and at shutdown).
  std::chrono::milliseconds checkpoint_interval{1000};
  // Batches handed over whose delivery has not settled yet; past this the receiver waits
  // before reading on. Bounds the memory the pipeline holds for this receiver (about this
  // many batches of lines, encoded) while keeping several bulk requests in flight.
  std::size_t max_unsettled_batches = 32;
};

class FilelogReceiver {
 public:
  FilelogReceiver(std::string id, const receiver::filelog::FilelogReceiverConfig& config,
                  component::Consumer& consumer, FilelogReceiverOptions options = {});
  ~FilelogReceiver();  // shutdown()
  FilelogReceiver(const FilelogReceiver&) = delete;
  FilelogReceiver& operator=(const FilelogReceiver&) = delete;

  // Loads the checkpoint, scans the patterns once (this decides which files are "there at
  // start-up" for start_at), then starts the reading thread. Throws std::runtime_error
  // when the storage directory cannot be created.
  void start();
  // Stops reading and writes the checkpoint. Idempotent. Tokens that settle later (the
  // exporters drain after the receivers stop) still update the checkpoint file.
  void shutdown();

  FilelogReceiverStats stats() const;
  // Empty when `storage` is not set.
  const std::string& checkpoint_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::receiver::filelog
