#pragma once
// Child processes for integration tests and benchmarks: spawn an argv, capture its stdout
// and stderr line by line, wait for a line, signal it, wait for it with a timeout. The
// destructor SIGKILLs and reaps a child that is still running, so a failing test never
// leaves a process behind.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace tern::test {

enum class Stream { Stdout, Stderr };

class Process {
 public:
  // argv[0] is a path (no PATH lookup). Throws std::runtime_error if the spawn fails.
  explicit Process(std::vector<std::string> argv);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // The first line (without '\n') of `which` that starts with `prefix`, waiting up to
  // `timeout`; nullopt on timeout or when the stream closed without such a line.
  std::optional<std::string> wait_for_line(std::string_view prefix, std::chrono::milliseconds timeout,
                                           Stream which = Stream::Stdout);
  std::vector<std::string> lines(Stream which = Stream::Stdout) const;
  // Both streams, for failure messages.
  std::string output() const;

  bool signal(int sig);
  // Exit code (128 + signal number if killed by a signal), or nullopt if still running
  // after `timeout`. Also joins the output reader once the child has exited.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  bool running();

 private:
  void read_loop(int out_fd, int err_fd);
  bool try_reap();

  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_[2];
  std::string partial_[2];
  bool closed_[2] = {false, false};
  std::thread reader_;
};

// The port of "... listening on HOST:PORT" (IPv6 hosts in brackets), nullopt if none.
std::optional<std::uint16_t> parse_listen_port(std::string_view line);

// `n` distinct loopback ports that were free a moment ago (bound to port 0, then released:
// racy in principle, fine on a test machine), for configs that need fixed ports.
std::vector<std::uint16_t> free_ports(int n);

// utime + stime of a process in microseconds, from /proc/<pid>/stat; nullopt if gone.
std::optional<std::uint64_t> cpu_time_us(pid_t pid);

}  // namespace tern::test
