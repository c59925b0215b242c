// One test's result as every renderer takes it: the spec as run, both ends
// of the control connection, both sides' measurements and the client's
// interval samples. Whichever protocol ran the test (flowperf's own,
// netperf's, ...) fills the same struct; fields a protocol does not carry
// stay empty.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/measurements.h"
#include "spec/test_spec.h"

namespace flowperf::results {

struct Endpoint {
  std::string host;
  uint16_t port = 0;
};

struct ProbeResult;

struct TestResult {
  spec::TestSpec spec;
  Endpoint local, remote;  // the control connection's two ends
  std::string server_software, server_hostname;
  bool embedded_server = false;
  // The wall clock when the flows were released; the epoch when the test
  // never started.
  std::chrono::system_clock::time_point started{};
  SideResult local_side;
  SideResult remote_side;
  bool have_remote = false;  // the server's results arrived
  bool interrupted = false;  // stopped early by the user
  std::string error;         // a failure during the test (partial results above)
  std::vector<IntervalSample> intervals;
  // With spec.probe_rate_tps: the latency probe's two runs.
  std::shared_ptr<const ProbeResult> probe;
  // With spec.bidir: the other direction's test, run at the same time.
  std::shared_ptr<const TestResult> reverse;
};

// A stream test's latency probe (TestSpec::probe_rate_tps): the probe test
// run alone before the streams (idle), and beside them (loaded). A phase
// that did not run (the user stopped the test first) is absent.
struct ProbeResult {
  std::optional<TestResult> idle, loaded;
};

}  // namespace flowperf::results
