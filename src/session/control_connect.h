// The control connection, as every client front end opens it: each address
// of the host in turn, retried for a while when asked (a server that is
// just starting), and one error that says nothing is there, whatever the
// protocol spoken afterwards.
#pragma once

#include <string>

#include "core/error.h"
#include "net/fd.h"
#include "net/socket.h"

namespace flowperf::session {

// No control connection could be made. where() is "host:port" as resolved,
// errno_value() the last connect error (ECONNREFUSED: nothing listens there,
// ETIMEDOUT: no answer). Front ends that print a tool's own words for "no
// server" catch this type rather than reading the message.
class ConnectError : public Error {
 public:
  ConnectError(std::string where, int err, std::string message)
      : Error(ExitCode::kRuntime, std::move(message)), where_(std::move(where)), err_(err) {}
  const std::string& where() const noexcept { return where_; }
  int errno_value() const noexcept { return err_; }

 private:
  std::string where_;
  int err_;
};

// The control connection's host could not be resolved: no server can
// answer there (netperf exits 255 for it, as for a port where nothing
// listens). Thrown by connect_control; its message is net::resolve's.
class ResolveError : public Error {
 public:
  explicit ResolveError(std::string message) : Error(ExitCode::kRuntime, std::move(message)) {}
};

// A server answered and would not run the test (busy, its access list,
// limits or keys): what the client tells apart from "no server".
class RefusedError : public Error {
 public:
  explicit RefusedError(std::string message) : Error(ExitCode::kRuntime, std::move(message)) {}
};

struct ControlTarget {
  std::string host;
  uint16_t port = 0;
  IpFamily family = IpFamily::kAny;
  double timeout_s = 5;  // for each connect
  double wait_s = 0;     // keep retrying a failed connect this long
  // What to start on the host, for the message when nothing listens
  // ("`flowperf server`", "`netserver` (or `flowperf server`)").
  std::string start_hint = "`flowperf server`";
  std::string server_name = "server";  // "no <server_name> is listening on ..."
};

// The ConnectError for a failed connect to `where`.
ConnectError connect_error(const ControlTarget& t, const std::string& where, int err);

// Connects to the first address of the host that answers; `used` gets it.
// Throws ConnectError.
net::Fd connect_control(const ControlTarget& target, net::Address* used);

}  // namespace flowperf::session
