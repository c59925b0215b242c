// netperf 2.7's control protocol on the server side (proto/netperf_wire.h):
// a real netperf client can test against flowperf's server as against a
// netserver. session.cc hands over every control connection whose first
// bytes are not flowperf's.
//
// Per connection, until the client shuts it down:
//
//   read a 656-byte request ─┬─ DO_OMNI ─► open the data socket, reply with
//                            │             the setup response, run the test,
//                            │             send the results unsolicited
//                            ├─ classic TCP_STREAM / TCP_RR / TCP_CC ─► the
//                            │             same, in the pre-2.5 message layouts
//                            │             (netperf 2.7 still sends TCP_CC so)
//                            ├─ PASSPHRASE ─► nothing (no reply)
//                            ├─ DEBUG_ON/OFF, CPU_CALIBRATE, SYSINFO ─► a small reply
//                            └─ anything else ─► serv_errno 998
//
// The data phase runs on flowperf's engine flows. How each test ends is
// netserver's: STREAM and RR end at the client's half-close; MAERTS sends
// until its own test_length timer; UDP tests end at the client's
// zero-length datagram. A missing end falls back to the timer padded by
// PAD_TIME (4 s), which is then subtracted from the elapsed time. TCP_CRR
// and TCP_CC have no end mark on the data path at all: netserver waits for its padded
// timer; we stop once test_length has passed and no transaction has
// completed for 300 ms, and keep the listener open until the client's next
// message, so a last connection made after that is parked in the backlog
// (until the client's own timer ends it) instead of refused (refused would
// make netperf exit with an error).
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/cpu_pin.h"
#include "engine/collect.h"
#include "engine/test_plan.h"
#include "engine/worker.h"
#include "net/socket.h"
#include "net/source_filter.h"
#include "net/sys.h"
#include "net/tcp_info.h"
#include "proto/netperf_wire.h"
#include "session/server.h"
#include "session/server_policy.h"
#include "session/session.h"
#include "session/side_runner.h"
#include "session/test_slot.h"
#include "spec/test_spec.h"

namespace flowperf::session {
namespace {

namespace np = proto::netperf;
using Clock = std::chrono::steady_clock;
using spec::TestKind;
using namespace std::chrono_literals;

Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// UDP_LENGTH_MAX in netperf: the largest datagram it chooses by itself.
constexpr int kUdpLengthMax = 65507;
// After test_length, a TCP_CRR server stops once no transaction has
// completed for this long.
constexpr auto kCrrQuiet = 300ms;
// How long MAERTS waits for the client's EOF once it stopped sending.
constexpr auto kMaertsDrain = 10s;

// One test as the server runs it, whichever message (omni or classic) asked.
struct Plan {
  TestKind kind = TestKind::kTcpStream;
  net::Address bind;             // the data socket's address; port 0 = ephemeral
  int sndbuf = -1, rcvbuf = -1;  // requested; <= 0 = the system default
  bool nodelay = false;
  int prio = -1, tos = -1;
  int32_t send_size = -1, recv_size = -1;  // stream: bytes per call (-1 = choose)
  int32_t request_size = 0, response_size = 0;
  int32_t test_length = 0;          // > 0 seconds; < 0 minus a count; 0 until the client ends
  bool timer_after_accept = false;  // classic tests start their clock once connected
  bool want_cong = false;
  std::string cong;        // TCP_CONGESTION asked for (netperf test -K ,remote)
  bool keepalive = false;  // SO_KEEPALIVE (netperf -S)
  int cpu = -1;            // the CPU to run the data path on (netperf -T ,remote)
};

// The "rate" netserver's /proc/stat CPU method reports when it calibrates:
// clock ticks per second. netperf warns that remote CPU figures rest on
// process information alone when it is 0.
float clock_ticks() { return static_cast<float>(::sysconf(_SC_CLK_TCK)); }

bool is_udp(TestKind k) { return k == TestKind::kUdpStream || k == TestKind::kUdpRr; }

// The socket as set up, for the setup response.
struct DataSocket {
  net::Fd fd;
  uint16_t port = 0;
  int sndbuf = 0, rcvbuf = 0;
  int32_t send_size = 0, recv_size = 0;  // chosen bytes per call
};

// The plan as a TestSpec whose remote end is this server's, for the socket
// options and the flows every protocol shares. With the data socket, the
// sizes per call are the ones netserver chose.
spec::TestSpec as_spec(const Plan& p, const DataSocket* ds = nullptr) {
  spec::TestSpec s;
  s.test = p.kind;
  s.remote_sndbuf = p.sndbuf > 0 ? static_cast<uint32_t>(p.sndbuf) : 0;
  s.remote_rcvbuf = p.rcvbuf > 0 ? static_cast<uint32_t>(p.rcvbuf) : 0;
  s.nodelay = p.nodelay;
  s.keepalive = p.keepalive;
  s.remote.cc = p.cong;
  s.remote.tos = p.tos;
  s.remote.priority = p.prio;
  s.remote.cpu = p.cpu;
  s.request_size = static_cast<uint32_t>(p.request_size);
  s.response_size = static_cast<uint32_t>(p.response_size);
  s.count = p.test_length < 0 ? static_cast<uint64_t>(-int64_t{p.test_length}) : 0;
  if (ds) {
    s.send_size = static_cast<uint32_t>(ds->send_size);
    s.recv_size = static_cast<uint32_t>(ds->recv_size);
  }
  return s;
}

struct Outcome {
  results::SideResult side;
  double elapsed_s = 0;
  bool timed_out = false;
  const char* aborted = nullptr;  // why the test was given up, if it was
  int sndbuf_end = 0, rcvbuf_end = 0;
  int retrans = 0;
  std::string cong;
};

// A refusal netperf hears as serv_errno.
struct Refusal {
  int err;
  std::string why;
};

class NetperfSession {
 public:
  NetperfSession(int control, const SessionContext& ctx)
      : control_(control), ctx_(ctx), cfg_(*ctx.config), slot_(ctx.active_tests) {
    peer_ = net::peer_address(control);
    local_ = net::local_address(control);
  }

  void run() {
    try {
      loop();
    } catch (const std::exception& e) {
      log("-", std::string("internal error: ") + e.what());
    }
  }

 private:
  void loop() {
    if (!cfg_.netperf_passphrase.empty() && !passphrase_matches()) return;
    for (;;) {
      np::Frame f;
      if (!next_request(&f)) return;
      crr_listener_.reset();  // the client has moved on from the last test
      const np::Header h = np::decode_header(f);
      bool go_on = true;
      switch (np::classify_request(h.type)) {
        case np::RequestKind::kOmni:
          go_on = serve_omni(f);
          break;
        case np::RequestKind::kClassicTcpStream:
          go_on = serve_classic_stream(f);
          break;
        case np::RequestKind::kClassicTcpRr:
          go_on = serve_classic_rr(f, TestKind::kTcpRr);
          break;
        case np::RequestKind::kClassicTcpCc:
          go_on = serve_classic_rr(f, TestKind::kTcpCc);
          break;
        case np::RequestKind::kPassphraseNoReply:
          break;  // this server asks for none; netserver never answers one
        case np::RequestKind::kDebug:
          go_on = send(np::encode_status(np::kDebugOk, 0));
          break;
        case np::RequestKind::kCalibrateCpu:
          go_on = send(np::encode_cpu_calibrate_reply(
              0.0f, static_cast<int32_t>(std::thread::hardware_concurrency())));
          break;
        case np::RequestKind::kSysinfo:
          go_on = send(np::encode_sysinfo_reply(",flowperf,flowperf,flowperf,flowperf"));
          break;
        case np::RequestKind::kUnknown:
          log("-",
              fmt::format("unknown netperf request type {} (answered with error 998)", h.type));
          go_on = send(np::encode_unknown_request_reply());
          break;
      }
      if (!go_on) return;
    }
  }

  // Reads one whole request. False when the client is done (EOF), went
  // silent, sent a short message, or the server is stopping.
  // netserver -Z: the first message must be PASSPHRASE with the phrase; the
  // connection is closed otherwise, with no reply (as netserver does).
  bool passphrase_matches() {
    np::Frame f;
    if (!next_request(&f)) return false;
    if (np::decode_header(f).type == np::kPassphrase &&
        np::decode_passphrase(f) == cfg_.netperf_passphrase)
      return true;
    count_auth_failure(ctx_);
    log("-", "refused: the first message was not the passphrase -Z asks for; connection closed");
    return false;
  }

  bool next_request(np::Frame* f) {
    const auto deadline =
        first_ ? first_message_deadline(ctx_) : Clock::now() + secs(cfg_.control_timeout_s);
    size_t got = 0;
    while (got < f->size()) {
      if (ctx_.stopping->load()) return false;
      auto slice = std::min(deadline, Clock::now() + 200ms);
      size_t n = 0;
      auto st = net::sys::read_exact(control_, f->data() + got, f->size() - got, slice, &n);
      got += n;
      if (st == net::sys::IoStatus::kOk) return true;
      if (st == net::sys::IoStatus::kClosed) {
        if (got > 0)
          log("-", fmt::format("short netperf request ({} of {} bytes)", got, f->size()));
        return false;
      }
      if (st == net::sys::IoStatus::kError) return false;
      if (Clock::now() >= deadline) {
        if (got > 0 || first_)
          log("-", got > 0 ? fmt::format("short netperf request ({} of {} bytes) timed out", got,
                                         f->size())
                           : std::string("no netperf request arrived in time"));
        return false;
      }
    }
    return true;
  }

  bool send(const np::Frame& f) {
    first_ = false;
    return net::sys::write_all(control_, f.data(), f.size(), Clock::now() + secs(30)) ==
           net::sys::IoStatus::kOk;
  }

  // ---- omni ----

  bool serve_omni(const np::Frame& frame) {
    const np::OmniRequest r = np::decode_omni_request(frame);
    Plan p;
    try {
      p = omni_plan(r);
      p.cpu = np::decode_header(frame).second;
    } catch (const Refusal& no) {
      log("-", "refused a netperf test: " + no.why);
      send(np::encode_omni_response({}, no.err));
      return false;
    }
    const char* name = spec::info(p.kind).name;
    DataSocket ds;
    try {
      admit(p);
      ds = open_data_socket(p);
    } catch (const Refusal& no) {
      log(name, "refused: " + no.why);
      send(np::encode_omni_response({}, no.err));
      return false;
    }

    np::OmniResponse resp;
    resp.recv_buf_size = ds.rcvbuf;
    resp.send_buf_size = ds.sndbuf;
    const bool xmit = r.direction & np::kDirXmit, recv = r.direction & np::kDirRecv;
    resp.receive_size = recv ? ds.recv_size : r.receive_size;
    resp.send_size = xmit ? ds.send_size : r.send_size;
    // Buffer-ring widths: this server sends from one buffer and receives
    // into one; for a direction it does not use it echoes the request's, as
    // netserver does.
    resp.recv_width = recv ? 1 : static_cast<int32_t>(r.recv_width);
    resp.send_width = xmit ? 1 : static_cast<int32_t>(r.send_width);
    // MEASURE_CPU is echoed only because we then do measure (SideMeter).
    const bool measure_cpu = r.flags & np::kFlagMeasureCpu;
    resp.flags = (p.nodelay ? np::kFlagNoDelay : 0) | (measure_cpu ? np::kFlagMeasureCpu : 0);
    resp.data_port = ds.port;  // test_length stays 0, as netserver leaves it
    resp.socket_prio = r.socket_prio;
    resp.socket_tos = r.socket_tos;
    if (!send(np::encode_omni_response(resp))) return false;
    const Clock::time_point t0 = Clock::now();

    Outcome o = run_data_phase(p, ds, t0, measure_cpu);
    slot_.release();
    if (o.aborted) {
      log(name, fmt::format("aborted ({}) after {:.2f} s", o.aborted, o.elapsed_s));
      return false;
    }
    results::FlowResult t = o.side.total();
    // A counted request/response test ends, at netserver, once it has
    // answered the count; a client with a first burst has a few more
    // requests in flight then, which we answer but, like netserver, do not
    // report.
    if (p.test_length < 0 && (p.kind == TestKind::kTcpRr || p.kind == TestKind::kUdpRr)) {
      const uint64_t n = static_cast<uint64_t>(-int64_t{p.test_length});
      if (t.transactions > n) {
        t.transactions = n;
        t.bytes_recv = std::min<uint64_t>(t.bytes_recv, n * static_cast<uint64_t>(p.request_size));
        t.bytes_sent = std::min<uint64_t>(t.bytes_sent, n * static_cast<uint64_t>(p.response_size));
      }
    }
    np::OmniResults res;
    res.bytes_received = t.bytes_recv;
    res.recv_calls = static_cast<uint32_t>(t.recv_calls);
    res.recv_buf_size = o.rcvbuf_end;
    res.bytes_sent = t.bytes_sent;
    res.send_calls = static_cast<uint32_t>(t.send_calls);
    res.send_buf_size = o.sndbuf_end;
    res.failed_sends = static_cast<uint32_t>(t.send_errors);
    res.trans_received = static_cast<uint32_t>(t.transactions);
    res.elapsed_time = static_cast<float>(o.elapsed_s);
    res.num_cpus = std::thread::hardware_concurrency();
    res.transport_retrans = o.retrans;
    if (o.side.cpu) {
      const measure::CpuUsage& c = *o.side.cpu;
      res.cpu_util = static_cast<float>(c.util);
      res.cpu_percent_user = static_cast<float>(c.user);
      res.cpu_percent_system = static_cast<float>(c.system);
      res.cpu_percent_iowait = static_cast<float>(c.iowait);
      res.cpu_percent_irq = static_cast<float>(c.irq);
      res.cpu_percent_swintr = static_cast<float>(c.softirq);
      res.cpu_method = np::kCpuMethodProcStat;
      res.num_cpus = c.num_cpus;
      res.peak_cpu_id = c.peak_cpu;
      res.peak_cpu_util = static_cast<float>(c.peak_util);
    }
    if (r.flags & np::kFlagWantRemoteCong) res.cong_control = o.cong;
    const bool sent = send(np::encode_omni_results(res));
    log_done(name, o, sent);
    return sent;
  }

  Plan omni_plan(const np::OmniRequest& r) {
    Plan p;
    const bool tcp =
        r.socket_type == np::kNstStream && (r.protocol == IPPROTO_TCP || r.protocol == 0);
    const bool udp =
        r.socket_type == np::kNstDgram && (r.protocol == IPPROTO_UDP || r.protocol == 0);
    const uint32_t dir = r.direction & (np::kDirXmit | np::kDirRecv);
    const bool rr = dir == (np::kDirXmit | np::kDirRecv);
    if (!tcp && !udp)
      throw Refusal{EPROTONOSUPPORT, fmt::format("socket type {} protocol {} is not served",
                                                 r.socket_type, r.protocol)};
    if (tcp && (r.flags & np::kFlagConnectTest) && rr)
      p.kind = TestKind::kTcpCrr;
    else if (r.flags & np::kFlagConnectTest)
      throw Refusal{EOPNOTSUPP, "connect-only tests (TCP_CC) are not served"};
    else if (tcp && dir == np::kDirRecv)
      p.kind = TestKind::kTcpStream;
    else if (tcp && dir == np::kDirXmit)
      p.kind = TestKind::kTcpMaerts;
    else if (tcp && rr)
      p.kind = TestKind::kTcpRr;
    else if (udp && dir == np::kDirRecv)
      p.kind = TestKind::kUdpStream;
    else if (udp && rr)
      p.kind = TestKind::kUdpRr;
    else
      throw Refusal{EOPNOTSUPP, fmt::format("direction {:#x} over {} is not served", r.direction,
                                            tcp ? "TCP" : "UDP")};
    if (r.data_port > 65535) throw Refusal{EINVAL, fmt::format("data port {}", r.data_port)};
    p.bind = bind_address(r.ipfamily, r.netserver_ip, static_cast<uint16_t>(r.data_port));
    // No reflection: a UDP test's datagrams come from the control
    // connection's address only (the data socket's filter drops the
    // others). A netperf that says it will send from elsewhere (test-specific
    // -L) is told so at once rather than left to time out.
    if (udp) {
      const auto from = named_address(family_of(r.ipfamily), r.netperf_ip);
      if (from && ip_from_sockaddr(from->sa()) != ctx_.peer)
        throw Refusal{EADDRNOTAVAIL,
                      fmt::format("UDP datagrams are taken only from the control connection's "
                                  "address ({}), and this test would send them from {} "
                                  "(test-specific -L): start the test from that address",
                                  ctx_.peer ? ctx_.peer->to_string() : "?", from->host())};
    }
    p.sndbuf = r.send_buf_size;
    p.rcvbuf = r.recv_buf_size;
    p.nodelay = r.flags & np::kFlagNoDelay;
    p.prio = r.socket_prio;
    p.tos = r.socket_tos;
    p.send_size = r.send_size;
    p.recv_size = r.receive_size;
    p.request_size = r.request_size;
    p.response_size = r.response_size;
    p.test_length = r.test_length;
    p.want_cong = r.flags & np::kFlagWantRemoteCong;
    p.cong = r.cong_control;
    p.keepalive = r.flags & np::kFlagKeepalive;
    return p;
  }

  // ---- classic (pre-2.5 clients) ----

  bool serve_classic_stream(const np::Frame& frame) {
    const auto r = np::decode_classic_tcp_stream_request(frame);
    Plan p;
    p.kind = TestKind::kTcpStream;
    p.sndbuf = r.send_buf_size;
    p.rcvbuf = r.recv_buf_size;
    p.nodelay = r.no_delay != 0;
    p.recv_size = r.receive_size > 0 ? r.receive_size : -1;
    p.test_length = r.test_length;
    p.timer_after_accept = true;
    p.cpu = np::decode_header(frame).second;
    DataSocket ds;
    try {
      p.bind = wildcard_address(static_cast<uint32_t>(r.ipfamily), static_cast<uint16_t>(r.port));
      admit(p);
      ds = open_data_socket(p);
    } catch (const Refusal& no) {
      log("TCP_STREAM", "refused: " + no.why);
      send(np::encode_classic_tcp_stream_response({}, no.err));
      return false;
    }
    np::ClassicTcpStreamResponse resp;
    resp.recv_buf_size = ds.rcvbuf;
    resp.receive_size = ds.recv_size;
    resp.no_delay = p.nodelay;
    resp.send_buf_size = ds.sndbuf;
    resp.data_port = ds.port;
    resp.measure_cpu = r.measure_cpu ? 1 : 0;          // echoed because we then do measure
    if (r.measure_cpu) resp.cpu_rate = clock_ticks();  // as netserver's /proc/stat method
    if (!send(np::encode_classic_tcp_stream_response(resp))) return false;
    Outcome o = run_data_phase(p, ds, Clock::now(), r.measure_cpu != 0);
    slot_.release();
    if (o.aborted) {
      log("TCP_STREAM", fmt::format("aborted ({}) after {:.2f} s", o.aborted, o.elapsed_s));
      return false;
    }
    np::ClassicTcpStreamResults res;
    const auto t = o.side.total();
    res.bytes_received = static_cast<double>(t.bytes_recv);
    res.recv_calls = static_cast<uint32_t>(t.recv_calls);
    res.elapsed_time = static_cast<float>(o.elapsed_s);
    res.num_cpus = static_cast<int32_t>(std::thread::hardware_concurrency());
    res.recv_buf_size = o.rcvbuf_end;
    res.send_buf_size = o.sndbuf_end;
    if (o.side.cpu) {
      res.cpu_util = static_cast<float>(o.side.cpu->util);
      res.cpu_method = np::kCpuMethodProcStat;
      res.num_cpus = o.side.cpu->num_cpus;
    }
    const bool sent = send(np::encode_classic_tcp_stream_results(res));
    log_done("TCP_STREAM", o, sent);
    return sent;
  }

  // Classic TCP_RR, and TCP_CC (the same layouts under other types; netperf
  // 2.7 still asks for TCP_CC this way). netserver starts TCP_RR's clock
  // once the data connection is accepted, TCP_CC's once it has answered.
  bool serve_classic_rr(const np::Frame& frame, TestKind kind) {
    const bool cc = kind == TestKind::kTcpCc;
    const char* name = cc ? "TCP_CC" : "TCP_RR";
    const auto r = np::decode_classic_tcp_rr_request(frame);
    Plan p;
    p.kind = kind;
    p.sndbuf = r.send_buf_size;
    p.rcvbuf = r.recv_buf_size;
    p.nodelay = r.no_delay != 0;
    p.request_size = r.request_size;
    p.response_size = r.response_size;
    p.test_length = r.test_length;
    p.timer_after_accept = !cc;
    p.cpu = np::decode_header(frame).second;
    const int32_t response_type = cc ? np::kTcpCcResponse : np::kTcpRrResponse;
    DataSocket ds;
    try {
      p.bind = wildcard_address(static_cast<uint32_t>(r.ipfamily), static_cast<uint16_t>(r.port));
      admit(p);
      ds = open_data_socket(p);
    } catch (const Refusal& no) {
      log(name, "refused: " + no.why);
      send(np::encode_classic_tcp_rr_response({}, no.err, response_type));
      return false;
    }
    np::ClassicTcpRrResponse resp;
    resp.recv_buf_size = ds.rcvbuf;
    resp.no_delay = p.nodelay;
    resp.test_length = r.test_length;
    resp.send_buf_size = ds.sndbuf;
    resp.data_port = ds.port;
    resp.measure_cpu = r.measure_cpu ? 1 : 0;          // echoed because we then do measure
    if (r.measure_cpu) resp.cpu_rate = clock_ticks();  // as netserver's /proc/stat method
    if (!send(np::encode_classic_tcp_rr_response(resp, 0, response_type))) return false;
    Outcome o = run_data_phase(p, ds, Clock::now(), r.measure_cpu != 0);
    slot_.release();
    if (o.aborted) {
      log(name, fmt::format("aborted ({}) after {:.2f} s", o.aborted, o.elapsed_s));
      return false;
    }
    np::ClassicTcpRrResults res;
    const auto t = o.side.total();
    // netserver's TCP_CC counts the bytes the sizes would have carried.
    res.bytes_received =
        cc ? static_cast<uint32_t>(t.transactions * static_cast<uint64_t>(std::max(
                                                        0, r.request_size + r.response_size)))
           : static_cast<uint32_t>(t.bytes_recv + t.bytes_sent);
    res.recv_calls = static_cast<uint32_t>(t.recv_calls);
    res.trans_received = static_cast<uint32_t>(t.transactions);
    res.elapsed_time = static_cast<float>(o.elapsed_s);
    res.num_cpus = static_cast<int32_t>(std::thread::hardware_concurrency());
    if (o.side.cpu) {
      res.cpu_util = static_cast<float>(o.side.cpu->util);
      res.cpu_method = np::kCpuMethodProcStat;
      res.num_cpus = o.side.cpu->num_cpus;
    }
    const bool sent =
        send(np::encode_classic_tcp_rr_results(res, cc ? np::kTcpCcResults : np::kTcpRrResults));
    log_done(name, o, sent);
    return sent;
  }

  // ---- shared by both layouts ----

  // The request's family as a socket family (the control connection's when
  // it names none).
  int family_of(uint32_t nf) const {
    const int family = nf == np::kNfInet ? AF_INET : nf == np::kNfInet6 ? AF_INET6 : 0;
    if (nf != np::kNfUnspec && family == 0)
      throw Refusal{EAFNOSUPPORT, fmt::format("address family {} is not served", nf)};
    return family == 0 ? local_.family() : family;
  }

  // An address the request names (all zero words: none).
  static std::optional<net::Address> named_address(int family,
                                                   const std::array<uint32_t, 4>& named) {
    if (!(named[0] || named[1] || named[2] || named[3])) return std::nullopt;
    net::Address a;
    uint8_t bytes[16] = {};
    np::words_to_ip(family == AF_INET ? np::kNfInet : np::kNfInet6, named, bytes);
    a.storage.ss_family = static_cast<sa_family_t>(family);
    if (family == AF_INET) {
      std::memcpy(&reinterpret_cast<sockaddr_in*>(&a.storage)->sin_addr, bytes, 4);
      a.len = sizeof(sockaddr_in);
    } else {
      std::memcpy(&reinterpret_cast<sockaddr_in6*>(&a.storage)->sin6_addr, bytes, 16);
      a.len = sizeof(sockaddr_in6);
    }
    return a;
  }

  // Where the data socket binds: the address netperf named, else the
  // control connection's own address when the family matches, else the
  // family's wildcard.
  net::Address bind_address(uint32_t nf, const std::array<uint32_t, 4>& named, uint16_t port) {
    const int family = family_of(nf);
    net::Address a;
    if (auto n = named_address(family, named)) {
      a = *n;
    } else if (family == local_.family()) {
      a = local_;
    } else {
      a.storage.ss_family = static_cast<sa_family_t>(family);
      a.len = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    }
    a.set_port(port);
    return a;
  }

  // Classic requests name no address: netserver listens on the family's
  // wildcard (so netperf's test -H may point the data connection anywhere).
  net::Address wildcard_address(uint32_t nf, uint16_t port) {
    net::Address a = bind_address(nf, {}, port);
    const int family = a.family();
    a = net::Address{};
    a.storage.ss_family = static_cast<sa_family_t>(family);
    a.len = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    a.set_port(port);
    return a;
  }

  // Limits: the test length and the number of tests running at once.
  void admit(const Plan& p) {
    TestAsk ask;
    ask.rate_option = "";  // netperf cannot pace a UDP_STREAM
    ask.duration_s = p.test_length > 0 ? p.test_length : 0;
    ask.udp_stream = is_udp(p.kind) && spec::info(p.kind).workload == spec::Workload::kStream &&
                     spec::info(p.kind).client_sends;
    // The server's messages (test-specific -m, -M, -r) and socket buffers
    // (-s, -S); a size left to the server is its socket buffer's.
    ask.buffer_options = "-m, -M, -r, -s or -S";
    auto size = [](int32_t v) { return v > 0 ? static_cast<uint64_t>(v) : 0; };
    const uint64_t sndbuf = size(p.sndbuf), rcvbuf = size(p.rcvbuf);
    ask.largest_buffer = std::max({size(p.send_size), size(p.recv_size), size(p.request_size),
                                   size(p.response_size), sndbuf, rcvbuf});
    ask.stream_buffers = size(p.send_size) + size(p.recv_size) + size(p.request_size) +
                         size(p.response_size) + 2 * (sndbuf + rcvbuf);
    if (std::string why = ServerPolicy(cfg_).refuse(ask); !why.empty()) throw Refusal{EINVAL, why};
    const bool rr = spec::info(p.kind).workload == spec::Workload::kRr;
    const int32_t max_size = static_cast<int32_t>(
        is_udp(p.kind) ? spec::kMaxUdpPayloadV6 : static_cast<int32_t>(spec::kMaxMessage));
    if (rr && spec::carries_data(p.kind) && (p.request_size <= 0 || p.response_size <= 0))
      throw Refusal{EINVAL, "request/response sizes must be positive"};
    for (int32_t s : {p.send_size, p.recv_size, p.request_size, p.response_size})
      if (s > max_size) throw Refusal{EINVAL, fmt::format("message size {} is too large", s)};
    uint32_t running = 0;
    if (!slot_.take(cfg_.max_tests, &running))
      throw Refusal{EBUSY,
                    fmt::format("busy ({} tests running, limit {})", running, cfg_.max_tests)};
    if (std::string why = slot_.take_source(ctx_.sources, ctx_.peer); !why.empty())
      throw Refusal{EBUSY, why};
    if (std::string why = ServerPolicy(cfg_).take_memory(slot_, ctx_.memory, ask); !why.empty())
      throw Refusal{ENOMEM, why};
  }

  DataSocket open_data_socket(const Plan& p) {
    DataSocket d;
    const bool udp = is_udp(p.kind);
    const int type = udp ? SOCK_DGRAM : SOCK_STREAM;
    d.fd = net::Fd(::socket(p.bind.family(), type | SOCK_CLOEXEC, 0));
    if (!d.fd)
      throw Refusal{errno, "cannot create the data socket: " + net::sys::errno_text(errno)};
    const int fd = d.fd.get();
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // Before listen(): accepted sockets inherit them from the listener.
    // netserver only warns when the kernel refuses one, and so do we (in
    // the log).
    net::SocketOptions options = engine::socket_options(as_spec(p), spec::End::kRemote);
    // --max-rate: the server's own sending (the accepted socket inherits it).
    ServerPolicy(cfg_).pace(options, 1);
    if (const net::SocketOptionErrors failed = net::apply_socket_options(fd, options); failed.any())
      log("-", "cannot set " + net::describe(failed, options));
    if (::bind(fd, p.bind.sa(), p.bind.len) < 0)
      throw Refusal{errno, "cannot bind the data socket to " + p.bind.to_string() + ": " +
                               net::sys::errno_text(errno)};
    if (!udp && ::listen(fd, 5) < 0)
      throw Refusal{errno, "cannot listen on the data socket: " + net::sys::errno_text(errno)};
    // No reflection: UDP from the control connection's address only.
    if (udp) {
      try {
        net::accept_only_from(fd, net::peer_address(control_));
      } catch (const std::exception& e) {
        throw Refusal{EPERM, e.what()};
      }
    }
    d.port = net::local_address(fd).port();
    d.sndbuf = net::get_sndbuf(fd);
    d.rcvbuf = net::get_rcvbuf(fd);
    // Bytes per call as netserver chooses them.
    const bool rr = spec::info(p.kind).workload == spec::Workload::kRr;
    if (rr) {
      d.send_size = p.response_size;
      d.recv_size = p.request_size;
    } else {
      d.send_size = p.send_size > 0 ? p.send_size : d.sndbuf > 0 ? d.sndbuf : 4096;
      if (udp) d.send_size = std::min(d.send_size, kUdpLengthMax);
      d.recv_size = p.recv_size > 0 ? p.recv_size : d.rcvbuf > 0 ? d.rcvbuf : 4096;
    }
    return d;
  }

  // Runs the server's side of the test on the engine, ending it as
  // netserver would (see the top of the file); with measure_cpu, this
  // host's CPU over the test goes in the outcome's side.
  Outcome run_data_phase(const Plan& p, DataSocket& ds, Clock::time_point t0, bool measure_cpu) {
    Outcome out;
    // netperf -T ,n: this thread and the workers it starts run on CPU n.
    core::CpuPin pin(p.cpu);
    if (p.cpu >= 0 && !pin.ok())
      log("-", fmt::format("cannot bind to CPU {}: {}", p.cpu, net::sys::errno_text(pin.error())));
    const TestKind kind = p.kind;
    const bool conn_test = spec::info(kind).connect_per_transaction;  // TCP_CRR, TCP_CC
    const bool timed = p.test_length > 0;
    const double pad = timed && kind != TestKind::kTcpMaerts ? np::kPadTimeS : 0;
    const auto limit_from = [&](Clock::time_point from) {
      return timed ? from + secs(p.test_length + pad) : from + secs(cfg_.max_duration_s + 30);
    };
    Clock::time_point deadline = limit_from(t0);
    ControlWatch watch(control_);

    // 1. TCP: the data connection (TCP_CRR and TCP_CC accept in their flow).
    net::Fd conn;
    if (!is_udp(kind) && !conn_test) {
      for (;;) {
        if (ctx_.stopping->load()) out.aborted = "server shutting down";
        if (watch.gone()) out.aborted = "the client went away";
        if (out.aborted) return out;
        if (Clock::now() >= deadline) {
          // netserver's accept is interrupted by its timer: zero results.
          out.timed_out = true;
          out.elapsed_s = std::max(0.0, seconds(Clock::now() - t0) - pad);
          return out;
        }
        pollfd fds[2] = {{ds.fd.get(), POLLIN, 0}, {control_, POLLIN, 0}};
        ::poll(fds, watch.quiet() ? 1 : 2, 100);
        if (fds[0].revents) {
          conn = net::Fd(::accept4(ds.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
          if (conn) break;
        }
      }
      ds.fd.reset();  // one connection per test
      const net::SocketOptions again =
          net::not_inherited_on_accept(engine::socket_options(as_spec(p), spec::End::kRemote));
      if (const auto failed = net::apply_socket_options(conn.get(), again); failed.any())
        log("-", "cannot set " + net::describe(failed, again));
      log(spec::info(kind).name,
          fmt::format("data connection from {} to {}", net::peer_address(conn.get()).to_string(),
                      net::local_address(conn.get()).to_string()));
      if (p.timer_after_accept) {
        t0 = Clock::now();
        deadline = limit_from(t0);
      }
    }
    // 2. The flow, as every protocol's server builds it; netperf ends a UDP
    //    test with a zero-length datagram.
    const uint64_t count = p.test_length < 0 ? static_cast<uint64_t>(-int64_t{p.test_length}) : 0;
    std::vector<net::Fd> sockets;
    std::vector<int> listeners;
    if (conn_test) {
      net::set_nonblocking(ds.fd.get(), true);
      listeners.push_back(ds.fd.get());
    } else {
      sockets.push_back(is_udp(kind) ? std::move(ds.fd) : std::move(conn));
    }
    spec::TestSpec run = as_spec(p, &ds);
    run.wire.end_on_empty = true;
    SideRunner::Options ro;
    if (measure_cpu) ro.meter_at = net::local_address(control_);
    SideRunner runner(engine::server_flows(run, std::move(sockets), listeners), ro);
    runner.launch();
    runner.go();

    // 3. Until the test's own end, its timer, or trouble.
    const Clock::time_point stop_sending =
        timed ? t0 + secs(p.test_length) : Clock::time_point::max();
    Clock::time_point stopped_at{};  // MAERTS, TCP_CRR, TCP_CC: when we ended the test
    Clock::time_point last_activity = t0;
    uint64_t last_transactions = 0;
    engine::Side& side = runner.side();
    runner.run(
        Clock::time_point::max(),
        [&](Clock::time_point until) {
          const Clock::time_point now = Clock::now();
          if (uint64_t n = side.flows()[0]->counters.transactions.get(); n != last_transactions) {
            last_transactions = n;
            last_activity = now;
          }
          if (ctx_.stopping->load()) out.aborted = "server shutting down";
          if (!out.aborted && watch.gone()) out.aborted = "the client went away";
          if (out.aborted) {
            runner.abort();
            return SideRunner::Turn::kStop;
          }
          if (side.phase() == engine::Phase::kRun) {
            if (kind == TestKind::kTcpMaerts && now >= stop_sending) {
              side.set_phase(engine::Phase::kDrain);
              stopped_at = now;
              deadline = now + kMaertsDrain;
            } else if (conn_test && now >= stop_sending && now - last_activity >= kCrrQuiet) {
              side.set_phase(engine::Phase::kDrain);
              stopped_at = last_activity;
            } else if (conn_test && count && last_transactions >= count) {
              // netserver counts connections down the same way
              side.set_phase(engine::Phase::kDrain);
              stopped_at = last_activity;
            }
          }
          if (now >= deadline) {
            runner.abort();
            out.timed_out = stopped_at == Clock::time_point{};
            return SideRunner::Turn::kStop;
          }
          side.wait_finished(until);
          return SideRunner::Turn::kGoOn;
        },
        /*until_finished=*/true, 5ms);
    runner.end_measuring();
    out.side = runner.finish(std::nullopt);

    // 4. What it measured, and the socket's state at the end.
    Clock::time_point end = t0;
    for (const auto& f : side.flows()) end = std::max(end, f->ended);
    if (stopped_at != Clock::time_point{}) end = stopped_at;
    out.elapsed_s = std::max(0.0, seconds(end - t0) - (out.timed_out ? pad : 0));
    const int probe = conn_test ? ds.fd.get() : side.flows()[0]->initial_fd();
    out.sndbuf_end = p.sndbuf > 0 ? ds.sndbuf : net::get_sndbuf(probe);
    out.rcvbuf_end = p.rcvbuf > 0 ? ds.rcvbuf : net::get_rcvbuf(probe);
    if (!is_udp(kind) && !conn_test) {
      if (auto ti = net::read_tcp_info(probe)) {
        out.retrans = static_cast<int>(ti->total_retrans);
        if (p.want_cong) out.cong = ti->congestion_control;
      }
    }
    // A netperf receiver that closes with data still queued resets the
    // connection; for a sender that only means the test is over.
    const int err = side.flows()[0]->error_errno;
    if (kind == TestKind::kTcpMaerts && (err == ECONNRESET || err == EPIPE)) {
      out.side.flows[0].error.clear();
      out.side.flows[0].error_errno = 0;
    }
    if (conn_test) crr_listener_ = std::move(ds.fd);
    return out;
  }

  // Notices a client that closed its control connection mid-test. Once the
  // client's next request has arrived early (it stays queued for later),
  // POLLIN says nothing more, so the peer's FIN is watched through POLLRDHUP.
  class ControlWatch {
   public:
    explicit ControlWatch(int fd) : fd_(fd) {}
    bool gone() {
      if (quiet_) {
        pollfd p{fd_, POLLRDHUP, 0};
        return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
      }
      pollfd p{fd_, POLLIN | POLLRDHUP, 0};
      if (::poll(&p, 1, 0) <= 0) return false;
      char c;
      ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0) {
        quiet_ = true;  // an early next request: it waits for the results
        return false;
      }
      return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
    }
    bool quiet() const { return quiet_; }

   private:
    int fd_;
    bool quiet_ = false;
  };

  void log_done(const char* test, const Outcome& o, bool delivered) {
    const auto t = o.side.total();
    std::string err = o.side.first_error();
    log(test, fmt::format("done: {:.2f} s, {} bytes in, {} bytes out, {} transactions{}{}{}",
                          o.elapsed_s, t.bytes_recv, t.bytes_sent, t.transactions,
                          o.timed_out ? " (ended by the padded timer)" : "",
                          delivered ? "" : "; the client went away before the results",
                          err.empty() ? "" : "; " + err));
  }

  void log(const std::string& test, const std::string& what) {
    if (!cfg_.log) return;
    std::string line =
        fmt::format("flowperf server: {} {} (netperf): {}\n", peer_.to_string(), test, what);
    std::fputs(line.c_str(), cfg_.log);
    std::fflush(cfg_.log);
  }

  int control_;
  SessionContext ctx_;
  const ServerConfig& cfg_;
  TestSlot slot_;
  net::Address peer_, local_;
  net::Fd crr_listener_;  // the last TCP_CRR listener, open until the client's next message
  bool first_ = true;     // nothing sent yet
};

}  // namespace

void serve_netperf_connection(int control, const SessionContext& ctx) {
  NetperfSession(control, ctx).run();
}

}  // namespace flowperf::session
