// The server half of qperf's exchange (the diagram is in
// proto/qperf_wire.h), for a connection the dispatcher found to start with
// a qperf request. One test per control connection, as qperf's. Tests of
// several clients run side by side (qperf's own server serialises them;
// nothing in the protocol needs that).
//
// Unlike qperf 0.4.11's server, the wait for the data connection has a
// timeout (the request's, at least 1 s): a client that gives up after the
// port arrives cannot wedge the server (qperf-wire.md §9).
//
// quit stops the server only when it runs as the qperf personality
// (ServerConfig::allow_remote_quit); flowperf's general server answers it
// with qperf's error channel and keeps serving.
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/cpu_pin.h"
#include "core/deadline.h"
#include "engine/test_plan.h"
#include "net/socket.h"
#include "net/source_filter.h"
#include "net/sys.h"
#include "proto/messages.h"
#include "session/qperf_control.h"
#include "session/server.h"
#include "session/server_policy.h"
#include "session/session.h"
#include "session/side_runner.h"
#include "session/test_slot.h"

namespace flowperf::session {
namespace {

using namespace qperf;

using core::after;

class QperfSession {
 public:
  QperfSession(int control, const SessionContext& ctx)
      : control_(control), ctx_(ctx), slot_(ctx.active_tests) {}

  void serve() {
    uint8_t b[qw::kRequestBytes];
    // Before the request is decoded, the server's own timeout.
    read_message(control_, b, sizeof b, first_message_deadline(ctx_), "request");
    qw::Request req;
    try {
      req = qw::decode_request(b);
    } catch (const proto::ProtocolError& e) {
      return refuse(e.what());
    }
    // The client's -to (qperf's default 5 s) for every wait on it, but
    // never longer than the server's control timeout: a client that asks
    // for hours and then goes silent must not hold its test slot so long.
    timeout_s_ = ServerPolicy(*ctx_.config).control_wait_seconds(req.timeout ? req.timeout : 5);
    const auto index = static_cast<qw::Index>(req.req_index);
    // The RDMA tests (12 and up): what a qperf built without RDMA answers.
    if (req.req_index > static_cast<uint16_t>(qw::Index::kUdpLat))
      return refuse(fmt::format("bad request index: {}", req.req_index));
    if (index == qw::Index::kConf) {
      const auto conf = qw::encode_conf(local_conf());
      write_message(control_, conf.data(), conf.size(), after(timeout_s_), "configuration");
      return;
    }
    if (index == qw::Index::kQuit) return quit();
    if (!is_socket_test(req.req_index))
      return refuse(fmt::format(
          "{} is not supported by this server (flowperf serves conf, quit, tcp_bw, tcp_lat, "
          "udp_bw and udp_lat)",
          qw::index_name(req.req_index)));
    // What the policy refuses takes no slot; then the slot, then the source's share.
    TestAsk ask;
    ask.duration_option = "-t";
    ask.duration_s = req.time;
    ask.udp_stream = index == qw::Index::kUdpBw;
    ask.rate_option = "";  // qperf cannot pace its udp_bw
    // One stream: its message (-m) and, with -sb, both socket buffers.
    ask.buffer_options = "-m or -sb";
    ask.largest_buffer = std::max<uint64_t>(req.msg_size, req.sock_buf_size);
    ask.stream_buffers = uint64_t{req.msg_size} + 2ull * req.sock_buf_size;
    if (std::string why = ServerPolicy(*ctx_.config).refuse(ask); !why.empty()) return refuse(why);
    uint32_t running = 0;
    if (!slot_.take(ctx_.config->max_tests, &running))
      return refuse(fmt::format("server busy ({} tests running, limit {}) - try again later",
                                running, ctx_.config->max_tests));
    if (std::string why = slot_.take_source(ctx_.sources, ctx_.peer); !why.empty())
      return refuse(why);
    if (std::string why = ServerPolicy(*ctx_.config).take_memory(slot_, ctx_.memory, ask);
        !why.empty())
      return refuse(why);
    if (req.msg_size == 0 ||
        req.msg_size > (is_udp(index) ? spec::kMaxUdpPayloadV6 : spec::kMaxMessage))
      return refuse(fmt::format("{}: message size {} is out of range",
                                qw::index_name(req.req_index), req.msg_size));
    run_test(req, index);
  }

 private:
  void log(const std::string& line) { log_line(*ctx_.config, "qperf server: " + line); }

  void refuse(const std::string& text) {
    log(text);
    send_error(control_, text);
  }

  void quit() {
    synchronize(control_, qw::kSyncBefore, after(timeout_s_));
    if (!ctx_.config->allow_remote_quit || !ctx_.request_quit)
      return refuse("quit: this flowperf server does not stop for clients (stop it locally)");
    // The client closes; then the server goes, with status 0 as qperf's.
    net::sys::wait_readable(control_, after(timeout_s_));
    ctx_.request_quit();
  }

  net::Fd open_data_socket(const qw::Request& req, qw::Index index) {
    const bool udp = is_udp(index);
    const int type = udp ? SOCK_DGRAM : SOCK_STREAM;
    // The control connection's family; IPv6 is dual stack, as qperf's.
    const net::Address here = net::local_address(control_);
    net::Address bind_at = net::resolve(here.family() == AF_INET6 ? "::" : "0.0.0.0",
                                        static_cast<uint16_t>(req.port), IpFamily::kAny, type)
                               .front();
    net::Fd fd(::socket(bind_at.family(), type | SOCK_CLOEXEC, 0));
    if (!fd) return fd;
    int one = 1, zero = 0;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind_at.family() == AF_INET6)
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    // --max-rate: the server's own sending (tcp_lat's and udp_lat's replies).
    net::SocketOptions paced;
    ServerPolicy(*ctx_.config).pace(paced, 1);
    if (paced.any()) net::apply_socket_options(fd.get(), paced);
    if (req.sock_buf_size) {
      // Before listen(): the accepted socket inherits them.
      const int size = static_cast<int>(std::min<uint32_t>(req.sock_buf_size, INT32_MAX));
      ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
      ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    if (::bind(fd.get(), bind_at.sa(), bind_at.len) != 0) return net::Fd();
    if (!udp && ::listen(fd.get(), 1) != 0) return net::Fd();
    // No reflection: UDP from the control connection's address only.
    if (udp) {
      try {
        net::accept_only_from(fd.get(), net::peer_address(control_));
      } catch (const std::exception& e) {
        log(e.what());
        return net::Fd();
      }
    }
    return fd;
  }

  // The client's data connection, for at most the request's timeout; none
  // when the client went away or gave up.
  net::Fd accept_data(int listener) {
    const auto deadline = after(std::max(1.0, timeout_s_));
    while (Clock::now() < deadline) {
      if (ctx_.stopping && ctx_.stopping->load()) return net::Fd();
      pollfd p[2] = {{listener, POLLIN, 0}, {control_, POLLPRI | POLLRDHUP, 0}};
      if (::poll(p, 2, 100) < 0 && errno != EINTR) return net::Fd();
      if (p[1].revents) return net::Fd();
      if (p[0].revents & POLLIN) {
        net::Fd c(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
        if (c) return c;
      }
    }
    log("no data connection within the timeout; the client gave up");
    return net::Fd();
  }

  void run_test(const qw::Request& req, qw::Index index) {
    // -ca n: the server's side runs on CPU n-1 (workers inherit the mask).
    core::CpuPin pin(req.affinity ? static_cast<int>(req.affinity) - 1 : -1);
    if (req.affinity && !pin.ok())
      return refuse(fmt::format("failed to set CPU affinity to {}: {}", req.affinity - 1,
                                std::strerror(pin.error())));
    net::Fd data = open_data_socket(req, index);
    if (!data)
      return refuse(is_udp(index) ? "unable to make UDP socket" : "unable to make TCP socket");
    const auto port = qw::encode_port(net::local_address(data.get()).port());
    write_message(control_, port.data(), port.size(), after(timeout_s_), "port");
    if (!is_udp(index)) {
      data = accept_data(data.get());
      if (!data) return;
    }
    synchronize(control_, qw::kSyncBefore, after(timeout_s_));

    // The data phase on the engine, for the request's time; the time
    // arrays bracket it as qperf's server's do.
    spec::TestSpec spec = spec_for(index, req.msg_size, req.time, 0);
    spec.wire.udp_header = spec::UdpHeader::kNone;
    spec.wire.touch_received = req.access_recv != 0;
    std::vector<net::Fd> sockets;
    sockets.push_back(std::move(data));
    SideRunner::Options ro;
    ro.threads = 1;
    SideRunner runner(engine::server_flows(spec, std::move(sockets), {}), ro);
    runner.launch();
    qw::Stat stat;
    stat.no_cpus = static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN));
    stat.no_ticks = static_cast<uint32_t>(::sysconf(_SC_CLK_TCK));
    stat.time_s = time_array();
    const auto t0 = runner.go();
    // qperf's -t 0 runs until the client stops it: no longer than --max-duration.
    const auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                              ServerPolicy(*ctx_.config).test_seconds(req.time)));
    bool client_gone = false;
    runner.run(end, [&](Clock::time_point until) {
      if (ctx_.stopping && ctx_.stopping->load()) return SideRunner::Turn::kStop;
      pollfd p{control_, POLLPRI | POLLRDHUP, 0};
      if (::poll(&p, 1, 0) > 0 && p.revents) {
        client_gone = true;
        return SideRunner::Turn::kStop;
      }
      runner.side().wait_finished(until);
      return SideRunner::Turn::kGoOn;
    });
    stat.time_e = time_array();
    runner.end_measuring();
    runner.abort();
    const auto t_end = Clock::now();
    const results::SideResult measured = runner.finish(t_end, t_end);
    if (client_gone) return log("the client went away during the test");
    fill_counts(stat, index, req.msg_size, measured.total());
    const auto bytes = qw::encode_stat(stat);
    write_message(control_, bytes.data(), bytes.size(), after(timeout_s_), "statistics");
    std::string got(qw::kSyncAfter.size(), '\0');
    read_message(control_, got.data(), got.size(), after(timeout_s_), "synchronization after test");
  }

  int control_;
  const SessionContext& ctx_;
  TestSlot slot_;  // held from the test's admission to the end of the session
  double timeout_s_ = 5;
};

}  // namespace

void serve_qperf_connection(int control, const SessionContext& ctx) {
  QperfSession s(control, ctx);
  try {
    s.serve();
  } catch (const PeerError&) {
    // The client reported an error of its own and closes: qperf's server
    // exits quietly then.
  } catch (const ControlFailure& e) {
    log_line(*ctx.config, std::string("qperf server: ") + e.what());
    send_error(control, e.what(), std::chrono::milliseconds(500));
  }
}

}  // namespace flowperf::session
