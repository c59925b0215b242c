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
// address). With only_from (an authenticated client's address), the kernel
// drops packets from any other address before they reach them: UDP has no
// greeting token, nor has a TCP_CRR connection. Throws a runtime Error.
ServerDataPlane open_server_plane(const spec::TestSpec& spec, const net::Address& local,
                                  unsigned threads, const net::Address* only_from = nullptr);

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
