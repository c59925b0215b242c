// Talking to servers on loopback from a test: connecting, waiting for a
// server to accept, socket pairs, and reading a socket's options back.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "net/fd.h"

namespace flowperf::testing {

// A TCP connection to 127.0.0.1:port (invalid when refused). With a
// receive timeout, reads on it give up after that long.
net::Fd connect_loopback(uint16_t port, std::chrono::milliseconds recv_timeout = {});
// Whether 127.0.0.1:port accepts a TCP connection now.
bool can_connect(uint16_t port);
// Waits until 127.0.0.1:port accepts, for at most `limit`; whether it did.
bool wait_accepting(uint16_t port, std::chrono::milliseconds limit = std::chrono::seconds(10));
// Two UDP sockets on 127.0.0.1, each connected to the other; false (and
// both invalid) when the kernel refused.
bool udp_pair(net::Fd& a, net::Fd& b);
// An integer socket option as the kernel reports it, or -1.
int int_sockopt(int fd, int level, int name);
// Calls f with a copy (pidfd_getfd(2)) of each socket process `pid` holds
// (its own, not its children's), closed after the call, so a test asks the
// kernel for another process's socket options. False when the kernel would
// not hand them over (it needs ptrace rights over the process).
bool for_each_socket_of(pid_t pid, const std::function<void(int fd)>& f);
// A socket's address's port (IPv4 or IPv6; 0 for others), and its peer's.
uint16_t local_port(int fd);
uint16_t peer_port(int fd);

}  // namespace flowperf::testing
