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

struct NetperfClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 12865;
  IpFamily family = IpFamily::kAny;
  std::string local_host;   // netperf -L: bind the client's sockets here
  uint16_t local_port = 0;  // netperf -p port,lport
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const IntervalSample&)> on_interval;  // netperf -D interim results
  // How often on_interval's samples are taken (0: every spec.interval_s).
  // netperf -D samples finer than its interval, for NetperfDemo to print an
  // interval as soon as it is both long enough and has work in it.
  double sample_s = 0;
  bool measure_remote_cpu = false;  // netperf -C: ask the server to measure its CPU
  // netperf -Z: sent first on the control connection, for a netserver
  // started with -Z (empty: none).
  std::string passphrase;
  // netperf -A: the alignment of netserver's send and receive buffers, sent
  // in the request (0: netperf's default, 8). flowperf's own server starts
  // its buffers on a page boundary, which meets any of up to 4096.
  uint32_t remote_send_alignment = 0, remote_recv_alignment = 0;
  // Called once the control connection is up, before the first request
  // (netperf prints its banner then, and only the error when it fails).
  std::function<void()> on_connected;
};

// The data connection's options come from the spec: its local and remote
// SideOptions (congestion control, TOS, priority, CPU, data port and host),
// keepalive, cork (ours only: netperf's protocol cannot ask the server) and
// burst.
//
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
