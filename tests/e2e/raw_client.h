// A raw client of a server under test, for the e2e tests that abuse one:
// TCP connections to 127.0.0.1, whole sends, waiting for the server to
// close, argv templates with a port, and the server's memory from /proc.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "net/fd.h"

namespace flowperf::testing {

using RawClock = std::chrono::steady_clock;

inline net::Fd dial(uint16_t port) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return {};
  return fd;
}

inline bool send_bytes(int fd, const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}
inline bool send_bytes(int fd, const std::string& s) { return send_bytes(fd, s.data(), s.size()); }

// Closes with a reset instead of a FIN.
inline void reset_close(net::Fd& fd) {
  linger l{1, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
  fd.reset();
}

// Reads (into *got) until the server closes; the time that took, or
// nullopt if it kept the connection open for longer than limit.
inline std::optional<RawClock::duration> wait_closed(int fd, RawClock::duration limit,
                                                     std::string* got = nullptr) {
  const auto t0 = RawClock::now();
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t0 + limit - RawClock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[65536];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      if (got) got->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return RawClock::now() - t0;
  }
}

inline std::vector<std::string> with_port(std::vector<std::string> argv, const std::string& port) {
  for (auto& a : argv)
    if (a == "PORT") a = port;
  return argv;
}

// A status line of /proc/PID/status in bytes (VmRSS:, VmHWM:), or -1.
inline long status_bytes(pid_t pid, const std::string& field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size())) * 1024;
  return -1;
}

}  // namespace flowperf::testing
