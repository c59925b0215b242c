#include "support/ports.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

namespace flowperf::testing {
namespace {

// The reservations: abstract Unix sockets named after the port, bound for
// the life of the process. The kernel lets one socket bind a name, and
// unbinds it when the process ends however it ends (a crash or SIGKILL
// included), so a reservation can neither leak nor be taken twice.
std::mutex reserved_mutex;
std::vector<int> reserved;

bool reserve(uint16_t port) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  const std::string name = "flowperf-test-port-" + std::to_string(port);
  std::memcpy(a.sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    ::close(fd);
    return false;
  }
  std::lock_guard lock(reserved_mutex);
  reserved.push_back(fd);
  return true;
}

// Whether a socket of `type` can bind the port on every address (a
// dual-stack IPv6 wildcard covers IPv4's too). No SO_REUSEADDR: a port
// that still has TIME_WAIT connections is refused as well.
bool bindable(int type, uint16_t port) {
  const int fd = ::socket(AF_INET6, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int off = 0;
  ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_any;
  a.sin6_port = htons(port);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// The low end of the kernel's ephemeral range (32768 by default).
int ephemeral_low() {
  std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768, high = 60999;
  if (!(f >> low >> high)) return 32768;
  return low;
}

}  // namespace

uint16_t free_port() {
  // Ports [10000, low) when the ephemeral range starts high enough, else
  // the 4,000 below it; from a point that differs between processes, so
  // that tests started together seldom even try the same port.
  const int low = ephemeral_low();
  const int first = low - 10000 >= 4000 ? 10000 : std::max(1024, low - 4000);
  const int span = low - first;
  if (span <= 0) return 0;
  const int start = static_cast<int>((static_cast<unsigned>(::getpid()) * 7919u) % span);
  for (int i = 0; i < span; ++i) {
    const auto port = static_cast<uint16_t>(first + (start + i) % span);
    if (!reserve(port)) continue;  // another test process has it
    if (bindable(SOCK_STREAM, port) && bindable(SOCK_DGRAM, port)) return port;
  }
  std::fprintf(stderr, "free_port: no free port in [%d, %d)\n", first, low);
  return 0;
}

}  // namespace flowperf::testing
