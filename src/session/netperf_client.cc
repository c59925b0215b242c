// Interim: until the netperf wire client is built, run_netperf_test speaks
// flowperf's own protocol, so the netperf personality works against
// flowperf servers (and not yet against a real netserver).
#include "session/netperf_client.h"

namespace flowperf::session {

TestResult run_netperf_test(const spec::TestSpec& spec, const NetperfClientOptions& o) {
  ClientOptions c;
  c.host = o.host;
  c.port = o.port;
  c.family = o.family;
  c.interrupt = o.interrupt;
  c.on_interval = o.on_interval;
  return run_test(spec, c);
}

}  // namespace flowperf::session
