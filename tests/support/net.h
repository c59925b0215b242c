// Talking to servers on loopback from a test: connecting, waiting for a
// server to accept, socket pairs, and reading a socket's options back.
#pragma once

#include <chrono>
#include <cstdint>
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

}  // namespace flowperf::testing
