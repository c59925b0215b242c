#include "session/controller.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "core/error.h"
#include "core/version.h"
#include "engine/test_plan.h"
#include "engine/worker.h"
#include "net/sys.h"
#include "proto/framing.h"
#include "session/data_plane.h"
#include "session/descriptor_budget.h"
#include "session/side_meter.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

class Control {
 public:
  Control(net::Fd fd, std::string where) : fd_(std::move(fd)), where_(std::move(where)) {}
  int fd() const { return fd_.get(); }

  void send(const proto::Message& m) {
    if (!proto::send_message(fd_.get(), m, after(10)))
      throw runtime_error("the server at " + where_ + " went away (cannot send " +
                          proto::message_name(m) + ")");
  }

  // Receives a message of type T; a server Error becomes an Error here.
  template <typename T>
  T expect(double timeout_s) {
    proto::Message m;
    proto::ReadStatus st;
    try {
      st = proto::read_message(fd_.get(), &m, after(timeout_s));
    } catch (const proto::ProtocolError& e) {
      throw runtime_error("the server at " + where_ + " sent a malformed control message (" +
                          e.what() + ") — is it a flowperf server of the same version?");
    }
    if (st == proto::ReadStatus::kTimeout)
      throw runtime_error(
          fmt::format("the server at {} did not answer within {} s", where_, timeout_s));
    if (st == proto::ReadStatus::kClosed)
      throw runtime_error("the server at " + where_ + " closed the control connection");
    if (auto* e = std::get_if<proto::ErrorMsg>(&m)) {
      ExitCode code = e->code == "invalid_spec" ? ExitCode::kUsage : ExitCode::kRuntime;
      throw Error(code, "server " + where_ + ": " + e->message);
    }
    if (auto* t = std::get_if<T>(&m)) return std::move(*t);
    throw runtime_error(
        fmt::format("the server at {} sent '{}' out of turn", where_, proto::message_name(m)));
  }

 private:
  net::Fd fd_;
  std::string where_;
};

net::Fd connect_control(const ClientOptions& o, net::Address* used) {
  auto addrs = net::resolve(o.host, o.port, o.family, SOCK_STREAM);
  int err = 0;
  for (const auto& a : addrs) {
    net::Fd fd = net::connect_tcp(a, after(o.connect_timeout_s), &err);
    if (fd) {
      *used = a;
      return fd;
    }
  }
  std::string where = addrs.front().to_string();
  if (err == ECONNREFUSED)
    throw runtime_error("no server is listening on " + where +
                        " — start one with `flowperf server`");
  if (err == ETIMEDOUT)
    throw runtime_error("no answer from " + where +
                        " — is the host up, and is the port open in its firewall?");
  throw runtime_error("cannot connect to " + where + ": " + net::sys::errno_text(err));
}

}  // namespace

IntervalSample sample_interval(const engine::Side& side, std::vector<IntervalFlow>& last, double t0,
                               double t1) {
  IntervalSample s;
  s.start_s = t0;
  s.end_s = t1;
  const auto& flows = side.flows();
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& c = flows[i]->counters;
    IntervalFlow now{c.bytes_sent.get(), c.bytes_recv.get(), c.transactions.get()};
    s.flows.push_back({now.bytes_sent - last[i].bytes_sent, now.bytes_recv - last[i].bytes_recv,
                       now.transactions - last[i].transactions});
    last[i] = now;
  }
  return s;
}

TestResult run_test(const spec::TestSpec& spec, const ClientOptions& o) {
  TestResult result;
  result.spec = spec;
  net::raise_fd_limit();
  check_descriptors(spec, 1, spec::default_threads(spec));

  // 1. Control connection and version handshake.
  net::Address server;
  net::Fd fd = connect_control(o, &server);
  Control control(std::move(fd), server.to_string());
  net::Address local = net::local_address(control.fd());
  result.local = {local.host(), local.port()};
  result.remote = {server.host(), server.port()};
  control.send(proto::Hello{proto::kProtocolVersion, std::string("flowperf ") + kVersion});
  auto welcome = control.expect<proto::Welcome>(10);
  result.server_software = welcome.software;
  result.server_hostname = welcome.hostname;

  // 2. Describe the test; the server opens its data sockets.
  control.send(proto::Setup{spec});
  auto ok = control.expect<proto::SetupOk>(30);
  result.remote_side.threads = ok.threads;

  // 3. Our data sockets and flows; the workers wait at the gate.
  auto sockets = open_client_sockets(spec, server, ok, after(30));
  int sndbuf = 0, rcvbuf = 0;
  if (!sockets.empty()) {
    sndbuf = net::get_sndbuf(sockets[0].get());
    rcvbuf = net::get_rcvbuf(sockets[0].get());
  }
  net::Address crr_server = server;
  crr_server.set_port(ok.tcp_port);
  engine::Side side(engine::client_flows(spec, std::move(sockets), crr_server),
                    spec::default_threads(spec), spec.busy_poll);
  side.launch();

  // 4. Start both sides together.
  control.send(proto::Start{});
  control.expect<proto::Started>(60);
  const Clock::time_point t0 = side.go();
  SideMeter meter;
  meter.start(local);
  if (o.on_started) o.on_started(result);

  // 5. Run until the time is up, every flow met its count, or the user
  //    interrupts; sample intervals on the way.
  const bool by_count = spec.count > 0;
  const auto end = by_count ? Clock::time_point::max()
                            : t0 + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(spec.duration_s));
  std::vector<IntervalFlow> last(side.flows().size());
  auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.interval_s));
  Clock::time_point next_sample = spec.interval_s > 0 ? t0 + interval : Clock::time_point::max();
  double last_t = 0;
  for (;;) {
    Clock::time_point now = Clock::now();
    if (o.interrupt && o.interrupt->load()) {
      result.interrupted = true;
      break;
    }
    if (now >= end || side.all_finished()) break;
    if (now >= next_sample) {
      double t = std::chrono::duration<double>(now - t0).count();
      auto s = sample_interval(side, last, last_t, t);
      last_t = t;
      if (o.on_interval) o.on_interval(s);
      result.intervals.push_back(std::move(s));
      next_sample += interval;
    }
    // Wake for the next event, when the last flow finishes (a counted test
    // ends then), and at least every 10 ms to notice Ctrl-C.
    auto wake = std::min({end, next_sample, now + 10ms});
    side.wait_finished(wake);
  }

  // 6. Stop. When we originate the work we finish our flows first, so the
  //    server drains only after the last request or datagram is out; when the
  //    server sends, it must hear Stop before our receivers can see its EOF.
  const bool server_sends = spec.test == spec::TestKind::kTcpMaerts;
  engine::SideResult measured;  // CPU and NIC figures, taken when our flows finish
  try {
    if (server_sends) control.send(proto::Stop{});
    side.set_phase(engine::Phase::kDrain);
    if (!side.wait_finished(after(result.interrupted ? 2 : 10)))
      side.set_phase(engine::Phase::kAbort);
    meter.finish(measured);
    if (!server_sends) control.send(proto::Stop{});
    side.join();
    if (spec.interval_s > 0 && !result.interrupted) {
      double t = std::chrono::duration<double>(Clock::now() - t0).count();
      if (t - last_t > spec.interval_s * 0.1) {
        auto s = sample_interval(side, last, last_t, t);
        if (o.on_interval) o.on_interval(s);
        result.intervals.push_back(std::move(s));
      }
    }
    result.remote_side = control.expect<proto::Results>(30).side;
    result.have_remote = true;
  } catch (const Error& e) {
    side.set_phase(engine::Phase::kAbort);
    side.join();
    result.error = e.what();
  }
  result.local_side = engine::collect(side);
  meter.finish(measured);  // no-op when already taken
  result.local_side.cpu = measured.cpu;
  result.local_side.nic = measured.nic;
  result.local_side.sndbuf = sndbuf;
  result.local_side.rcvbuf = rcvbuf;
  if (result.error.empty()) {
    std::string flow_error = result.local_side.first_error();
    if (flow_error.empty() && result.have_remote) flow_error = result.remote_side.first_error();
    if (!flow_error.empty()) result.error = flow_error;
  }
  return result;
}

}  // namespace flowperf::session
