// The server half of iperf3's control exchange (the diagram is in
// proto/iperf3_wire.h), and the desk that routes data connections to it.
//
//   cookie ─┬─ a waiting test's ─► handed to that test (desk.offer)
//           └─ new ─► slot? (no: 0xFF, busy) ─► 9 ─► parameters
//               ─► token? (with authentication; no: 0xFE 142, close) ─► 10
//               ─► streams (TCP: from the desk; UDP: hello → connect →
//               reply, one at a time) ─► 1, 2 ─► run until 4 (TEST_END),
//               12 (the client gave up) or a close ─► close the streams
//               ─► 13 ─► their results, ours ─► 14 ─► wait for 16
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/deadline.h"
#include "core/error.h"
#include "engine/test_plan.h"
#include "net/socket.h"
#include "net/sys.h"
#include "proto/messages.h"
#include "report/iperf3_report.h"
#include "session/iperf3_server.h"
#include "session/iperf3_test.h"
#include "session/server.h"
#include "session/server_policy.h"
#include "session/session.h"
#include "session/side_runner.h"
#include "session/test_slot.h"

namespace flowperf::session {

// ---- the desk ----

bool Iperf3Desk::open(const std::string& cookie, std::optional<IpAddr> peer) {
  std::lock_guard<std::mutex> lock(mu_);
  return tests_.emplace(cookie, Waiting{.peer = peer, .taking = true, .arrived = {}}).second;
}

void Iperf3Desk::close(const std::string& cookie) {
  std::lock_guard<std::mutex> lock(mu_);
  tests_.erase(cookie);
}

bool Iperf3Desk::offer(const std::string& cookie, net::Fd fd, uint64_t number,
                       std::optional<IpAddr> from) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = tests_.find(cookie);
  if (it == tests_.end()) return false;
  // Only its own client's: a cookie seen on the wire does not let another
  // host attach a stream to the test (and receive a reverse test's data).
  const bool stranger = !from || from != it->second.peer;
  if (stranger) ++strangers_;
  if (!it->second.taking || stranger) {
    lock.unlock();
    // Too late for this test, or not its client's: refused as iperf3
    // refuses a stray stream.
    const int8_t denied = proto::iperf3::kAccessDenied;
    [[maybe_unused]] auto r = ::send(fd.get(), &denied, 1, MSG_NOSIGNAL);
    return true;
  }
  it->second.arrived.emplace_back(number, std::move(fd));
  cv_.notify_all();
  return true;
}

std::vector<net::Fd> Iperf3Desk::take(const std::string& cookie, size_t n,
                                      Clock::time_point deadline, int control) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = tests_.find(cookie);
  if (it == tests_.end()) return {};
  Waiting& w = it->second;
  while (w.arrived.size() < n && Clock::now() < deadline) {
    cv_.wait_for(lock, std::chrono::milliseconds(50));
    lock.unlock();
    pollfd p{control, POLLIN, 0};
    const bool client_spoke = ::poll(&p, 1, 0) > 0;
    lock.lock();
    if (client_spoke) break;
  }
  w.taking = false;
  std::sort(w.arrived.begin(), w.arrived.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<net::Fd> out;
  for (auto& a : w.arrived) out.push_back(std::move(a.second));
  w.arrived.clear();
  return out;
}

namespace {

using namespace iperf3;
using namespace std::chrono_literals;

std::string stranger_address(const sockaddr_storage& from, socklen_t len) {
  net::Address a;
  a.storage = from;
  a.len = len;
  return a.to_string();
}

std::string plain_host(const net::Address& a) {
  std::string h = a.host();
  if (h.rfind("::ffff:", 0) == 0 && h.find('.') != std::string::npos) h = h.substr(7);
  return h;
}

// How long the server waits for a client between messages, and for its
// data connections (iperf3 3.12 waits for ever; 3.15 and later time out).
constexpr auto kStreamWait = 30s;

class Iperf3Session {
 public:
  Iperf3Session(int control, const SessionContext& ctx, std::string cookie)
      : c_(control),
        ctx_(ctx),
        cfg_(*ctx.config),
        out_(cfg_.iperf3),
        desk_(*ctx.iperf3),
        cookie_(std::move(cookie)),
        slot_(ctx.active_tests) {
    peer_ = net::peer_address(control);
    local_ = net::local_address(control);
  }

  void run() {
    bool completed = false;
    try {
      completed = serve();
    } catch (const ControlLost&) {
      warn("the client has unexpectedly closed the connection");
    } catch (const proto::ProtocolError& e) {
      warn(std::string("error - ") + e.what());
    } catch (const std::exception& e) {
      warn(std::string("error - ") + e.what());
    }
    if (opened_) desk_.close(cookie_);
    if (!out_.on_test_end) return;
    if (unauthorized_)
      out_.on_test_end(Iperf3TestEnd::kUnauthorized);
    else if (started_)
      out_.on_test_end(completed ? Iperf3TestEnd::kCompleted : Iperf3TestEnd::kFailed);
  }

 private:
  bool serve() {
    uint32_t running = 0;
    if (!slot_.take(cfg_.max_tests, &running)) {
      // iperf3's busy answer; the cookie is left unread, as iperf3 leaves it.
      send_state(c_, ip::kAccessDenied);
      log(fmt::format("busy ({} tests running, limit {})", running, cfg_.max_tests));
      return false;
    }
    if (std::string why = slot_.take_source(ctx_.sources, ctx_.peer); !why.empty()) {
      send_state(c_, ip::kAccessDenied);  // iperf3's clients can be told no more than busy
      log("refused: " + why);
      return false;
    }
    ::setsockopt(c_, IPPROTO_TCP, TCP_NODELAY, &one_, sizeof one_);
    if (out_.control_keepalive) {
      try {
        const std::string line = set_control_keepalive(c_, *out_.control_keepalive);
        if (out_.verbose && out_.print && !out_.json) out_.print(line);
      } catch (const Error& e) {
        warn(std::string("error - ") + e.what());
        return false;
      }
    }
    send_state(c_, ip::kParamExchange);
    ip::Params params;
    try {
      params =
          ip::decode_params(read_json(c_, core::after(cfg_.control_timeout_s), ip::kMaxParams));
    } catch (const std::exception& e) {
      warn(std::string("error - unable to receive parameters from client: ") + e.what());
      return false;
    }
    if (out_.auth && !authorized(params.authtoken)) return false;
    if (out_.max_duration_s > 0 &&
        (params.time == 0 || params.time + params.omit > out_.max_duration_s)) {
      // 3.20's answer, before any policy of the server's own: error 37.
      send_error(ip::kErrMaxDuration, 0);
      warn("error - " + ip::server_error_text(ip::kErrMaxDuration) +
           fmt::format(" (-t {} -O {}; --server-max-duration {})", params.time, params.omit,
                       out_.max_duration_s));
      return false;
    }
    if (const std::string why = refuse(params); !why.empty()) {
      send_error(ip::kErrCreateStream, EINVAL);
      warn("error - " + why);
      return false;
    }
    if (const std::string why = ServerPolicy(cfg_).take_memory(slot_, ctx_.memory, ask_of(params));
        !why.empty()) {
      send_error(ip::kErrCreateStream, ENOMEM);
      warn("error - " + why);
      return false;
    }
    started_ = true;
    plan_ = make_plan(params, /*client=*/false);
    start_info();

    // The data connections. A cookie is one test's: a second control
    // connection that gives a running test's cookie is turned away.
    if (!desk_.open(cookie_, ctx_.peer)) {
      send_state(c_, ip::kAccessDenied);
      warn("error - another test holds this cookie; refused");
      return false;
    }
    opened_ = true;
    std::vector<net::Fd> sockets;
    if (params.udp) {
      std::lock_guard<std::mutex> turn(desk_.udp_turn());
      net::Fd first = bind_udp();
      send_state(c_, ip::kCreateStreams);
      sockets = udp_streams(std::move(first));
    } else {
      send_state(c_, ip::kCreateStreams);
      sockets = desk_.take(cookie_, plan_.streams, Clock::now() + kStreamWait, c_);
    }
    if (sockets.size() != plan_.streams) {
      warn(fmt::format("error - {} of {} streams came", sockets.size(), plan_.streams));
      return false;
    }
    const net::SocketOptions so = data_options();
    for (auto& s : sockets) {
      const net::SocketOptionErrors e = net::apply_socket_options(s.get(), so);
      if (e.congestion) warn("warning: TCP congestion control algorithm not supported");
      fds_.push_back(s.get());
      const net::Address la = net::local_address(s.get()), ra = net::peer_address(s.get());
      report_.start.connected.push_back(
          {s.get(), plain_host(la), la.port(), plain_host(ra), ra.port()});
    }
    if (!fds_.empty()) {
      report_.start.sndbuf_actual = net::get_sndbuf(fds_.front());
      report_.start.rcvbuf_actual = net::get_rcvbuf(fds_.front());
    }
    text(report::iperf3::text_start(report_.start));

    send_state(c_, ip::kTestStart);
    send_state(c_, ip::kTestRunning);
    return run_test(std::move(sockets));
  }

  bool run_test(std::vector<net::Fd> sockets) {
    SideRunner::Options ro;
    ro.threads = spec::default_threads(plan_.spec);
    ro.cpu = plan_.params.server_affinity.value_or(-1);
    ro.interval_s = out_.interval_s > 0 ? out_.interval_s : 1;
    ro.meter_at = local_;
    ro.on_interval = [&](const results::IntervalSample& s) {
      rp::Interval iv = report_interval(plan_, s, fds_);
      if (out_.interval_s > 0)
        text(report::iperf3::text_interval(report_.start, iv, {out_.format}));
      report_.intervals.push_back(std::move(iv));
    };
    auto runner = std::make_unique<SideRunner>(make_flows(plan_, std::move(sockets)), ro);
    runner->launch();
    runner->go();
    // The client decides the end; a guard in case it never does: 40 s past
    // the test's time, as iperf3 3.21's server (a test may run as long as
    // the server's limit, and then needs its start and its end), or the
    // limit itself for a test without a time.
    constexpr double kGrace = 40;
    const double longest = plan_.time_s > 0
                               ? std::min(plan_.time_s + plan_.omit_s, cfg_.max_duration_s) + kGrace
                               : cfg_.max_duration_s;
    int8_t said = 0;
    bool closed = false;
    // TEST_END comes when the client has written its last byte, which may
    // still be queued on this side: the receiving streams read what is
    // queued (a short, bounded wait) before they stop, so a -n/-k test
    // counts the bytes that arrived. The test's end is when TEST_END came.
    Clock::time_point test_end{}, drain_until{};
    auto queued = [this] {
      for (int fd : fds_) {
        int n = 0;
        if (::ioctl(fd, FIONREAD, &n) == 0 && n > 0) return true;
      }
      return false;
    };
    auto poll = [&](Clock::time_point until) {
      if (test_end != Clock::time_point{}) {
        if (!queued() || Clock::now() >= drain_until) return SideRunner::Turn::kStop;
        ::poll(nullptr, 0, 1);
        return SideRunner::Turn::kGoOn;
      }
      pollfd p{c_, POLLIN, 0};
      const auto ms = std::max<int64_t>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count());
      if (::poll(&p, 1, static_cast<int>(ms)) <= 0) return SideRunner::Turn::kGoOn;
      const ssize_t n = ::recv(c_, &said, 1, MSG_DONTWAIT);
      if (n == 1 && said == ip::kTestEnd) {
        test_end = Clock::now();
        drain_until = test_end + std::chrono::milliseconds(250);
        return queued() ? SideRunner::Turn::kGoOn : SideRunner::Turn::kStop;
      }
      if (n == 1) return SideRunner::Turn::kStop;
      if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        closed = true;
        return SideRunner::Turn::kStop;
      }
      return SideRunner::Turn::kGoOn;
    };
    const SideRunner::End why = runner->run(core::after(longest), poll, false);
    const auto t_end = test_end != Clock::time_point{} ? test_end : Clock::now();
    runner->end_measuring();
    runner->abort();
    results::SideResult measured = runner->finish(t_end, t_end);
    runner.reset();  // iperf3's server closes its streams at TEST_END
    const std::vector<StreamTotals> mine = totals(plan_, measured);

    if (closed) {
      warn("the client has unexpectedly closed the connection");
      return false;
    }
    if (why != SideRunner::End::kStopped) {
      warn("error - the test ran past its time and the client never ended it");
      return false;
    }
    if (said == ip::kClientTerminate) {
      warn("the client has terminated");
      return false;
    }
    if (said != ip::kTestEnd) {
      warn("error - received an unknown control message");
      return false;
    }

    send_state(c_, ip::kExchangeResults);
    const ip::Results theirs = ip::decode_results(read_json(
        c_, core::after(cfg_.control_timeout_s), ip::max_client_results(plan_.params.parallel)));
    report_.end = report_end(plan_, measured, mine, theirs, fds_, true);
    ip::Results ours = results_message(plan_, measured, mine, &theirs);
    const std::string summary = report::iperf3::text_summary(report_, {out_.format});
    if (plan_.params.get_server_output) {
      if (out_.json)
        ours.server_output_json = report::iperf3::json(report_);
      else
        ours.server_output_text = server_text_ + summary;
    }
    send_json(c_, ip::encode_results(ours));
    send_state(c_, ip::kDisplayResults);
    if (out_.json)
      print(report::iperf3::json(report_));
    else
      text(summary);
    // IPERF_DONE; a client that just closes has said as much.
    try {
      read_state(c_, core::after(cfg_.control_timeout_s));
    } catch (const std::exception&) {
    }
    log(fmt::format("{} {} x{}: done", plan_.params.udp ? "UDP" : "TCP",
                    plan_.params.reverse         ? "reverse"
                    : plan_.params.bidirectional ? "bidir"
                                                 : "",
                    plan_.streams));
    return true;
  }

  // What this server will not run, in words for its log.
  std::string refuse(const ip::Params& p) const {
    if (p.parallel < 1 || p.parallel > 128)
      return fmt::format("{} parallel streams (1 to 128 are served)", p.parallel);
    if (p.udp && (p.len < 16 || p.len > spec::kMaxUdpPayloadV4))
      return fmt::format("UDP length {} (16 to 65507)", p.len);
    if (!p.udp && (p.len < 1 || p.len > spec::kMaxMessage))
      return fmt::format("block length {}", p.len);
    if (p.server_affinity && !spec::cpu_usable(*p.server_affinity))
      return fmt::format("CPU {} is not one this server may run on", *p.server_affinity);
    return ServerPolicy(cfg_).refuse(ask_of(p));
  }

  static TestAsk ask_of(const ip::Params& p) {
    TestAsk ask;
    ask.duration_option = "-t";
    ask.duration_s = static_cast<double>(p.time) + p.omit;
    ask.streams = static_cast<uint64_t>(p.parallel);
    ask.udp_stream = p.udp;
    // iperf3's -b is per stream.
    ask.rate_bps = times(p.bandwidth, static_cast<uint64_t>(p.parallel));
    // A stream's block (-l) and, with -w, both its socket buffers; --bidir
    // has two streams for each -P.
    ask.buffer_options = "-l or -w";
    ask.largest_buffer = std::max<uint64_t>(p.len, p.window);
    ask.stream_buffers = (uint64_t{p.len} + 2ull * p.window) * (p.bidirectional ? 2 : 1);
    return ask;
  }

  // iperf3's authentication, checked as soon as the parameters are in (as
  // 3.12 does). A test without a good token is answered SERVER_ERROR and
  // code 142 in two writes, with no errno after it, and closed; the users
  // file is read for each test, so edits count without a restart.
  bool authorized(const std::string& token) {
    const Iperf3Auth& a = *out_.auth;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::string why;
    try {
      const auto users = auth::load_iperf3_users(a.users_path, "users file");
      const auth::Iperf3Decision d = auth::authorize_iperf3(
          token, {a.private_key.get(), a.padding, a.skew_threshold_s, a.replay.get()}, users, now);
      if (d.verdict == auth::Iperf3Verdict::kAuthorized) {
        log(d.describe(now));
        return true;
      }
      why = d.describe(now);
      if (d.verdict == auth::Iperf3Verdict::kBadToken)
        why += a.padding == auth::RsaPadding::kOaep
                   ? "; clients before iperf3 3.17 encrypt with PKCS#1 v1.5, which this server "
                     "takes only when started with --use-pkcs1-padding"
                   : "; this server was started with --use-pkcs1-padding, and clients of "
                     "iperf3 3.17 and later encrypt with OAEP";
    } catch (const std::exception& e) {
      why = e.what();
    }
    unauthorized_ = true;
    count_auth_failure(ctx_);
    send_state(c_, ip::kServerError);
    const auto code = ip::length_prefix(static_cast<uint32_t>(ip::kErrAuth));
    [[maybe_unused]] auto r = net::sys::write_all(c_, code.data(), code.size(), core::after(5));
    if (out_.json && out_.print) {
      rp::StartInfo s;
      s.version = version_text();
      s.system_info = system_info();
      print(report::iperf3::json_error(s, "error - test authorization failed"));
    }
    warn("error - test authorization failed (" + why + ")");
    return false;
  }

  void send_error(int32_t code, int32_t err) {
    uint8_t b[9] = {static_cast<uint8_t>(ip::kServerError)};
    const auto c = ip::length_prefix(static_cast<uint32_t>(code));
    const auto e = ip::length_prefix(static_cast<uint32_t>(err));
    std::memcpy(b + 1, c.data(), 4);
    std::memcpy(b + 5, e.data(), 4);
    [[maybe_unused]] auto r = net::sys::write_all(c_, b, sizeof b, core::after(5));
  }

  net::SocketOptions data_options() const {
    net::SocketOptions so = engine::socket_options(plan_.spec, spec::End::kLocal);
    if (!plan_.params.udp && plan_.params.bandwidth)
      so.max_pacing_rate = plan_.params.bandwidth / 8;
    if (plan_.params.fqrate) so.max_pacing_rate = plan_.params.fqrate / 8;
    // --max-rate: the server's own TCP sending, shared by the streams.
    if (!plan_.params.udp)
      ServerPolicy(cfg_).pace(so, static_cast<uint64_t>(std::max(plan_.params.parallel, 1)));
    so.dont_fragment = plan_.params.dont_fragment;
    return so;
  }

  // A UDP socket on the server's port (the control connection's address),
  // shared with other tests' until its stream says hello.
  net::Fd bind_udp() const {
    net::Address a = local_;
    net::Fd fd(::socket(a.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) throw runtime_error("cannot open a UDP socket: " + net::sys::errno_text(errno));
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one_, sizeof one_);
    if (a.family() == AF_INET6) {
      int zero = 0;
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    }
    if (::bind(fd.get(), a.sa(), a.len) != 0)
      throw runtime_error("cannot bind UDP port " + std::to_string(a.port()) + ": " +
                          net::sys::errno_text(errno));
    return fd;
  }

  // Each stream's hello, in turn: the socket that heard it is connected to
  // its sender and answers; a fresh one listens for the next.
  std::vector<net::Fd> udp_streams(net::Fd listening) {
    std::vector<net::Fd> out;
    const auto deadline = Clock::now() + kStreamWait;
    while (out.size() < plan_.streams) {
      pollfd p[2] = {{listening.get(), POLLIN, 0}, {c_, POLLIN, 0}};
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (ms <= 0 || ::poll(p, 2, static_cast<int>(ms)) <= 0 || (p[1].revents & POLLIN)) break;
      uint8_t hello[4];
      sockaddr_storage from{};
      socklen_t len = sizeof from;
      const ssize_t n = ::recvfrom(listening.get(), hello, sizeof hello, MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&from), &len);
      if (n < 0) continue;
      // Only from the control connection's address (its TCP handshake
      // proved it): a hello from anywhere else would aim this test's
      // datagrams (a reverse test's, at the client's rate) at a third party.
      if (!ctx_.peer || ip_from_sockaddr(reinterpret_cast<sockaddr*>(&from)) != ctx_.peer) {
        if (!stranger_said_)
          log("a UDP stream hello from " + stranger_address(from, len) +
              ", not the client's address: ignored");
        stranger_said_ = true;
        continue;
      }
      if (::connect(listening.get(), reinterpret_cast<sockaddr*>(&from), len) != 0) break;
      net::Fd next = out.size() + 1 < plan_.streams ? bind_udp() : net::Fd();
      if (::send(listening.get(), ip::kUdpReply, sizeof ip::kUdpReply, 0) != 4) break;
      out.push_back(std::move(listening));
      listening = std::move(next);
    }
    return out;
  }

  void start_info() {
    rp::StartInfo& s = report_.start;
    const ip::Params& p = plan_.params;
    const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    s.role = rp::Role::kServer;
    s.version = version_text();
    s.system_info = system_info();
    s.time = http_time(now_s);
    s.timesecs = now_s;
    s.peer_host = plain_host(peer_);
    s.peer_port = peer_.port();
    s.cookie = cookie_.substr(0, ip::kCookieBytes - 1);
    int mss = 0;
    socklen_t l = sizeof mss;
    ::getsockopt(c_, IPPROTO_TCP, TCP_MAXSEG, &mss, &l);
    s.tcp_mss_default = p.udp ? 0 : mss;
    fill_test_start(s, p);
  }

  // The server's human output: printed as it comes (unless -J), and kept
  // for a client that asked --get-server-output.
  void text(const std::string& t) {
    server_text_ += t;
    if (!out_.json) print(t);
  }
  void print(const std::string& t) const {
    if (out_.print) out_.print(t);
  }
  void warn(const std::string& what) const {
    if (out_.print && !out_.json) out_.print("iperf3: " + what + "\n");
    log(what);
  }
  void log(const std::string& what) const {
    if (!cfg_.log) return;
    std::fputs(fmt::format("flowperf server: {} iperf3: {}\n", peer_.to_string(), what).c_str(),
               cfg_.log);
    std::fflush(cfg_.log);
  }

  int c_;
  const SessionContext& ctx_;
  const ServerConfig& cfg_;
  const Iperf3ServerOptions& out_;
  Iperf3Desk& desk_;
  std::string cookie_;
  TestSlot slot_;
  net::Address peer_, local_;
  Plan plan_;
  rp::Report report_;
  std::vector<int> fds_;
  std::string server_text_;
  bool started_ = false;
  bool unauthorized_ = false;   // refused for its token
  bool opened_ = false;         // its cookie is open at the desk
  bool stranger_said_ = false;  // a UDP hello from another address was logged
  int one_ = 1;
};

}  // namespace

void serve_iperf3_connection(int control, const SessionContext& ctx) {
  if (!ctx.iperf3) return;
  std::string cookie(proto::iperf3::kCookieBytes, '\0');
  if (net::sys::read_exact(control, cookie.data(), cookie.size(), first_message_deadline(ctx)) !=
      net::sys::IoStatus::kOk)
    return;
  // A data connection of a test that waits for it: the test takes it over
  // (the server closes its own descriptor of it when this returns).
  net::Fd dup(::fcntl(control, F_DUPFD_CLOEXEC, 0));
  if (dup && ctx.iperf3->offer(cookie, std::move(dup), ctx.connection_number, ctx.peer)) return;
  Iperf3Session(control, ctx, cookie).run();
}

}  // namespace flowperf::session
