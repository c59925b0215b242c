// netperf 2.7's control protocol on the server side. Not built yet: the
// connection is logged and closed, so a netperf client fails at once
// instead of hanging.
#include <fmt/format.h>

#include <cstdio>

#include "net/socket.h"
#include "session/server.h"
#include "session/session.h"

namespace flowperf::session {

void serve_netperf_connection(int control, const SessionContext& ctx) {
  if (!ctx.config->log) return;
  std::string line = fmt::format(
      "flowperf server: {}: a netperf client; netperf's protocol is not served yet "
      "(connection closed)\n",
      net::peer_address(control).to_string());
  std::fputs(line.c_str(), ctx.config->log);
  std::fflush(ctx.config->log);
}

}  // namespace flowperf::session
