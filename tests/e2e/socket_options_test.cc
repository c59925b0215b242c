// What the kernel says the data sockets of a running test have, read back
// with ss(8), not from flowperf's own output: for every test, run by the
// native client against `flowperf server` and by the netperf personality
// against flowperf's netserver, with a congestion control (TCP), a TOS and
// a priority for both ends, every data socket seen on either end must have
// them. (Linux does not pass a listener's priority on to the connections it
// accepts: the servers must set it on each one.)
//
// While the client runs, `ss -tainp --tos` (`-uainp` for UDP tests) is read
// again and again. ss prints each socket's owner (users:(("flowperf",
// pid=N,...))), its TOS and priority (`tos:0x20 class_id:0x3`) and, with
// -i, its congestion control first on the next line. A socket is a data
// socket of the test when
//   - the client's or the server's process owns it and it is not the
//     control connection or the control listener (the control port), or
//   - no process is named for it and one of its ports is a data port the
//     server listens on (or, UDP, receives on): TCP_CRR and TCP_CC
//     connections live for microseconds, and ss looks up owners before it
//     reads the sockets, so it names the owner of few of them.
// The server's data listener is a data socket too: accepted connections
// inherit its options. Sockets ss shows no TOS for (SYN-RECV requests,
// FIN-WAIT-2 and TIME-WAIT remnants) carry nothing to check and are left
// out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/process.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;

const std::string kBin = ::flowperf::testing::flowperf_bin();
const std::string kDir = ::flowperf::testing::bin_dir();
constexpr const char* kCc = "reno";  // not the usual default (cubic, bbr), so its effect shows
constexpr const char* kTos = "0x20";
constexpr const char* kPriority = "3";
constexpr const char* kClassId = "0x3";  // how ss shows that priority

// One socket as ss prints it.
struct Sock {
  std::string state;
  int local_port = -1, peer_port = -1;  // -1: "*"
  std::vector<int> pids;
  std::optional<std::string> tos, class_id, cc;
  std::string text;  // both lines, for messages
};

int port_of(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  if (colon == std::string::npos || endpoint.substr(colon + 1) == "*") return -1;
  return std::stoi(endpoint.substr(colon + 1));
}

// ss prints these flags before the congestion control's name.
bool is_tcp_flag(const std::string& word) {
  return word == "ts" || word == "sack" || word == "ecn" || word == "ecnseen" || word == "fastopen";
}

std::vector<Sock> read_ss(bool udp) {
  const std::string command =
      std::string("ss ") + (udp ? "-uainp" : "-tainp") + " --tos exclude time-wait 2>/dev/null";
  std::vector<Sock> out;
  std::FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  std::string text;
  char buf[8192];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ::pclose(p);
  std::istringstream in(text);
  static const std::regex pid_re(R"(pid=(\d+))"), tos_re(R"(\btos:(\S+))"),
      class_re(R"(\bclass_id:(\S+))");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.rfind("State", 0) == 0) continue;
    if (line[0] == ' ' || line[0] == '\t') {  // -i's line: the congestion control first
      if (out.empty()) continue;
      std::istringstream words(line);
      std::optional<std::string> cc;
      for (std::string w;
           words >> w && w.find(':') == std::string::npos && w.find('(') == std::string::npos;)
        if (!is_tcp_flag(w)) cc = w;
      out.back().cc = cc;
      out.back().text += "\n" + line;
      continue;
    }
    std::istringstream words(line);
    Sock s;
    std::string recvq, sendq, local, peer;
    if (!(words >> s.state >> recvq >> sendq >> local >> peer)) continue;
    s.local_port = port_of(local);
    s.peer_port = port_of(peer);
    for (std::sregex_iterator it(line.begin(), line.end(), pid_re), end; it != end; ++it)
      s.pids.push_back(std::stoi((*it)[1]));
    std::smatch m;
    if (std::regex_search(line, m, tos_re)) s.tos = m[1];
    if (std::regex_search(line, m, class_re)) s.class_id = m[1];
    s.text = line;
    out.push_back(std::move(s));
  }
  return out;
}

// Whether the process has not exited yet (a zombie has).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all;
  if (!std::getline(stat, all)) return false;
  const auto close = all.rfind(')');
  return close != std::string::npos && close + 2 < all.size() && all[close + 2] != 'Z';
}

bool have_ss() { return std::system("ss -V >/dev/null 2>&1") == 0; }

// What the sampling saw of one end.
struct End {
  int seen = 0;
  std::vector<std::string> wrong;  // sockets without the asked-for options
};

struct Seen {
  End client, server;
  int samples = 0;
  std::set<int> data_ports;
};

// Reads ss until the client exits, sorting each data socket to its end and
// checking its options (the server's only when check_server).
Seen watch(Process& client, pid_t server_pid, int control_port, bool udp, bool check_server) {
  Seen seen;
  const pid_t client_pid = client.pid();
  auto owned_by = [](const Sock& s, pid_t pid) {
    return std::find(s.pids.begin(), s.pids.end(), pid) != s.pids.end();
  };
  while (running(client_pid)) {
    std::vector<Sock> all = read_ss(udp);
    ++seen.samples;
    // The server's data ports: what it listens (TCP) or receives (UDP) on.
    for (const Sock& s : all)
      if (owned_by(s, server_pid) && s.local_port != control_port && s.peer_port < 0)
        seen.data_ports.insert(s.local_port);
    for (const Sock& s : all) {
      if (s.local_port == control_port || s.peer_port == control_port) continue;
      if (!s.tos) continue;  // a request or time-wait remnant: nothing to check
      End* end = nullptr;
      if (owned_by(s, client_pid))
        end = &seen.client;
      else if (owned_by(s, server_pid))
        end = &seen.server;
      else if (s.pids.empty() && seen.data_ports.count(s.local_port))
        end = &seen.server;
      else if (s.pids.empty() && seen.data_ports.count(s.peer_port))
        end = &seen.client;
      if (!end) continue;
      ++end->seen;
      if (end == &seen.server && !check_server) continue;
      // The priority only once a process owns the socket: a connection
      // still in the listener's accept queue has Linux's 0 until the
      // server accepts it and sets it (ss reads the owners first, so an
      // owned socket was accepted milliseconds before ss reads its options).
      const bool priority_ok =
          s.class_id == std::optional<std::string>(kClassId) || (!udp && s.pids.empty());
      const bool ok =
          *s.tos == kTos && priority_ok && (udp || s.cc == std::optional<std::string>(kCc));
      if (!ok && end->wrong.size() < 5) end->wrong.push_back(s.text);
    }
  }
  return seen;
}

enum class Personality { kNative, kNetperf };

struct Case {
  Personality who;
  const char* test;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.who == Personality::kNative ? "Native_" : "Netperf_") +
         info.param.test;
}

class SocketOptions : public ::testing::TestWithParam<Case> {};

TEST_P(SocketOptions, EveryDataSocketOnBothEndsHasThem) {
  if (!have_ss()) GTEST_SKIP() << "no ss (iproute2) on this system";
  const Case& c = GetParam();
  const bool udp = std::string(c.test).rfind("UDP", 0) == 0;
  const bool native = c.who == Personality::kNative;

  // A server of its own on a port of its own.
  std::unique_ptr<Process> server;
  std::string port;
  if (native) {
    server = std::make_unique<Process>(
        std::vector<std::string>{kBin, "server", "-p", "0", "-B", "127.0.0.1"});
    port = announced_port(*server);
  } else {
    server = std::make_unique<Process>(
        std::vector<std::string>{kDir + "/netserver", "-D", "-p", "0", "-L", "127.0.0.1"});
    port = announced_port(*server, kNetserverStarting);
  }
  ASSERT_FALSE(port.empty()) << "the server did not start";

  std::vector<std::string> argv;
  if (native) {
    argv = {kBin, "-H", "127.0.0.1", "-p", port,         "-t",     c.test,
            "-l", "2",  "--tos",     kTos, "--priority", kPriority};
    if (!udp) argv.insert(argv.end(), {"-K", kCc});
  } else {
    argv = {kDir + "/netperf",
            "-H",
            "127.0.0.1",
            "-p",
            port,
            "-t",
            c.test,
            "-l",
            "2",
            "-Y",
            std::string(kTos) + "," + kTos,
            "-y",
            std::string(kPriority) + "," + kPriority};
    if (!udp) argv.insert(argv.end(), {"--", "-K", kCc});
  }
  std::string command;
  for (const auto& a : argv) command += " " + a;
  SCOPED_TRACE(command);

  // netperf's TCP_CC travels in netperf's classic message, which has no
  // room for the server's TOS or congestion control (netperf 2.7 sends it
  // so): the server's end is only counted there.
  const bool check_server = native || std::string(c.test) != "TCP_CC";
  Process client(argv);
  Seen seen = watch(client, server->pid(), std::stoi(port), udp, check_server);
  Outcome o = client.wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err << o.out;

  std::printf("%s: %d samples; data sockets seen: client %d, server %d\n", command.c_str(),
              seen.samples, seen.client.seen, seen.server.seen);
  std::string ports;
  for (int p : seen.data_ports) ports += " " + std::to_string(p);
  SCOPED_TRACE(std::to_string(seen.samples) + " samples; server data ports:" + ports);
  EXPECT_GE(seen.client.seen, 1) << "no data socket of the client seen";
  EXPECT_GE(seen.server.seen, 1) << "no data socket of the server seen";
  for (const auto& [end, name] : {std::pair{&seen.client, "client"}, {&seen.server, "server"}}) {
    std::string lines;
    for (const auto& w : end->wrong) lines += "\n" + w;
    EXPECT_TRUE(end->wrong.empty())
        << "the " << name << "'s data sockets without " << (udp ? "" : "cc reno, ") << "tos "
        << kTos << " and priority " << kPriority << " (" << end->wrong.size() << " of " << end->seen
        << " shown):" << lines;
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Personality who : {Personality::kNative, Personality::kNetperf})
    for (const char* test :
         {"TCP_STREAM", "TCP_MAERTS", "TCP_RR", "TCP_CRR", "TCP_CC", "UDP_STREAM", "UDP_RR"})
      cases.push_back({who, test});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllTests, SocketOptions, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace flowperf::testing
