#include "session/server_info.h"

#include "session/flowperf_control.h"

namespace flowperf::session {
namespace {

FlowperfControl greet(const ServerProbe& p) {
  ControlTarget t;
  t.host = p.host;
  t.port = p.port;
  t.family = p.family;
  t.timeout_s = p.timeout_s;
  t.wait_s = p.wait_s;
  return FlowperfControl(t, p.timeout_s);
}

}  // namespace

proto::Welcome fetch_welcome(const ServerProbe& probe) { return greet(probe).welcome(); }

void request_quit(const ServerProbe& probe) {
  FlowperfControl c = greet(probe);
  c.send(proto::Quit{});
  c.expect<proto::Stop>(probe.timeout_s);  // the server's acknowledgement
}

}  // namespace flowperf::session
