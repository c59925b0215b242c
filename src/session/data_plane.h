// Data sockets for a test, on both ends. The server opens them before it
// answers Setup (so it can name its ports); the client opens its side after.
// TCP data connections begin with a 12-byte greeting: the session cookie
// (8 bytes) and the stream index (4 bytes), so that a stray connection cannot
// join a test and streams are matched to flows by index, not arrival order.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "net/fd.h"
#include "net/socket.h"
#include "proto/messages.h"
#include "spec/test_spec.h"

namespace flowperf::session {

inline constexpr size_t kGreetingBytes = 12;

struct ServerDataPlane {
  std::vector<net::Fd> listeners;  // TCP: one; TCP_CRR: one per worker (SO_REUSEPORT)
  std::vector<net::Fd> udp;        // UDP: one per stream
  uint16_t tcp_port = 0;
  std::vector<uint16_t> udp_ports;
  int sndbuf = 0, rcvbuf = 0;
};

// Opens the server's data sockets on local (the control connection's local
// address). Their UDP sockets take datagrams from `client` (the control
// connection's peer) only, authenticated or not: the kernel drops any
// other's before they are queued, so no answer of a UDP test can be aimed
// at a third party (docs/security.md). With tcp_only_from_client (an
// authenticated client: a TCP_CRR connection carries no token) the TCP
// listeners take SYNs from that address only too. Throws a runtime Error.
ServerDataPlane open_server_plane(const spec::TestSpec& spec, const net::Address& local,
                                  unsigned threads, const net::Address& client,
                                  bool tcp_only_from_client);

// Accepts one TCP data connection per stream and orders them by index.
// Throws a runtime Error when they do not all arrive before the deadline, or
// when the control connection (if given) closes or speaks meanwhile.
std::vector<net::Fd> accept_streams(int listener, uint64_t cookie, uint32_t streams,
                                    std::chrono::steady_clock::time_point deadline,
                                    int control = -1);

// The client's data sockets: connected TCP sockets (greeting sent) or
// connected UDP sockets; none for TCP_CRR. Throws Error.
std::vector<net::Fd> open_client_sockets(const spec::TestSpec& spec, const net::Address& server,
                                         const proto::SetupOk& ok,
                                         std::chrono::steady_clock::time_point deadline);

}  // namespace flowperf::session
