// The client Controller: runs one test against a server over the control
// protocol (proto/messages.h), drives the local side of the engine, and
// returns both sides' measurements. It never prints; callers render.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "engine/results.h"
#include "engine/worker.h"
#include "net/socket.h"
#include "spec/test_spec.h"

namespace flowperf::session {

// Counters of one stream over one interval.
using IntervalFlow = engine::IntervalFlow;
using IntervalSample = engine::IntervalSample;

struct Endpoint {
  std::string host;
  uint16_t port = 0;
};

struct TestResult {
  spec::TestSpec spec;
  Endpoint local, remote;  // the control connection's two ends
  std::string server_software, server_hostname;
  bool embedded_server = false;
  engine::SideResult local_side;
  engine::SideResult remote_side;
  bool have_remote = false;  // the server's results arrived
  bool interrupted = false;  // stopped early by the user
  std::string error;         // a failure during the test (partial results above)
  std::vector<IntervalSample> intervals;
};

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 12865;
  net::Family family = net::Family::kAny;
  double connect_timeout_s = 5;
  // Set from a signal handler: end the test now and report what was measured.
  const std::atomic<bool>* interrupt = nullptr;
  // Called once both sides are running (endpoints known, counters zero).
  std::function<void(const TestResult&)> on_started;
  // Called after each interval while the test runs.
  std::function<void(const IntervalSample&)> on_interval;
};

// The local flows' counters since the last sample (which `last` holds and
// is updated); start_s/end_s are seconds since the test started.
IntervalSample sample_interval(const engine::Side& side, std::vector<IntervalFlow>& last,
                               double start_s, double end_s);

// Runs the test. Throws Error for failures before the test starts (no
// server, server busy, invalid spec); failures after it started come back
// in TestResult::error with whatever was measured.
TestResult run_test(const spec::TestSpec& spec, const ClientOptions& options);

}  // namespace flowperf::session
