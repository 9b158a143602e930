#include "support/process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace tern::test {

Process::Process(std::vector<std::string> argv) {
  if (argv.empty()) throw std::invalid_argument("Process: empty argv");
  int out[2], err[2];
  // O_CLOEXEC: the child gets only the dup2'ed ends, other children never inherit ours.
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  // The child starts with default signal dispositions and an empty mask, whatever the
  // test runner blocked or ignored (an ignored SIGPIPE or blocked SIGTERM would leak in).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int rc = posix_spawn(&pid_, cargv[0], &fa, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    pid_ = -1;
    throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(rc));
  }
  reader_ = std::thread([this, o = out[0], e = err[0]] { read_loop(o, e); });
}

Process::~Process() {
  if (pid_ > 0 && !exit_code_) {
    if (!try_reap()) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  // The pipes close when the child (and any grandchild holding them) is gone.
  if (reader_.joinable()) reader_.join();
}

void Process::read_loop(int out_fd, int err_fd) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_count = 2;
  char buf[8192];
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      std::lock_guard lk(mu_);
      if (n <= 0) {
        if (!partial_[i].empty()) lines_[i].push_back(std::move(partial_[i]));
        partial_[i].clear();
        closed_[i] = true;
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      } else {
        partial_[i].append(buf, static_cast<size_t>(n));
        size_t start = 0, nl;
        while ((nl = partial_[i].find('\n', start)) != std::string::npos) {
          lines_[i].push_back(partial_[i].substr(start, nl - start));
          start = nl + 1;
        }
        partial_[i].erase(0, start);
      }
      cv_.notify_all();
    }
  }
}

std::optional<std::string> Process::wait_for_line(std::string_view prefix, std::chrono::milliseconds timeout,
                                                  Stream which) {
  const int i = which == Stream::Stdout ? 0 : 1;
  std::unique_lock lk(mu_);
  std::optional<std::string> found;
  cv_.wait_for(lk, timeout, [&] {
    for (auto& l : lines_[i]) {
      if (l.rfind(prefix, 0) == 0) {
        found = l;
        return true;
      }
    }
    return closed_[i];
  });
  return found;
}

std::vector<std::string> Process::lines(Stream which) const {
  std::lock_guard lk(mu_);
  return lines_[which == Stream::Stdout ? 0 : 1];
}

std::string Process::output() const {
  std::lock_guard lk(mu_);
  std::string out;
  for (int i = 0; i < 2; ++i) {
    out += i == 0 ? "--- stdout ---\n" : "--- stderr ---\n";
    for (auto& l : lines_[i]) out += l + "\n";
    out += partial_[i];
  }
  return out;
}

bool Process::signal(int sig) { return pid_ > 0 && !exit_code_ && ::kill(pid_, sig) == 0; }

bool Process::try_reap() {
  if (exit_code_) return true;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

bool Process::running() { return pid_ > 0 && !try_reap(); }

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  // Polling waitpid keeps this free of SIGCHLD handlers, which would disturb the test runner.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!try_reap()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Output written just before exit is read before wait() returns.
  std::unique_lock lk(mu_);
  cv_.wait_for(lk, std::chrono::seconds(5), [&] { return closed_[0] && closed_[1]; });
  return exit_code_;
}

std::optional<std::uint16_t> parse_listen_port(std::string_view line) {
  auto at = line.find("listening on ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view addr = line.substr(at + 13);
  while (!addr.empty() && (addr.back() == '\r' || addr.back() == ' ')) addr.remove_suffix(1);
  auto colon = addr.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= addr.size()) return std::nullopt;
  unsigned long port = 0;
  for (char c : addr.substr(colon + 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + static_cast<unsigned>(c - '0');
    if (port > 65535) return std::nullopt;
  }
  return static_cast<std::uint16_t>(port);
}

std::optional<std::uint64_t> cpu_time_us(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may contain spaces: fields are counted after its ')'.
  auto close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close_paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int f = 3; f <= 15 && rest >> field; ++f) {
    if (f == 14) utime = std::stoull(field);
    if (f == 15) stime = std::stoull(field);
  }
  const long hz = sysconf(_SC_CLK_TCK);
  return (utime + stime) * 1000000ull / static_cast<unsigned long long>(hz);
}

std::vector<std::uint16_t> free_ports(int n) {
  std::vector<int> fds;
  std::vector<std::uint16_t> ports;
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd);
      break;
    }
    fds.push_back(fd);
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

}  // namespace tern::test
