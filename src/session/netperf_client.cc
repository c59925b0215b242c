// run_netperf_test: one test over netperf 2.7's control protocol
// (proto/netperf_wire.h), against a real netserver or flowperf's server;
// run_netperf_tests: the same test again and again on one control
// connection, as netperf repeats it for a confidence interval (-i/-I).
// The steps are netperf's own:
//
//   connect control ─► DO_OMNI request ─► setup response (data port, sizes)
//   ─► data connection / socket ─► run the local flows ─► end the test as
//   netperf does (TCP: half-close, read to EOF; UDP: three zero-length
//   datagrams) ─► read the results netserver sends unasked ─► (the next
//   DO_OMNI request, when repeating) ─► shutdown the control connection.
//
// The local side runs on the same engine flows as the native client; the
// remote side comes back as one FlowResult built from the results message.
#include "session/netperf_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/cpu_pin.h"
#include "core/deadline.h"
#include "core/error.h"
#include "engine/collect.h"
#include "engine/test_plan.h"
#include "engine/worker.h"
#include "net/sys.h"
#include "proto/netperf_wire.h"
#include "session/control_connect.h"
#include "session/side_runner.h"

namespace flowperf::session {
namespace {

namespace np = proto::netperf;
using Clock = std::chrono::steady_clock;
using spec::TestKind;
using namespace std::chrono_literals;

using core::after;

bool interrupted(const NetperfClientOptions& o) { return o.interrupt && o.interrupt->load(); }

// netperf waits this long for each response.
constexpr double kResponseTimeoutS = 120;

// The socket buffer sizes a new socket has, before Linux grows them on
// connect: what netperf reports.
struct Buffers {
  int sndbuf = 0, rcvbuf = 0;
};

// Our end's socket options (engine::socket_options) on one of our data
// sockets, before it binds or connects, as netperf's create_data_socket()
// sets them. A congestion control the kernel refuses is an error (naming
// what it has); the others are hints netperf also only warns about, so they
// are set when they can be.
void apply_data_options(int fd, const net::SocketOptions& o) {
  const net::SocketOptionErrors failed = net::apply_socket_options(fd, o);
  if (failed.congestion) {
    net::SocketOptionErrors cc;
    cc.congestion = failed.congestion;
    throw runtime_error(net::describe(cc, o));
  }
}

// A socket of `type` to `to`, bound to `from` when given (netperf -L, test
// -P), with `options` (none for the control connection). TCP sockets are
// connected before the deadline; UDP sockets are only bound (netperf names
// its UDP port in the request before it connects).
net::Fd open_socket(const net::Address& to, const net::Address* from, int type,
                    Clock::time_point deadline, int* err, Buffers* buffers = nullptr,
                    const net::SocketOptions* options = nullptr) {
  net::Fd fd(::socket(to.family(), type | SOCK_CLOEXEC, 0));
  if (!fd) {
    *err = errno;
    return {};
  }
  if (options) apply_data_options(fd.get(), *options);
  if (buffers) *buffers = {net::get_sndbuf(fd.get()), net::get_rcvbuf(fd.get())};
  net::Address local;
  if (from) {
    local = *from;
  } else {
    local.storage.ss_family = static_cast<sa_family_t>(to.family());
    local.len = to.family() == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  }
  if (from) {
    int one = 1;  // a fixed local port may still be in TIME_WAIT from the last run
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  }
  if ((from || type == SOCK_DGRAM) && ::bind(fd.get(), local.sa(), local.len) < 0) {
    *err = errno;
    return {};
  }
  if (type == SOCK_DGRAM) return fd;
  net::set_nonblocking(fd.get(), true);
  if (::connect(fd.get(), to.sa(), to.len) < 0) {
    if (errno != EINPROGRESS) {
      *err = errno;
      return {};
    }
    for (;;) {
      pollfd p{fd.get(), POLLOUT, 0};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        *err = ETIMEDOUT;
        return {};
      }
      int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100'000)));
      if (r > 0) break;
      if (r < 0 && errno != EINTR) {
        *err = errno;
        return {};
      }
    }
    int soerr = 0;
    socklen_t len = sizeof soerr;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soerr, &len);
    if (soerr) {
      *err = soerr;
      return {};
    }
  }
  net::set_nonblocking(fd.get(), false);
  return fd;
}

enum class Got { kFrame, kClosed, kReset, kForeign, kTimeout, kInterrupted };

// Whether the first bytes of a response can start netserver's answer to a
// request. Its first word is the response type in network order, and every
// type netserver answers a request with (98 for omni, 11/14/17/20 ... for
// the classic tests, 301 for TCP_CC, 601 for sysinfo) is far below 65536:
// its first two bytes are zero. A server of another protocol (an SSH
// banner, iperf3's state byte) shows itself in its first byte, so netperf
// need not wait 120 s for the rest of a 656-byte message that never comes.
bool could_be_response(const np::Frame& f, size_t got) {
  for (size_t i = 0; i < std::min<size_t>(got, 2); ++i)
    if (f[i] != 0) return false;
  return true;
}

// Reads one 656-byte message before the deadline; gives up early when the
// user interrupts (if watch_interrupt), and, when check_type, as soon as the
// first bytes cannot be a netserver response (kForeign). *got_bytes: how
// many bytes came.
Got read_frame(int fd, np::Frame* f, Clock::time_point deadline, const NetperfClientOptions& o,
               bool watch_interrupt, bool check_type = false, size_t* got_bytes = nullptr) {
  size_t got = 0;
  Got end = Got::kFrame;
  while (got < f->size()) {
    if (watch_interrupt && interrupted(o)) {
      end = Got::kInterrupted;
      break;
    }
    auto slice = std::min(deadline, Clock::now() + 50ms);
    size_t n = 0;
    auto st = net::sys::read_exact(fd, f->data() + got, f->size() - got, slice, &n);
    got += n;
    if (check_type && !could_be_response(*f, got)) {
      end = Got::kForeign;
      break;
    }
    if (st == net::sys::IoStatus::kOk) break;
    if (st == net::sys::IoStatus::kClosed) {
      end = Got::kClosed;
      break;
    }
    if (st == net::sys::IoStatus::kError) {
      end = errno == ECONNRESET ? Got::kReset : Got::kClosed;
      break;
    }
    if (Clock::now() >= deadline) {
      end = Got::kTimeout;
      break;
    }
  }
  if (got_bytes) *got_bytes = got;
  return end;
}

// What a foreign server's first bytes look like, for the message: the
// printable start of them ("SSH-2.0-OpenSSH_9.2"), or their hex.
std::string shown_bytes(const np::Frame& f, size_t got) {
  const size_t n = std::min<size_t>(got, 24);
  bool text = n > 0;
  for (size_t i = 0; i < n; ++i)
    if (f[i] != '\r' && f[i] != '\n' && (f[i] < 0x20 || f[i] > 0x7e)) text = false;
  if (text) {
    std::string s(reinterpret_cast<const char*>(f.data()), n);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return "\"" + s + "\"";
  }
  std::string hex;
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i)
    hex += fmt::format("{}{:02x}", i ? " " : "", static_cast<unsigned>(f[i]));
  return hex + (n > 8 ? " ..." : "");
}

// " from 127.0.0.1:5000", when the socket was bound to a chosen address.
std::string bound_to(const net::Address& a, bool bound) {
  return bound ? " from " + a.to_string() : std::string();
}

std::string remote_error_text(int err, const std::string& where) {
  if (err == np::kUnknownRequestErrno)
    return "the server at " + where +
           " does not know netperf's omni test (error 998): it is a netserver older than "
           "2.5 — upgrade it, or run flowperf's server there";
  return fmt::format("the server at {} refused the test: {} (remote error {})", where,
                     std::strerror(err), err);
}

// The omni request for a spec; direction and sizes are the server's view.
np::OmniRequest make_request(const spec::TestSpec& s, int family) {
  np::OmniRequest r;
  const auto& info = spec::info(s.test);
  const bool udp = info.protocol == spec::Protocol::kUdp;
  r.send_buf_size = s.remote_sndbuf ? static_cast<int32_t>(s.remote_sndbuf) : -1;
  r.recv_buf_size = s.remote_rcvbuf ? static_cast<int32_t>(s.remote_rcvbuf) : -1;
  switch (s.test) {
    case TestKind::kTcpStream:
    case TestKind::kUdpStream:
      r.direction = np::kDirRecv;
      r.receive_size = s.recv_size ? static_cast<int32_t>(s.recv_size) : -1;
      // The widths travel as netperf sends them: this end's own ring for the
      // direction it uses (one buffer here), which the server echoes.
      r.send_width = 1;
      break;
    case TestKind::kTcpMaerts:
      r.direction = np::kDirXmit;
      r.send_size = s.send_size ? static_cast<int32_t>(s.send_size) : -1;
      r.recv_width = 1;
      break;
    case TestKind::kTcpRr:
    case TestKind::kTcpCrr:
    case TestKind::kUdpRr:
    case TestKind::kTcpCc:  // sent as a classic request (classic_cc_request)
      r.direction = np::kDirXmit | np::kDirRecv;
      r.request_size = static_cast<int32_t>(s.request_size);
      r.response_size = static_cast<int32_t>(s.response_size);
      r.send_width = r.recv_width = 1;
      break;
  }
  if (s.nodelay && !udp) r.flags |= np::kFlagNoDelay;
  if (s.test == TestKind::kTcpCrr) r.flags |= np::kFlagConnectTest;
  if (s.count > 0) {
    if (s.count > static_cast<uint64_t>(INT32_MAX))
      throw usage_error(
          fmt::format("-n {}: netperf's protocol counts at most {} {}", s.count, INT32_MAX,
                      info.workload == spec::Workload::kRr ? "transactions" : "bytes"));
    r.test_length = -static_cast<int32_t>(s.count);
  } else {
    r.test_length = static_cast<int32_t>(std::max(1.0, std::ceil(s.duration_s)));
  }
  r.ipfamily = family == AF_INET6 ? np::kNfInet6 : np::kNfInet;
  r.socket_type = udp ? np::kNstDgram : np::kNstStream;
  r.protocol = udp ? IPPROTO_UDP : IPPROTO_TCP;
  return r;
}

// TCP_CC as netperf 2.7 asks for it: the classic DO_TCP_CC message (TCP_RR's
// layout), whose answers are read into the omni structures the rest of a
// test uses.
np::Frame classic_cc_request(const np::OmniRequest& omni, const spec::SideOptions& remote) {
  np::ClassicTcpRrRequest r;
  r.recv_buf_size = omni.recv_buf_size;
  r.send_buf_size = omni.send_buf_size;
  r.request_size = omni.request_size;
  r.response_size = omni.response_size;
  r.no_delay = (omni.flags & np::kFlagNoDelay) ? 1 : 0;
  r.measure_cpu = (omni.flags & np::kFlagMeasureCpu) ? 1 : 0;
  r.test_length = omni.test_length;
  r.port = remote.data_port;
  r.ipfamily = static_cast<int32_t>(omni.ipfamily);
  return np::encode_classic_tcp_rr_request(r, np::kDoTcpCc, remote.cpu < 0 ? -1 : remote.cpu);
}

np::OmniResponse classic_cc_setup(const np::Frame& f) {
  const auto c = np::decode_classic_tcp_rr_response(f);
  np::OmniResponse r;
  r.recv_buf_size = c.recv_buf_size;
  r.send_buf_size = c.send_buf_size;
  r.data_port = static_cast<uint32_t>(c.data_port);
  if (c.no_delay) r.flags |= np::kFlagNoDelay;
  if (c.measure_cpu) r.flags |= np::kFlagMeasureCpu;
  return r;
}

np::OmniResults classic_cc_results(const np::Frame& f, const np::OmniResponse& setup) {
  const auto c = np::decode_classic_tcp_rr_results(f);
  np::OmniResults r;
  r.bytes_received = c.bytes_received;
  r.recv_calls = c.recv_calls;
  r.trans_received = c.trans_received;
  r.elapsed_time = c.elapsed_time;
  r.num_cpus = c.num_cpus;
  if (setup.flags & np::kFlagMeasureCpu) {
    // netserver fills the utilisation only; its TCP_CC leaves the method unset
    r.cpu_util = c.cpu_util;
    r.cpu_method = np::kCpuMethodProcStat;
  }
  return r;
}

// An address as the omni request's words carry it.
std::array<uint32_t, 4> ip_words(const net::Address& a) {
  if (a.family() == AF_INET)
    return np::ip_to_words(np::kNfInet,
                           reinterpret_cast<const uint8_t*>(
                               &reinterpret_cast<const sockaddr_in*>(&a.storage)->sin_addr));
  if (a.family() == AF_INET6)
    return np::ip_to_words(np::kNfInet6,
                           reinterpret_cast<const uint8_t*>(
                               &reinterpret_cast<const sockaddr_in6*>(&a.storage)->sin6_addr));
  return {};
}

// Fills in where our data socket is, as netperf does for UDP tests.
void name_local_socket(np::OmniRequest& r, int fd) {
  net::Address a = net::local_address(fd);
  r.netperf_port = a.port();
  r.netperf_ip = ip_words(a);
}

// test -H / -L: a name for the data connection's own address, of the
// family the test asks for (-4/-6), else preferably the control's.
net::Address data_address(const std::string& host, const char* option, int control_family,
                          IpFamily want) {
  std::vector<net::Address> all;
  try {
    all = net::resolve(host, 0, want, SOCK_STREAM);
  } catch (const Error& e) {
    throw usage_error(fmt::format("test {} {}: {}", option, host, e.what()));
  }
  for (const auto& a : all)
    if (a.family() == control_family) return a;
  return all.front();
}

results::SideResult remote_side(const np::OmniResults& res, const np::OmniResponse& setup,
                                bool udp) {
  results::SideResult side;
  // CPU words are junk unless the server agreed to measure (netserver
  // leaves stale bytes there otherwise).
  if ((setup.flags & np::kFlagMeasureCpu) && res.cpu_method != 0) {
    measure::CpuUsage c;
    c.util = res.cpu_util;
    c.user = res.cpu_percent_user;
    c.system = res.cpu_percent_system;
    c.iowait = res.cpu_percent_iowait;
    c.irq = res.cpu_percent_irq;
    c.softirq = res.cpu_percent_swintr;
    c.num_cpus = res.num_cpus;
    c.peak_cpu = res.peak_cpu_id;
    c.peak_util = res.peak_cpu_util;
    c.elapsed_s = res.elapsed_time;
    c.method = std::string(1, np::cpu_method_letter(static_cast<int32_t>(res.cpu_method)));
    side.cpu = c;
  }
  side.elapsed_s = res.elapsed_time;
  side.threads = 1;
  side.sndbuf = setup.send_buf_size;
  side.rcvbuf = setup.recv_buf_size;
  // The data socket at the end, as netserver read it.
  side.sndbuf_end = res.send_buf_size;
  side.send_width = setup.send_width;
  side.recv_width = setup.recv_width;
  side.rcvbuf_end = res.recv_buf_size;
  results::FlowResult f;
  f.index = 0;
  f.elapsed_s = res.elapsed_time;
  f.bytes_sent = res.bytes_sent;
  f.bytes_recv = res.bytes_received;
  f.send_calls = res.send_calls;
  f.recv_calls = res.recv_calls;
  f.transactions = res.trans_received;
  f.send_errors = res.failed_sends;
  if (udp) {
    f.datagrams_sent = res.send_calls;
    f.datagrams_recv = res.recv_calls;
  }
  if (!udp) {
    // What netserver read from TCP_INFO: retransmissions and, when asked
    // (kFlagWantRemoteCong), the congestion control.
    net::TcpInfo t;
    t.total_retrans = static_cast<uint32_t>(std::max(res.transport_retrans, 0));
    t.congestion_control = res.cong_control;
    f.tcp = t;
  }
  side.flows.push_back(std::move(f));
  return side;
}

// The control connection and what every test on it needs to know.
struct Control {
  net::Fd fd;
  net::Address server, local_bind;
  bool have_local = false;
  std::string where;  // the server, for messages
  Endpoint local, remote;
};

// Checks the spec and opens the control connection (netperf -H, -p
// port,lport, -L, -4/-6). Throws Error when there is no netserver.
Control open_control(const spec::TestSpec& spec, const NetperfClientOptions& o) {
  auto problems = spec::validate(spec);
  if (!problems.empty()) {
    std::string all;
    for (auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    throw usage_error(all);
  }
  if (spec.streams != 1)
    throw usage_error(fmt::format(
        "-P {}: netperf's protocol runs one stream per test; run several tests at once instead",
        spec.streams));
  const IpFamily family = spec.ip_family != IpFamily::kAny ? spec.ip_family : o.family;
  auto servers = net::resolve(o.host, o.port, family, SOCK_STREAM);
  Control c;
  int err = 0;
  for (const auto& a : servers) {
    if (!o.local_host.empty() || o.local_port) {
      auto locals =
          net::resolve(o.local_host, o.local_port,
                       a.family() == AF_INET6 ? IpFamily::kV6 : IpFamily::kV4, SOCK_STREAM);
      c.local_bind = locals.front();
      c.have_local = true;
    }
    c.fd = open_socket(a, c.have_local ? &c.local_bind : nullptr, SOCK_STREAM, after(10), &err);
    if (c.fd) {
      c.server = a;
      break;
    }
  }
  if (!c.fd) {
    ControlTarget t;
    t.server_name = "netserver";
    t.start_hint = "`netserver` (or `flowperf server`)";
    throw connect_error(t, servers.front().to_string(), err);
  }
  c.where = c.server.to_string();
  const net::Address local = net::local_address(c.fd.get());
  c.local = {local.host(), local.port()};
  c.remote = {c.server.host(), c.server.port()};
  return c;
}

// One test on an open control connection: netperf's request, the data
// connection, the run, and the results. Throws Error for failures before
// the test starts.
TestResult run_on(Control& c, const spec::TestSpec& spec, const NetperfClientOptions& o) {
  TestResult result;
  result.spec = spec;
  const auto& info = spec::info(spec.test);
  const bool udp = info.protocol == spec::Protocol::kUdp;
  result.local = c.local;
  result.remote = c.remote;
  result.server_software = "netperf protocol";
  const std::string& where = c.where;
  const spec::SideOptions &ours = spec.local, &theirs = spec.remote;
  const net::SocketOptions options = engine::socket_options(spec, spec::End::kLocal);
  int err = 0;
  // Where the data connection goes: the control's server, or test -H's.
  const net::Address server =
      theirs.data_host.empty()
          ? c.server
          : data_address(theirs.data_host, "-H", c.server.family(), spec.ip_family);
  // Data sockets bind to -L's address, on test -P's local port or any. A
  // TCP_CRR connection takes a new ephemeral port each time (netperf walks
  // its client port range there and ignores -P's local port too).
  net::Address data_bind = c.local_bind;
  bool bound_here = c.have_local;
  if (!ours.data_host.empty()) {
    data_bind = data_address(ours.data_host, "-L", server.family(), spec.ip_family);
    bound_here = true;
  } else if (!c.have_local || c.local_bind.family() != server.family()) {
    data_bind = net::Address{};
    data_bind.storage.ss_family = static_cast<sa_family_t>(server.family());
    data_bind.len = server.family() == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    bound_here = false;
  }
  const bool conn_test = info.connect_per_transaction;  // TCP_CRR, TCP_CC
  const bool cc = spec.test == TestKind::kTcpCc;
  data_bind.set_port(conn_test ? 0 : ours.data_port);
  const bool have_local = bound_here || (ours.data_port != 0 && !conn_test);

  // 2. UDP: the data socket first, so the request can name its port.
  net::Fd udp_socket;
  Buffers buffers;
  if (udp) {
    udp_socket = open_socket(server, have_local ? &data_bind : nullptr, SOCK_DGRAM, after(10), &err,
                             &buffers, &options);
    if (!udp_socket)
      throw runtime_error("cannot open a UDP data socket" + bound_to(data_bind, have_local) + ": " +
                          net::sys::errno_text(err));
    if (spec.test == TestKind::kUdpStream) {
      int have = net::get_sndbuf(udp_socket.get());
      if (spec.effective_send_size() > static_cast<uint32_t>(have))
        throw usage_error(fmt::format(
            "-m {}: message too long: it is larger than the send socket buffer ({} bytes); use "
            "a smaller -m or a larger -s",
            spec.effective_send_size(), have));
    }
  }

  // 3. The request and netserver's setup response.
  np::OmniRequest request = make_request(spec, server.family());
  if (o.measure_remote_cpu) request.flags |= np::kFlagMeasureCpu;
  if (o.remote_send_alignment) request.send_alignment = o.remote_send_alignment;
  if (o.remote_recv_alignment) request.recv_alignment = o.remote_recv_alignment;
  if (udp_socket) name_local_socket(request, udp_socket.get());
  request.data_port = theirs.data_port;
  if (!theirs.data_host.empty()) request.netserver_ip = ip_words(server);  // it listens there
  request.cong_control = theirs.cc;
  request.socket_prio = theirs.priority;
  request.socket_tos = theirs.tos;
  if (spec.keepalive) request.flags |= np::kFlagKeepalive;
  // netserver names its congestion control only when asked: always ask, so
  // REMOTE_CONG_CONTROL has it.
  if (!udp && !conn_test) request.flags |= np::kFlagWantRemoteCong;
  const np::Frame req_frame =
      cc ? classic_cc_request(request, theirs)
         : np::encode_omni_request(request, theirs.cpu < 0 ? -1 : theirs.cpu);
  if (net::sys::write_all(c.fd.get(), req_frame.data(), req_frame.size(), after(10)) !=
      net::sys::IoStatus::kOk)
    throw runtime_error("the server at " + where + " went away (cannot send the test request)");
  np::Frame frame;
  size_t came = 0;  // bytes of the response that arrived
  switch (read_frame(c.fd.get(), &frame, after(kResponseTimeoutS), o, true, true, &came)) {
    case Got::kFrame:
      break;
    case Got::kForeign:
      throw runtime_error("the server at " + where + " answered with " + shown_bytes(frame, came) +
                          ", which is not netperf's protocol — is a netserver (or `flowperf "
                          "server`) listening on that port?");
    case Got::kClosed:
      if (came > 0)
        throw runtime_error(fmt::format(
            "the server at {} closed the control connection after {} bytes of a {}-byte "
            "response — is it a netserver?",
            where, came, frame.size()));
      throw runtime_error("the server at " + where +
                          " closed the control connection instead of answering the test request" +
                          (o.passphrase.empty()
                               ? " (was it started with -Z? then give netperf -Z PASSPHRASE)"
                               : " (is -Z's passphrase the server's?)"));
    case Got::kReset:
      throw runtime_error("the server at " + where +
                          " reset the control connection instead of answering the test request "
                          "— is a netserver listening on that port?");
    case Got::kTimeout:
      throw runtime_error(
          fmt::format("the server at {} did not answer the test request within {} s", where,
                      kResponseTimeoutS));
    case Got::kInterrupted:
      throw Error(ExitCode::kInterrupted, "interrupted before the test started");
  }
  if (int e = np::decode_header(frame).second) throw runtime_error(remote_error_text(e, where));
  const np::OmniResponse setup = cc ? classic_cc_setup(frame) : np::decode_omni_response(frame);
  if (setup.data_port == 0 || setup.data_port > 65535)
    throw runtime_error(
        fmt::format("the server at {} offered data port {}", where, setup.data_port));
  net::Address data_server = server;
  data_server.set_port(static_cast<uint16_t>(setup.data_port));

  // 4. Our data socket and flow (netperf has no start message: the server
  //    is already waiting).
  std::vector<net::Fd> sockets;
  net::Fd end_marker;  // UDP: a second descriptor for the end-of-test datagrams
  if (udp) {
    if (::connect(udp_socket.get(), data_server.sa(), data_server.len) < 0)
      throw runtime_error("cannot connect a UDP socket to " + data_server.to_string() + ": " +
                          net::sys::errno_text(errno));
    end_marker = net::Fd(::fcntl(udp_socket.get(), F_DUPFD_CLOEXEC, 0));
    sockets.push_back(std::move(udp_socket));
  } else if (!conn_test) {
    net::Fd fd = open_socket(data_server, have_local ? &data_bind : nullptr, SOCK_STREAM, after(30),
                             &err, &buffers, &options);
    if (!fd)
      throw runtime_error("cannot open the data connection to " + data_server.to_string() +
                          bound_to(data_bind, have_local) + ": " + net::sys::errno_text(err));
    sockets.push_back(std::move(fd));
  } else {
    // TCP_CRR's and TCP_CC's flow opens its own sockets, setting the options
    // on each without looking back: a new one shows what they get, and
    // whether the kernel takes them.
    net::Fd probe(::socket(server.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    apply_data_options(probe.get(), options);
    buffers = {net::get_sndbuf(probe.get()), net::get_rcvbuf(probe.get())};
  }
  spec::TestSpec run = spec;
  run.wire.match_sequence = false;  // netserver answers UDP_RR with its own bytes
  // Port 0: a new one per connection.
  const net::Address crr_source = bound_here ? data_bind : net::Address{};
  SideRunner::Options ro;
  ro.interval_s = o.sample_s > 0 ? o.sample_s : spec.interval_s;
  ro.meter_at = net::local_address(c.fd.get());  // our CPU (and interface), as netperf -c does
  ro.interrupt = o.interrupt;
  ro.on_interval = o.on_interval;
  SideRunner runner(engine::client_flows(run, std::move(sockets), data_server, crr_source), ro);
  runner.launch();
  const Clock::time_point t0 = runner.go();

  // 5. Run until the time is up, the count is met, or the user interrupts.
  //    MAERTS ends when the server, whose timer it is, closes.
  const bool server_ends = spec.test == TestKind::kTcpMaerts;
  const bool by_count = spec.count > 0;
  const auto duration =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.duration_s));
  const auto end = by_count ? Clock::time_point::max()
                   : server_ends
                       ? t0 + duration + std::chrono::seconds(np::kPadTimeS + 5)  // give up then
                       : t0 + duration;
  result.interrupted = runner.run(end) == SideRunner::End::kInterrupted;

  // 6. End the test as netperf does: our flows half-close and read to EOF
  //    (TCP) or just stop (UDP, then three zero-length datagrams).
  if (server_ends) {
    if (!runner.side().all_finished()) runner.abort();
  } else {
    // A TCP_CRR connection opened just as a server stopped serving is never
    // answered (netserver has no such moment; flowperf's server does).
    runner.drain_for(after(result.interrupted || conn_test ? 2 : 10));
  }
  runner.end_measuring();
  auto send_end_marks = [&] {
    if (!end_marker) return;
    for (int i = 0; i < 3; ++i) ::send(end_marker.get(), nullptr, 0, 0);
  };
  result.local_side =
      runner.finish(result.interrupted ? std::nullopt : std::optional(Clock::now()));
  send_end_marks();
  result.intervals = std::move(result.local_side.intervals);
  result.local_side.intervals.clear();
  result.local_side.sndbuf = buffers.sndbuf;
  result.local_side.rcvbuf = buffers.rcvbuf;

  // 7. The results, which the server sends unasked. The end-of-test
  //    datagrams can drown in a full receive buffer, so UDP tests send them
  //    again while they wait (netserver would otherwise wait PAD_TIME more).
  const auto results_deadline = after(result.interrupted ? 5 : kResponseTimeoutS);
  Got got = Got::kTimeout;
  for (Clock::duration gap = 50ms;; gap = std::min<Clock::duration>(2 * gap, 1s)) {
    auto until = end_marker ? std::min(results_deadline, Clock::now() + gap) : results_deadline;
    got = read_frame(c.fd.get(), &frame, until, o, false);
    if (got != Got::kTimeout || Clock::now() >= results_deadline) break;
    send_end_marks();
  }
  if (got == Got::kFrame) {
    if (int e = np::decode_header(frame).second) {
      result.error = remote_error_text(e, where);
    } else {
      result.remote_side = remote_side(
          cc ? classic_cc_results(frame, setup) : np::decode_omni_results(frame), setup, udp);
      result.have_remote = true;
    }
  } else if (got == Got::kClosed || got == Got::kReset) {
    result.error = "the server at " + where + (got == Got::kReset ? " reset" : " closed") +
                   " the control connection before the results";
  } else {
    result.error = fmt::format("the server at {} sent no results within {} s", where,
                               result.interrupted ? 5 : kResponseTimeoutS);
  }
  if (result.error.empty()) {
    std::string flow_error = result.local_side.first_error();
    if (!flow_error.empty()) result.error = flow_error;
  }
  return result;
}

}  // namespace

std::vector<TestResult> run_netperf_tests(const spec::TestSpec& spec, const NetperfClientOptions& o,
                                          const std::function<bool(const TestResult&)>& again) {
  // netperf -T: this thread, and the workers it starts, run on one CPU.
  core::CpuPin pin(spec.local.cpu);
  if (spec.local.cpu >= 0 && !pin.ok())
    throw usage_error(fmt::format("-T {}: cannot bind to CPU {}: {}", spec.local.cpu,
                                  spec.local.cpu, net::sys::errno_text(pin.error())));
  Control c = open_control(spec, o);
  if (!o.passphrase.empty()) {
    // netserver gets no reply to it: a wrong one just closes the connection
    const np::Frame f = np::encode_passphrase(o.passphrase);
    if (net::sys::write_all(c.fd.get(), f.data(), f.size(), after(10)) != net::sys::IoStatus::kOk)
      throw runtime_error("the server at " + c.where + " went away (cannot send the passphrase)");
  }
  if (o.on_connected) o.on_connected();
  std::vector<TestResult> results;
  for (;;) {
    results.push_back(run_on(c, spec, o));
    const TestResult& r = results.back();
    const bool more = again && again(r);  // `again` sees every run, the last one too
    if (!more || !r.error.empty() || r.interrupted) break;
  }
  // The control connection ends as netperf ends it: shutdown, then close.
  ::shutdown(c.fd.get(), SHUT_WR);
  return results;
}

TestResult run_netperf_test(const spec::TestSpec& spec, const NetperfClientOptions& o) {
  return std::move(run_netperf_tests(spec, o, nullptr).front());
}

}  // namespace flowperf::session
