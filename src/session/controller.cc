#include "session/controller.h"

#include <fmt/format.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
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
#include "session/interval_sampler.h"
#include "session/side_meter.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// How long a draining data path may show no progress before the test is
// declared stalled, and the longest drain allowed in all.
constexpr auto kStallQuiet = 5s;
constexpr double kDrainLimitS = 120;
// How long the data connections may take to open, all together.
constexpr double kDataConnectS = 15;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Progress of a side's flows: everything they counted, plus the bytes still
// queued in their sockets (a TCP sender in drain counts nothing more, but its
// send queue shrinks while the peer keeps acknowledging).
uint64_t progress_mark(const engine::Side& side, uint64_t* queued) {
  uint64_t mark = 0;
  *queued = 0;
  for (const auto& f : side.flows()) {
    const auto& c = f->counters;
    mark += c.bytes_sent.get() + c.bytes_recv.get() + c.transactions.get() +
            c.datagrams_recv.get() + c.connects.get();
    if (int fd = f->initial_fd(); fd >= 0) {
      int q = 0;
      if (::ioctl(fd, SIOCOUTQ, &q) == 0 && q > 0) *queued += static_cast<uint64_t>(q);
    }
  }
  return mark + *queued;
}

// Lets the flows finish what is in flight. Returns "" when they all did, or
// why it gave up: nothing moved for `quiet` (the data path stalled), or the
// hard limit passed.
std::string drain(engine::Side& side, Clock::duration quiet, Clock::time_point hard) {
  uint64_t queued = 0;
  uint64_t mark = progress_mark(side, &queued);
  Clock::time_point last_move = Clock::now();
  while (!side.all_finished()) {
    const Clock::time_point now = Clock::now();
    uint64_t q = 0;
    if (uint64_t m = progress_mark(side, &q); m != mark) {
      mark = m;
      queued = q;
      last_move = now;
    }
    if (now - last_move >= quiet)
      return fmt::format(
          "the data path stalled: nothing moved for {:.0f} s after the test's end{} — is a "
          "firewall dropping the data connections, or is the link down?",
          std::chrono::duration<double>(quiet).count(),
          queued ? fmt::format(", with {} bytes still queued to send", queued) : "");
    if (now >= hard) return "the flows did not finish within the drain limit after the test's end";
    std::this_thread::sleep_for(5ms);
  }
  return "";
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

TestResult run_test(const spec::TestSpec& asked, const ClientOptions& o) {
  TestResult result;
  result.spec = asked;
  // Settled once the server's address is known (see below); used from then on.
  spec::TestSpec& spec = result.spec;
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

  // The default UDP datagram fills one Ethernet frame without fragments:
  // 1472 bytes over IPv4, 1452 over IPv6 (its header is 20 bytes longer).
  if (spec::info(spec.test).protocol == spec::Protocol::kUdp && spec.send_size == 0 &&
      server.family() == AF_INET6)
    spec.send_size = spec::kUdpDefaultSizeV6;

  // 2. Describe the test; the server opens its data sockets.
  control.send(proto::Setup{spec});
  auto ok = control.expect<proto::SetupOk>(30);
  result.remote_side.threads = ok.threads;

  // 3. Our data sockets and flows; the workers wait at the gate.
  auto sockets = open_client_sockets(spec, server, ok, after(kDataConnectS + spec.streams / 500.0));
  int sndbuf = 0, rcvbuf = 0;
  if (!sockets.empty()) {
    sndbuf = net::get_sndbuf(sockets[0].get());
    rcvbuf = net::get_rcvbuf(sockets[0].get());
  }
  net::Address crr_server = server;
  crr_server.set_port(ok.tcp_port);
  engine::Side side(engine::client_flows(spec, std::move(sockets), crr_server),
                    spec::default_threads(spec), spec.busy_poll);
  side.launch(spec.local.cpu);

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
  IntervalSampler sampler(side, spec.interval_s, t0, &local);
  for (;;) {
    Clock::time_point now = Clock::now();
    if (o.interrupt && o.interrupt->load()) {
      result.interrupted = true;
      break;
    }
    if (now >= end || side.all_finished()) break;
    if (sampler.due(now)) {
      auto s = sampler.sample(now);
      if (o.on_interval) o.on_interval(s);
      result.intervals.push_back(std::move(s));
    }
    // Wake for the next event, when the last flow finishes (a counted test
    // ends then), and at least every 10 ms to notice Ctrl-C.
    auto wake = std::min({end, sampler.next(), now + 10ms});
    side.wait_finished(wake);
  }

  // 6. Stop. When we originate the work we finish our flows first, so the
  //    server drains only after the last request or datagram is out; when the
  //    server sends, it must hear Stop before our receivers can see its EOF.
  const bool server_sends = spec.test == spec::TestKind::kTcpMaerts;
  engine::SideResult measured;  // CPU and NIC figures, taken when our flows finish
  Clock::time_point cap = Clock::time_point::max();  // a stalled test's time ends here
  try {
    if (server_sends) control.send(proto::Stop{});
    side.set_phase(engine::Phase::kDrain);
    const Clock::time_point drain_from = Clock::now();
    // A slow link may take long to drain full socket buffers; only a drain
    // that makes no progress for kStallQuiet is given up.
    std::string stalled = result.interrupted ? drain(side, 2s, after(2))
                                             : drain(side, kStallQuiet, after(kDrainLimitS));
    if (!stalled.empty()) side.set_phase(engine::Phase::kAbort);
    meter.finish(measured);
    if (!stalled.empty()) cap = drain_from;
    if (!server_sends) {
      proto::Stop stop{!stalled.empty(), std::chrono::duration<double>(drain_from - t0).count()};
      // UDP: what each flow sent, so that the server's flows stop draining
      // once it is all in rather than after a quiet spell.
      if (spec.test == spec::TestKind::kUdpStream || spec.test == spec::TestKind::kUdpRr) {
        stop.sent.assign(side.flows().size(), 0);
        for (const auto& f : side.flows())
          if (f->index < stop.sent.size()) stop.sent[f->index] = f->counters.datagrams_sent.get();
      }
      control.send(stop);
    }
    if (!stalled.empty() && !result.interrupted) result.error = stalled;
    side.join();
    if (!result.interrupted)
      if (auto s = sampler.finish(stalled.empty() ? Clock::now() : drain_from)) {
        if (o.on_interval) o.on_interval(*s);
        result.intervals.push_back(std::move(*s));
      }
    result.remote_side = control.expect<proto::Results>(30).side;
    result.have_remote = true;
  } catch (const Error& e) {
    side.set_phase(engine::Phase::kAbort);
    side.join();
    result.error = e.what();
  }
  result.local_side = engine::collect(side, cap);
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
