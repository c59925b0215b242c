// One test's result as every renderer takes it: the spec as run, both ends
// of the control connection, both sides' measurements and the client's
// interval samples. Whichever protocol ran the test (flowperf's own,
// netperf's, ...) fills the same struct; fields a protocol does not carry
// stay empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/measurements.h"
#include "spec/test_spec.h"

namespace flowperf::results {

struct Endpoint {
  std::string host;
  uint16_t port = 0;
};

struct TestResult {
  spec::TestSpec spec;
  Endpoint local, remote;  // the control connection's two ends
  std::string server_software, server_hostname;
  bool embedded_server = false;
  SideResult local_side;
  SideResult remote_side;
  bool have_remote = false;  // the server's results arrived
  bool interrupted = false;  // stopped early by the user
  std::string error;         // a failure during the test (partial results above)
  std::vector<IntervalSample> intervals;
};

}  // namespace flowperf::results
