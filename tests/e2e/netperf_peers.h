// What the netperf wire tests share (netperf_interop_test.cc,
// netperf_wire_self_test.cc, netperf_data_options_test.cc): where the real
// netperf and netserver are, servers of each kind on their own ports, the
// client run, and what any server speaking netperf's protocol must report.
// Real netperf and netserver exist only where someone built them: they are
// looked for in $NETPERF_PEER_DIR (default /tmp/peers/bin). As in the other
// end-to-end tests, nothing here asserts speed: only exit codes, nonzero
// counts, and counts that must agree.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "net/sys.h"
#include "proto/netperf_wire.h"
#include "session/netperf_client.h"
#include "session/server.h"
#include "support/log_file.h"
#include "support/net.h"
#include "support/paths.h"
#include "support/peers.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using spec::TestKind;
namespace np = proto::netperf;

inline const std::string kBin = ::flowperf::testing::flowperf_bin();

// A real netserver (or another binary that takes netserver's options) on
// its own port, in the foreground, killed when done.
class Netserver {
 public:
  explicit Netserver(const std::string& binary = real_netserver()) : port_(free_port()) {
    proc_ = std::make_unique<Process>(
        std::vector<std::string>{binary, "-D", "-p", std::to_string(port_), "-L", "127.0.0.1"});
    if (!wait_accepting(port_)) port_ = 0;
  }
  uint16_t port() const { return port_; }
  pid_t pid() const { return proc_->pid(); }

 private:
  uint16_t port_;
  std::unique_ptr<Process> proc_;
};

// `flowperf server` as a separate process.
class FlowperfServer {
 public:
  FlowperfServer() {
    proc_ = std::make_unique<Process>(
        std::vector<std::string>{kBin, "server", "-p", "0", "-B", "127.0.0.1"});
    port_ = announced_port(*proc_);
  }
  const std::string& port() const { return port_; }

 private:
  std::unique_ptr<Process> proc_;
  std::string port_;
};

// An in-process flowperf server on an ephemeral port.
class InProcessServer {
 public:
  explicit InProcessServer(uint32_t max_tests = 100) {
    session::ServerConfig c;
    c.bind_host = "127.0.0.1";
    c.port = 0;
    c.max_tests = max_tests;
    c.log = log_.file();
    server_ = std::make_unique<session::Server>(c);
    server_->bind();
    server_->start_background();
  }
  ~InProcessServer() { server_->stop(); }
  uint16_t port() const { return server_->port(); }
  std::string log() const { return log_.text(); }

 private:
  LogFile log_;  // before server_: it outlives the server that writes to it
  std::unique_ptr<session::Server> server_;
};

inline spec::TestSpec make_spec(TestKind kind, double seconds = 1) {
  spec::TestSpec s;
  s.test = kind;
  s.duration_s = seconds;
  return s;
}

inline results::TestResult run_client(TestKind kind, uint16_t port, double* wall = nullptr) {
  session::NetperfClientOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  auto t0 = Clock::now();
  results::TestResult r = session::run_netperf_test(make_spec(kind), o);
  if (wall) *wall = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// What must hold for any server that speaks netperf's protocol.
inline void expect_consistent(const results::TestResult& r) {
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.have_remote);
  const auto l = r.local_side.total();
  const auto m = r.remote_side.total();
  EXPECT_GT(r.local_side.elapsed_s, 0.5);
  EXPECT_GT(r.remote_side.elapsed_s, 0.5);
  EXPECT_GT(r.remote_side.rcvbuf, 0);
  EXPECT_GT(r.remote_side.sndbuf, 0);
  switch (r.spec.test) {
    case TestKind::kTcpStream:
      EXPECT_GT(l.bytes_sent, 0u);
      EXPECT_EQ(m.bytes_recv, l.bytes_sent);  // TCP: all of it, before the EOF
      break;
    case TestKind::kTcpMaerts:
      EXPECT_GT(l.bytes_recv, 0u);
      // We read to the server's EOF, so we got all it sent; netserver does
      // not count the send its timer cuts short, so it may claim up to one
      // send less.
      EXPECT_LE(m.bytes_sent, l.bytes_recv);
      EXPECT_LT(l.bytes_recv - m.bytes_sent, 1u << 20);
      break;
    case TestKind::kUdpStream:
      EXPECT_GT(l.datagrams_sent, 0u);
      EXPECT_GT(m.bytes_recv, 0u);
      EXPECT_LE(m.bytes_recv, l.bytes_sent);
      EXPECT_EQ(m.datagrams_recv * r.spec.effective_send_size(), m.bytes_recv);
      break;
    case TestKind::kTcpRr:
      EXPECT_GT(l.transactions, 0u);
      EXPECT_EQ(m.transactions, l.transactions);  // ended by our half-close
      EXPECT_EQ(m.bytes_recv, l.bytes_sent);
      break;
    case TestKind::kTcpCrr:
      EXPECT_GT(l.transactions, 0u);
      EXPECT_EQ(m.transactions, l.transactions);  // our flows finish their last one
      break;
    case TestKind::kUdpRr:
      EXPECT_GT(l.transactions, 0u);
      EXPECT_GE(m.transactions, l.transactions);  // every answer we counted, it sent
      EXPECT_GE(m.transactions, l.transactions / 2);
      break;
    case TestKind::kTcpCc:
      EXPECT_GT(l.transactions, 0u);
      EXPECT_EQ(m.transactions, l.transactions);  // every close we saw, it accepted
      EXPECT_EQ(l.bytes_sent, 0u);                // connections alone
      EXPECT_EQ(l.bytes_recv, 0u);
      break;
  }
}

// The NAME=value lines of netperf -k output, as numbers.
inline std::map<std::string, double> keyvals(const std::string& out) {
  std::map<std::string, double> kv;
  static const std::regex re(R"(^([A-Z_]+)=([-0-9.eE+]+)\s*$)");
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    std::string line = out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::smatch m;
    if (std::regex_match(line, m, re)) kv[m[1]] = std::stod(m[2]);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return kv;
}

inline constexpr TestKind kAll[] = {
    TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream, TestKind::kTcpRr,
    TestKind::kTcpCrr,    TestKind::kUdpRr,     TestKind::kTcpCc};

}  // namespace flowperf::testing
