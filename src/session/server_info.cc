#include "session/server_info.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <variant>

#include "core/version.h"
#include "net/sys.h"
#include "proto/framing.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

net::Fd connect_control(const ServerProbe& p, std::string* where) {
  ControlTarget t;
  t.host = p.host;
  t.port = p.port;
  t.family = p.family;
  t.timeout_s = p.timeout_s;
  t.wait_s = p.wait_s;
  net::Address used;
  net::Fd fd = session::connect_control(t, &used);
  *where = used.to_string();
  return fd;
}

// Reads the next message; a server Error or silence becomes an Error.
proto::Message receive(int fd, const std::string& where, double timeout_s) {
  proto::Message m;
  auto st = proto::read_message(fd, &m, after(timeout_s));
  if (st == proto::ReadStatus::kTimeout)
    throw runtime_error(
        fmt::format("the server at {} did not answer within {:g} s", where, timeout_s));
  if (st == proto::ReadStatus::kClosed)
    throw runtime_error("the server at " + where + " closed the control connection");
  if (auto* e = std::get_if<proto::ErrorMsg>(&m))
    throw runtime_error("server " + where + ": " + e->message);
  return m;
}

void send(int fd, const std::string& where, const proto::Message& m, double timeout_s) {
  if (!proto::send_message(fd, m, after(timeout_s)))
    throw runtime_error("the server at " + where + " went away (cannot send " +
                        proto::message_name(m) + ")");
}

// Connects and exchanges Hello for Welcome; the connection stays open.
proto::Welcome greet(const ServerProbe& p, net::Fd* fd, std::string* where) {
  *fd = connect_control(p, where);
  send(fd->get(), *where,
       proto::Hello{proto::kProtocolVersion, std::string("flowperf ") + kVersion}, p.timeout_s);
  proto::Message m = receive(fd->get(), *where, p.timeout_s);
  if (auto* w = std::get_if<proto::Welcome>(&m)) return *w;
  throw runtime_error("the server at " + *where + " sent '" + proto::message_name(m) +
                      "' instead of a welcome");
}

}  // namespace

proto::Welcome fetch_welcome(const ServerProbe& probe) {
  net::Fd fd;
  std::string where;
  return greet(probe, &fd, &where);
}

void request_quit(const ServerProbe& probe) {
  net::Fd fd;
  std::string where;
  greet(probe, &fd, &where);
  send(fd.get(), where, proto::Quit{}, probe.timeout_s);
  proto::Message m = receive(fd.get(), where, probe.timeout_s);
  if (!std::holds_alternative<proto::Stop>(m))
    throw runtime_error("the server at " + where + " answered quit with '" +
                        proto::message_name(m) + "'");
}

}  // namespace flowperf::session
