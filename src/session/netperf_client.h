// A client for netperf 2.7's own control protocol (../shared/protocols/
// netperf-wire.md): runs one test against a real netserver, or against
// flowperf's server, which answers netperf's requests on the same port.
// It returns the same TestResult as the native controller, so every
// renderer works on it; fields netperf's protocol does not carry stay empty.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "net/socket.h"
#include "session/controller.h"
#include "spec/test_spec.h"

namespace flowperf::session {

// netperf's options for the data connection and the data-path thread, for
// this end (local_*) and for the netserver (remote_*, carried in the request).
struct NetperfDataOptions {
  uint16_t local_port = 0, remote_port = 0;  // test -P lport,rport; 0: ephemeral
  std::string local_cong, remote_cong;       // test -K: TCP_CONGESTION; empty: default
  bool cork = false;                         // test -C: TCP_CORK on our TCP data socket
  int first_burst = 0;                       // test -b: extra requests in flight (RR)
  int local_cpu = -1, remote_cpu = -1;       // -T: CPU for the data path; -1: any
  int local_tos = -1, remote_tos = -1;       // -Y: IP_TOS / IPV6_TCLASS; -1: leave
  int local_prio = -1, remote_prio = -1;     // -y: SO_PRIORITY; -1: leave
  bool keepalive = false;                    // -S: SO_KEEPALIVE on data sockets, both ends
  std::string remote_host, local_host;       // test -H, -L: the data connection's addresses
};

struct NetperfClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 12865;
  net::Family family = net::Family::kAny;
  std::string local_host;   // netperf -L: bind the client's sockets here
  uint16_t local_port = 0;  // netperf -p port,lport
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const IntervalSample&)> on_interval;  // netperf -D interim results
  bool measure_remote_cpu = false;  // netperf -C: ask the server to measure its CPU
  NetperfDataOptions data;
  // netperf -Z: sent first on the control connection, for a netserver
  // started with -Z (empty: none).
  std::string passphrase;
  // Called once the control connection is up, before the first request
  // (netperf prints its banner then, and only the error when it fails).
  std::function<void()> on_connected;
};

// Throws Error before the test starts (no netserver, refused); failures
// after the start come back in TestResult::error with partial results.
TestResult run_netperf_test(const spec::TestSpec& spec, const NetperfClientOptions& options);

// The test run once, then again on the same control connection for as long
// as `again` (called with every result) says so, as netperf does for -i/-I.
// A run that fails or is interrupted is the last. Throws Error when the
// first run cannot start; the results of the runs made, in order, otherwise.
std::vector<TestResult> run_netperf_tests(const spec::TestSpec& spec,
                                          const NetperfClientOptions& options,
                                          const std::function<bool(const TestResult&)>& again);

}  // namespace flowperf::session
