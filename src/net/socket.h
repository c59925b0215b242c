// Addresses and sockets: name resolution (IPv4/IPv6), listeners, connects
// with a deadline, and the socket options a test spec can ask for.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "net/fd.h"

namespace flowperf::net {

enum class Family { kAny, kV4, kV6 };

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
std::vector<Address> resolve(const std::string& host, uint16_t port, Family family, int socktype);

// A listening TCP socket or a bound UDP socket. Throws a runtime Error.
Fd bind_socket(const Address& addr, int socktype, int backlog = 1024);

// Connects a TCP socket before the deadline; returns an invalid Fd and sets
// *err (an errno value) on failure.
Fd connect_tcp(const Address& addr, std::chrono::steady_clock::time_point deadline, int* err,
               int sndbuf = 0, int rcvbuf = 0);

Address local_address(int fd);
Address peer_address(int fd);

void set_nonblocking(int fd, bool on);
bool set_nodelay(int fd, bool on);
// Sets TCP_CONGESTION; throws a runtime Error naming the algorithms the
// kernel has when it refuses.
void set_congestion_control(int fd, const std::string& name);
// Sets SO_SNDBUF/SO_RCVBUF when the request is > 0; returns false on failure.
bool set_buffers(int fd, int sndbuf, int rcvbuf);
// IP_TOS (IPv4) or IPV6_TCLASS (IPv6, both for a v6 socket that may carry
// v4-mapped traffic), by the socket's family; false on failure.
bool set_tos(int fd, int tos);
bool set_priority(int fd, int priority);  // SO_PRIORITY
bool set_keepalive(int fd, bool on);      // SO_KEEPALIVE
bool set_cork(int fd, bool on);           // TCP_CORK
int get_sndbuf(int fd);
int get_rcvbuf(int fd);

// Raises RLIMIT_NOFILE to its hard limit; returns the soft limit now in force.
uint64_t raise_fd_limit();

}  // namespace flowperf::net
