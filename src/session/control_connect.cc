#include "session/control_connect.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "core/deadline.h"
#include "net/sys.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

using core::after;

}  // namespace

ConnectError connect_error(const ControlTarget& t, const std::string& where, int err) {
  std::string text;
  if (err == ECONNREFUSED)
    text =
        "no " + t.server_name + " is listening on " + where + " — start one with " + t.start_hint;
  else if (err == ECONNRESET)
    // The handshake completed and the reset came before we looked: something
    // listens there, and it hung up at once.
    text = "the server at " + where +
           " reset the connection as soon as it accepted it — is it the right kind (start one "
           "with " +
           t.start_hint + ")?";
  else if (err == ETIMEDOUT)
    text = "no answer from " + where + " — is the host up, and is the port open in its firewall?";
  else
    text = "cannot connect to " + where + ": " + net::sys::errno_text(err);
  return ConnectError(where, err, text);
}

net::Fd connect_control(const ControlTarget& t, net::Address* used) {
  // A host that cannot be resolved has no server to answer, as a port
  // where nothing listens: a type of its own, that front ends tell apart.
  std::vector<net::Address> addrs;
  try {
    addrs = net::resolve(t.host, t.port, t.family, SOCK_STREAM);
  } catch (const Error& e) {
    throw ResolveError(e.what());
  }
  const auto give_up = after(t.wait_s);
  int err = 0;
  for (;;) {
    for (const auto& a : addrs) {
      net::Fd fd = net::connect_tcp(a, after(t.timeout_s), &err);
      if (fd) {
        *used = a;
        return fd;
      }
    }
    if (Clock::now() >= give_up) break;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds(200), give_up - Clock::now()));
  }
  throw connect_error(t, addrs.front().to_string(), err);
}

}  // namespace flowperf::session
