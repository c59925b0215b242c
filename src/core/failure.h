// The kinds of failure a front end tells apart: each front end exits with
// its tool's code for each kind (cli/exit_status.h, as netperf exits 255
// when no netserver answers and 1 otherwise), and --json names the kind in
// error.code.
#pragma once

namespace flowperf {

enum class Failure {
  kUsage,        // a bad command line or an impossible test spec
  kNoServer,     // nothing answered: no server on the port, a host that
                 // cannot be resolved or does not answer
  kRefused,      // something answered and hung up at once, or would not run the test
  kRuntime,      // any other failure while running
  kInterrupted,  // stopped by the user
};

// The stable word for a failure in machine-read output: "usage",
// "no_server", "refused", "runtime", "interrupted".
inline const char* failure_code(Failure f) {
  static constexpr const char* kCodes[] = {"usage", "no_server", "refused", "runtime",
                                           "interrupted"};  // in Failure's order
  return kCodes[static_cast<int>(f)];
}

}  // namespace flowperf
