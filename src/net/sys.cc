#include "net/sys.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace flowperf::net::sys {
namespace {

int millis_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return left.count() > 1'000'000 ? 1'000'000 : static_cast<int>(left.count()) + 1;
}

// poll() for one event until the deadline; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int ms = millis_until(deadline);
    int r = ::poll(&p, 1, ms);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the caller's next call report it
    if (r == 0 && Clock::now() >= deadline) return false;
  }
}

}  // namespace

bool wait_readable(int fd, Clock::time_point deadline) { return wait_for(fd, POLLIN, deadline); }

IoStatus write_all(int fd, const void* buf, size_t len, Clock::time_point deadline) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, deadline)) return IoStatus::kTimeout;
      continue;
    }
    return IoStatus::kError;
  }
  return IoStatus::kOk;
}

IoStatus read_exact(int fd, void* buf, size_t len, Clock::time_point deadline, size_t* got) {
  char* p = static_cast<char*>(buf);
  size_t done = 0;
  IoStatus status = IoStatus::kOk;
  while (done < len) {
    ssize_t n = ::recv(fd, p + done, len - done, MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      status = IoStatus::kClosed;
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_for(fd, POLLIN, deadline)) {
        status = IoStatus::kTimeout;
        break;
      }
      continue;
    }
    status = IoStatus::kError;
    break;
  }
  if (got) *got = done;
  return status;
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace flowperf::net::sys
