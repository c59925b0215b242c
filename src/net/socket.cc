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

std::vector<Address> resolve(const std::string& host, uint16_t port, IpFamily family,
                             int socktype) {
  addrinfo hints{};
  hints.ai_family = family == IpFamily::kV4   ? AF_INET
                    : family == IpFamily::kV6 ? AF_INET6
                                              : AF_UNSPEC;
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
               const SocketOptions* options, SocketOptionErrors* failed, const Address* source) {
  Fd fd(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) {
    *err = errno;
    return {};
  }
  if (source) {
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), source->sa(), source->len) < 0) {
      *err = errno;
      return {};
    }
  }
  if (options) {
    const SocketOptionErrors e = apply_socket_options(fd.get(), *options);
    if (failed) *failed = e;
  }
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

namespace {

// "cannot use congestion control 'x': No such file or directory (this
// kernel has: reno cubic)".
std::string congestion_problem(const std::string& name, int err) {
  std::string available;
  if (FILE* f = std::fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r")) {
    char buf[256] = {};
    if (std::fgets(buf, sizeof buf, f)) available = buf;
    std::fclose(f);
    while (!available.empty() && available.back() == '\n') available.pop_back();
  }
  return "cannot use congestion control '" + name + "': " + sys::errno_text(err) +
         (available.empty() ? "" : " (this kernel has: " + available + ")");
}

// 0, or errno when setsockopt fails.
int set_int(int fd, int level, int name, int value) noexcept {
  return ::setsockopt(fd, level, name, &value, sizeof value) == 0 ? 0 : errno;
}

// IP_TOS (IPv4) or IPV6_TCLASS (IPv6, and IP_TOS too for a v6 socket that
// may carry v4-mapped traffic), by the socket's family; 0 or errno.
int set_tos(int fd, int tos) noexcept {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) < 0) return errno;
  if (ss.ss_family == AF_INET6) {
    const int err = set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, tos);
    set_int(fd, IPPROTO_IP, IP_TOS, tos);  // v4-mapped peers
    return err;
  }
  return set_int(fd, IPPROTO_IP, IP_TOS, tos);
}

}  // namespace

SocketOptionErrors apply_socket_options(int fd, const SocketOptions& o) noexcept {
  SocketOptionErrors e;
  if (o.sndbuf > 0) e.sndbuf = set_int(fd, SOL_SOCKET, SO_SNDBUF, o.sndbuf);
  if (o.rcvbuf > 0) e.rcvbuf = set_int(fd, SOL_SOCKET, SO_RCVBUF, o.rcvbuf);
  if (o.nodelay) e.nodelay = set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
  if (o.cork) e.cork = set_int(fd, IPPROTO_TCP, TCP_CORK, 1);
  if (o.keepalive) e.keepalive = set_int(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
  // IP_TOS sets the priority too (from the TOS bits): TOS first, so that
  // an explicit priority stands.
  if (o.tos >= 0) e.tos = set_tos(fd, o.tos);
  if (o.priority >= 0) e.priority = set_int(fd, SOL_SOCKET, SO_PRIORITY, o.priority);
  if (!o.congestion.empty() && ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o.congestion.data(),
                                            static_cast<socklen_t>(o.congestion.size())) != 0)
    e.congestion = errno;
  if (o.mss > 0) e.mss = set_int(fd, IPPROTO_TCP, TCP_MAXSEG, o.mss);
  if (o.max_pacing_rate > 0) {
    const uint64_t rate = o.max_pacing_rate;
    if (::setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof rate) != 0) e.pacing = errno;
  }
  if (o.dont_fragment) {
    sockaddr_storage ss{};
    socklen_t l = sizeof ss;
    const bool v6 =
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &l) == 0 && ss.ss_family == AF_INET6;
    e.dont_fragment = v6 ? set_int(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO)
                         : set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
  }
  return e;
}

SocketOptions not_inherited_on_accept(const SocketOptions& o) noexcept {
  SocketOptions again;
  again.priority = o.priority;
  again.nodelay = o.nodelay;
  return again;
}

std::string describe(const SocketOptionErrors& e, const SocketOptions& o) {
  std::string out;
  auto add = [&](int err, const std::string& what) {
    if (!err) return;
    out += (out.empty() ? "" : "; ") + what + ": " + sys::errno_text(err);
  };
  add(e.sndbuf, "SO_SNDBUF " + std::to_string(o.sndbuf));
  add(e.rcvbuf, "SO_RCVBUF " + std::to_string(o.rcvbuf));
  add(e.nodelay, "TCP_NODELAY");
  add(e.cork, "TCP_CORK");
  add(e.keepalive, "SO_KEEPALIVE");
  add(e.priority, "SO_PRIORITY " + std::to_string(o.priority) +
                      (e.priority == EPERM ? " (above 6 needs CAP_NET_ADMIN)" : ""));
  char tos[8];
  std::snprintf(tos, sizeof tos, "%#x", static_cast<unsigned>(o.tos));
  add(e.tos, std::string("IP TOS ") + tos);
  if (e.congestion)
    out += (out.empty() ? "" : "; ") + congestion_problem(o.congestion, e.congestion);
  add(e.mss, "TCP_MAXSEG " + std::to_string(o.mss));
  add(e.pacing, "SO_MAX_PACING_RATE " + std::to_string(o.max_pacing_rate));
  add(e.dont_fragment, "IP_MTU_DISCOVER (don't fragment)");
  return out;
}

void apply_socket_options_or_throw(int fd, const SocketOptions& o, const std::string& what) {
  const SocketOptionErrors e = apply_socket_options(fd, o);
  if (e.any()) throw runtime_error("cannot set up " + what + ": " + describe(e, o));
}

static int get_int_opt(int fd, int opt) {
  int v = 0;
  socklen_t l = sizeof v;
  ::getsockopt(fd, SOL_SOCKET, opt, &v, &l);
  return v;
}
int get_sndbuf(int fd) { return get_int_opt(fd, SO_SNDBUF); }
int get_rcvbuf(int fd) { return get_int_opt(fd, SO_RCVBUF); }

int set_keepalive(int fd, const Keepalive& k, const char** failed) {
  struct Step {
    int level, name, value;
    const char* what;
  };
  const Step steps[] = {{SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE"},
                        {IPPROTO_TCP, TCP_KEEPIDLE, k.idle_s, "TCP_KEEPIDLE"},
                        {IPPROTO_TCP, TCP_KEEPINTVL, k.interval_s, "TCP_KEEPINTVL"},
                        {IPPROTO_TCP, TCP_KEEPCNT, k.count, "TCP_KEEPCNT"}};
  for (const Step& s : steps) {
    if (s.value == 0) continue;  // the system's
    if (::setsockopt(fd, s.level, s.name, &s.value, sizeof s.value) != 0) {
      if (failed) *failed = s.what;
      return errno;
    }
  }
  return 0;
}

KeepaliveState keepalive_of(int fd) {
  auto get = [fd](int level, int name) {
    int v = 0;
    socklen_t len = sizeof v;
    return ::getsockopt(fd, level, name, &v, &len) == 0 ? v : 0;
  };
  return {get(SOL_SOCKET, SO_KEEPALIVE) != 0,
          {get(IPPROTO_TCP, TCP_KEEPIDLE), get(IPPROTO_TCP, TCP_KEEPINTVL),
           get(IPPROTO_TCP, TCP_KEEPCNT)}};
}

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
