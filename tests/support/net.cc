#include "support/net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace flowperf::testing {
namespace {

sockaddr_in loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

net::Fd connect_loopback(uint16_t port, std::chrono::milliseconds recv_timeout) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fd;
  sockaddr_in a = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return net::Fd();
  if (recv_timeout.count() > 0) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(recv_timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>(recv_timeout.count() % 1000 * 1000);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  return fd;
}

bool can_connect(uint16_t port) { return connect_loopback(port).valid(); }

bool wait_accepting(uint16_t port, std::chrono::milliseconds limit) {
  using namespace std::chrono_literals;
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (can_connect(port)) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(20ms);
  }
}

bool udp_pair(net::Fd& a, net::Fd& b) {
  net::Fd s[2];
  sockaddr_in addr[2]{};
  for (int i = 0; i < 2; ++i) {
    s[i] = net::Fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    addr[i] = loopback(0);
    socklen_t len = sizeof addr[i];
    if (!s[i].valid() || ::bind(s[i].get(), reinterpret_cast<sockaddr*>(&addr[i]), len) != 0 ||
        ::getsockname(s[i].get(), reinterpret_cast<sockaddr*>(&addr[i]), &len) != 0)
      return false;
  }
  for (int i = 0; i < 2; ++i)
    if (::connect(s[i].get(), reinterpret_cast<sockaddr*>(&addr[1 - i]), sizeof addr[0]) != 0)
      return false;
  a = std::move(s[0]);
  b = std::move(s[1]);
  return true;
}

int int_sockopt(int fd, int level, int name) {
  int v = 0;
  socklen_t len = sizeof v;
  return ::getsockopt(fd, level, name, &v, &len) == 0 ? v : -1;
}

bool for_each_socket_of(pid_t pid, const std::function<void(int fd)>& f) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return false;
  bool any_refused = false;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code lec;
    if (std::filesystem::read_symlink(e.path(), lec).string().rfind("socket:", 0) != 0) continue;
    const int fd = static_cast<int>(
        ::syscall(SYS_pidfd_getfd, pidfd, std::atoi(e.path().filename().c_str()), 0));
    if (fd < 0) {
      any_refused = any_refused || errno == EPERM;
      continue;  // closed meanwhile
    }
    f(fd);
    ::close(fd);
  }
  ::close(pidfd);
  return !any_refused;
}

namespace {
uint16_t port_of(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  return 0;
}
}  // namespace

uint16_t local_port(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 ? port_of(a) : 0;
}

uint16_t peer_port(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  return ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 ? port_of(a) : 0;
}

}  // namespace flowperf::testing
