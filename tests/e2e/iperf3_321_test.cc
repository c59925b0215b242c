// iperf3 3.19-3.21's options in flowperf's iperf3 personality, each run
// beside the real iperf3 3.21 (../shared/peers builds it) and read back from
// what it changed, not from what it prints:
//  - --cntl-ka: the control connection's keepalive, asked of the kernel
//    from the running process's own socket (pidfd_getfd), at either end;
//    the data connections keep theirs off.
//  - --server-max-duration: the refusal (error 37) as each client shows
//    it, against our server and 3.21's side by side; a test within the
//    limit runs.
//  - --json-stream-full-output: the events, then the whole document, as
//    3.21 prints them.
#include <netinet/tcp.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "e2e/iperf3_peers.h"
#include "support/net.h"

namespace flowperf::testing {
namespace {

using nlohmann::json;

Outcome client(const std::string& program, uint16_t port, std::vector<std::string> args) {
  std::vector<std::string> argv = {program, "-c", "127.0.0.1", "-p", std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv);
  return p.wait(60s);
}

// What the kernel holds for one TCP connection of a process.
struct Conn {
  uint16_t local = 0, peer = 0;
  int keepalive = -1, idle = -1, interval = -1, count = -1;
};

// The connected TCP sockets of `pid` that have `port` at either end.
std::vector<Conn> connections(pid_t pid, uint16_t port) {
  std::vector<Conn> out;
  for_each_socket_of(pid, [&](int fd) {
    if (int_sockopt(fd, SOL_SOCKET, SO_TYPE) != SOCK_STREAM) return;
    Conn c{local_port(fd), peer_port(fd)};
    if (c.peer == 0 || (c.local != port && c.peer != port)) return;
    c.keepalive = int_sockopt(fd, SOL_SOCKET, SO_KEEPALIVE);
    c.idle = int_sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE);
    c.interval = int_sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL);
    c.count = int_sockopt(fd, IPPROTO_TCP, TCP_KEEPCNT);
    out.push_back(c);
  });
  return out;
}

// Samples pid's connections to `port` while a 3 s test runs, until the
// control connection and at least one data connection are both there.
std::vector<Conn> watch(pid_t pid, uint16_t port) {
  std::vector<Conn> seen;
  for (auto end = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(50ms)) {
    seen = connections(pid, port);
    if (seen.size() >= 2) break;
  }
  return seen;
}

// One control connection with the keepalive asked for; every other
// connection (the data ones) without.
void expect_keepalive(const std::vector<Conn>& seen, int idle, int interval, int count) {
  ASSERT_GE(seen.size(), 2u) << "the control and a data connection were not both seen";
  size_t with = 0;
  for (const Conn& c : seen) {
    SCOPED_TRACE(std::to_string(c.local) + " -> " + std::to_string(c.peer));
    if (c.keepalive != 1) continue;
    ++with;
    EXPECT_EQ(c.idle, idle);
    EXPECT_EQ(c.interval, interval);
    EXPECT_EQ(c.count, count);
  }
  EXPECT_EQ(with, 1u) << "keepalive belongs on the control connection alone";
}

struct KaCase {
  const char* name;
  bool ours_is_client;  // else ours is the server
};

class Iperf3ControlKeepalive : public ::testing::TestWithParam<KaCase> {};

// --cntl-ka=31/7/4 at the end under test (ours), the real 3.21 at the
// other; then the real 3.21 in our place, to show the read-back sees the
// same on the tool we follow.
TEST_P(Iperf3ControlKeepalive, OnTheControlConnectionOnly) {
  REQUIRE_IPERF3_321();
  const KaCase k = GetParam();
  for (const bool ours : {true, false}) {
    SCOPED_TRACE(ours ? "flowperf at the end asked" : "iperf3 3.21 at the end asked");
    const std::string asked = ours ? kIperf3Personality : real_iperf3_321();
    const std::string other = real_iperf3_321();
    if (k.ours_is_client) {
      Iperf3Server server(other);
      ASSERT_TRUE(server.ready);
      Process c({asked, "-c", "127.0.0.1", "-p", std::to_string(server.port), "-t", "3",
                 "--cntl-ka=31/7/4"});
      const auto seen = watch(c.pid(), server.port);
      const Outcome o = c.wait(30s);
      EXPECT_EQ(o.exit_code, 0) << o.err << o.out;
      expect_keepalive(seen, 31, 7, 4);
    } else {
      Iperf3Server server(asked, {"--cntl-ka=31/7/4"});
      ASSERT_TRUE(server.ready);
      Process c({other, "-c", "127.0.0.1", "-p", std::to_string(server.port), "-t", "3"});
      const auto seen = watch(server.proc->pid(), server.port);
      const Outcome o = c.wait(30s);
      EXPECT_EQ(o.exit_code, 0) << o.err << o.out;
      expect_keepalive(seen, 31, 7, 4);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ends, Iperf3ControlKeepalive,
                         ::testing::Values(KaCase{"Client", true}, KaCase{"Server", false}),
                         [](const auto& i) { return std::string(i.param.name); });

// The client's -V line names the values in force: the system's where a
// part was left empty.
TEST(Iperf3ControlKeepalive, VerboseSaysTheValuesInForce) {
  Iperf3Server server(kIperf3Personality);
  ASSERT_TRUE(server.ready);
  const Outcome o = client(kIperf3Personality, server.port, {"-t", "1", "-V", "--cntl-ka=//5"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  std::ifstream f("/proc/sys/net/ipv4/tcp_keepalive_time"),
      g("/proc/sys/net/ipv4/tcp_keepalive_intvl");
  int idle = 0, interval = 0;
  f >> idle;
  g >> interval;
  EXPECT_NE(
      o.out.find("Control connection TCP Keepalive TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT are "
                 "set to " +
                 std::to_string(idle) + "/" + std::to_string(interval) + "/5\n"),
      std::string::npos)
      << o.out;
}

// An idle time that the system's interval and count outlast is refused at
// the start, as 3.21 refuses it, with the values named.
TEST(Iperf3ControlKeepalive, AnIdleTimeShorterThanTheProbesIsRefused) {
  REQUIRE_IPERF3_321();
  for (const std::string& program : {kIperf3Personality, real_iperf3_321()}) {
    SCOPED_TRACE(program);
    const Outcome o = client(program, 1, {"-t", "1", "--cntl-ka=5/2/3"});
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("parameter error - control connection Keepalive period should be larger "
                         "than the full retry period (interval * count)"),
              std::string::npos)
        << o.err;
  }
}

// Error 37, as each client shows it, from our server and from 3.21's, each
// started with --server-max-duration 2: a 3 s test, a 1 s test with 2 s
// omitted, and a test by bytes (no time at all) are refused; 1 s with 1 s
// omitted runs.
TEST(Iperf3ServerMaxDuration, RefusesAsIperf3Does) {
  REQUIRE_IPERF3_321();
  REQUIRE_IPERF3();
  struct Ask {
    std::vector<std::string> args;
    bool runs;
  };
  const std::vector<Ask> asks = {{{"-t", "3"}, false},
                                 {{"-t", "1", "-O", "2"}, false},
                                 {{"-n", "1M"}, false},
                                 {{"-t", "1", "-O", "1"}, true}};
  for (const std::string& client_program : {real_iperf3_321(), real_iperf3(), kIperf3Personality}) {
    Iperf3Server real(real_iperf3_321(), {"--server-max-duration", "2"});
    Iperf3Server ours(kIperf3Personality, {"--server-max-duration", "2"});
    ASSERT_TRUE(real.ready && ours.ready);
    for (const Ask& ask : asks) {
      SCOPED_TRACE(client_program + " " + ask.args[0] + " " + ask.args[1]);
      const Outcome theirs = client(client_program, real.port, ask.args);
      const Outcome mine = client(client_program, ours.port, ask.args);
      EXPECT_EQ(mine.exit_code, theirs.exit_code) << mine.err << "\nvs\n" << theirs.err;
      EXPECT_EQ(mine.exit_code, ask.runs ? 0 : 1) << mine.err;
      if (!ask.runs) {
        // What the client prints of the refusal is the client's: the same
        // from either server.
        EXPECT_EQ(mine.err, theirs.err);
        if (client_program != real_iperf3()) {
          EXPECT_NE(mine.err.find("client's requested duration exceeds the server's maximum "
                                  "permitted limit"),
                    std::string::npos)
              << mine.err;
        }
      }
    }
  }
}

// A client cannot set the server's limit; a value past a day is refused in
// 3.21's words.
TEST(Iperf3ServerMaxDuration, IsAServerOption) {
  REQUIRE_IPERF3_321();
  for (const std::string& program : {kIperf3Personality, real_iperf3_321()}) {
    SCOPED_TRACE(program);
    Outcome o = client(program, 1, {"--server-max-duration", "5"});
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("some option you are trying to set is server only"), std::string::npos)
        << o.err;
    Process s({program, "-s", "-p", "1", "--server-max-duration", "86401"});
    o = s.wait(10s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("test duration valid values are 0 to 86400 seconds"), std::string::npos)
        << o.err;
  }
}

// The events as --json-stream prints them, then the whole -J document:
// the same line kinds and the same top-level keys as 3.21's own client.
TEST(Iperf3JsonStream, FullOutputAddsTheWholeDocument) {
  REQUIRE_IPERF3_321();
  struct Shape {
    std::vector<std::string> events;
    std::vector<std::string> keys;  // the document's top level
  };
  auto shape = [](const std::string& out) {
    Shape s;
    std::istringstream in(out);
    std::string line, rest;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '{' && line.back() == '}' &&
          line.find("\"event\"") != std::string::npos && rest.empty()) {
        const json e = parse_json(line);
        if (e.is_object() && e.contains("event")) {
          const std::string name = e["event"];
          if (s.events.empty() || s.events.back() != name) s.events.push_back(name);
          continue;
        }
      }
      rest += line + "\n";
    }
    const json doc = parse_json(rest);
    if (doc.is_object())
      for (auto it = doc.begin(); it != doc.end(); ++it) s.keys.push_back(it.key());
    return s;
  };
  Iperf3Server real(real_iperf3_321()), ours(kIperf3Personality);
  ASSERT_TRUE(real.ready && ours.ready);
  const std::vector<std::string> args = {"-t", "2", "--json-stream", "--json-stream-full-output"};
  const Outcome theirs = client(real_iperf3_321(), real.port, args);
  const Outcome mine = client(kIperf3Personality, ours.port, args);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  const Shape t = shape(theirs.out), m = shape(mine.out);
  EXPECT_EQ(m.events, t.events) << mine.out;
  EXPECT_EQ(m.events, (std::vector<std::string>{"start", "interval", "end"}));
  EXPECT_EQ(m.keys, t.keys) << mine.out;
  EXPECT_EQ(m.keys, (std::vector<std::string>{"end", "intervals", "start"}));  // sorted

  // Alone it changes nothing: the text report.
  const Outcome alone =
      client(kIperf3Personality, ours.port, {"-t", "1", "--json-stream-full-output"});
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.out.find("iperf Done."), std::string::npos) << alone.out;
}

// The options not built yet are refused with what to do, not taken for
// unknown ones.
TEST(Iperf3Options321, NotYetBuiltAreRefusedByName) {
  for (const auto& [option, words] :
       std::vector<std::pair<std::string, std::string>>{{"-m", "MPTCP"},
                                                        {"--mptcp", "MPTCP"},
                                                        {"--skip-rx-copy", "MSG_TRUNC"},
                                                        {"--gsro", "GSO/GRO"}}) {
    SCOPED_TRACE(option);
    const Outcome o = client(kIperf3Personality, 1, {option});
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find(words), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("unrecognized"), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace flowperf::testing
