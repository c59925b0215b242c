#include "net/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "net/sys.h"

namespace flowperf::net {

uint16_t Address::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return 0;
}

void Address::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

std::string Address::host() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, buf, sizeof buf);
  else if (family() == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, buf,
              sizeof buf);
  return buf;
}

std::string Address::to_string() const {
  if (family() == AF_INET6) return "[" + host() + "]:" + std::to_string(port());
  return host() + ":" + std::to_string(port());
}

std::vector<Address> resolve(const std::string& host, uint16_t port, Family family, int socktype) {
  addrinfo hints{};
  hints.ai_family = family == Family::kV4 ? AF_INET : family == Family::kV6 ? AF_INET6 : AF_UNSPEC;
  hints.ai_socktype = socktype;
  hints.ai_flags = AI_NUMERICSERV | (host.empty() ? AI_PASSIVE : 0);
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    std::string what = rc == EAI_SYSTEM ? sys::errno_text(errno) : gai_strerror(rc);
    throw runtime_error("cannot resolve host '" + host + "': " + what +
                        " — check the name, or give a numeric address");
  }
  std::vector<Address> out;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    Address a;
    std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
    a.len = ai->ai_addrlen;
    out.push_back(a);
  }
  ::freeaddrinfo(res);
  if (out.empty()) throw runtime_error("host '" + host + "' has no usable address");
  return out;
}

Fd bind_socket(const Address& addr, int socktype, int backlog) {
  Fd fd(::socket(addr.family(), socktype | SOCK_CLOEXEC, 0));
  if (!fd) throw runtime_error("cannot create a socket: " + sys::errno_text(errno));
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), addr.sa(), addr.len) < 0) {
    int err = errno;
    throw runtime_error("cannot bind to " + addr.to_string() + ": " + sys::errno_text(err) +
                        (err == EADDRINUSE ? " — another server is using that port; pick "
                                             "another with -p"
                                           : ""));
  }
  if (socktype == SOCK_STREAM && ::listen(fd.get(), backlog) < 0)
    throw runtime_error("cannot listen on " + addr.to_string() + ": " + sys::errno_text(errno));
  return fd;
}

Fd connect_tcp(const Address& addr, std::chrono::steady_clock::time_point deadline, int* err,
               int sndbuf, int rcvbuf) {
  Fd fd(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) {
    *err = errno;
    return {};
  }
  set_buffers(fd.get(), sndbuf, rcvbuf);
  if (::connect(fd.get(), addr.sa(), addr.len) < 0) {
    if (errno != EINPROGRESS) {
      *err = errno;
      return {};
    }
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *err = ETIMEDOUT;
        return {};
      }
      pollfd p{fd.get(), POLLOUT, 0};
      int r = ::poll(&p, 1, static_cast<int>(left.count()) + 1);
      if (r < 0 && errno == EINTR) continue;
      if (r > 0) break;
    }
    int soerr = 0;
    socklen_t l = sizeof soerr;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soerr, &l);
    if (soerr != 0) {
      *err = soerr;
      return {};
    }
  }
  set_nonblocking(fd.get(), false);
  *err = 0;
  return fd;
}

Address local_address(int fd) {
  Address a;
  a.len = sizeof a.storage;
  ::getsockname(fd, a.sa(), &a.len);
  return a;
}

Address peer_address(int fd) {
  Address a;
  a.len = sizeof a.storage;
  ::getpeername(fd, a.sa(), &a.len);
  return a;
}

void set_nonblocking(int fd, bool on) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return;
  ::fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

bool set_nodelay(int fd, bool on) {
  int v = on ? 1 : 0;
  return ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v) == 0;
}

void set_congestion_control(int fd, const std::string& name) {
  if (::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(),
                   static_cast<socklen_t>(name.size())) == 0)
    return;
  int err = errno;
  std::string available;
  if (FILE* f = std::fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r")) {
    char buf[256] = {};
    if (std::fgets(buf, sizeof buf, f)) available = buf;
    std::fclose(f);
    while (!available.empty() && available.back() == '\n') available.pop_back();
  }
  throw runtime_error("cannot use congestion control '" + name + "': " + sys::errno_text(err) +
                      (available.empty() ? "" : " (this kernel has: " + available + ")"));
}

bool set_buffers(int fd, int sndbuf, int rcvbuf) {
  bool ok = true;
  if (sndbuf > 0) ok &= ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) == 0;
  if (rcvbuf > 0) ok &= ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) == 0;
  return ok;
}

bool set_tos(int fd, int tos) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) < 0) return false;
  if (ss.ss_family == AF_INET6) {
    bool ok = ::setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos) == 0;
    ::setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);  // v4-mapped peers
    return ok;
  }
  return ::setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos) == 0;
}

bool set_priority(int fd, int priority) {
  return ::setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &priority, sizeof priority) == 0;
}

bool set_keepalive(int fd, bool on) {
  int v = on ? 1 : 0;
  return ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v) == 0;
}

bool set_cork(int fd, bool on) {
  int v = on ? 1 : 0;
  return ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &v, sizeof v) == 0;
}

static int get_int_opt(int fd, int opt) {
  int v = 0;
  socklen_t l = sizeof v;
  ::getsockopt(fd, SOL_SOCKET, opt, &v, &l);
  return v;
}
int get_sndbuf(int fd) { return get_int_opt(fd, SO_SNDBUF); }
int get_rcvbuf(int fd) { return get_int_opt(fd, SO_RCVBUF); }

uint64_t raise_fd_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
    ::getrlimit(RLIMIT_NOFILE, &rl);
  }
  return rl.rlim_cur;
}

}  // namespace flowperf::net
