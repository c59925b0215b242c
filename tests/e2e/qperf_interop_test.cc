// qperf's own wire protocol, both ways: Debian's qperf 0.4.11 (a test
// dependency, installed by scripts/setup.sh) against the build's qperf
// personality, in all four pairings of client and server, with the numbers
// compared to real qperf against real qperf in the same run; the options
// that travel on the wire read back from the kernel (ss, /proc); qperf's
// error channel both ways; quit; the server's data-accept timeout; and a
// client facing servers that are not qperf servers at all.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/net.h"
#include "support/paths.h"
#include "support/peers.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf {
namespace {

using namespace std::chrono_literals;
using testing::can_connect;
using testing::connect_loopback;
using testing::executable;
using testing::free_port;
using testing::Outcome;
using testing::Process;
using testing::real_iperf3;
using testing::real_netserver;
using testing::real_qperf;
using testing::wait_accepting;

const std::string kFlowQperf = ::flowperf::testing::personality("qperf");
enum class Side { kReal, kFlow };
const char* name(Side s) { return s == Side::kReal ? "qperf" : "flowperf"; }
std::string binary(Side s) { return s == Side::kReal ? real_qperf() : kFlowQperf; }

// A qperf server (real or ours) on its own port.
class Server {
 public:
  explicit Server(Side s) : port_(free_port()), proc_({binary(s), "-lp", std::to_string(port_)}) {
    wait_accepting(port_);
  }
  ~Server() {
    if (exited_) return;
    proc_.signal(SIGTERM);
    proc_.wait(10s);
  }
  std::string port() const { return std::to_string(port_); }
  pid_t pid() const { return proc_.pid(); }
  Outcome wait_exit(std::chrono::milliseconds limit) {
    exited_ = true;
    return proc_.wait(limit);
  }

 private:
  uint16_t port_;
  Process proc_;
  bool exited_ = false;
};

Outcome client(Side s, const std::string& port, std::vector<std::string> args,
               std::chrono::milliseconds limit = 60s) {
  args.insert(args.begin(), {binary(s), "127.0.0.1", "-lp", port});
  Process p(args);
  return p.wait(limit);
}

// "    name  =  1.77 GB/sec" rows, per test block, in base units.
using Values = std::map<std::string, std::map<std::string, std::string>>;
Values parse(const std::string& out) {
  static const std::regex header(R"(^([a-z_]+):$)");
  static const std::regex row(R"(^ +([a-z_]+) += +(.*)$)");
  Values v;
  std::string test;
  std::stringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, header))
      test = m[1];
    else if (std::regex_match(line, m, row))
      v[test][m[1]] = m[2];
  }
  return v;
}

// "1.77 GB/sec" -> 1.77e9; "57.2 us" -> 57.2e-6.
double number(const std::string& text) {
  std::string digits;
  size_t i = 0;
  for (; i < text.size() && text[i] != ' '; ++i)
    if (text[i] != ',') digits += text[i];
  if (digits.empty()) return -1;
  const std::string unit = i < text.size() ? text.substr(i + 1) : "";
  static const std::map<std::string, double> scale = {
      {"bytes/sec", 1}, {"KB/sec", 1e3}, {"MB/sec", 1e6}, {"GB/sec", 1e9}, {"TB/sec", 1e12},
      {"ns", 1e-9},     {"us", 1e-6},    {"ms", 1e-3},    {"sec", 1}};
  auto it = scale.find(unit);
  return std::stod(digits) * (it == scale.end() ? 1 : it->second);
}

const char* const kTests[] = {"tcp_bw", "tcp_lat", "udp_bw", "udp_lat"};
const char* main_row(const std::string& test) {
  return test == "tcp_bw" ? "bw" : test == "udp_bw" ? "recv_bw" : "latency";
}

// ---- the four pairings --------------------------------------------------------------

TEST(QperfInterop, AllFourPairingsAgreeWithRealQperf) {
  REQUIRE_QPERF();
  const std::vector<std::string> args = {"-t",     "1",       "tcp_bw", "tcp_lat",
                                         "udp_bw", "udp_lat", "conf"};
  std::map<std::string, Values> runs;
  std::map<std::string, std::pair<Side, Side>> sides;  // pair -> client, server
  std::vector<Values> reference;  // real qperf against real qperf, first and last
  for (Side srv : {Side::kReal, Side::kFlow}) {
    Server server(srv);
    for (Side cli : {Side::kReal, Side::kFlow}) {
      const std::string pair = std::string(name(cli)) + "->" + name(srv);
      Outcome o = client(cli, server.port(), args);
      ASSERT_EQ(o.exit_code, 0) << pair << "\n" << o.out << o.err;
      runs[pair] = parse(o.out);
      sides.emplace(pair, std::make_pair(cli, srv));
      if (pair == "qperf->qperf") reference.push_back(runs[pair]);
      for (const char* t : kTests) {
        const double v = number(runs[pair][t][main_row(t)]);
        // Any 1 s run has a rate and a latency above 0, however slow: 0 or -1 is a missing row.
        EXPECT_GT(v, 0) << pair << " " << t << ": " << o.out;
      }
      // conf: the server's four fields.
      EXPECT_FALSE(runs[pair]["conf"]["rem_node"].empty()) << pair << o.out;
      EXPECT_NE(runs[pair]["conf"]["rem_cpu"].find("Cores"), std::string::npos) << pair << o.out;
      EXPECT_NE(runs[pair]["conf"]["rem_os"].find("Linux"), std::string::npos) << pair << o.out;
      EXPECT_EQ(runs[pair]["conf"]["rem_qperf"].substr(0, 6), "0.4.11") << pair << o.out;
    }
  }
  {
    // Real against real once more: its spread on this machine is the noise
    // the pairings are judged by (qperf's udp_lat alone has been seen at
    // 14 us and 130 us in one minute on a shared VM).
    Server server(Side::kReal);
    Outcome o = client(Side::kReal, server.port(), args);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    reference.push_back(parse(o.out));
  }
  // Within a factor of 3 of the band real qperf spans against itself. A
  // loopback figure can drop for a moment when the shared VM is busy (udp_bw
  // from real qperf into flowperf has been seen at 0.25 GB/s between real
  // runs of 1.3 and 2.9 GB/s, and at 3-4.5 GB/s, as real against real, in
  // six interleaved runs after): a figure outside the band is measured
  // again, beside real against real again, up to twice, and fails only if
  // it stays out.
  for (const auto& [pair, v] : runs) {
    const auto [cli, srv] = sides.at(pair);
    for (const char* t : kTests) {
      double lo = number(reference[0].at(t).at(main_row(t)));
      double hi = number(reference[1].at(t).at(main_row(t)));
      if (lo > hi) std::swap(lo, hi);
      double got = number(v.at(t).at(main_row(t)));
      for (int again = 0; again < 2 && !(got > lo / 3 && got < hi * 3); ++again) {
        {
          Server server(srv);
          got = number(parse(client(cli, server.port(), {"-t", "1", t}).out)[t][main_row(t)]);
        }
        Server real(Side::kReal);
        const double ref =
            number(parse(client(Side::kReal, real.port(), {"-t", "1", t}).out)[t][main_row(t)]);
        if (ref > 0) lo = std::min(lo, ref), hi = std::max(hi, ref);
      }
      EXPECT_GT(got, lo / 3) << pair << " " << t << " " << got << " vs real " << lo << " to " << hi;
      EXPECT_LT(got, hi * 3) << pair << " " << t << " " << got << " vs real " << lo << " to " << hi;
    }
  }
}

TEST(QperfInterop, VerboseShowsTheRemoteCpuFromTheStat) {
  REQUIRE_QPERF();
  Server server(Side::kReal);
  Outcome o = client(Side::kFlow, server.port(), {"-t", "1", "-v", "tcp_bw", "-vvs", "tcp_lat"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  Values v = parse(o.out);
  // The server's CPU comes from its STAT's time arrays.
  ASSERT_TRUE(v["tcp_bw"].count("recv_cpus_used")) << o.out;
  EXPECT_GT(number(v["tcp_bw"]["recv_cpus_used"]), 0);
  EXPECT_TRUE(v["tcp_bw"].count("recv_cost")) << o.out;
  // The server's message counts (r.msgs of its STAT).
  ASSERT_TRUE(v["tcp_lat"].count("rem_recv_msgs")) << o.out;
}

// ---- options that travel on the wire, read back ------------------------------------

// The data socket the server holds on `port`: ss's line for it, "" if none.
std::string ss_line(uint16_t port) {
  const std::string cmd =
      "ss -tnmH state established '( sport = :" + std::to_string(port) + " )' 2>/dev/null";
  std::string out;
  if (FILE* f = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    ::pclose(f);
  }
  return out;
}

// Each thread's Cpus_allowed_list of a process.
std::vector<std::string> thread_cpus(pid_t pid) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream s(e.path() / "status");
    std::string line;
    while (std::getline(s, line))
      if (line.rfind("Cpus_allowed_list:", 0) == 0)
        out.push_back(line.substr(line.find_last_of("\t ") + 1));
  }
  return out;
}

TEST(QperfInterop, DataPortBufferAndAffinityReachOurServer) {
  Server server(Side::kFlow);
  const uint16_t data_port = free_port();
  const std::vector<std::string> args = {
      "127.0.0.1", "-lp",  server.port(), "-t", "3",    "-ip",   std::to_string(data_port),
      "-sb",       "128K", "-rca",        "1",  "-ar1", "tcp_bw"};
  std::vector<std::string> argv = args;
  argv.insert(argv.begin(), kFlowQperf);
  Process c(argv);
  std::string seen;
  bool pinned = false;
  // Both appear a few ms into the 3 s test and last to its end; looking every 30 ms for up to
  // 3 s finds them in the first looks even when a loaded machine slows the start-up.
  for (int i = 0; i < 100 && (seen.empty() || !pinned); ++i) {
    std::this_thread::sleep_for(30ms);
    if (seen.empty()) seen = ss_line(data_port);
    for (const auto& cpus : thread_cpus(server.pid())) pinned = pinned || cpus == "0";
  }
  Outcome o = c.wait(30s);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // -ip: the data connection is on that port of the server.
  ASSERT_FALSE(seen.empty()) << "no data connection on port " << data_port;
  // -sb 128K: the kernel doubles SO_RCVBUF (rb262144).
  EXPECT_NE(seen.find("rb262144"), std::string::npos) << seen;
  // -rca 1: a thread of the server runs on CPU 0 only.
  EXPECT_TRUE(pinned) << "no server thread pinned to CPU 0";
  // Any run moves data: 0 or -1 is a missing figure, not a slow machine.
  EXPECT_GT(number(parse(o.out)["tcp_bw"]["bw"]), 0) << o.out;
}

// A counter of ss -ti's line ("bytes_received:123"); -1 when absent.
double ss_counter(const std::string& line, const std::string& key) {
  const std::regex re("\\b" + key + ":([0-9]+)");
  std::smatch m;
  return std::regex_search(line, m, re) ? std::stod(m[1]) : -1;
}

TEST(QperfInterop, MessageSizeReachesRealQperfsServer) {
  REQUIRE_QPERF();
  Server server(Side::kReal);
  const uint16_t data_port = free_port();
  Process c({kFlowQperf, "127.0.0.1", "-lp", server.port(), "-t", "2", "-m", "4K", "-ip",
             std::to_string(data_port), "tcp_lat"});
  std::string last;
  // tcp_lat on loopback makes thousands of round trips a second, so 100 segments come a few ms
  // into the 2 s test; 60 looks 25 ms apart (1.5 s) leave room for a slow start-up.
  for (int i = 0; i < 60; ++i) {
    std::this_thread::sleep_for(25ms);
    const std::string cmd =
        "ss -tinH state established '( sport = :" + std::to_string(data_port) + " )' 2>/dev/null";
    std::string out;
    if (FILE* f = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
      ::pclose(f);
    }
    if (ss_counter(out, "data_segs_out") > 100) {
      last = out;
      break;
    }
  }
  Outcome o = c.wait(30s);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  ASSERT_FALSE(last.empty()) << "no data connection on port " << data_port;
  // One message in flight each way, 4096 bytes each: what the real server reads and echoes per
  // segment is the request's msg_size. 4,096 bytes fit one loopback segment, so the mean is 4,096
  // unless other sizes go too: one smaller segment among 100 or more moves it 41 at most.
  const double in = ss_counter(last, "bytes_received") / ss_counter(last, "data_segs_in");
  const double out = ss_counter(last, "bytes_sent") / ss_counter(last, "data_segs_out");
  EXPECT_NEAR(in, 4096, 64) << last;
  EXPECT_NEAR(out, 4096, 64) << last;
}

// ---- the error channel -------------------------------------------------------------

TEST(QperfInterop, ServerErrorsReachTheClientInQperfsWords) {
  REQUIRE_QPERF();
  for (Side srv : {Side::kReal, Side::kFlow}) {
    Server server(srv);
    for (Side cli : {Side::kReal, Side::kFlow}) {
      // The data port asked for is the server's own listening port: in use.
      Outcome o = client(cli, server.port(), {"-ip", server.port(), "tcp_bw"}, 30s);
      const std::string pair = std::string(name(cli)) + "->" + name(srv) + ": ";
      EXPECT_EQ(o.exit_code, 1) << pair << o.err;
      if (cli == Side::kFlow) {
        EXPECT_EQ(o.err, "server: unable to make TCP socket\n") << pair;
      } else {
        // Debian's client reads the text from its SIGURG handler and
        // sometimes finds none yet, printing a bare "server: " (seen with
        // Debian's own server as well; qperf-wire.md §4).
        EXPECT_TRUE(o.err == "server: unable to make TCP socket\n" || o.err == "server: \n")
            << pair << o.err;
      }
    }
  }
}

// Sends a request for test `index` and reads qperf's error channel back:
// the '?' as urgent data, then the text up to the server's close.
std::string refusal_for(uint16_t port, uint8_t index) {
  const int c = connect_loopback(port).release();
  if (c < 0) return "(no connection)";
  std::array<uint8_t, 200> req{};
  req[2] = 4;
  req[4] = 11;
  req[6] = index;
  req[64] = 5;
  if (::write(c, req.data(), req.size()) != 200) return "(write failed)";
  pollfd p{c, POLLPRI, 0};
  std::string text;
  if (::poll(&p, 1, 5000) == 1) {
    char mark = 0;
    if (::recv(c, &mark, 1, MSG_OOB) == 1 && mark == '?') {
      char buf[512];
      ssize_t n;
      while ((n = ::recv(c, buf, sizeof buf, 0)) > 0) text.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(c);
  return text;
}

TEST(QperfInterop, RdmaTestsAreRefusedByOurServerAsQperfWithoutRdma) {
  Server server(Side::kFlow);
  const auto port = static_cast<uint16_t>(std::stoi(server.port()));
  EXPECT_EQ(refusal_for(port, 13), "bad request index: 13");
  EXPECT_EQ(refusal_for(port, 4),
            "sctp_bw is not supported by this server (flowperf serves conf, quit, tcp_bw, "
            "tcp_lat, udp_bw and udp_lat)");
  if (!executable(real_qperf())) return;
  // Debian's client fails too (exit 1); what it prints races between our
  // "server: bad request index: 13" and its own "failed to find any
  // InfiniBand devices" (seen both ways on this machine), so only the exit
  // is asserted here; the text is read above.
  Outcome o = client(Side::kReal, server.port(), {"rc_bw"}, 30s);
  EXPECT_EQ(o.exit_code, 1) << o.err;
}

// ---- quit ----------------------------------------------------------------------------

TEST(QperfInterop, QuitStopsEitherServer) {
  REQUIRE_QPERF();
  for (Side srv : {Side::kReal, Side::kFlow}) {
    for (Side cli : {Side::kReal, Side::kFlow}) {
      Server server(srv);
      Outcome o = client(cli, server.port(), {"quit"}, 20s);
      EXPECT_EQ(o.exit_code, 0) << name(cli) << "->" << name(srv) << o.err;
      Outcome s = server.wait_exit(10s);
      EXPECT_FALSE(s.timed_out) << name(cli) << "->" << name(srv);
      EXPECT_EQ(s.exit_code, 0) << name(cli) << "->" << name(srv);
    }
  }
}

// ---- the data-accept timeout -----------------------------------------------------------

TEST(QperfInterop, AClientThatVanishesAfterThePortDoesNotWedgeOurServer) {
  Server server(Side::kFlow);
  const int c = connect_loopback(static_cast<uint16_t>(std::stoi(server.port()))).release();
  ASSERT_GE(c, 0);
  // tcp_bw, msg_size 64K, time 2, timeout 1 (qperf-wire.md §3).
  std::array<uint8_t, 200> req{};
  req[2] = 4;
  req[4] = 11;
  req[6] = 8;
  req[26] = 1;  // msg_size 65536
  req[60] = 2;  // time
  req[64] = 1;  // timeout
  ASSERT_EQ(::write(c, req.data(), req.size()), 200);
  uint8_t port_bytes[4];
  ASSERT_EQ(::recv(c, port_bytes, 4, MSG_WAITALL), 4);
  const uint16_t data_port = static_cast<uint16_t>(port_bytes[0] | (port_bytes[1] << 8));
  // The client never connects there; after its timeout (1 s) the server
  // gives the port up (qperf's own server would block in accept for ever).
  // 2.5 s is the 1 s timeout and 1.5 s for a late wake-up of the server on a loaded machine.
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(can_connect(data_port)) << "the server still listens on the abandoned data port";
  ::close(c);
  Outcome o = client(Side::kFlow, server.port(), {"-t", "1", "tcp_lat"}, 30s);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  // Any round trip takes some time: 0 or -1 is a missing figure.
  EXPECT_GT(number(parse(o.out)["tcp_lat"]["latency"]), 0) << o.out;
}

// ---- a client facing servers that are not qperf -----------------------------------------

// A server that accepts one connection and then does `what` with it.
class Fake {
 public:
  enum class Does { kGarbage, kReset, kClose };
  explicit Fake(Does d) : does_(d) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 4);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      if (does_ == Does::kGarbage) {
        const char text[] = "HTTP/1.0 400 Bad Request\r\nServer: not-qperf\r\n\r\n";
        (void)::write(c, text, sizeof text - 1);
        std::this_thread::sleep_for(300ms);
      } else if (does_ == Does::kReset) {
        linger l{1, 0};
        ::setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof l);
      }
      ::close(c);
    });
  }
  ~Fake() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string port() const { return std::to_string(port_); }

 private:
  Does does_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

void expect_one_line_naming(const Outcome& o, const std::string& port, const std::string& what) {
  EXPECT_EQ(o.signal, 0) << what << ": killed by a signal\n" << o.err;
  EXPECT_EQ(o.exit_code, 1) << what << "\n" << o.err;
  EXPECT_NE(o.err.find("127.0.0.1:" + port), std::string::npos) << what << ": " << o.err;
  size_t lines = 0;
  for (char ch : o.err) lines += ch == '\n';
  EXPECT_EQ(lines, 1u) << what << ": " << o.err;
}

TEST(QperfInterop, ForeignServersGetOneLineAndExitOne) {
  for (auto d : {Fake::Does::kGarbage, Fake::Does::kReset, Fake::Does::kClose}) {
    Fake fake(d);
    Outcome o = client(Side::kFlow, fake.port(), {"-to", "2", "tcp_bw"}, 30s);
    expect_one_line_naming(o, fake.port(), "fake " + std::to_string(static_cast<int>(d)));
  }
  if (executable(real_iperf3())) {
    const std::string port = std::to_string(free_port());
    // Ready by its banner: a probe connection would be its one test (-1).
    Process iperf3({real_iperf3(), "-s", "-p", port, "-1", "--forceflush"});
    iperf3.wait_for_line("Server listening", 10s);
    Outcome o = client(Side::kFlow, port, {"-to", "2", "tcp_bw"}, 30s);
    expect_one_line_naming(o, port, "iperf3 -s");
  }
  const std::string netserver = real_netserver();
  if (executable(netserver)) {
    const std::string port = std::to_string(free_port());
    Process ns({netserver, "-D", "-p", port});
    wait_accepting(static_cast<uint16_t>(std::stoi(port)));
    Outcome o = client(Side::kFlow, port, {"-to", "2", "tcp_lat"}, 30s);
    expect_one_line_naming(o, port, "netserver");
  }
}

}  // namespace
}  // namespace flowperf
