// Child processes for end-to-end tests: start a real flowperf binary, feed
// it nothing, capture its stdout and stderr, and wait for it with a hard
// time limit so a hung test fails instead of hanging CI.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace flowperf::testing {

struct Outcome {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
};

class Process {
 public:
  explicit Process(std::vector<std::string> argv) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      int null = ::open("/dev/null", O_RDONLY);
      ::dup2(null, 0);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~Process() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) { ::kill(pid_, sig); }

  // Reads stdout until a full line arrives (or the time limit); the line
  // without its newline, or nullopt.
  std::optional<std::string> read_line(std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
      auto nl = out_.find('\n', consumed_);
      if (nl != std::string::npos) {
        std::string line = out_.substr(consumed_, nl - consumed_);
        consumed_ = nl + 1;
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !pump(static_cast<int>(left.count()))) return std::nullopt;
    }
  }

  // Reads stdout line by line until one contains `needle` (true), or until
  // the limit or the end of the output (false): a server that announces
  // itself is ready without a connection to probe it (real iperf3 3.12
  // counts a probe as a test, and restarts its listener after it).
  bool wait_for_line(const std::string& needle, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      auto line = read_line(left);
      if (!line) return false;
      if (line->find(needle) != std::string::npos) return true;
    }
  }

  // Waits for exit, killing the process after the limit.
  Outcome wait(std::chrono::milliseconds limit) {
    Outcome o;
    auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    for (;;) {
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() >= end) {
        o.timed_out = true;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      pump(20);
    }
    reaped_ = true;
    while (pump(0)) {
    }
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    o.out = out_;
    o.err = err_;
    return o;
  }

 private:
  // Reads what is available; false when nothing more came within ms.
  bool pump(int ms) {
    pollfd p[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (::poll(p, 2, ms) <= 0) return false;
    bool any = false;
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(n));
        any = true;
      }
    }
    return any;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  bool reaped_ = false;
  std::string out_, err_;
  size_t consumed_ = 0;
};

// The port a server just started announces on its first line: the first
// group of `re` in it (flowperf's "listening on HOST:PORT ...", netserver's
// "... port 'PORT' ..."). Empty when no such line comes within 10 s.
inline const std::regex kFlowperfListening(R"(listening on .*:(\d+) )");
inline const std::regex kNetserverStarting(R"(port '(\d+)')");
inline std::string announced_port(Process& server, const std::regex& re = kFlowperfListening) {
  using namespace std::chrono_literals;
  auto line = server.read_line(10s);
  std::smatch m;
  return line && std::regex_search(*line, m, re) ? std::string(m[1]) : std::string();
}

}  // namespace flowperf::testing
