// One control connection on the server: the server half of the exchange in
// proto/messages.h. It answers Hello and Setup, opens the data sockets, runs
// the server's side of the test, and reports the results.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

#include "net/fd.h"
#include "session/access_policy.h"

namespace flowperf::session {

class MemoryBudget;

struct ServerConfig;
class Iperf3Desk;

struct SessionContext {
  const ServerConfig* config = nullptr;
  std::atomic<uint32_t>* active_tests = nullptr;
  const std::atomic<bool>* stopping = nullptr;
  std::function<void()> request_quit;  // a client asked the server to exit
  Iperf3Desk* iperf3 = nullptr;        // the server's iperf3 tests (session/iperf3_server.h)
  uint64_t connection_number = 0;      // the order the server accepted this connection in
  // When the connection's first message must be in: the control timeout
  // counted from accept, so bytes dripped while the dispatch tells the
  // protocol buy a slow client no time. Unset: the timeout from now.
  std::chrono::steady_clock::time_point first_message_by{};
  // The per-source test limits (ServerConfig::max_tests_per_source and
  // _per_minute) and the client's address they count against.
  SourceLimits* sources = nullptr;
  std::optional<IpAddr> peer = {};
  // The server's budget for all running tests' buffers.
  MemoryBudget* memory = nullptr;
  // Where a failed authentication is counted against the client's address.
  AuthFailures* auth_failures = nullptr;
};

// Counts a failed authentication of this session's client (for
// AuthFailures' door).
inline void count_auth_failure(const SessionContext& ctx) {
  if (ctx.auth_failures && ctx.peer)
    ctx.auth_failures->failed(*ctx.peer, std::chrono::steady_clock::now());
}

// The deadline for a session's first message (see first_message_by).
std::chrono::steady_clock::time_point first_message_deadline(const SessionContext& ctx);

// control stays open (and owned by the caller) when these return. The
// server hands each new connection to one of them by its first bytes
// (session/dispatch.h).
// flowperf's own protocol, in the clear and over TLS.
void serve_control_connection(int control, const SessionContext& ctx);
void serve_tls_control_connection(int control, const SessionContext& ctx);
// netperf's protocol (session/netperf_session.cc).
void serve_netperf_connection(int control, const SessionContext& ctx);
// qperf's protocol (session/qperf_session.cc).
void serve_qperf_connection(int control, const SessionContext& ctx);

}  // namespace flowperf::session
