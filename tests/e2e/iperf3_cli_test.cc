// flowperf's iperf3 as its users call it: the seed's commands (with
// 127.0.0.1 and short durations), -J documents with the same keys as the
// real iperf3's, the errors iperf3 prints with its exit codes, and the
// server's own behaviour (busy with --one-at-a-time, -1, -D, -I, tests side
// by side otherwise).
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/daemons.h"
#include "e2e/iperf3_peers.h"
#include "support/paths.h"

namespace flowperf::testing {
namespace {

// "a.b[].c" paths of every value in a JSON document, with arrays' elements
// merged, so two documents of one test kind compare by shape.
void paths(const nlohmann::json& j, const std::string& at, std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string p = at.empty() ? it.key() : at + "." + it.key();
      out.insert(p);
      paths(it.value(), p, out);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) paths(e, at + "[]", out);
  }
}

std::set<std::string> key_paths(const nlohmann::json& j) {
  std::set<std::string> out;
  paths(j, "", out);
  return out;
}

// Keys 3.12 has that flowperf's document leaves out on purpose, or adds:
// none. Both sets must be equal.
void expect_same_keys(const std::vector<std::string>& args) {
  Iperf3Server real(Side::kReal), ours(Side::kFlowperf);
  ASSERT_TRUE(real.ready && ours.ready);
  std::vector<std::string> a = args;
  a.push_back("-J");
  const Outcome r = run_client(Side::kReal, real.port, a);
  const Outcome f = run_client(Side::kFlowperf, ours.port, a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(f.exit_code, 0) << f.err << f.out;
  const auto rj = parse_json(r.out), fj = parse_json(f.out);
  ASSERT_FALSE(rj.is_discarded());
  ASSERT_FALSE(fj.is_discarded()) << f.out;
  const auto rk = key_paths(rj), fk = key_paths(fj);
  for (const auto& k : rk) EXPECT_TRUE(fk.count(k)) << "flowperf's -J lacks " << k;
  for (const auto& k : fk)
    EXPECT_TRUE(rk.count(k)) << "flowperf's -J has " << k << ", iperf3's not";
}

TEST(Iperf3Json, TcpKeysAreIperf3s) {
  REQUIRE_IPERF3();
  expect_same_keys({"-t", "1"});
}
TEST(Iperf3Json, UdpKeysAreIperf3s) {
  REQUIRE_IPERF3();
  expect_same_keys({"-t", "1", "-u", "-b", "10M"});
}
TEST(Iperf3Json, BidirKeysAreIperf3s) {
  REQUIRE_IPERF3();
  expect_same_keys({"-t", "1", "--bidir"});
}
TEST(Iperf3Json, ReverseKeysAreIperf3s) {
  REQUIRE_IPERF3();
  expect_same_keys({"-t", "1", "-R", "-P", "2"});
}

// The seed's commands, with 127.0.0.1 and short tests.
TEST(Iperf3Seed, CommandsRunAsWritten) {
  Iperf3Server srv(Side::kFlowperf);
  ASSERT_TRUE(srv.ready);
  const std::vector<std::vector<std::string>> seed = {
      {"-P", "64", "-t", "1", "-w", "1M"},
      {"-u", "-b", "0", "-l", "64", "-O", "1", "-t", "1"},
      {"-u", "-b", "100M", "-t", "1", "-J"},
  };
  for (const auto& args : seed) {
    const Outcome o = run_client(Side::kFlowperf, srv.port, args);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    if (args.back() == "-J") {
      const auto j = parse_json(o.out);
      ASSERT_FALSE(j.is_discarded()) << o.out;
      // What the seed's script reads. -b 100M offers 100 Mbit/s for 1 s; the pacer sends what
      // fell due in a stall once it runs, so only a stall over the last half second, or a full
      // receive buffer dropping half, would bring the received rate under 50 Mbit/s.
      EXPECT_GT(j["end"]["sum_received"]["bits_per_second"].get<double>(), 50e6);
    } else {
      EXPECT_NE(o.out.find("iperf Done."), std::string::npos) << o.out;
      EXPECT_NE(o.out.find("receiver"), std::string::npos) << o.out;
    }
  }
  // -P 64: 64 stream lines and a [SUM].
  const Outcome p = run_client(Side::kFlowperf, srv.port, {"-P", "64", "-t", "1"});
  EXPECT_NE(p.out.find("[SUM]"), std::string::npos);
}

// --json-stream (3.17's): one compact object a line, start, an interval a
// second, end; the end event holds what -J's "end" holds.
TEST(Iperf3Json, JsonStreamIsOneEventALine) {
  Iperf3Server srv(Side::kFlowperf);
  ASSERT_TRUE(srv.ready);
  const Outcome o = run_client(Side::kFlowperf, srv.port, {"-t", "2", "--json-stream"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::vector<std::string> events;
  nlohmann::json end;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = parse_json(line);
    ASSERT_FALSE(j.is_discarded()) << line;
    events.push_back(j["event"].get<std::string>());
    if (events.back() == "end") end = j["data"];
    if (events.back() == "interval") {
      EXPECT_EQ(j["data"]["streams"].size(), 1u) << line;
    }
    if (events.back() == "start") {
      EXPECT_EQ(j["data"]["connecting_to"]["port"], srv.port) << line;
    }
  }
  ASSERT_GE(events.size(), 3u) << o.out;
  EXPECT_EQ(events.front(), "start");
  EXPECT_EQ(events.back(), "end");
  // -t 2 at 1 s: a tick at 1 s, and the end's own sample (the run loop stops at 2 s before a
  // tick due then). A late tick moves the boundary but keeps 2; only a stall of about 0.95 s
  // would merge them (a shown interval needs 5% of a second). The end's bytes need only be > 0.
  EXPECT_EQ(std::count(events.begin(), events.end(), "interval"), 2) << o.out;
  EXPECT_GT(end["sum_received"]["bytes"].get<double>(), 0) << o.out;
  // A server has no stream form: refused, not ignored.
  const Outcome s =
      Process({kIperf3Personality, "-s", "--json-stream", "-p", std::to_string(free_port())})
          .wait(10s);
  EXPECT_EQ(s.exit_code, 1);
  EXPECT_NE(s.err.find("--json-stream"), std::string::npos) << s.err;
}

// -V's extra lines, with the cookie the server saw; -d's control exchange
// on stderr, with the parameters as sent.
TEST(Iperf3Client, VerboseAndDebugShowTheExchange) {
  // A -J server prints no banner: it is given time to listen, then serves once.
  // 500 ms is about 200 times a start-up (README: flowperf --version 2.2 ms), room for a loaded
  // machine; a server not yet listening would refuse the client, which then exits 1.
  const uint16_t port = free_port();
  Process server({kIperf3Personality, "-s", "-J", "-1", "-p", std::to_string(port)});
  std::this_thread::sleep_for(500ms);
  const Outcome o = run_client(Side::kFlowperf, port, {"-t", "1", "-V", "-d", "-P", "2"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* line :
       {"Control connection MSS ", "Time: ", "      TCP MSS: ",
        "Starting Test: protocol: TCP, 2 streams, 131072 byte blocks, omitting 0 seconds, 1 "
        "second test, tos 0\n",
        "Test Complete. Summary Results:\n", "CPU Utilization: local/sender ",
        "snd_tcp_congestion "})
    EXPECT_NE(o.out.find(line), std::string::npos) << line << "\n" << o.out;
  EXPECT_NE(o.err.find("iperf3 debug: parameters sent: {"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("\"parallel\":2"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("state from the server: EXCHANGE_RESULTS"), std::string::npos) << o.err;
  // The cookie -V printed is the one the server's -J recorded.
  const size_t at = o.out.find("Cookie: ");
  ASSERT_NE(at, std::string::npos);
  const std::string cookie = o.out.substr(at + 8, 36);
  const Outcome s = server.wait(10s);
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_NE(s.out.find("\"cookie\":\t\"" + cookie + "\""), std::string::npos) << s.out;
}

// -M, -S and -C read back from the kernel (ss) on the client's data
// connection while it runs against a real iperf3 server.
TEST(Iperf3Client, SocketOptionsReachTheDataConnection) {
  REQUIRE_IPERF3();
  Iperf3Server srv(Side::kReal);
  ASSERT_TRUE(srv.ready);
  const std::string port = std::to_string(srv.port);
  Process c({kIperf3Personality, "-c", "127.0.0.1", "-p", port, "-t", "3", "-M", "1000", "-S",
             "0x10", "-C", "reno"});
  // The data connection is up from a few ms into the 3 s test to its end; ss looks at 1.5 s,
  // 1.5 s from either edge, so a start-up slowed by load still falls well inside.
  std::this_thread::sleep_for(1500ms);
  const Outcome ss = Process({"/usr/bin/ss", "-tinH", "--tos", "state", "established",
                              "( dport = :" + port + " )"})
                         .wait(10s);
  ASSERT_EQ(ss.exit_code, 0) << ss.err;
  // Each socket: its address line, then a tab-indented line of TCP details.
  bool found = false;
  std::istringstream lines(ss.out);
  for (std::string head, info; std::getline(lines, head) && std::getline(lines, info);) {
    if (head.find("tos:0x10") == std::string::npos) continue;
    found = true;
    EXPECT_NE(info.find(" reno "), std::string::npos) << info;
    const auto at = info.find(" advmss:");
    ASSERT_NE(at, std::string::npos) << info;
    EXPECT_LE(std::stoi(info.substr(at + 8)), 1000) << info;
  }
  EXPECT_TRUE(found) << "no data connection with TOS 0x10:\n" << ss.out;
  EXPECT_EQ(c.wait(20s).exit_code, 0);
}

TEST(Iperf3Errors, AsIperf3WordsThem) {
  // Nothing listens: refused.
  const uint16_t port = free_port();
  Outcome o = run_client(Side::kFlowperf, port, {"-t", "1"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err, "iperf3: error - unable to connect to server: Connection refused\n");
  EXPECT_EQ(o.out, "");
  // Bad options and parameters, before any connection.
  o = run_client(Side::kFlowperf, port, {"--bogus"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err.rfind("iperf3: unrecognized option '--bogus'\n", 0), 0u) << o.err;
  o = run_client(Side::kFlowperf, port, {"-u", "-l", "70000", "-t", "1"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err.rfind("iperf3: parameter error - block size invalid (minimum = 16 bytes, "
                        "maximum = 65507 bytes)\n",
                        0),
            0u)
      << o.err;
  // An unknown congestion control: "Connecting" first, then the error.
  Iperf3Server srv(Side::kFlowperf);
  ASSERT_TRUE(srv.ready);
  o = run_client(Side::kFlowperf, srv.port, {"-t", "1", "-C", "nosuchcc"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("Connecting to host 127.0.0.1"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("iperf3: error - unable to set TCP_CONGESTION"), std::string::npos) << o.err;
}

TEST(Iperf3Server, BusyWithOneAtATimeAsIperf3Is) {
  REQUIRE_IPERF3();
  Iperf3Server srv(Side::kFlowperf, {"--one-at-a-time"});
  ASSERT_TRUE(srv.ready);
  Process first({kIperf3Personality, "-c", "127.0.0.1", "-p", std::to_string(srv.port), "-t", "3"});
  // The server is busy from the moment it accepts the first client (its log says so) until the
  // first's 3 s test ends: the second comes in between, whatever the machine's load.
  ASSERT_TRUE(srv.proc->wait_for_line("Accepted connection", 10s));
  // The real client hears iperf3's busy answer.
  const Outcome busy = run_client(Side::kReal, srv.port, {"-t", "1"});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.err.find("the server is busy running a test. try again later"), std::string::npos)
      << busy.err;
  EXPECT_EQ(first.wait(20s).exit_code, 0);
}

// The other way: a real iperf3 -s busy with one test turns flowperf's
// client away, and flowperf's client says so as iperf3 does.
TEST(Iperf3Client, HearsARealServerSayBusy) {
  REQUIRE_IPERF3();
  Iperf3Server srv(Side::kReal);
  ASSERT_TRUE(srv.ready);
  Process first({real_iperf3(), "-c", "127.0.0.1", "-p", std::to_string(srv.port), "-t", "3"});
  // Busy from the moment the server accepts the first client (it says so) until the first's
  // 3 s test ends: ours comes in between, whatever the machine's load.
  ASSERT_TRUE(srv.proc->wait_for_line("Accepted connection", 10s));
  const Outcome busy = run_client(Side::kFlowperf, srv.port, {"-t", "1"});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_EQ(busy.err, "iperf3: error - the server is busy running a test. try again later\n");
  EXPECT_EQ(first.wait(20s).exit_code, 0);
  // 3.12 closes its listener after a test and opens it again: the next client waits for its
  // banner (the flake hunt caught a client refused in that moment, and ours then ran alone).
  ASSERT_TRUE(srv.proc->wait_for_line("Server listening", 10s));
  // With -J the error goes into the document, as 3.12 puts it.
  Process second({real_iperf3(), "-c", "127.0.0.1", "-p", std::to_string(srv.port), "-t", "3"});
  ASSERT_TRUE(srv.proc->wait_for_line("Accepted connection", 10s));
  const Outcome j = run_client(Side::kFlowperf, srv.port, {"-t", "1", "-J"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(parse_json(j.out)["error"], "the server is busy running a test. try again later")
      << j.out;
  EXPECT_EQ(second.wait(20s).exit_code, 0);
}

TEST(Iperf3Server, ServesClientsSideBySide) {
  REQUIRE_IPERF3();
  Iperf3Server srv(Side::kFlowperf);
  ASSERT_TRUE(srv.ready);
  // Three real clients at once, where iperf3 -s would turn two away.
  std::vector<std::unique_ptr<Process>> clients;
  for (int i = 0; i < 3; ++i)
    clients.push_back(std::make_unique<Process>(std::vector<std::string>{
        real_iperf3(), "-c", "127.0.0.1", "-p", std::to_string(srv.port), "-t", "2", "-J"}));
  for (auto& c : clients) {
    const Outcome o = c->wait(30s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    const auto j = parse_json(o.out);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_GT(j["end"]["sum_received"]["bytes"].get<double>(), 0);
  }
}

// `flowperf server --iperf3-port N`: one process, flowperf's clients on its
// port and a real iperf3 client on N.
TEST(Iperf3Server, NativeServerAlsoServesIperf3) {
  REQUIRE_IPERF3();
  const uint16_t iperf3_port = free_port();
  const std::string flowperf = ::flowperf::testing::personality("flowperf");
  Process server({flowperf, "server", "-p", "0", "-B", "127.0.0.1", "--iperf3-port",
                  std::to_string(iperf3_port)});
  const std::string port = announced_port(server);
  ASSERT_FALSE(port.empty());
  const Outcome r = run_client(Side::kReal, iperf3_port, {"-t", "1", "-J"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(parse_json(r.out)["end"]["sum_received"]["bytes"].get<double>(), 0) << r.out;
  const Outcome n =
      Process({flowperf, "-H", "127.0.0.1", "-p", port, "-t", "TCP_RR", "-l", "1"}).wait(30s);
  EXPECT_EQ(n.exit_code, 0) << n.out << n.err;
}

TEST(Iperf3Server, OneOffServesOneTestAndExits) {
  Iperf3Server srv(Side::kFlowperf, {"-1"});
  ASSERT_TRUE(srv.ready);
  const Outcome c = run_client(Side::kFlowperf, srv.port, {"-t", "1"});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  const Outcome s = srv.proc->wait(10s);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.exit_code, 0);
}

TEST(Iperf3Server, DaemonWritesItsPidAndIdles) {
  const uint16_t port = free_port();
  const std::string pidfile = "/tmp/flowperf-iperf3-test-" + std::to_string(::getpid()) + ".pid";
  Process launcher({kIperf3Personality, "-s", "-D", "-I", pidfile, "-p", std::to_string(port)});
  EXPECT_EQ(launcher.wait(10s).exit_code, 0);
  pid_t pid = 0;
  for (int i = 0; i < 50 && pid == 0; ++i) {
    std::ifstream f(pidfile);
    f >> pid;
    if (pid == 0) std::this_thread::sleep_for(100ms);
  }
  ASSERT_GT(pid, 0);
  // It serves a test ...
  const Outcome c = run_client(Side::kFlowperf, port, {"-t", "1"});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  // ... and then uses no CPU while idle. Its accept loop wakes once a second to reap sessions,
  // microseconds each: 0 ticks expected, 2 (20 ms of the 2 s, at 100 a second) for a tick
  // charged to a wake-up; a busy loop would show 200.
  auto ticks = [pid] { return cpu_ticks(pid); };
  const long before = ticks();
  std::this_thread::sleep_for(2s);
  EXPECT_LE(ticks() - before, 2) << "an idle daemon burnt CPU";
  ::kill(pid, SIGTERM);
  // Its signal thread wakes the accept loop at once; 5 s of polling is slack for a busy machine.
  for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(100ms);
  EXPECT_NE(::kill(pid, 0), 0) << "the daemon did not stop on SIGTERM";
  struct stat st {};
  EXPECT_NE(::stat(pidfile.c_str(), &st), 0) << "the pid file was left behind";
  ::unlink(pidfile.c_str());
}

TEST(Iperf3Client, InterruptedClientReportsWhatItMeasured) {
  Iperf3Server srv(Side::kFlowperf);
  ASSERT_TRUE(srv.ready);
  Process c({kIperf3Personality, "-c", "127.0.0.1", "-p", std::to_string(srv.port), "-t", "30"});
  // 2 s is far past a start-up of a few ms, so it is measuring when interrupted; ending within
  // 15 s of a 30 s test shows the interrupt, not the timer, ended it.
  std::this_thread::sleep_for(2s);
  c.signal(SIGINT);
  const Outcome o = c.wait(15s);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("iperf3: interrupt - the client has terminated"), std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("sender"), std::string::npos) << o.out;
  // The server goes on serving.
  const Outcome next = run_client(Side::kFlowperf, srv.port, {"-t", "1"});
  EXPECT_EQ(next.exit_code, 0) << next.err;
}

}  // namespace
}  // namespace flowperf::testing
