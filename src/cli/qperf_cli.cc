// The qperf personality: flowperf called as `qperf` behaves as qperf 0.4.11
// does for its socket tests, on flowperf's engine and on qperf's own wire
// protocol (proto/qperf_wire.h), so either end may be a real qperf.
//
//   qperf [-lp PORT]                  serve until SIGINT/SIGTERM or `quit`
//   qperf SERVER [OPTIONS] TESTS      run the tests in order, print each one
//
// The steps of a client run: parse everything first (qperf_args), refuse
// tests this build cannot run before any test starts, then for each test
// print its name, make sure the server answers, run it, and print its rows
// (report/qperf_report).
#include <fmt/format.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/exit_status.h"
#include "cli/json_tap.h"
#include "cli/personalities.h"
#include "cli/qperf_args.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/version.h"
#include "net/sys.h"
#include "report/qperf_report.h"
#include "session/control_connect.h"
#include "session/qperf_client.h"
#include "session/server.h"

namespace flowperf::cli {
namespace {

using qperf::Args;
using qperf::Param;
using qperf::Run;
using qperf::TestKind;
namespace qw = proto::qperf;

// ---- help ----------------------------------------------------------------

constexpr const char* kHelpMain = R"(Synopsis
    qperf
    qperf SERVERNODE [OPTIONS] TESTS

Description
    qperf measures bandwidth and latency between two nodes. This qperf is
    flowperf answering to the name qperf: it runs qperf's TCP and UDP socket
    tests on flowperf's engine and speaks qperf 0.4.11's protocol, so the
    other node may run qperf or flowperf. The RDMA tests are not part of
    this build.

    On one node, run qperf with no arguments: it serves tests on port 19765
    (another with -lp) until it is interrupted or a client sends `quit`. On
    the other node, name that server and then the tests; they run in the
    order given, each for two seconds unless -t says otherwise:

        qperf myserver tcp_bw tcp_lat

More help
    qperf --help categories     The help topics
    qperf --help examples       Examples
    qperf --help opts           The options, one line each
    qperf --help options        The options in detail
    qperf --help tests          The tests
    qperf --help TESTNAME       One test in detail
)";

constexpr const char* kHelpCategories = R"(Help topics, shown with qperf --help TOPIC:
    categories      This list
    examples        Examples
    options         The options in detail
    opts            The options, one line each
    tests           The tests
A test's name is a topic too, for example:
    qperf --help tcp_lat
)";

constexpr const char* kHelpExamples =
    R"(First start a server on the node called myserver, with no arguments:
    qperf
Then, on another node:
    * TCP bandwidth, then TCP latency:
        qperf myserver tcp_bw tcp_lat
    * UDP bandwidth for 10 seconds with 1400-byte messages:
        qperf myserver -t 10 -m 1400 udp_bw
    * Both nodes' host, CPU, OS and version:
        qperf myserver conf
    * UDP latency, then stop the server:
        qperf myserver udp_lat quit
    * TCP latency for message sizes 1, 2, 4 ... 64 KiB, showing each size:
        qperf myserver -oo msg_size:1:64K:*2 -vu tcp_lat
    * A server on port 5000, and a client for it:
        qperf -lp 5000
        qperf myserver -lp 5000 tcp_bw
)";

constexpr const char* kHelpOpts =
    R"(--access_recv OnOff (-ar)          Read through received data
  -ar1                             Same as -ar 1
--cpu_affinity PN (-ca)            Pin to CPU PN, or any
  --loc_cpu_affinity PN (-lca)     Pin the client to CPU PN
  --rem_cpu_affinity PN (-rca)     Pin the server to CPU PN
--flip OnOff (-f)                  RDMA only (refused for socket tests)
  -f1                              Same as -f 1
--help Topic (-h)                  Help on a topic
--host Node (-H)                   The server node
--ip_port Port (-ip)               The server's data port
--listen_port Port (-lp)           The server's control port (19765)
--loop Var:Init:Last:Incr (-oo)    Repeat tests over a range of values
--msg_size Size (-m)               Message size
--no_msgs N (-n)                   RDMA only (refused for socket tests)
--precision Digits (-e)            Significant digits shown (3)
--sock_buf_size Size (-sb)         Socket buffer size, both nodes
  --loc_sock_buf_size Size (-lsb)  Client socket buffer size
  --rem_sock_buf_size Size (-rsb)  Server socket buffer size
--time Time (-t)                   Test duration (2 seconds)
--timeout Time (-to)               Timeout for connecting and replies (5 seconds)
  --loc_timeout Time (-lto)        Local timeout (a server's too)
  --rem_timeout Time (-rto)        Remote timeout
--unify_nodes (-un)                Show loc_/rem_ rather than send_/recv_
--unify_units (-uu)                Show base units only
--use_bits_per_sec (-ub)           Show bandwidth in bits per second
--verbose (-v)                     Turn on -vc, -vs, -vt and -vu
  --verbose_conf (-vc)             Configuration details
  --verbose_stat (-vs)             Statistics
  --verbose_time (-vt)             Timing
  --verbose_used (-vu)             Parameters that were set
  --verbose_more (-vv)             Turn on -vvc, -vvs, -vvt and -vvu
  --verbose_more_conf (-vvc)       More configuration details
  --verbose_more_stat (-vvs)       Byte and message counts of each node
  --verbose_more_time (-vvt)       Each node's measured time
  --verbose_more_used (-vvu)       Every parameter in use
--version (-V)                     Print the version
--wait_server Time (-ws)           Keep trying to reach the server (5 seconds)
RDMA options (accepted, unused: this build has no RDMA tests):
  -ap -lap -rap -i -li -ri -mt -cp -cp1 -lcp -lcp1 -rcp -rcp1 -nr -lnr -rnr
  -sl -lsl -rsl -sp -lsp -rsp -sr -lsr -rsr -cm -cm1
)";

constexpr const char* kHelpOptions =
    R"(Each option's value is the next word. Options apply to the tests named
after them, so `qperf host -t 5 tcp_bw -t 10 tcp_lat` runs each for its own
time.

--access_recv OnOff (-ar), -ar1
    The receiver (the server, for the socket tests) reads through each
    received message when OnOff is non-zero: a CPU cost only.
--cpu_affinity PN (-ca)
    Pin to CPU PN, counted from 1 as qperf counts them; 0 or `any` for no
    pinning. The client pins itself before each test; the server pins the
    test's worker.
  --loc_cpu_affinity PN (-lca), --rem_cpu_affinity PN (-rca)
    The same for one node.
--flip OnOff (-f), -f1
    qperf's socket tests always send from client to server; non-zero is
    refused for them (the RDMA tests that use it are not in this build).
--help Topic (-h)
    Print help on Topic; qperf --help categories lists the topics.
--host Node (-H)
    The server node. The first word that is not an option also names it.
--ip_port Port (-ip)
    The server binds the test's data socket to this port (0: a port of its
    choosing). A port in use gets the server's "unable to make TCP socket".
--listen_port Port (-lp)
    The control port: where the server listens and the client connects. The
    two must agree. Default 19765.
--loop Var:Init:Last:Incr (-oo)
    Run each following test once for each value of Var from Init up to, and
    not past, Last. Incr is +N (or just N) to add N each time and *N to
    multiply by N. Var is an option's name without its dashes (msg_size, m,
    time, t, no_msgs ...); an empty Var means msg_size, and an empty Init
    means 1 for *N and 0 for +N. Values take the units of Var (64K, 0.5).
    Several loops nest, the first outermost. -vu shows the value of each run.
--msg_size Size (-m)
    Bytes per message. Defaults: 64 KiB for tcp_bw, 32 KiB for udp_bw,
    1 byte for the latency tests. A size is a number with an optional
    suffix: K or kib, M or mib, G or gib for multiples of 1024; k or kb,
    m or mb, g or gb for multiples of 1000. 1.5K is 1536.
--no_msgs N (-n)
    RDMA only: qperf's socket tests run for a time, and their protocol
    carries no count, so it is refused for them.
--precision Digits (-e)
    Significant digits in results. Default 3.
--sock_buf_size Size (-sb)
    SO_SNDBUF and SO_RCVBUF of the server's data socket (as qperf, the
    client sets none).
  --loc_sock_buf_size Size (-lsb), --rem_sock_buf_size Size (-rsb)
    The same; only the remote value travels.
--time Time (-t)
    Test duration in seconds, or with a trailing m, h or d for minutes,
    hours or days. Default 2. qperf's protocol carries whole seconds:
    fractions are dropped, and less than 1 second is refused.
--timeout Time (-to)
    How long to wait to connect and for the server's replies. Default 5.
  --loc_timeout Time (-lto), --rem_timeout Time (-rto)
    The same for one node; a server takes -lto as its control timeout.
--unify_nodes (-un)
    Describe a bandwidth test's nodes as loc_ and rem_ rather than send_
    and recv_.
--unify_units (-uu)
    Show every value in its base unit (bytes/sec, ns, bytes), without
    thousands separators: easier for scripts.
--use_bits_per_sec (-ub)
    Show bandwidth in bits per second (Kb/sec, Mb/sec ... by 1000).
--verbose (-v)
    Turn on -vc, -vs, -vt and -vu.
  --verbose_conf (-vc), --verbose_more_conf (-vvc)
    Configuration details (nothing extra for the socket tests).
  --verbose_stat (-vs), --verbose_more_stat (-vvs)
    The message rate; with -vvs each node's bytes and messages.
  --verbose_time (-vt), --verbose_more_time (-vvt)
    The CPUs each node used ("% cpus": 100 is one CPU busy) and, for the
    bandwidth tests, send_cost and recv_cost: CPU time per GB sent or
    received. With -vvt the split into user, intr, kernel and iowait, and
    each node's real and CPU time.
  --verbose_used (-vu), --verbose_more_used (-vvu)
    The parameters you set; with -vvu every parameter in use.
  --verbose_more (-vv)
    Turn on -vvc, -vvs, -vvt and -vvu.
--version (-V)
    Print the version.
--wait_server Time (-ws)
    When the server does not answer, keep trying this long. Default 5.
RDMA options
    --alt_port (-ap), --id (-i), --mtu_size (-mt), --cq_poll (-cp),
    --rd_atomic (-nr), --service_level (-sl), --src_path_bits (-sp),
    --static_rate (-sr), --use_cm (-cm) and their loc_/rem_ forms are
    accepted; a socket test warns that they are unused.
)";

constexpr const char* kHelpTestsFooter = R"(
Only conf, quit and the TCP and UDP tests run in this build. The RDMA,
InfiniBand, SDP, RDS and SCTP tests are named so that asking for one gets
an answer saying why it cannot run here.
)";

std::string tests_help() {
  std::string out, group;
  for (const auto& t : qperf::all_tests()) {
    if (group != t.group) {
      group = t.group;
      out += group + "\n";
    }
    out += fmt::format("    {:<24}{}\n", t.name, t.purpose);
  }
  return out + kHelpTestsFooter;
}

std::string test_help(const qperf::TestName& t) {
  std::string out = fmt::format("Purpose\n    {}\n", t.purpose);
  const bool bw = t.kind == TestKind::kTcpBw || t.kind == TestKind::kUdpBw;
  const bool lat = t.kind == TestKind::kTcpLat || t.kind == TestKind::kUdpLat;
  if (t.kind == TestKind::kConf)
    return out +
           "Options\n    None\nDescription\n    Shows each node's name, CPUs, operating system "
           "and version.\n";
  if (t.kind == TestKind::kQuit)
    return out + "Options\n    None\nDescription\n    Asks the server to exit.\n";
  if (!bw && !lat)
    return out + "Description\n    Not available in this build: " +
           (t.kind == TestKind::kRdma ? "flowperf has no RDMA transport."
                                      : "flowperf runs the TCP and UDP socket tests only.") +
           "\n";
  out += "Options\n";
  if (bw) out += "    --access_recv OnOff (-ar)   Read through received data\n";
  out += "    --cpu_affinity PN (-ca)     Pin to a CPU\n";
  out += fmt::format("    --msg_size Size (-m)        Message size (default {})\n",
                     t.kind == TestKind::kTcpBw   ? "64 KiB"
                     : t.kind == TestKind::kUdpBw ? "32 KiB"
                                                  : "1 byte");
  out += "    --sock_buf_size Size (-sb)  Socket buffer size\n";
  out += "    --time Time (-t)            Test duration (default 2 seconds)\n";
  out += "Other options\n    --listen_port, --timeout, --wait_server\n";
  out += "Display options\n    --precision, --unify_nodes, --unify_units, ";
  out += bw ? "--use_bits_per_sec,\n    --verbose\n" : "--verbose\n";
  out += "Description\n";
  const char* proto = t.kind == TestKind::kTcpBw || t.kind == TestKind::kTcpLat ? "TCP" : "UDP";
  if (t.kind == TestKind::kUdpBw)
    out +=
        "    The client sends UDP messages as fast as it can; send_bw is what it sent,\n"
        "    recv_bw what reached the server, per second.\n";
  else if (bw)
    out +=
        "    The client sends messages over one TCP connection as fast as it can; bw\n"
        "    is the bytes the server received per second.\n";
  else
    out += fmt::format(
        "    Client and server bounce one message back and forth over {}; latency is\n"
        "    half the mean round trip.\n",
        proto);
  return out;
}

// Prints the topic; false when there is no such topic (parse_args has
// already refused those, by qperf::is_help_topic(), which lists these).
bool print_help(const std::string& topic) {
  std::string text;
  if (topic == "main")
    text = kHelpMain;
  else if (topic == "categories")
    text = kHelpCategories;
  else if (topic == "examples")
    text = kHelpExamples;
  else if (topic == "opts")
    text = kHelpOpts;
  else if (topic == "options")
    text = kHelpOptions;
  else if (topic == "tests")
    text = tests_help();
  else if (const auto* t = qperf::find_test(topic))
    text = test_help(*t);
  else
    return false;
  std::fputs(text.c_str(), stdout);
  return true;
}

// ---- what this build can run ----------------------------------------------

// Why a test cannot run here, or "" when it can.
std::string unavailable(const qperf::TestName& t) {
  auto kernel_check = [&](const char* what, int family, int type, int protocol,
                          const char* call) -> std::string {
    int fd = ::socket(family, type, protocol);
    if (fd < 0) {
      int err = errno;
      return fmt::format(
          "{}: {} is not available in this kernel ({}: {}); the TCP and UDP tests "
          "(tcp_bw, tcp_lat, udp_bw, udp_lat) run here",
          t.name, what, call, std::strerror(err));
    }
    ::close(fd);
    return fmt::format(
        "{}: this kernel has {}, but flowperf's qperf does not run {} tests yet; the TCP "
        "and UDP tests (tcp_bw, tcp_lat, udp_bw, udp_lat) run here",
        t.name, what, what);
  };
  switch (t.kind) {
    case TestKind::kSctpBw:
    case TestKind::kSctpLat:
      return kernel_check("SCTP", AF_INET, SOCK_STREAM, IPPROTO_SCTP,
                          "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)");
    case TestKind::kRdsBw:
    case TestKind::kRdsLat:
      return kernel_check("RDS", 21 /* AF_RDS */, SOCK_SEQPACKET, 0,
                          "socket(AF_RDS, SOCK_SEQPACKET, 0)");
    case TestKind::kSdpBw:
    case TestKind::kSdpLat:
      return fmt::format(
          "{}: SDP (Sockets Direct Protocol) runs over RDMA, and RDMA is not supported by "
          "this build; use tcp_bw or tcp_lat",
          t.name);
    case TestKind::kRdma:
      return fmt::format(
          "{}: RDMA is not supported by this build of qperf (flowperf runs the socket tests "
          "only: tcp_bw, tcp_lat, udp_bw, udp_lat)",
          t.name);
    default:
      return "";
  }
}

bool is_network_test(TestKind k) {
  return k == TestKind::kTcpBw || k == TestKind::kTcpLat || k == TestKind::kUdpBw ||
         k == TestKind::kUdpLat;
}

// ---- server ----------------------------------------------------------------

int run_server(const Args& a) {
  session::ServerConfig c;
  c.port = a.listen_port;
  c.log = nullptr;  // qperf's server says nothing
  c.allow_remote_quit = true;
  c.max_duration_s = 31'536'000;  // qperf sets no limit of its own
  // qperf waits 5 s for a request unless -lto says otherwise.
  c.control_timeout_s = a.server_timeout_s > 0 ? a.server_timeout_s : 5;
  block_termination_signals();
  session::Server server(c);
  try {
    server.bind();
  } catch (const Error& e) {
    // Keep the reason, but point at qperf's option for the port.
    std::string why = e.what();
    if (auto dash = why.find(" — "); dash != std::string::npos) why.resize(dash);
    throw runtime_error(
        fmt::format("unable to bind to listen port {}: {} — is another server using it? choose "
                    "another port with -lp",
                    a.listen_port, why));
  }
  // SIGINT/SIGTERM arrive on this thread only; serve() runs until they do
  // or a client's quit.
  std::thread signals([&server] {
    wait_for_termination();
    server.request_stop();
  });
  signals.detach();
  server.serve();
  server.stop();
  return 0;
}

// ---- client ----------------------------------------------------------------

qw::Index wire_index(TestKind k) {
  switch (k) {
    case TestKind::kConf:
      return qw::Index::kConf;
    case TestKind::kQuit:
      return qw::Index::kQuit;
    case TestKind::kTcpBw:
      return qw::Index::kTcpBw;
    case TestKind::kTcpLat:
      return qw::Index::kTcpLat;
    case TestKind::kUdpBw:
      return qw::Index::kUdpBw;
    default:
      return qw::Index::kUdpLat;
  }
}

uint32_t whole(double v) { return v <= 0 ? 0 : static_cast<uint32_t>(std::min(v, 4294967295.0)); }

// qperf's affinity field: 0 none, n: CPU n-1 (as the value typed).
uint32_t wire_affinity(const qperf::Value& v) { return v.num < 0 ? 0 : whole(v.num); }

// What qperf's protocol cannot carry for a socket test: said before any
// test runs, naming the option. "" when the run can go.
std::string not_carried(const Run& r) {
  if (!is_network_test(r.test.kind)) return "";
  const auto& n = r.params[Param::kNoMsgs].loc;
  if (n.set())
    return fmt::format(
        "{}: {} {}: qperf's socket tests run for a time (-t); their protocol carries no message "
        "count",
        r.test.name, n.set_by, n.num);
  const auto& f = r.params[Param::kFlip].loc;
  if (f.set() && f.num != 0 && qperf::in_use(r.test.kind, Param::kFlip))
    return fmt::format(
        "{}: {}: qperf's socket tests always send from client to server; their protocol has no "
        "flipped form",
        r.test.name, f.set_by);
  for (const qperf::Value* t : {&r.params[Param::kTime].loc, &r.params[Param::kTime].rem})
    if (t->num < 1)
      return fmt::format("{}: {} {}: qperf's protocol carries whole seconds; use -t 1 or more",
                         r.test.name, t->set_by.empty() ? "-t" : t->set_by, t->num);
  return "";
}

class Client {
 public:
  explicit Client(const std::atomic<bool>* interrupt) : interrupt_(interrupt) {}

  int run(const Args& a) {
    for (const auto& w : a.warnings) std::fprintf(stderr, "%s\n", w.c_str());
    // Refuse what cannot run before anything runs.
    for (const Run& r : a.runs) {
      std::string why = unavailable(r.test);
      if (why.empty()) why = not_carried(r);
      if (!why.empty()) {
        std::fprintf(stderr, "qperf: %s\n", why.c_str());
        return static_cast<int>(ExitCode::kRuntime);
      }
    }
    int rc = 0;
    for (const Run& r : a.runs) {
      std::printf("%s:\n", r.test.name);
      std::fflush(stdout);
      for (const auto& w : qperf::unused_warnings(r)) std::fprintf(stderr, "%s\n", w.c_str());
      rc = run_one(r);
      std::fflush(stdout);
      if (rc != 0) break;
      if (r.test.kind == TestKind::kQuit) break;  // as qperf: nothing runs after quit
    }
    // FLOWPERF_JSON: the native document of each test that ran.
    if (!tap_.write() && rc == 0) rc = static_cast<int>(ExitCode::kRuntime);
    return rc;
  }

 private:
  int run_one(const Run& r) {
    const std::string peer = fmt::format("{}:{}", r.host, r.listen_port);
    try {
      apply_affinity(r);
      const session::QperfClientOptions o = options(r);
      switch (r.test.kind) {
        case TestKind::kConf:
          return conf(session::run_qperf_conf(o));
        case TestKind::kQuit:
          session::run_qperf_quit(o);
          return 0;
        default:
          return socket_test(r, o);
      }
    } catch (const session::ConnectError& e) {
      // qperf's words first; the reason and the hint after.
      std::fprintf(stderr, "%s: failed to connect: %s\n", r.host.c_str(), e.what());
    } catch (const session::QperfServerError& e) {
      // The server's own words, as qperf prints them.
      std::fprintf(stderr, "server: %s\n", e.what());
    } catch (const session::QperfClientError& e) {
      std::fprintf(stderr, "qperf: %s: %s\n", peer.c_str(), e.what());
    } catch (const Error& e) {
      std::fprintf(stderr, "qperf: %s: %s\n", peer.c_str(), e.what());
      return exit_status(Tool::kQperf, e);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "qperf: %s: %s\n", peer.c_str(), e.what());
    }
    return static_cast<int>(ExitCode::kRuntime);
  }

  // The request carries the remote values; this end runs with the local ones.
  static session::QperfClientOptions options(const Run& r) {
    session::QperfClientOptions o;
    o.host = r.host;
    o.port = r.listen_port;
    o.wait_s = r.wait_server_s;
    o.timeout_s = r.params[Param::kTimeout].loc.num;
    qw::Request& q = o.request;
    q.req_index = static_cast<uint16_t>(wire_index(r.test.kind));
    const auto rem = [&](Param p) -> const qperf::Value& { return r.params[p].rem; };
    q.timeout = whole(rem(Param::kTimeout).num);
    q.affinity = wire_affinity(rem(Param::kAffinity));
    if (is_network_test(r.test.kind)) {
      q.access_recv = whole(rem(Param::kAccessRecv).num);
      q.msg_size = whole(rem(Param::kMsgSize).num);
      q.port = whole(rem(Param::kPort).num);
      q.sock_buf_size = whole(rem(Param::kSockBufSize).num);
      q.time = whole(rem(Param::kTime).num);
      o.msg_size = whole(r.params[Param::kMsgSize].loc.num);
      o.time_s = whole(r.params[Param::kTime].loc.num);
    }
    o.interrupt = nullptr;
    return o;
  }

  int conf(const qw::Conf& rem_conf) {
    // This end as our server describes itself: qperf's version first, where
    // qperf's scripts read it, and flowperf's after it.
    const qw::Conf mine = session::qperf::local_conf();
    report::QperfHost loc{mine.node, mine.cpu, mine.os, mine.qperf};
    report::QperfHost rem{rem_conf.node, rem_conf.cpu, rem_conf.os, rem_conf.qperf};
    std::fputs(report::qperf_rows_text(report::qperf_conf_rows(loc, rem)).c_str(), stdout);
    return 0;
  }

  int socket_test(const Run& r, session::QperfClientOptions o) {
    o.interrupt = interrupt_;
    session::QperfClientRun run = session::run_qperf_test(o);
    tap_.add(run.result);
    const auto rows = report::qperf_test_rows(run.result, qperf::used_params(r), r.display);
    std::fputs(report::qperf_rows_text(rows).c_str(), stdout);
    if (run.interrupted) return static_cast<int>(ExitCode::kInterrupted);
    return 0;
  }

  // The client pins itself as qperf does: -ca N is CPU N-1, 0 or `any`
  // none (threads started later inherit the mask).
  static void apply_affinity(const Run& r) {
    const qperf::Value& v = r.params[Param::kAffinity].loc;
    if (!v.set()) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (v.num <= 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &set);
    } else {
      CPU_SET(static_cast<int>(v.num) - 1, &set);
    }
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
      int err = errno;
      throw runtime_error(
          fmt::format("{} {}: cannot pin to CPU {}: {} (this host has {} online; -ca counts "
                      "CPUs from 1)",
                      v.set_by, v.text, static_cast<int>(v.num) - 1, net::sys::errno_text(err),
                      ::sysconf(_SC_NPROCESSORS_ONLN)));
    }
  }

  const std::atomic<bool>* interrupt_;
  JsonTap tap_;
};

}  // namespace

int qperf_main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  try {
    Args a = qperf::parse_args(words);
    switch (a.mode) {
      case Args::Mode::kHelp:
        if (print_help(a.help_topic)) return 0;
        std::fprintf(stderr, "qperf: cannot find help category %s; try: qperf --help categories\n",
                     a.help_topic.c_str());
        return exit_status(Tool::kQperf, Failure::kUsage);
      case Args::Mode::kVersion:
        // qperf's own line, with flowperf's version beside it.
        std::printf("qperf 0.4.11 (flowperf %s)\n", kVersion);
        return 0;
      case Args::Mode::kServer:
        for (const auto& w : a.warnings) std::fprintf(stderr, "%s\n", w.c_str());
        return run_server(a);
      case Args::Mode::kClient:
        return Client(install_interrupt_handler()).run(a);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "qperf: %s\n", e.what());
    return exit_status(Tool::kQperf, e);  // 1, a bad option included, as qperf
  }
  return 0;
}

}  // namespace flowperf::cli
