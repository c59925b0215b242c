// The client Controller: runs one test against a server over the control
// protocol (proto/messages.h), drives the local side of the engine, and
// returns both sides' measurements. It never prints; callers render.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/keys.h"
#include "net/socket.h"
#include "net/tls.h"
#include "results/test_result.h"
#include "spec/test_spec.h"

namespace flowperf::session {

// The result every client driver returns, whatever its protocol.
using results::Endpoint;
using results::IntervalSample;
using results::TestResult;

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 12865;
  IpFamily family = IpFamily::kAny;
  double connect_timeout_s = 5;
  // --key: authenticate to the server with it (and make sure it is the
  // server the key is for).
  std::optional<auth::Key> key;
  // --tls-ca: the control connection speaks TLS, to a server whose
  // certificate chains to this context's CA.
  std::shared_ptr<net::TlsContext> tls;
  // Set from a signal handler: end the test now and report what was measured.
  const std::atomic<bool>* interrupt = nullptr;
  // Set by a caller that runs this test beside another: end the test now,
  // as if its time were up (a latency probe beside its streams).
  const std::atomic<bool>* stop = nullptr;
  // Called once both sides are running (endpoints known, counters zero).
  std::function<void(const TestResult&)> on_started;
  // Called after each interval while the test runs.
  std::function<void(const IntervalSample&)> on_interval;
};

// Runs the test. Throws Error for failures before the test starts (no
// server, server busy, invalid spec); failures after it started come back
// in TestResult::error with whatever was measured.
TestResult run_test(const spec::TestSpec& spec, const ClientOptions& options);

// The same, and with spec.probe_rate_tps the latency probe around it
// (session/probe.cc): the one entry point for a native client.
TestResult run_test_and_probe(const spec::TestSpec& spec, const ClientOptions& options);

}  // namespace flowperf::session
