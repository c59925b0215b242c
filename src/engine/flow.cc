#include "engine/flow.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "net/data_calls.h"

namespace flowperf::engine {

namespace {
constexpr long kBlockingWakeUs = 20'000;
}

void fill_with(char* buf, size_t n, std::string_view pattern) noexcept {
  if (pattern.empty()) return;
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(pattern.size(), n - done);
    std::memcpy(buf + done, pattern.data(), k);
    done += k;
  }
}

void Flow::apply_mode(int fd, bool blocking) noexcept {
  if (fd < 0) return;
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK));
  if (blocking) set_wake_timeouts(fd);
}

void Flow::set_wake_timeouts(int fd) noexcept {
  // Direct system calls: TCP_CRR sets these on every connection.
  static constexpr timeval kWake{0, kBlockingWakeUs};
  net::data::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kWake, sizeof kWake);
  net::data::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &kWake, sizeof kWake);
}

void Flow::set_mode(bool blocking) noexcept {
  blocking_ = blocking;
  apply_mode(initial_fd(), blocking);
}

Wait Flow::fail(const char* what, int err) noexcept {
  if (error.empty()) {
    error_errno = err;
    try {
      error = err ? std::string(what) + ": " + std::strerror(err) : std::string(what);
    } catch (...) {
    }
  }
  return finished();
}

void Flow::close_fd(int& fd) noexcept {
  if (fd < 0) return;
  if (host) host->forget_fd(this, fd);
  net::data::close(fd);
  fd = -1;
}

}  // namespace flowperf::engine
