#include "session/server_info.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <thread>
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

std::string connect_failure_text(const std::string& where, int err) {
  if (err == ECONNREFUSED) return "no server is listening on " + where;
  if (err == ETIMEDOUT) return "no answer from " + where;
  return "cannot connect to " + where + ": " + net::sys::errno_text(err);
}

// Tries every address of the host, again and again until wait_s has passed
// (at least once). A server that is just starting is found on a later round.
net::Fd connect_control(const ServerProbe& p, std::string* where) {
  const auto addrs = net::resolve(p.host, p.port, p.family, SOCK_STREAM);
  const auto give_up = after(p.wait_s);
  int err = 0;
  for (;;) {
    for (const auto& a : addrs) {
      net::Fd fd = net::connect_tcp(a, after(p.timeout_s), &err);
      if (fd) {
        *where = a.to_string();
        return fd;
      }
    }
    if (Clock::now() >= give_up) break;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds(200), give_up - Clock::now()));
  }
  std::string first = addrs.front().to_string();
  throw ConnectError(first, err, connect_failure_text(first, err));
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
