// The netperf personality: netperf 2.7's command line and output on
// flowperf's engine. It reads argv (netperf_args), turns it into a TestSpec
// with netperf's defaults, runs the test against a netserver with
// session::run_netperf_test, and prints what netperf prints
// (report/netperf_report).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "cli/exit_status.h"
#include "cli/json_tap.h"
#include "cli/netperf_args.h"
#include "cli/personalities.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/version.h"
#include "engine/test_plan.h"
#include "report/netperf_report.h"
#include "report/omni_selectors.h"
#include "session/control_connect.h"
#include "session/netperf_client.h"
#include "spec/test_spec.h"

namespace flowperf::cli {
namespace {

// The netperf release whose command line and output this personality follows.
constexpr const char* kNetperfVersion = "2.7.1";

void out(const std::string& s) {
  std::fputs(s.c_str(), stdout);
  std::fflush(stdout);
}

void err(const std::string& s) {
  std::fputs(s.c_str(), stderr);
  std::fflush(stderr);
}

// The socket defaults netperf's message sizes follow, from /proc (Linux);
// NetperfSystemDefaults' values where a file is missing.
NetperfSystemDefaults read_system_defaults() {
  NetperfSystemDefaults d;
  auto read = [](const char* path, int field, uint32_t* into) {
    std::ifstream f(path);
    long long v = 0;
    for (int i = 0; i <= field; ++i)
      if (!(f >> v)) return;
    if (v > 0 && v <= 0x7fffffff) *into = static_cast<uint32_t>(v);
  };
  read("/proc/sys/net/ipv4/tcp_wmem", 1, &d.tcp_sndbuf);
  read("/proc/sys/net/core/wmem_default", 0, &d.udp_sndbuf);
  read("/proc/sys/net/core/wmem_max", 0, &d.wmem_max);
  return d;
}

// A random (version 4) UUID for the UUID selector when -u is not given.
std::string make_uuid() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t hi = gen(), lo = gen();
  hi = (hi & ~0xf000ull) | 0x4000ull;              // version 4
  lo = (lo & ~(0xc0ull << 56)) | (0x80ull << 56);  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffull));
  return buf;
}

// The first address of a host, for the banner: its family and numeric form.
struct Resolved {
  bool v6 = false;
  std::string numeric;
};

std::optional<Resolved> resolve_for_banner(const std::string& host, IpFamily family) {
  addrinfo hints{};
  hints.ai_family = family == IpFamily::kV4   ? AF_INET
                    : family == IpFamily::kV6 ? AF_INET6
                                              : AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return std::nullopt;
  Resolved r;
  r.v6 = res->ai_family == AF_INET6;
  char text[INET6_ADDRSTRLEN] = {};
  const void* addr =
      r.v6
          ? static_cast<const void*>(
                &reinterpret_cast<const sockaddr_in6*>(res->ai_addr)->sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(res->ai_addr)->sin_addr);
  if (::inet_ntop(res->ai_family, addr, text, sizeof text)) r.numeric = text;
  ::freeaddrinfo(res);
  return r;
}

// netperf's name for an OMNI direction.
std::string direction_name(const NetperfArgs& a) {
  const bool xmit = a.direction & kNetperfXmit, recv = a.direction & kNetperfRecv;
  if (recv && !xmit) return "Receive";
  if (xmit && !recv) return "Send";
  if (!xmit && !recv) return "Connection";
  return a.connection_test ? "Connect|Send|Recv" : "Send|Recv";
}

std::string title_for(const NetperfArgs& a, spec::TestKind kind) {
  switch (a.test) {
    case NetperfTest::kTcpSendfile:
      return "TCP SENDFILE TEST";
    case NetperfTest::kOmni:
      break;
    default:
      switch (kind) {
        case spec::TestKind::kTcpStream:
          return "MIGRATED TCP STREAM TEST";
        case spec::TestKind::kTcpMaerts:
          return "MIGRATED TCP MAERTS TEST";
        case spec::TestKind::kUdpStream:
          return "MIGRATED UDP STREAM TEST";
        case spec::TestKind::kTcpRr:
          return "MIGRATED TCP REQUEST/RESPONSE TEST";
        case spec::TestKind::kTcpCrr:
          return "MIGRATED TCP Connect/Request/Response TEST";
        case spec::TestKind::kUdpRr:
          return "MIGRATED UDP REQUEST/RESPONSE TEST";
        case spec::TestKind::kTcpCc:
          return "TCP Connect/Close TEST";  // netperf 2.7 runs it unmigrated
      }
  }
  return "OMNI " + direction_name(a) + " TEST";
}

int family_number(IpFamily f) {
  return f == IpFamily::kV4 ? AF_INET : f == IpFamily::kV6 ? AF_INET6 : AF_UNSPEC;
}

// What netperf prints when a UDP message cannot be sent at all (EMSGSIZE):
// the banner, then its send error. flowperf knows it before sending, so it
// is a usage error (exit 2) whose one line names -m in netperf's words.
[[noreturn]] void message_too_long(const report::NetperfReportOptions& o, uint32_t size,
                                   uint32_t max, bool v6) {
  out(report::netperf_banner(o));
  out("send_data: data send error: Message too long (errno 90)\n");
  throw usage_error(
      fmt::format("-m {}: send_data failed: Message too long (a UDP datagram carries at most {} "
                  "bytes over IPv{})",
                  size, max, v6 ? 6 : 4));
}

int run(const NetperfArgs& a) {
  // 1. What to run: netperf's defaults, then the spec flowperf can check.
  if (a.no_control)
    throw usage_error(
        "-N: flowperf always uses netserver's control connection; drop -N and start netserver "
        "on the target");
  spec::TestSpec spec = netperf_spec(a, read_system_defaults());
  const auto& info = spec::info(spec.test);
  report::OmniSelection selection;
  if (a.omni_style != OmniOutputStyle::kNone && !a.omni_selection.empty()) {
    std::string why;
    auto sel = report::parse_omni_selection(a.omni_selection, &why);
    const char opt = a.omni_style == OmniOutputStyle::kHuman ? 'O'
                     : a.omni_style == OmniOutputStyle::kCsv ? 'o'
                                                             : 'k';
    if (!sel) throw usage_error(std::string("-") + opt + " " + a.omni_selection + ": " + why);
    selection = std::move(*sel);
  }

  // 2. Where: netperf's default host, and the family the banner names.
  std::string host = a.host;
  if (host.empty()) host = a.family == IpFamily::kV6 ? "::1" : "localhost";
  auto resolved = resolve_for_banner(host, a.family);
  if (!resolved) {
    out("Netperf could not resolve " + host + " as a host name\n");
    return exit_status(Tool::kNetperf, Failure::kNoServer);
  }

  // 3. How to print it.
  report::NetperfReportOptions o;
  o.title = title_for(a, spec.test);
  o.unit = a.unit;
  o.verbosity = a.verbosity;
  o.headers = a.headers;
  o.local_cpu = a.local_cpu;
  o.remote_cpu = a.remote_cpu;
  o.brand = a.brand;
  const bool data_v6 =
      spec.ip_family == IpFamily::kV6 || (spec.ip_family == IpFamily::kAny && resolved->v6);
  o.source_host = !a.data_local_host.empty() ? a.data_local_host : data_v6 ? "::0" : "0.0.0.0";
  o.source_v6 = data_v6;
  o.dest_host = !a.data_host.empty() ? a.data_host : host;
  o.dest_address = a.data_host.empty() ? resolved->numeric : "";
  o.dest_v6 = data_v6;
  o.nodelay = a.nodelay;
  // The banner and BURST_SIZE say what ran (netperf keeps a first burst
  // for request/response tests without a connection per transaction).
  o.first_burst = static_cast<int>(spec.burst);
  o.cpu_bind = a.cpu_bind.first || a.cpu_bind.second;
  if (a.test == NetperfTest::kOmni || a.omni_style != OmniOutputStyle::kNone) {
    o.omni = a.omni_style == OmniOutputStyle::kCsv      ? report::OmniStyle::kCsv
             : a.omni_style == OmniOutputStyle::kKeyval ? report::OmniStyle::kKeyval
                                                        : report::OmniStyle::kHuman;
    o.selection = selection;
  }
  o.direction = direction_name(a);
  o.command_line = a.command_line;
  o.uuid = a.uuid.empty() ? make_uuid() : a.uuid;
  o.source_family = family_number(a.data_family);
  o.dest_family = data_v6 ? AF_INET6 : AF_INET;
  o.lss_req = a.local_buf.first ? static_cast<int>(spec.local_sndbuf) : -1;
  o.lsr_req = a.local_buf.second ? static_cast<int>(spec.local_rcvbuf) : -1;
  o.rss_req = a.remote_buf.first ? static_cast<int>(spec.remote_sndbuf) : -1;
  o.rsr_req = a.remote_buf.second ? static_cast<int>(spec.remote_rcvbuf) : -1;
  o.confidence_level = a.confidence_level;
  o.confidence_width_pct = a.confidence_width > 0 ? a.confidence_width : 5;
  o.iteration_min = a.iterations_min;
  o.iteration_max = a.iterations_max;
  o.result_confidence_only = a.result_confidence_only;

  // 4. A datagram larger than UDP carries fails on the first send in
  //    netperf; say it the way netperf does instead of starting the test.
  const uint32_t udp_max = data_v6 ? spec::kMaxUdpPayloadV6 : spec::kMaxUdpPayloadV4;
  if (spec.test == spec::TestKind::kUdpStream && spec.effective_send_size() > udp_max)
    message_too_long(o, spec.effective_send_size(), udp_max, data_v6);
  auto problems = spec::validate(spec);
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "\nnetperf: ") + p;
    throw usage_error(all);
  }
  // A fill file that cannot be read stops the test before the server is asked.
  if (!spec.fill_file.empty()) engine::read_fill_file(spec.fill_file, 1);

  // 5. Run, printing the banner first and interim results as they come.
  session::NetperfClientOptions c;
  c.host = host;
  c.port = a.port;
  c.family = a.family;
  c.local_host = a.local_host;
  c.local_port = a.local_port;
  c.measure_remote_cpu = a.remote_cpu;
  c.passphrase = a.passphrase;
  if (a.remote_alignment.first)
    c.remote_send_alignment = static_cast<uint32_t>(*a.remote_alignment.first);
  if (a.remote_alignment.second)
    c.remote_recv_alignment = static_cast<uint32_t>(*a.remote_alignment.second);
  o.source_port = spec.local.data_port;  // the banner names test -P's ports, as netperf's does
  o.dest_port = spec.remote.data_port;
  c.interrupt = install_interrupt_handler();
  // -D: netperf prints an interval once work was done in it and it lasted
  // the demo interval; four samples per interval keep the printed ones
  // close to that length when a flow is starved and then moves again.
  int interim_index = 0;
  const double sample_s = a.interim_s / 4;
  report::NetperfDemo demo(a.interim_s, sample_s / 2);
  auto print_interim = [&](const std::optional<report::DemoInterval>& d) {
    if (d)
      out(report::netperf_interim(spec, *d, o, interim_index++, std::chrono::system_clock::now()));
  };
  if (a.interim_s > 0) {
    c.sample_s = sample_s;
    c.on_interval = [&](const results::IntervalSample& s) {
      print_interim(demo.add(s.end_s, report::netperf_interim_work(spec, s, o)));
    };
  }
  // netperf prints its banner once the control connection is up: when
  // there is no netserver, the error alone.
  c.on_connected = [&] {
    out(report::netperf_banner(o));
    if (a.wait_s > 0) std::this_thread::sleep_for(std::chrono::seconds(a.wait_s));
  };

  // With -i/-I the test runs again on the same control connection until
  // its confidence interval is narrow enough or the runs are used up.
  measure::ConfidenceLoop loop = report::netperf_confidence_loop(o);
  const bool dump_tcp_info =
      info.protocol == spec::Protocol::kTcp && std::getenv("DUMP_TCP_INFO") != nullptr;
  std::vector<results::TestResult> runs;
  try {
    runs = session::run_netperf_tests(spec, c, [&](const results::TestResult& one) {
      if (a.interim_s > 0) print_interim(demo.finish());
      if (dump_tcp_info && !one.local_side.flows.empty() && one.local_side.flows[0].tcp)
        err(report::netperf_tcp_info_dump(*one.local_side.flows[0].tcp));
      return loop.add(report::netperf_confidence_sample(one, o));
    });
  } catch (const session::ConnectError& e) {
    // netperf's words when nothing answers; a server that accepted and then
    // reset is not that, and its one line says so.
    if (e.errno_value() != ECONNRESET)
      err("establish control: are you sure there is a netserver listening on " + host +
          " at port " + std::to_string(a.port) + "?\n");
    throw;
  }
  const results::TestResult& r = runs.back();
  // FLOWPERF_JSON: the native document too, whatever happens next.
  JsonTap tap;
  tap.add(r, runs.size() > 1 ? &loop : nullptr);
  const int tapped = tap.write() ? 0 : static_cast<int>(ExitCode::kRuntime);
  if (r.local_side.first_error_errno() == EMSGSIZE && info.protocol == spec::Protocol::kUdp) {
    out("send_data: data send error: Message too long (errno 90)\n");
    err("netperf: send_omni: send_data failed: Message too long\n");
    return static_cast<int>(ExitCode::kRuntime);
  }
  out(report::netperf_result(runs, loop, o));
  if (!r.error.empty()) {
    err("netperf: " + r.error + "\n");
    return static_cast<int>(ExitCode::kRuntime);
  }
  if (r.interrupted) return static_cast<int>(ExitCode::kInterrupted);
  return tapped;
}

}  // namespace

int netperf_main(int argc, char** argv) {
  try {
    NetperfArgs a = parse_netperf_args(argc, argv);
    switch (a.action) {
      case NetperfAction::kGlobalHelp:
        out(netperf_global_help());
        return 0;
      case NetperfAction::kTestHelp:
        out(netperf_test_help());
        return 0;
      case NetperfAction::kVersion:
        out(std::string("Netperf version ") + kNetperfVersion + " (flowperf " + kVersion + ")\n");
        return 0;
      case NetperfAction::kListSelectors:
        out(report::omni_selector_list(false));
        return 0;
      case NetperfAction::kListSelectorsCsv:
        out(report::omni_selector_list(true));
        return 0;
      case NetperfAction::kRun:
        break;
    }
    for (const auto& w : a.warnings) err(w + "\n");
    return run(a);
  } catch (const Error& e) {
    err(std::string("netperf: ") + e.what() + "\n");
    return exit_status(Tool::kNetperf, e);  // 255 when no netserver answers, else 1
  }
}

}  // namespace flowperf::cli
