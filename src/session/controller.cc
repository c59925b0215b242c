#include "session/controller.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <chrono>
#include <optional>

#include "core/deadline.h"
#include "core/error.h"
#include "core/version.h"
#include "engine/test_plan.h"
#include "engine/worker.h"
#include "net/sys.h"
#include "proto/framing.h"
#include "session/data_plane.h"
#include "session/descriptor_budget.h"
#include "session/flowperf_control.h"
#include "session/side_runner.h"

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

using core::after;

}  // namespace

TestResult run_test(const spec::TestSpec& asked, const ClientOptions& o) {
  TestResult result;
  result.spec = asked;
  // Settled once the server's address is known (see below); used from then on.
  spec::TestSpec& spec = result.spec;
  net::raise_fd_limit();
  check_descriptors(spec, 1, spec::default_threads(spec));

  // 1. Control connection and version handshake.
  ControlTarget target;
  target.host = o.host;
  target.port = o.port;
  target.family = o.family;
  target.timeout_s = o.connect_timeout_s;
  FlowperfControl control(target, ControlSecurity{o.key, o.tls});
  const net::Address server = control.server();
  net::Address local = net::local_address(control.fd());
  result.local = {local.host(), local.port()};
  result.remote = {server.host(), server.port()};
  result.server_software = control.welcome().software;
  result.server_hostname = control.welcome().hostname;

  // The default UDP datagram fills one Ethernet frame without fragments:
  // 1472 bytes over IPv4, 1452 over IPv6 (its header is 20 bytes longer).
  if (spec::info(spec.test).protocol == spec::Protocol::kUdp && spec.send_size == 0 &&
      server.family() == AF_INET6)
    spec.send_size = spec::kUdpDefaultSizeV6;

  // 2. Describe the test; the server opens its data sockets.
  control.send(proto::Setup{spec});
  auto ok = control.expect<proto::SetupOk>(30);
  if (auto token = control.data_token()) ok.cookie = *token;  // never sent when authenticated
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
  SideRunner::Options ro;
  ro.threads = spec::default_threads(spec);
  ro.busy_poll = spec.busy_poll;
  ro.interval_s = spec.interval_s;
  ro.meter_at = local;
  ro.interrupt = o.interrupt;
  ro.stop = o.stop;
  ro.on_interval = o.on_interval;
  ro.cpu = spec.local.cpu;
  SideRunner runner(engine::client_flows(spec, std::move(sockets), crr_server), ro);
  runner.launch();

  // 4. Start both sides together.
  control.send(proto::Start{});
  control.expect<proto::Started>(60);
  const Clock::time_point t0 = runner.go();
  result.started = std::chrono::system_clock::now();
  if (o.on_started) o.on_started(result);

  // 5. Run until the time is up, every flow met its count, or the user
  //    interrupts; sample intervals on the way.
  const auto end = spec.count > 0 ? Clock::time_point::max()
                                  : t0 + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(spec.duration_s));
  result.interrupted = runner.run(end) == SideRunner::End::kInterrupted;

  // 6. Stop. When we originate the work we finish our flows first, so the
  //    server drains only after the last request or datagram is out; when the
  //    server sends, it must hear Stop before our receivers can see its EOF.
  const bool server_sends = spec.test == spec::TestKind::kTcpMaerts;
  Clock::time_point cap = Clock::time_point::max();  // a stalled test's time ends here
  std::optional<Clock::time_point> last_sample_at;
  bool collected = false;  // our side's results are in result.local_side
  try {
    if (server_sends) control.send(proto::Stop{});
    const Clock::time_point drain_from = Clock::now();
    // A slow link may take long to drain full socket buffers; only a drain
    // that makes no progress for kStallQuiet is given up.
    std::string stalled = result.interrupted
                              ? runner.drain_watching(2s, after(2))
                              : runner.drain_watching(kStallQuiet, after(kDrainLimitS));
    runner.end_measuring();  // CPU and NIC figures end with our flows
    if (!stalled.empty()) cap = drain_from;
    if (!server_sends) {
      proto::Stop stop{!stalled.empty(), std::chrono::duration<double>(drain_from - t0).count()};
      // UDP: what each flow sent, so that the server's flows stop draining
      // once it is all in rather than after a quiet spell.
      if (spec.test == spec::TestKind::kUdpStream || spec.test == spec::TestKind::kUdpRr) {
        const auto& flows = runner.side().flows();
        stop.sent.assign(flows.size(), 0);
        for (const auto& f : flows)
          if (f->index < stop.sent.size()) stop.sent[f->index] = f->counters.datagrams_sent.get();
      }
      control.send(stop);
    }
    if (!stalled.empty() && !result.interrupted) result.error = stalled;
    if (!result.interrupted) last_sample_at = stalled.empty() ? Clock::now() : drain_from;
    result.local_side = runner.finish(last_sample_at, cap);
    collected = true;
    result.remote_side = control.expect<proto::Results>(30).side;
    result.have_remote = true;
  } catch (const Error& e) {
    if (!collected) {
      runner.abort();
      result.local_side = runner.finish(std::nullopt, cap);
    }
    result.error = e.what();
  }
  result.intervals = std::move(result.local_side.intervals);
  result.local_side.intervals.clear();
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
