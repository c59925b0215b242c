// Ports for servers that tests start on a port of the test's choosing (real
// iperf3, qperf and netserver take one; flowperf's own server is better run
// with -p 0, announcing the port the kernel gave it).
#pragma once

#include <cstdint>

namespace flowperf::testing {

// A port on which nothing listens or is bound (TCP and UDP, IPv4 and IPv6,
// any address), reserved for this process until it exits: ctest runs test
// cases side by side, and no other test process on the machine is handed
// the same port while this one lives. The port lies below the kernel's
// ephemeral range (net.ipv4.ip_local_port_range), so no connection's local
// port can take it between this call and the server's bind either. Tests
// run one case per process, so reservations never run out; a process that
// asks for many gets a new port each time. Fails the calling test (returns
// 0) when every candidate is taken.
uint16_t free_port();

}  // namespace flowperf::testing
