// netperf's data-connection options (test -P, -K, -C, -b; -T, -Y, -y, -S)
// through netperf's wire protocol: flowperf against itself, against a real
// netserver, and a real netperf against flowperf's server.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "e2e/netperf_peers.h"

namespace flowperf::testing {
namespace {

// ---- netperf's data-connection options: test -P, -K, -C, -b; -T, -Y, -y, -S ----

// The first CPU this process may run on (containers may not offer CPU 0).
int first_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) return i;
  return 0;
}

// A TCP listener on a port of every local address, so that nothing else
// can bind that port while it lives.
class PortHolder {
 public:
  PortHolder() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len);
    ::listen(fd_, 1);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~PortHolder() { ::close(fd_); }
  uint16_t port() const { return port_; }

 private:
  int fd_;
  uint16_t port_ = 0;
};

session::NetperfClientOptions control_at(uint16_t port) {
  session::NetperfClientOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  return o;
}

// Every data option the test takes, at once: TCP's own for TCP tests, a
// first burst for TCP_RR and UDP_RR.
spec::TestSpec with_all_data_options(spec::TestSpec s) {
  const int cpu = first_allowed_cpu();
  s.local.cpu = s.remote.cpu = cpu;
  s.local.data_port = free_port();
  s.remote.data_port = free_port();
  const bool tcp = spec::info(s.test).protocol == spec::Protocol::kTcp;
  if (tcp) s.local.cc = s.remote.cc = "reno";
  s.local.tos = s.remote.tos = 0x10;
  s.local.priority = s.remote.priority = 1;
  s.keepalive = tcp;
  if (s.test == TestKind::kTcpRr || s.test == TestKind::kUdpRr) s.burst = 4;
  return s;
}

// True when a TCP connection from port `from` to port `to` is established
// (/proc/net/tcp and tcp6: the client's own socket, whichever family the
// server's end has). One pass over each file: with thousands of sockets
// open by tests beside this one, a pass takes long, and an earlier version
// that read the files once per port missed a 2 s test's connection under
// load (the flake hunt, 1 run in 4).
bool connected_between(uint16_t from, uint16_t to) {
  for (const char* path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) continue;
    char line[512];
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) {
      char local[64] = {}, remote[64] = {};
      unsigned state = 0;
      if (std::sscanf(line, " %*d: %63s %63s %x", local, remote, &state) != 3) continue;
      const char* lp = std::strrchr(local, ':');
      const char* rp = std::strrchr(remote, ':');
      found = state == 1 && lp && rp &&  // TCP_ESTABLISHED
              std::strtoul(lp + 1, nullptr, 16) == from && std::strtoul(rp + 1, nullptr, 16) == to;
    }
    std::fclose(f);
    if (found) return true;
  }
  return false;
}

// What every server that speaks netperf's protocol must do with them.
// `refuses_taken_port`: flowperf's server refuses a data port it cannot
// bind; netserver quietly listens on another one.
void expect_data_options_honoured(uint16_t port, bool refuses_taken_port) {
  // 1. All at once, counted: a burst of requests keeps the count exact.
  for (TestKind kind : {TestKind::kTcpRr, TestKind::kUdpRr}) {
    SCOPED_TRACE(spec::info(kind).name);
    spec::TestSpec s = with_all_data_options(make_spec(kind));
    s.count = 2000;
    results::TestResult r = session::run_netperf_test(s, control_at(port));
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_TRUE(r.have_remote);
    EXPECT_EQ(r.local_side.total().transactions, 2000u);
    if (kind == TestKind::kTcpRr)
      EXPECT_EQ(r.remote_side.total().transactions, 2000u);
    else
      EXPECT_GE(r.remote_side.total().transactions, 2000u);
  }
  // 2. The other options on every test, timed.
  for (TestKind kind : kAll) {
    SCOPED_TRACE(spec::info(kind).name);
    spec::TestSpec s = with_all_data_options(make_spec(kind));
    s.cork = kind == TestKind::kTcpStream;  // a corked request/response crawls
    expect_consistent(session::run_netperf_test(s, control_at(port)));
  }
  // 3. The data connection is between the ports asked for.
  {
    spec::TestSpec s = make_spec(TestKind::kTcpRr, 2);
    s.local.data_port = free_port();
    s.remote.data_port = free_port();
    std::atomic<bool> done{false}, seen{false};
    std::thread watch([&] {
      while (!done.load() && !seen.load()) {
        seen = connected_between(s.local.data_port, s.remote.data_port);
        std::this_thread::sleep_for(20ms);
      }
    });
    results::TestResult r = session::run_netperf_test(s, control_at(port));
    done = true;
    watch.join();
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(seen.load()) << "no connection from local port " << s.local.data_port
                             << " to remote port " << s.remote.data_port;
  }
  // 4. A data port held elsewhere: the server cannot bind it.
  if (refuses_taken_port) {
    PortHolder held;
    spec::TestSpec s = make_spec(TestKind::kTcpStream);
    s.remote.data_port = held.port();
    try {
      session::run_netperf_test(s, control_at(port));
      ADD_FAILURE() << "the server ran the test on a port it cannot have";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("Address already in use"), std::string::npos)
          << e.what();
    }
  }
  // 5. Our data socket binds the local port asked for, or fails.
  {
    PortHolder held;
    spec::TestSpec s = make_spec(TestKind::kTcpRr);
    s.local.data_port = held.port();
    try {
      session::run_netperf_test(s, control_at(port));
      ADD_FAILURE() << "the data connection did not bind the local port asked for";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(":" + std::to_string(held.port()) +
                                           ": Address already in use"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(NetperfWireSelf, DataOptionsAgainstFlowperfsServer) {
  InProcessServer server;
  expect_data_options_honoured(server.port(), true);
}

TEST(NetperfInterop, DataOptionsAgainstRealNetserver) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  expect_data_options_honoured(ns.port(), false);
}

TEST(NetperfInterop, RealNetperfDataOptionsReachFlowperfServer) {
  REQUIRE_PEER();
  FlowperfServer server;
  ASSERT_FALSE(server.port().empty());
  const std::string cpu = std::to_string(first_allowed_cpu());
  const std::string ports = std::to_string(free_port()) + "," + std::to_string(free_port());
  // All of them at once, on a counted burst of transactions.
  {
    Process p({real_netperf(),
               "-H",
               "127.0.0.1",
               "-p",
               server.port(),
               "-t",
               "TCP_RR",
               "-l",
               "-2000",
               "-T",
               cpu + "," + cpu,
               "-Y",
               "0x10,0x10",
               "-y",
               "1,1",
               "-S",
               "--",
               "-b",
               "4",
               "-K",
               "reno,reno",
               "-P",
               ports,
               "-k",
               "LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,REMOTE_BYTES_SENT,LOCAL_BYTES_RECVD"});
    Outcome o = p.wait(60s);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    auto kv = keyvals(o.out);
    EXPECT_GE(kv["LOCAL_BYTES_SENT"], 2000) << o.out;
    EXPECT_EQ(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"]) << o.out;
    EXPECT_EQ(kv["REMOTE_BYTES_SENT"], kv["LOCAL_BYTES_RECVD"]) << o.out;
  }
  // UDP_RR with a burst, and the options a UDP socket takes.
  {
    Process p({real_netperf(), "-H", "127.0.0.1", "-p", server.port(), "-t", "UDP_RR", "-l", "1",
               "-Y", "0x10,0x10", "-y", "1,1", "--", "-b", "4", "-P", ports});
    Outcome o = p.wait(60s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  }
  // The data port asked for is the one the server binds: held elsewhere,
  // the test is refused and netperf says so.
  {
    PortHolder held;
    Process p({real_netperf(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_STREAM", "-l",
               "1", "--", "-P", "," + std::to_string(held.port())});
    Outcome o = p.wait(60s);
    EXPECT_NE(o.exit_code, 0) << o.out << o.err;
  }
}

TEST(NetperfInterop, NetperfPersonalityDataOptionsAgainstRealNetserver) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  const std::string cpu = std::to_string(first_allowed_cpu());
  const std::string ports = std::to_string(free_port()) + "," + std::to_string(free_port());
  for (const char* test : {"TCP_STREAM", "TCP_RR", "UDP_RR", "TCP_CRR"}) {
    SCOPED_TRACE(test);
    Process p({kBin, "netperf",   "-H", "127.0.0.1", "-p", std::to_string(ns.port()),
               "-t", test,        "-l", "1",         "-T", cpu + "," + cpu,
               "-Y", "0x10,0x10", "-y", "1,1",       "-S", "--",
               "-b", "2",         "-K", "reno,reno", "-P", ports});
    Outcome o = p.wait(60s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_EQ(o.err, "");  // nothing "accepted but not applied"
  }
}

}  // namespace
}  // namespace flowperf::testing
