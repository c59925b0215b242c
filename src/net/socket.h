// Addresses and sockets: name resolution (IPv4/IPv6), listeners, connects
// with a deadline, and the socket options a test spec can ask for.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ip_family.h"
#include "net/fd.h"

namespace flowperf::net {

struct Address {
  sockaddr_storage storage{};
  socklen_t len = 0;

  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&storage); }
  sockaddr* sa() { return reinterpret_cast<sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
  uint16_t port() const;
  void set_port(uint16_t port);
  std::string host() const;       // numeric host, no brackets
  std::string to_string() const;  // "1.2.3.4:5" or "[::1]:5"
};

// Resolves host (name or numeric) for the given socket type. Throws a runtime
// Error naming the host when it cannot be resolved. An empty host means the
// wildcard address (for binding).
std::vector<Address> resolve(const std::string& host, uint16_t port, IpFamily family, int socktype);

// A listening TCP socket or a bound UDP socket. Throws a runtime Error.
Fd bind_socket(const Address& addr, int socktype, int backlog = 1024);

struct SocketOptions;
struct SocketOptionErrors;

// Connects a TCP socket before the deadline; returns an invalid Fd and sets
// *err (an errno value) on failure. The socket gets `options` before it
// connects; which of them the kernel refused goes in *failed (if given).
// With `source` the socket is bound there first (port 0: the kernel's
// choice), with SO_REUSEADDR.
Fd connect_tcp(const Address& addr, std::chrono::steady_clock::time_point deadline, int* err,
               const SocketOptions* options = nullptr, SocketOptionErrors* failed = nullptr,
               const Address* source = nullptr);

Address local_address(int fd);
Address peer_address(int fd);

void set_nonblocking(int fd, bool on);
int get_sndbuf(int fd);
int get_rcvbuf(int fd);

// TCP keepalive on a connection (a control connection that may sit idle
// behind a NAT or a firewall): the seconds idle before the first probe,
// between probes, and the probes unanswered before the connection is
// dropped. 0 keeps the system's value (net.ipv4.tcp_keepalive_*).
struct Keepalive {
  int idle_s = 0, interval_s = 0, count = 0;
};
// Turns keepalive on with the values k gives. Returns 0, or the errno of the
// first call that failed, with that option's name ("SO_KEEPALIVE",
// "TCP_KEEPIDLE", ...) in *failed.
int set_keepalive(int fd, const Keepalive& k, const char** failed);
// What the kernel holds for fd: on or off, and the three values in force.
struct KeepaliveState {
  bool on = false;
  Keepalive values;
};
KeepaliveState keepalive_of(int fd);

// The options one end's data sockets get (engine::socket_options() builds
// them from a TestSpec). apply_socket_options() is the one place a data
// socket of any test, front end or wire protocol gets them; a listener's
// are inherited by the connections it accepts.
struct SocketOptions {
  int sndbuf = 0, rcvbuf = 0;    // SO_SNDBUF, SO_RCVBUF; 0: the system default
  bool nodelay = false;          // TCP_NODELAY
  bool cork = false;             // TCP_CORK
  bool keepalive = false;        // SO_KEEPALIVE
  int tos = -1;                  // IP_TOS / IPV6_TCLASS; -1: leave alone
  int priority = -1;             // SO_PRIORITY; -1: leave alone
  std::string congestion;        // TCP_CONGESTION; empty: the system default
  int mss = 0;                   // TCP_MAXSEG, before connecting (iperf3 -M); 0: the route's
  uint64_t max_pacing_rate = 0;  // SO_MAX_PACING_RATE, bytes/s (iperf3 --fq-rate, TCP -b)
  bool dont_fragment = false;    // IP_MTU_DISCOVER = IP_PMTUDISC_DO (iperf3 --dont-fragment)

  // Whether apply_socket_options() has anything to set: a TCP_CRR client
  // makes no option calls per connection when it has not.
  bool any() const noexcept {
    return sndbuf > 0 || rcvbuf > 0 || nodelay || cork || keepalive || tos >= 0 || priority >= 0 ||
           !congestion.empty() || mss > 0 || max_pacing_rate > 0 || dont_fragment;
  }
  bool operator==(const SocketOptions&) const = default;
};

// What apply_socket_options() could not set: the errno of each option the
// kernel refused, 0 for those that took or were not asked for.
struct SocketOptionErrors {
  int sndbuf = 0, rcvbuf = 0, nodelay = 0, cork = 0, keepalive = 0, tos = 0, priority = 0,
      congestion = 0, mss = 0, pacing = 0, dont_fragment = 0;
  bool any() const noexcept {
    return sndbuf || rcvbuf || nodelay || cork || keepalive || tos || priority || congestion ||
           mss || pacing || dont_fragment;
  }
};

// Sets every option `o` asks for on fd, all of them even when one fails,
// and says which failed. Allocates nothing and throws nothing (a TCP_CRR
// client calls it for every connection). The caller's protocol decides
// which failures matter: the builder leaves TCP's options out of a UDP
// test's set.
SocketOptionErrors apply_socket_options(int fd, const SocketOptions& o) noexcept;

// One line naming each option that failed and why ("SO_PRIORITY 7:
// Operation not permitted"); a refused congestion control names the ones
// the kernel has. Empty when none failed.
std::string describe(const SocketOptionErrors& failed, const SocketOptions& asked);

// apply_socket_options(), throwing a runtime Error that names every option
// the kernel refused (prefixed with `what`, e.g. "the server's data socket").
void apply_socket_options_or_throw(int fd, const SocketOptions& o, const std::string& what);

// The options a connection accepted from a listener does not take from it,
// to be set on it again: Linux starts an accepted socket at priority 0
// whatever the listener's SO_PRIORITY (its TOS, buffers, keepalive, cork and
// congestion control carry over). TCP_NODELAY is kept too, as the CRR
// servers always set it on what they accept.
SocketOptions not_inherited_on_accept(const SocketOptions& o) noexcept;

// Raises RLIMIT_NOFILE to its hard limit; returns the soft limit now in force.
uint64_t raise_fd_limit();

}  // namespace flowperf::net
