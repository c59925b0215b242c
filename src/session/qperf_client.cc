// The client half of qperf's exchange (the diagram is in
// proto/qperf_wire.h), in the order qperf 0.4.11's client runs it:
//
//   connect ─► request ─► port ─► data connect ─► sync before ─► data
//   phase for `time` s ─► STAT ─► sync after ─► close data, control
//
// Whatever the peer does (another protocol's server, garbage, a reset, a
// close at any point), the caller gets an exception with one line of text;
// nothing here aborts.
#include "session/qperf_client.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/deadline.h"
#include "engine/test_plan.h"
#include "net/socket.h"
#include "net/sys.h"
#include "proto/messages.h"
#include "session/control_connect.h"
#include "session/side_runner.h"

namespace flowperf::session {
namespace {

using namespace qperf;

using core::after;

struct Control {
  net::Fd fd;
  net::Address server;
};

// qperf's client: "<host>: failed to connect" after -ws seconds of tries.
Control open_control(const QperfClientOptions& o) {
  ControlTarget t;
  t.host = o.host;
  t.port = o.port;
  t.timeout_s = o.timeout_s > 0 ? o.timeout_s : 5;
  t.wait_s = o.wait_s;
  t.start_hint = "`qperf` (no arguments), or point -lp at its port";
  Control c;
  c.fd = connect_control(t, &c.server);  // throws ConnectError
  return c;
}

void send_request(const Control& c, const QperfClientOptions& o) {
  const auto bytes = qw::encode_request(o.request);
  write_message(c.fd.get(), bytes.data(), bytes.size(), after(o.timeout_s), "request");
}

// Our own error to the server, as qperf's client sends it; then the
// failure goes up.
[[noreturn]] void fail(int control, const std::string& text) {
  send_error(control, text, std::chrono::milliseconds(200));
  throw QperfClientError(text);
}

// A peer that is not qperf shows up as a bad port, a timeout, a close or a
// reset somewhere; the caller adds the peer's name.
template <typename F>
auto guarded(int control, F&& f) {
  try {
    return f();
  } catch (const PeerError&) {
    throw;
  } catch (const ControlFailure& e) {
    fail(control, e.what());
  } catch (const proto::ProtocolError& e) {
    fail(control, std::string("not a qperf server: ") + e.what());
  }
}

net::Fd connect_data(const Control& c, qw::Index index, uint16_t port, double timeout_s) {
  net::Address a = c.server;
  a.set_port(port);
  if (!is_udp(index)) {
    int err = 0;
    net::Fd fd = net::connect_tcp(a, after(timeout_s), &err);
    if (!fd)
      fail(c.fd.get(), "could not make TCP connection to server: " + net::sys::errno_text(err));
    return fd;
  }
  net::Fd fd(::socket(a.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd || ::connect(fd.get(), a.sa(), a.len) != 0)
    fail(c.fd.get(), "could not make UDP connection to server: " + net::sys::errno_text(errno));
  return fd;
}

// The server's side, from its STAT: what it counted, over its own time,
// and its CPU from the time arrays.
results::SideResult remote_side(const qw::Stat& s, qw::Index index) {
  results::SideResult side;
  side.elapsed_s = s.seconds();
  results::FlowResult f;
  f.elapsed_s = side.elapsed_s;
  f.bytes_sent = s.s.bytes;
  f.bytes_recv = s.r.bytes;
  f.send_errors = s.s.errs;
  if (index == qw::Index::kUdpBw) {
    f.datagrams_recv = s.r.msgs;
    f.datagrams_sent = s.s.msgs;
  }
  if (index == qw::Index::kTcpLat || index == qw::Index::kUdpLat) f.transactions = s.r.msgs;
  side.flows.push_back(f);
  if (s.no_ticks && s.time_e[0] > s.time_s[0])
    side.cpu = cpu_from_arrays(s.time_s, s.time_e, s.no_cpus, s.no_ticks);
  return side;
}

}  // namespace

QperfClientRun run_qperf_test(const QperfClientOptions& o) {
  const auto index = static_cast<qw::Index>(o.request.req_index);
  QperfClientRun run;
  Control c = open_control(o);
  const int ctl = c.fd.get();
  send_request(c, o);

  // The data port, the data connection and the start.
  const uint16_t port = guarded(ctl, [&] {
    uint8_t b[qw::kPortBytes];
    read_message(ctl, b, sizeof b, after(o.timeout_s), "port");
    return qw::decode_port(b);
  });
  std::vector<net::Fd> sockets;
  sockets.push_back(connect_data(c, index, port, o.timeout_s));
  guarded(ctl, [&] {
    synchronize(ctl, qw::kSyncBefore, after(o.timeout_s));
    return 0;
  });

  // The data phase on the engine: this end's flows, unframed.
  spec::TestSpec spec = spec_for(index, o.msg_size, o.time_s, 0);
  spec.wire.udp_header = spec::UdpHeader::kNone;
  SideRunner::Options ro;
  ro.threads = 1;
  ro.meter_at = net::local_address(ctl);
  ro.interrupt = o.interrupt;
  auto runner = std::make_unique<SideRunner>(
      engine::client_flows(spec, std::move(sockets), net::Address{}), ro);
  runner->launch();
  const auto t0 = runner->go();
  const auto end =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.time_s));
  const SideRunner::End why = runner->run(end, [&](Clock::time_point until) {
    // The server's error text ends the test here too; reading the STAT
    // below then takes the text.
    if (error_pending(ctl)) return SideRunner::Turn::kStop;
    runner->side().wait_finished(until);
    return SideRunner::Turn::kGoOn;
  });
  const auto t_end = Clock::now();
  runner->end_measuring();
  runner->abort();
  run.result.local_side = runner->finish(t_end, t_end);
  run.result.spec = spec;
  run.interrupted = why == SideRunner::End::kInterrupted;
  if (run.interrupted) {
    send_error(ctl, "interrupted", std::chrono::milliseconds(200));
    return run;
  }

  // The server's statistics, then the last sync; the data socket stays
  // open until the server has stopped its timer (a close would end its
  // test early).
  run.stat = guarded(ctl, [&] {
    uint8_t b[qw::kStatBytes];
    read_message(ctl, b, sizeof b, after(o.timeout_s + 1), "statistics");
    return qw::decode_stat(b);
  });
  guarded(ctl, [&] {
    write_message(ctl, qw::kSyncAfter.data(), qw::kSyncAfter.size(), after(o.timeout_s),
                  "synchronization after test");
    return 0;
  });
  runner.reset();
  run.result.remote_side = remote_side(run.stat, index);
  run.result.have_remote = true;
  run.result.local = {net::local_address(ctl).host(), net::local_address(ctl).port()};
  run.result.remote = {c.server.host(), c.server.port()};
  return run;
}

proto::qperf::Conf run_qperf_conf(const QperfClientOptions& o) {
  Control c = open_control(o);
  send_request(c, o);
  const int ctl = c.fd.get();
  return guarded(ctl, [&] {
    uint8_t b[qw::kConfBytes];
    read_message(ctl, b, sizeof b, after(o.timeout_s), "configuration");
    return qw::decode_conf(b);
  });
}

void run_qperf_quit(const QperfClientOptions& o) {
  Control c = open_control(o);
  send_request(c, o);
  const int ctl = c.fd.get();
  guarded(ctl, [&] {
    synchronize(ctl, qw::kSyncBefore, after(o.timeout_s));
    return 0;
  });
}

}  // namespace flowperf::session
