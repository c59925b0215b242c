#include "support/net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

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

}  // namespace flowperf::testing
