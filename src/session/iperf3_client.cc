// The client half of iperf3's control exchange (the diagram is in
// proto/iperf3_wire.h), in the order iperf3 3.12 runs it:
//
//   connect, cookie ─► 9 ─► parameters ─► 10 ─► streams (TCP: cookie each;
//   UDP: hello/reply each) ─► 1, 2 ─► run until time+omit, the byte or
//   block count, Ctrl-C (12), or the server's 11 ─► 4 ─► 13 ─► our
//   results, theirs ─► 14 ─► close the streams ─► 16
#include "session/iperf3_client.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "core/deadline.h"
#include "engine/test_plan.h"
#include "net/socket.h"
#include "net/sys.h"
#include "proto/messages.h"
#include "session/control_connect.h"
#include "session/iperf3_test.h"
#include "session/side_runner.h"
#include "spec/test_spec.h"

namespace flowperf::session {
namespace {

using namespace iperf3;
using namespace std::chrono_literals;

// iperf3 shows IPv4 peers of a dual-stack socket without the v4-mapped prefix.
std::string plain_host(const net::Address& a) {
  std::string h = a.host();
  if (h.rfind("::ffff:", 0) == 0 && h.find('.') != std::string::npos) h = h.substr(7);
  return h;
}

std::string errno_words(int err) { return std::strerror(err); }

// The data sockets' source: -B's address, and --cport + i.
std::optional<net::Address> source_for(const Iperf3ClientOptions& o, const net::Address& server,
                                       uint32_t i, int socktype) {
  if (o.bind_host.empty() && o.cport == 0) return std::nullopt;
  const std::string host =
      o.bind_host.empty() ? (server.family() == AF_INET6 ? "::" : "0.0.0.0") : o.bind_host;
  const uint16_t port = o.cport ? static_cast<uint16_t>(o.cport + i) : 0;
  const IpFamily fam = server.family() == AF_INET6 ? IpFamily::kV6 : IpFamily::kV4;
  return net::resolve(host, port, fam, socktype).front();
}

net::SocketOptions data_options(const Plan& plan, const Iperf3ClientOptions& o) {
  net::SocketOptions so = engine::socket_options(plan.spec, spec::End::kLocal);
  if (!plan.params.udp) {
    so.mss = plan.params.mss;
    // -b over TCP: the kernel paces the socket to the rate.
    if (plan.params.bandwidth) so.max_pacing_rate = plan.params.bandwidth / 8;
  }
  if (o.fq_rate) so.max_pacing_rate = o.fq_rate / 8;
  so.dont_fragment = plan.params.dont_fragment;
  return so;
}

// A SERVER_ERROR's code (and errno, when one follows) in iperf3's words.
std::string read_server_error(int control) {
  const auto deadline = core::after(5);
  uint8_t b[4];
  if (net::sys::read_exact(control, b, 4, deadline) != net::sys::IoStatus::kOk)
    return "the server reported an error";
  const auto code = static_cast<int32_t>(proto::iperf3::read_length(b));
  int32_t err = 0;
  if (net::sys::read_exact(control, b, 4, core::after(0.5)) == net::sys::IoStatus::kOk)
    err = static_cast<int32_t>(proto::iperf3::read_length(b));
  std::string text = ip::server_error_text(code);
  if (text.empty()) text = "the server reported error " + std::to_string(code);
  if (err > 0) text += ": " + errno_words(err);
  return text;
}

}  // namespace

Iperf3ClientRun run_iperf3_client(const Iperf3ClientOptions& o) {
  Iperf3ClientRun run;
  rp::StartInfo& start = run.report.start;
  auto debug = [&o](const std::string& m) {
    if (o.debug) o.debug(m);
  };

  // 1. The control connection, and the cookie.
  ControlTarget target;
  target.host = o.host;
  target.port = o.port;
  target.family = o.family;
  target.timeout_s = o.connect_timeout_s > 0 ? o.connect_timeout_s : 30;
  net::Address server;
  net::Fd control;
  try {
    control = connect_control(target, &server);
  } catch (const ConnectError& e) {
    throw Iperf3Error("unable to connect to server: " + errno_words(e.errno_value()));
  } catch (const Error& e) {
    throw Iperf3Error(std::string("unable to connect to server: ") + e.what());
  }
  int one = 1;
  ::setsockopt(control.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int c = control.get();
  if (o.control_keepalive) {
    std::string line;
    try {
      line = iperf3::set_control_keepalive(c, *o.control_keepalive);
    } catch (const Error& e) {
      throw Iperf3Error(e.what());
    }
    if (o.verbose) o.verbose(line);
  }
  const std::string cookie = ip::make_cookie();
  if (net::sys::write_all(c, cookie.data(), cookie.size(), core::after(30)) !=
      net::sys::IoStatus::kOk)
    throw Iperf3Error("unable to send cookie to server: " + errno_words(errno));
  debug("cookie sent: " + cookie.substr(0, ip::kCookieBytes - 1));

  // 2. PARAM_EXCHANGE, or busy.
  // A server answers the cookie at once (PARAM_EXCHANGE, or busy): one that
  // says nothing is no iperf3 server (a netserver waits for 656 bytes), so
  // the wait is the connect timeout, not a test's length.
  int8_t state = 0;
  switch (net::sys::read_exact(c, &state, 1, core::after(target.timeout_s))) {
    case net::sys::IoStatus::kOk:
      break;
    case net::sys::IoStatus::kTimeout:
      throw Iperf3Error(
          fmt::format("no answer from the server at {} within {:g} s — is an iperf3 server "
                      "listening on that port?",
                      server.to_string(), target.timeout_s));
    case net::sys::IoStatus::kClosed:
      throw Iperf3Error("control socket has closed unexpectedly");
    case net::sys::IoStatus::kError:
      // iperf3's words for a failed read (a reset, most often).
      throw Iperf3Error("unable to receive control message: " + errno_words(errno));
  }
  debug("state from the server: " + ip::state_name(state));
  if (state == ip::kAccessDenied)
    throw Iperf3Error("the server is busy running a test. try again later");
  if (state == ip::kServerError) throw Iperf3Error(read_server_error(c));
  if (state != ip::kParamExchange)
    throw Iperf3Error("received an unknown control message (" + std::to_string(state) + ")");

  ip::Params params = o.params;
  const net::Address local_control = net::local_address(c);
  int ctl_mss = 0;
  socklen_t l = sizeof ctl_mss;
  ::getsockopt(c, IPPROTO_TCP, TCP_MAXSEG, &ctl_mss, &l);
  if (params.len == 0) {
    // UDP's default is the control connection's MSS, as iperf3's.
    const uint32_t max_udp =
        server.family() == AF_INET6 ? spec::kMaxUdpPayloadV6 : spec::kMaxUdpPayloadV4;
    params.len = params.udp ? std::min<uint32_t>(ctl_mss > 0 ? ctl_mss : 1460, max_udp) : 131072;
  }
  const Plan plan = make_plan(params, /*client=*/true);

  const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  start.role = rp::Role::kClient;
  start.version = version_text();
  start.system_info = system_info();
  start.time = http_time(now_s);
  start.timesecs = now_s;
  start.peer_host = o.host;
  start.peer_port = o.port;
  start.cookie = cookie.substr(0, ip::kCookieBytes - 1);
  // The control connection's MSS (a UDP test's -J has no such key; -V shows it).
  start.tcp_mss_default = ctl_mss;
  fill_test_start(start, params);
  start.title = params.title;
  if (o.on_connecting) o.on_connecting(start);

  // 3. Parameters, then CREATE_STREAMS or the server's error.
  if (o.authtoken) {
    try {
      params.authtoken = o.authtoken();
    } catch (const std::exception& e) {
      throw Iperf3Error(std::string("unable to send parameters to server: ") + e.what());
    }
  }
  try {
    const std::string sent = ip::encode_params(params);
    debug("parameters sent: " + sent);
    send_json(c, sent);
    state = read_state(c, core::after(60));
  } catch (const std::exception&) {
    throw Iperf3Error("control socket has closed unexpectedly");
  }
  debug("state from the server: " + ip::state_name(state));
  if (state == ip::kServerError) throw Iperf3Error(read_server_error(c));
  if (state == ip::kAccessDenied) throw Iperf3Error("test authorization failed");
  if (state != ip::kCreateStreams)
    throw Iperf3Error("received an unknown control message (" + std::to_string(state) + ")");

  // 4. The streams, one after the other, as iperf3 opens them.
  const net::SocketOptions so = data_options(plan, o);
  std::vector<net::Fd> sockets;
  std::vector<int> fds;
  net::Address data_server = server;
  data_server.set_port(o.port);
  auto fail_streams = [&](const std::string& why) {
    try {
      send_state(c, ip::kIperfDone);
    } catch (const std::exception&) {
    }
    throw Iperf3Error(why);
  };
  for (uint32_t i = 0; i < plan.streams; ++i) {
    if (!params.udp) {
      auto src = source_for(o, server, i, SOCK_STREAM);
      int err = 0;
      net::SocketOptionErrors failed;
      net::Fd fd = net::connect_tcp(data_server, core::after(target.timeout_s), &err, &so, &failed,
                                    src ? &*src : nullptr);
      if (!fd) fail_streams("unable to connect stream: " + errno_words(err));
      if (failed.congestion)
        fail_streams(
            "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported "
            "on this host");
      if (failed.any()) fail_streams("unable to set up a stream: " + net::describe(failed, so));
      if (net::sys::write_all(fd.get(), cookie.data(), cookie.size(), core::after(30)) !=
          net::sys::IoStatus::kOk)
        fail_streams("unable to send cookie to server: " + errno_words(errno));
      fds.push_back(fd.get());
      sockets.push_back(std::move(fd));
    } else {
      net::Fd fd(::socket(server.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
      if (!fd) fail_streams("unable to create a new stream: " + errno_words(errno));
      net::apply_socket_options(fd.get(), so);
      if (auto src = source_for(o, server, i, SOCK_DGRAM)) {
        ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd.get(), src->sa(), src->len) != 0)
          fail_streams("unable to bind the stream: " + errno_words(errno));
      }
      if (::connect(fd.get(), data_server.sa(), data_server.len) != 0)
        fail_streams("unable to connect stream: " + errno_words(errno));
      timeval tv{30, 0};
      ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      if (::send(fd.get(), ip::kUdpHello, sizeof ip::kUdpHello, 0) != 4)
        fail_streams("unable to write to stream socket: " + errno_words(errno));
      uint8_t reply[4];
      const ssize_t n = net::sys::retry_eintr([&] { return ::recv(fd.get(), reply, 4, 0); });
      if (n < 0) fail_streams("unable to read from stream socket: " + errno_words(errno));
      if (n != 4 || (std::memcmp(reply, ip::kUdpReply, 4) != 0 &&
                     std::memcmp(reply, ip::kUdpLegacyReply, 4) != 0))
        fail_streams("unable to read from stream socket: unexpected reply");
      timeval none{0, 0};
      ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
      fds.push_back(fd.get());
      sockets.push_back(std::move(fd));
    }
    const net::Address la = net::local_address(fds.back()), ra = net::peer_address(fds.back());
    start.connected.push_back({fds.back(), plain_host(la), la.port(), plain_host(ra), ra.port()});
  }
  if (!fds.empty()) {
    start.sndbuf_actual = net::get_sndbuf(fds.front());
    start.rcvbuf_actual = net::get_rcvbuf(fds.front());
  }
  debug(std::to_string(fds.size()) + " stream(s) connected");
  if (o.on_start) o.on_start(start);

  // 5. TEST_START and TEST_RUNNING.
  try {
    for (int8_t want : {ip::kTestStart, ip::kTestRunning}) {
      state = read_state(c, core::after(60));
      debug("state from the server: " + ip::state_name(state));
      if (state == ip::kServerError) throw Iperf3Error(read_server_error(c));
      if (state == ip::kServerTerminate) {
        send_state(c, ip::kIperfDone);
        throw Iperf3Error("the server has terminated");
      }
      if (state != want)
        throw Iperf3Error("received an unknown control message (" + std::to_string(state) + ")");
    }
  } catch (const ControlLost&) {
    throw Iperf3Error("control socket has closed unexpectedly");
  }

  // 6. The test. Intervals are always sampled (they carry the omit period
  // apart); -i 0 only keeps them from being shown.
  SideRunner::Options ro;
  ro.threads = spec::default_threads(plan.spec);
  ro.cpu = o.cpu;
  ro.interval_s = o.interval_s > 0 ? o.interval_s : 1;
  ro.meter_at = local_control;
  ro.interrupt = o.interrupt;
  const bool show = o.interval_s > 0;
  ro.on_interval = [&](const results::IntervalSample& s) {
    // The last, partial interval of a timed test is a few ms long; iperf3's
    // client shows none.
    if (!show || s.end_s - s.start_s < 0.05 * ro.interval_s) return;
    rp::Interval iv = report_interval(plan, s, fds);
    if (o.on_interval) o.on_interval(iv);
    run.report.intervals.push_back(std::move(iv));
  };
  auto runner = std::make_unique<SideRunner>(make_flows(plan, std::move(sockets)), ro);
  runner->launch();
  const auto t0 = runner->go();
  const auto end = plan.time_s > 0
                       ? t0 + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(plan.time_s + plan.omit_s))
                       : Clock::time_point::max();
  std::string failure;
  bool server_gone = false;
  uint64_t last_recv = 0;
  auto last_progress = Clock::now();
  auto poll = [&](Clock::time_point until) {
    pollfd p{c, POLLIN, 0};
    const auto ms = std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count());
    if (::poll(&p, 1, static_cast<int>(ms)) > 0) {
      int8_t s = 0;
      const ssize_t n = ::recv(c, &s, 1, MSG_DONTWAIT);
      if (n == 1 && s == ip::kServerTerminate) {
        failure = "the server has terminated";
        server_gone = true;
        return SideRunner::Turn::kStop;
      }
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        failure = "control socket has closed unexpectedly";
        server_gone = true;
        return SideRunner::Turn::kStop;
      }
      if (n == 1) {
        failure = "received an unknown control message (" + std::to_string(s) + ")";
        return SideRunner::Turn::kStop;
      }
    }
    // -n / -k end on bytes sent or received, whichever side counts them.
    uint64_t sent = 0, recvd = 0;
    for (const auto& f : runner->side().flows()) {
      sent += f->counters.bytes_sent.get();
      recvd += f->counters.bytes_recv.get();
    }
    if (plan.count && (sent >= plan.count || recvd >= plan.count)) return SideRunner::Turn::kStop;
    if (recvd != last_recv) {
      last_recv = recvd;
      last_progress = Clock::now();
    } else if (!plan.sends_any() && o.rcv_timeout_s > 0 &&
               Clock::now() - last_progress > std::chrono::duration<double>(o.rcv_timeout_s)) {
      failure = "idle timeout for receiving data";
      return SideRunner::Turn::kStop;
    }
    return SideRunner::Turn::kGoOn;
  };
  const SideRunner::End why = runner->run(end, poll, /*until_finished=*/plan.count > 0);
  const auto t_end = Clock::now();
  runner->end_measuring();
  runner->abort();
  results::SideResult measured = runner->finish(t_end, t_end);
  const std::vector<StreamTotals> mine = totals(plan, measured);

  rp::Report& report = run.report;
  ip::Results theirs;
  bool have_theirs = false;
  if (why == SideRunner::End::kInterrupted) {
    // Ctrl-C: the server is told, and what was measured here is reported.
    run.interrupted = true;
    try {
      send_state(c, ip::kClientTerminate);
    } catch (const std::exception&) {
    }
  } else if (!failure.empty()) {
    run.error = failure;
    if (server_gone) {
      try {
        send_state(c, ip::kIperfDone);
      } catch (const std::exception&) {
      }
    }
  } else {
    // 7. TEST_END, the results both ways, DISPLAY_RESULTS, IPERF_DONE.
    try {
      send_state(c, ip::kTestEnd);
      debug("state sent: TEST_END");
      state = read_state(c, core::after(30));
      debug("state from the server: " + ip::state_name(state));
      if (state == ip::kServerTerminate) throw Iperf3Error("the server has terminated");
      if (state != ip::kExchangeResults)
        throw Iperf3Error("received an unknown control message (" + std::to_string(state) + ")");
      const std::string ours = ip::encode_results(results_message(plan, measured, mine, nullptr));
      debug("results sent: " + ours);
      send_json(c, ours);
      const std::string got = read_json(c, core::after(30));
      debug("results received: " + got);
      theirs = ip::decode_results(got);
      have_theirs = true;
      state = read_state(c, core::after(30));
      if (state != ip::kDisplayResults)
        throw Iperf3Error("received an unknown control message (" + std::to_string(state) + ")");
    } catch (const Iperf3Error& e) {
      run.error = e.what();
    } catch (const proto::ProtocolError& e) {
      run.error = std::string("unable to receive results: ") + e.what();
    } catch (const std::exception&) {
      run.error = "control socket has closed unexpectedly";
    }
  }
  report.end = report_end(plan, measured, mine, theirs, fds, have_theirs);
  run.result = test_result(plan, std::move(measured), have_theirs ? &theirs : nullptr);
  run.result.local = {plain_host(local_control), local_control.port()};
  run.result.remote = {o.host, o.port};
  run.result.started = std::chrono::system_clock::from_time_t(report.start.timesecs);
  run.result.interrupted = run.interrupted;
  run.result.error = run.error;
  if (have_theirs) {
    report.server_output_text = theirs.server_output_text;
    if (theirs.server_output_json)
      report.server_output_json =
          nlohmann::ordered_json::parse(*theirs.server_output_json, nullptr, false);
  }
  // The streams close before IPERF_DONE, as iperf3's do.
  runner.reset();
  if (run.error.empty() && !run.interrupted) {
    try {
      send_state(c, ip::kIperfDone);
    } catch (const std::exception&) {
    }
  }
  return run;
}

}  // namespace flowperf::session
