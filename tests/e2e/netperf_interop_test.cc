// netperf 2.7 interoperability on loopback, both ways:
//   (a) flowperf's netperf client (run_netperf_test in this process, and the
//       `flowperf netperf` personality when it exists) against a real netserver;
//   (b) a real netperf against flowperf's server;
//   (c) flowperf's netperf client against flowperf's own server in this
//       process, which needs no peer and always runs (CI too).
// Real netperf and netserver exist only where someone built them: they are
// looked for in $NETPERF_PEER_DIR (default /tmp/peers/bin), and the tests
// that need them skip with the reason when they are absent. As in the other
// end-to-end tests, nothing here asserts speed: only exit codes, nonzero
// counts, and counts that must agree.
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
#include "e2e/process.h"
#include "net/sys.h"
#include "proto/netperf_wire.h"
#include "session/netperf_client.h"
#include "session/server.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using spec::TestKind;
namespace np = proto::netperf;

const std::string kBin = FLOWPERF_BIN;

std::string peer_dir() {
  const char* d = std::getenv("NETPERF_PEER_DIR");
  return d && *d ? d : "/tmp/peers/bin";
}
std::string netperf_bin() { return peer_dir() + "/netperf"; }
std::string netserver_bin() { return peer_dir() + "/netserver"; }
bool have_peer() {
  return ::access(netperf_bin().c_str(), X_OK) == 0 && ::access(netserver_bin().c_str(), X_OK) == 0;
}
// In CI (CI set, as .ci/run runs) a missing peer fails the test: .ci/run
// builds it, so its absence is a broken set-up, not a reason to skip.
#define REQUIRE_PEER()                                                                   \
  if (!have_peer()) {                                                                    \
    if (std::getenv("CI")) FAIL() << "no real netperf/netserver in " << peer_dir();      \
    GTEST_SKIP() << "no real netperf/netserver in " << peer_dir()                        \
                 << " (build netperf 2.7 there with ../shared/peers/build-peers.sh, or " \
                    "point NETPERF_PEER_DIR at its bin directory)";                      \
  }

// A port nothing listens on right now.
uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), len);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

bool can_connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// A real netserver on its own port, killed when done.
class Netserver {
 public:
  Netserver() : port_(free_port()) {
    proc_ = std::make_unique<Process>(std::vector<std::string>{
        netserver_bin(), "-D", "-p", std::to_string(port_), "-L", "127.0.0.1"});
    for (auto end = Clock::now() + 10s; Clock::now() < end; std::this_thread::sleep_for(20ms))
      if (can_connect(port_)) return;
    port_ = 0;
  }
  uint16_t port() const { return port_; }

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
    auto line = proc_->read_line(10s);
    std::smatch m;
    static const std::regex re(R"(listening on .*:(\d+) )");
    if (line && std::regex_search(*line, m, re)) port_ = m[1];
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
    c.log = log_ = std::tmpfile();
    server_ = std::make_unique<session::Server>(c);
    server_->bind();
    server_->start_background();
  }
  ~InProcessServer() {
    server_->stop();
    std::fclose(log_);
  }
  uint16_t port() const { return server_->port(); }
  std::string log() const {
    // Locked so the server cannot write between the rewind and the read
    // (it would overwrite the start); the read leaves the position at the end.
    ::flockfile(log_);
    std::fflush(log_);
    std::rewind(log_);
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, log_)) > 0) s.append(buf, n);
    ::funlockfile(log_);
    return s;
  }

 private:
  std::FILE* log_;
  std::unique_ptr<session::Server> server_;
};

spec::TestSpec make_spec(TestKind kind, double seconds = 1) {
  spec::TestSpec s;
  s.test = kind;
  s.duration_s = seconds;
  return s;
}

results::TestResult run_client(TestKind kind, uint16_t port, double* wall = nullptr) {
  session::NetperfClientOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  auto t0 = Clock::now();
  results::TestResult r = session::run_netperf_test(make_spec(kind), o);
  if (wall) *wall = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// What must hold for any server that speaks netperf's protocol.
void expect_consistent(const results::TestResult& r) {
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

const TestKind kAll[] = {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream,
                         TestKind::kTcpRr,     TestKind::kTcpCrr,    TestKind::kUdpRr,
                         TestKind::kTcpCc};

// ---- (c) flowperf against flowperf: always runs ----

TEST(NetperfWireSelf, AllSevenTestsAgainstFlowperfsServer) {
  InProcessServer server;
  for (TestKind kind : kAll) {
    SCOPED_TRACE(spec::info(kind).name);
    double wall = 0;
    results::TestResult r = run_client(kind, server.port(), &wall);
    expect_consistent(r);
    // UDP tests end at the zero-length datagrams, TCP_CRR soon after the
    // test length: none waits for netserver's 4-second pad.
    EXPECT_LT(wall, 4.5);
  }
  // The server logs a test after it has sent the results, so the last line
  // may come a moment after the client returned.
  auto all_logged = [&](const std::string& log) {
    for (TestKind kind : kAll)
      if (log.find(std::string(spec::info(kind).name) + " (netperf): done") == std::string::npos)
        return false;
    return true;
  };
  std::string log = server.log();
  for (int i = 0; i < 100 && !all_logged(log); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    log = server.log();
  }
  EXPECT_TRUE(all_logged(log)) << log;
}

// netperf's test -H and -L: the data connection between other addresses
// than the control connection (127.0.0.2 and .3 are loopback too). The
// server listens where the request names, so the test only runs when both
// ends agree.
TEST(NetperfWireSelf, DataConnectionOnItsOwnAddresses) {
  InProcessServer server;
  for (TestKind kind : {TestKind::kTcpRr, TestKind::kUdpRr, TestKind::kTcpCrr, TestKind::kTcpCc}) {
    SCOPED_TRACE(spec::info(kind).name);
    session::NetperfClientOptions o;
    o.host = "127.0.0.1";
    o.port = server.port();
    spec::TestSpec s = make_spec(kind);
    s.remote.data_host = "127.0.0.2";
    s.local.data_host = "127.0.0.3";
    s.count = 200;
    results::TestResult r = session::run_netperf_test(s, o);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.local_side.total().transactions, 200u);
  }
  std::string log = server.log();
  for (int i = 0; i < 50 && log.find("data connection from") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    log = server.log();
  }
  EXPECT_TRUE(std::regex_search(
      log,
      std::regex(R"(TCP_RR \(netperf\): data connection from 127\.0\.0\.3:\d+ to 127\.0\.0\.2:)")))
      << log;
}

// A raw control connection to the in-process server.
class RawControl {
 public:
  explicit RawControl(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawControl() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool send(const np::Frame& f) { return send_bytes(f.data(), f.size()); }
  bool send_bytes(const void* p, size_t n) {
    return net::sys::write_all(fd_, p, n, Clock::now() + 5s) == net::sys::IoStatus::kOk;
  }
  // kOk with a whole frame, kClosed on EOF, kTimeout when nothing came.
  net::sys::IoStatus read(np::Frame* f, std::chrono::milliseconds limit) {
    return net::sys::read_exact(fd_, f->data(), f->size(), Clock::now() + limit);
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

TEST(NetperfWireSelf, UnknownRequestIsAnswered998AndTheConnectionStaysUsable) {
  InProcessServer server;
  RawControl c(server.port());
  ASSERT_TRUE(c.connected());
  np::Frame unknown{};
  unknown[3] = 0x42;  // type 66: no such request
  ASSERT_TRUE(c.send(unknown));
  np::Frame reply;
  ASSERT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kOk);
  EXPECT_EQ(np::decode_header(reply).second, np::kUnknownRequestErrno);
  // DEBUG_ON is answered with DEBUG_OK on the same connection.
  ASSERT_TRUE(c.send(np::encode_status(np::kDebugOn, -1)));
  ASSERT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kOk);
  EXPECT_EQ(np::decode_header(reply).type, np::kDebugOk);
  c.shutdown_write();
  EXPECT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kClosed);
}

TEST(NetperfWireSelf, PassphraseGetsNoReply) {
  InProcessServer server;
  RawControl c(server.port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send(np::encode_passphrase("secret")));
  np::Frame reply;
  EXPECT_EQ(c.read(&reply, 500ms), net::sys::IoStatus::kTimeout);
  // ...and the connection then takes requests as usual.
  ASSERT_TRUE(c.send(np::encode_status(np::kDebugOff, -1)));
  EXPECT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kOk);
}

TEST(NetperfWireSelf, ShortRequestClosesTheConnection) {
  InProcessServer server;
  RawControl c(server.port());
  ASSERT_TRUE(c.connected());
  np::Frame half = np::encode_status(np::kDoOmni, -1);
  ASSERT_TRUE(c.send_bytes(half.data(), 300));
  c.shutdown_write();
  np::Frame reply;
  EXPECT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kClosed);
}

TEST(NetperfWireSelf, UnsupportedProtocolIsRefusedWithAnErrno) {
  InProcessServer server;
  RawControl c(server.port());
  ASSERT_TRUE(c.connected());
  np::OmniRequest r;
  r.socket_type = np::kNstStream;
  r.protocol = 132;  // SCTP
  r.direction = np::kDirRecv;
  r.test_length = 1;
  ASSERT_TRUE(c.send(np::encode_omni_request(r)));
  np::Frame reply;
  ASSERT_EQ(c.read(&reply, 5s), net::sys::IoStatus::kOk);
  EXPECT_EQ(np::decode_header(reply).second, EPROTONOSUPPORT);
}

// A pre-2.5 netperf speaks the classic layouts; a raw client plays one.
TEST(NetperfWireSelf, ClassicTcpStreamFromAPre25Client) {
  InProcessServer server;
  RawControl c(server.port());
  ASSERT_TRUE(c.connected());
  np::ClassicTcpStreamRequest q;
  q.test_length = 10;
  q.ipfamily = np::kNfInet;
  ASSERT_TRUE(c.send(np::encode_classic_tcp_stream_request(q)));
  np::Frame f;
  ASSERT_EQ(c.read(&f, 5s), net::sys::IoStatus::kOk);
  ASSERT_EQ(np::decode_header(f).second, 0);
  EXPECT_EQ(np::decode_header(f).type, np::kTcpStreamResponse);
  const auto resp = np::decode_classic_tcp_stream_response(f);
  ASSERT_GT(resp.data_port, 0);
  EXPECT_GT(resp.receive_size, 0);

  // The data: 1 MiB, then the half-close that ends a stream test.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(resp.data_port));
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  std::vector<char> chunk(64 * 1024, 'x');
  for (int i = 0; i < 16; ++i)
    ASSERT_EQ(net::sys::write_all(fd, chunk.data(), chunk.size(), Clock::now() + 5s),
              net::sys::IoStatus::kOk);
  ::shutdown(fd, SHUT_WR);
  char b;
  EXPECT_EQ(::recv(fd, &b, 1, 0), 0);  // the server's EOF: all was read
  ::close(fd);

  ASSERT_EQ(c.read(&f, 10s), net::sys::IoStatus::kOk);
  const auto r = np::decode_classic_tcp_stream_results(f);
  EXPECT_EQ(r.bytes_received, 16.0 * 64 * 1024);
  EXPECT_GT(r.recv_calls, 0u);
  EXPECT_GT(r.elapsed_time, 0.0f);
  EXPECT_LT(r.elapsed_time, 5.0f);
}

TEST(NetperfWireSelf, BusyServerRefusesWithEbusy) {
  InProcessServer server(0);  // no test may run
  try {
    run_client(TestKind::kTcpRr, server.port());
    FAIL() << "a busy server ran the test";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("remote error 16"), std::string::npos) << e.what();
  }
  EXPECT_NE(server.log().find("busy"), std::string::npos) << server.log();
}

TEST(NetperfWireSelf, NoServerIsAClearError) {
  const uint16_t port = free_port();
  try {
    run_client(TestKind::kTcpStream, port);
    FAIL() << "connected to nothing";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no netserver is listening"), std::string::npos)
        << e.what();
  }
}

TEST(NetperfWireSelf, RepeatedRunsShareOneControlConnection) {
  InProcessServer server;
  session::NetperfClientOptions o;
  o.host = "127.0.0.1";
  o.port = server.port();
  int asked = 0;
  auto runs = session::run_netperf_tests(make_spec(TestKind::kTcpRr), o,
                                         [&](const results::TestResult&) { return ++asked < 3; });
  ASSERT_EQ(runs.size(), 3u);
  for (const auto& r : runs) {
    expect_consistent(r);
    EXPECT_EQ(r.local.port, runs.front().local.port);  // one control connection
  }
}

TEST(NetperfWireSelf, InterruptStopsEarlyWithPartialResults) {
  InProcessServer server;
  std::atomic<bool> stop{false};
  session::NetperfClientOptions o;
  o.port = server.port();
  o.interrupt = &stop;
  std::thread t([&] {
    std::this_thread::sleep_for(500ms);
    stop = true;
  });
  auto t0 = Clock::now();
  results::TestResult r = session::run_netperf_test(make_spec(TestKind::kTcpStream, 30), o);
  t.join();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10);
  EXPECT_TRUE(r.interrupted);
  EXPECT_GT(r.local_side.total().bytes_sent, 0u);
  ASSERT_TRUE(r.have_remote) << r.error;
  EXPECT_EQ(r.remote_side.total().bytes_recv, r.local_side.total().bytes_sent);
}

TEST(NetperfWireSelf, IntervalsSampleTheLocalFlow) {
  InProcessServer server;
  session::NetperfClientOptions o;
  o.port = server.port();
  int calls = 0;
  o.on_interval = [&](const results::IntervalSample& s) {
    ++calls;
    EXPECT_EQ(s.flows.size(), 1u);
  };
  spec::TestSpec s = make_spec(TestKind::kTcpRr, 1);
  s.interval_s = 0.25;
  results::TestResult r = session::run_netperf_test(s, o);
  EXPECT_GE(calls, 3);
  uint64_t sum = 0;
  for (const auto& i : r.intervals) sum += i.flows[0].transactions;
  EXPECT_EQ(sum, r.local_side.total().transactions);
}

// ---- (a) flowperf's client against a real netserver ----

TEST(NetperfInterop, FlowperfClientAgainstRealNetserver) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  for (TestKind kind : kAll) {
    SCOPED_TRACE(spec::info(kind).name);
    expect_consistent(run_client(kind, ns.port()));
  }
}

TEST(NetperfInterop, NetperfPersonalityAgainstRealNetserver) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  for (TestKind kind : kAll) {
    const char* name = spec::info(kind).name;
    SCOPED_TRACE(name);
    Process p({kBin, "netperf", "-H", "127.0.0.1", "-p", std::to_string(ns.port()), "-t", name,
               "-l", "1"});
    Outcome o = p.wait(60s);
    if (o.err.find("not built yet") != std::string::npos)
      GTEST_SKIP() << "flowperf's netperf personality is not built yet";
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_FALSE(o.out.empty());
  }
}

// netperf repeats a test for -i/-I on one control connection; a real
// netserver takes the next request after sending its results.
TEST(NetperfInterop, RepeatedRunsOnOneControlConnectionToRealNetserver) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  for (TestKind kind : {TestKind::kTcpStream, TestKind::kUdpRr}) {
    SCOPED_TRACE(spec::info(kind).name);
    session::NetperfClientOptions o;
    o.host = "127.0.0.1";
    o.port = ns.port();
    int asked = 0;
    auto runs = session::run_netperf_tests(make_spec(kind), o,
                                           [&](const results::TestResult&) { return ++asked < 3; });
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(asked, 3);  // asked after every run, the last one too
    for (const auto& r : runs) expect_consistent(r);
  }
  Process p({kBin, "netperf", "-H", "127.0.0.1", "-p", std::to_string(ns.port()), "-l", "1", "-i",
             "3,3", "--", "-k", "CONFIDENCE_ITERATION"});
  Outcome out = p.wait(90s);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("CONFIDENCE_ITERATION=3\n"), std::string::npos) << out.out;
}

// ---- (b) a real netperf against flowperf's server ----

std::map<std::string, double> keyvals(const std::string& out) {
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

Outcome real_netperf(const std::string& port, const std::string& test,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {netperf_bin(), "-H", "127.0.0.1", "-p", port,
                                   "-t",          test, "-l",        "1"};
  for (auto& e : extra) argv.push_back(e);
  argv.insert(argv.end(), {"--", "-k",
                           "THROUGHPUT,ELAPSED_TIME,LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,"
                           "REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD,TRANSACTION_RATE,"
                           "REMOTE_RECV_CALLS"});
  Process p(argv);
  return p.wait(60s);
}

TEST(NetperfInterop, RealNetperfAgainstFlowperfServer) {
  REQUIRE_PEER();
  FlowperfServer server;
  ASSERT_FALSE(server.port().empty()) << "flowperf server did not start";
  for (TestKind kind : kAll) {
    if (kind == TestKind::kTcpCc) continue;  // a classic test: no -k (its own test below)
    const std::string name = spec::info(kind).name;
    SCOPED_TRACE(name);
    auto t0 = Clock::now();
    Outcome o = real_netperf(server.port(), name);
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_FALSE(o.timed_out);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    auto kv = keyvals(o.out);
    EXPECT_GT(kv["THROUGHPUT"], 0) << o.out;
    EXPECT_GT(kv["ELAPSED_TIME"], 0.5) << o.out;
    switch (kind) {
      case TestKind::kTcpStream:
        EXPECT_GT(kv["LOCAL_BYTES_SENT"], 0);
        // netperf does not count the send its timer cuts short, so we may
        // have received up to one send more than it claims.
        EXPECT_GE(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"]) << o.out;
        EXPECT_LT(kv["REMOTE_BYTES_RECVD"] - kv["LOCAL_BYTES_SENT"], 1 << 20) << o.out;
        break;
      case TestKind::kTcpMaerts:
        EXPECT_GT(kv["LOCAL_BYTES_RECVD"], 0);
        EXPECT_GE(kv["REMOTE_BYTES_SENT"], kv["LOCAL_BYTES_RECVD"]) << o.out;
        break;
      case TestKind::kUdpStream:
        EXPECT_GT(kv["REMOTE_BYTES_RECVD"], 0) << o.out;
        EXPECT_LE(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"]) << o.out;
        EXPECT_GT(kv["REMOTE_RECV_CALLS"], 0) << o.out;
        break;
      case TestKind::kTcpRr:
        EXPECT_GT(kv["TRANSACTION_RATE"], 0);
        EXPECT_EQ(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"]) << o.out;
        // netperf's timer may interrupt the receive of the last response,
        // which it then does not count: we may have sent one more.
        EXPECT_GE(kv["REMOTE_BYTES_SENT"], kv["LOCAL_BYTES_RECVD"]) << o.out;
        EXPECT_LE(kv["REMOTE_BYTES_SENT"], kv["LOCAL_BYTES_RECVD"] + 1) << o.out;
        break;
      case TestKind::kTcpCrr:
        EXPECT_GT(kv["TRANSACTION_RATE"], 0);
        // netperf's timer may cut its last transaction after we answered it.
        EXPECT_GE(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"] - 1) << o.out;
        EXPECT_LE(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"] + 1) << o.out;
        EXPECT_LT(wall, 4.5);  // no wait for netserver's 4-second pad
        break;
      case TestKind::kUdpRr:
        EXPECT_GT(kv["TRANSACTION_RATE"], 0);
        EXPECT_GE(kv["REMOTE_BYTES_SENT"], kv["LOCAL_BYTES_RECVD"]) << o.out;
        break;
      case TestKind::kTcpCc:
        break;
    }
  }
}

// netperf 2.7 runs TCP_CC on its classic messages and prints the classic
// table: our server must answer those, measure its CPU when asked, and end
// without netserver's 4-second pad.
TEST(NetperfInterop, RealNetperfTcpCcAgainstFlowperfServer) {
  REQUIRE_PEER();
  FlowperfServer server;
  ASSERT_FALSE(server.port().empty()) << "flowperf server did not start";
  auto t0 = Clock::now();
  Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_CC", "-l", "1", "-c",
             "-C", "-P", "0", "--", "-r", "32,64"});
  Outcome o = p.wait(60s);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_FALSE(o.timed_out);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // lss lsr req resp elapsed rate cpu_local cpu_remote sd_local sd_remote
  static const std::regex row(
      R"((\d+) +(\d+) +32 +64 +([0-9.]+) +([0-9.]+) +([-0-9.]+) +([-0-9.]+) +([-0-9.]+) +([-0-9.]+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.out, m, row)) << o.out;
  EXPECT_NEAR(std::stod(m[3]), 1.0, 0.3) << o.out;
  EXPECT_GT(std::stod(m[4]), 0) << o.out;
  EXPECT_GT(std::stod(m[6]), 0) << "remote CPU not measured: " << o.out;
  EXPECT_LE(std::stod(m[6]), 100.0) << o.out;
  EXPECT_GT(std::stod(m[8]), 0) << o.out;
  EXPECT_EQ(o.out.find("DANGER"), std::string::npos) << o.out;
  EXPECT_LT(wall, 4.5);
}

// The remote CPU method travels as netperf's enum (PROC_STAT = 8), which
// netperf prints as a letter in the table header.
TEST(NetperfInterop, RealNetperfSeesFlowperfServersCpuMethod) {
  REQUIRE_PEER();
  FlowperfServer server;
  ASSERT_FALSE(server.port().empty()) << "flowperf server did not start";
  Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_RR", "-l", "1", "-c",
             "-C"});
  Outcome o = p.wait(60s);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("per sec  % S    % S    us/Tr"), std::string::npos) << o.out;
}

TEST(NetperfInterop, NetperfPersonalityReadsRealNetserversCpuMethod) {
  REQUIRE_PEER();
  Netserver ns;
  ASSERT_NE(ns.port(), 0) << "netserver did not start";
  for (const char* test : {"TCP_RR", "TCP_CC"}) {
    SCOPED_TRACE(test);
    Process p({kBin, "netperf", "-H", "127.0.0.1", "-p", std::to_string(ns.port()), "-t", test,
               "-l", "1", "-c", "-C"});
    Outcome o = p.wait(60s);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    if (std::string(test) == "TCP_RR")
      EXPECT_NE(o.out.find("per sec  % S    % S    us/Tr"), std::string::npos) << o.out;
    else
      EXPECT_NE(o.out.find("TCP Connect/Close TEST from"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("-1.00"), std::string::npos) << "a CPU figure is missing: " << o.out;
  }
}

TEST(NetperfInterop, RealNetperfOptionsReachFlowperfServer) {
  REQUIRE_PEER();
  FlowperfServer server;
  ASSERT_FALSE(server.port().empty());
  // Request and response sizes, no-delay: the byte counts follow the sizes.
  {
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_RR", "-l", "1",
               "--", "-r", "100,200", "-D", "-k",
               "LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD"});
    Outcome o = p.wait(60s);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    auto kv = keyvals(o.out);
    EXPECT_GT(kv["LOCAL_BYTES_SENT"], 0);
    EXPECT_EQ(kv["REMOTE_BYTES_RECVD"], kv["LOCAL_BYTES_SENT"]);
    EXPECT_EQ(kv["REMOTE_BYTES_SENT"], 2 * kv["REMOTE_BYTES_RECVD"]);
  }
  // Several tests on one control connection (confidence intervals).
  {
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_STREAM", "-l", "1",
               "-i", "3,3"});
    Outcome o = p.wait(60s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  }
  // A passphrase, which netserver never answers.
  {
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_RR", "-l", "1",
               "-Z", "secret"});
    Outcome o = p.wait(60s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  }
  // Counted tests: bytes and transactions.
  {
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_RR", "-l", "-1000",
               "--", "-k", "LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD"});
    Outcome o = p.wait(60s);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    auto kv = keyvals(o.out);
    EXPECT_EQ(kv["LOCAL_BYTES_SENT"], 1000);
    EXPECT_EQ(kv["REMOTE_BYTES_RECVD"], 1000);
  }
}

// -Z both ways: our netperf's passphrase opens a real netserver -Z, a real
// netperf's opens ours, and a wrong one is turned away by both.
TEST(NetperfInterop, PassphraseBothWays) {
  REQUIRE_PEER();
  const uint16_t real_port = free_port();
  Process real(
      {netserver_bin(), "-D", "-p", std::to_string(real_port), "-L", "127.0.0.1", "-Z", "pw1"});
  for (auto end = Clock::now() + 10s; Clock::now() < end && !can_connect(real_port);)
    std::this_thread::sleep_for(20ms);
  Process ours({kBin, "netserver", "-D", "-p", "0", "-L", "127.0.0.1", "-Z", "pw2"});
  auto line = ours.read_line(10s);
  std::smatch m;
  ASSERT_TRUE(line && std::regex_search(*line, m, std::regex(R"(port '(\d+)')"))) << *line;
  const std::string our_port = m[1];
  auto ask = [](const std::string& bin, const std::string& port, const char* phrase) {
    return Process({bin, "-H", "127.0.0.1", "-p", port, "-Z", phrase, "-t", "TCP_RR", "-l", "-100",
                    "-P", "0"})
        .wait(30s)
        .exit_code;
  };
  const std::string flowperf_netperf = std::filesystem::path(kBin).parent_path() / "netperf";
  EXPECT_EQ(ask(flowperf_netperf, std::to_string(real_port), "pw1"), 0);
  EXPECT_NE(ask(flowperf_netperf, std::to_string(real_port), "pw2"), 0);
  EXPECT_EQ(ask(netperf_bin(), our_port, "pw2"), 0);
  EXPECT_NE(ask(netperf_bin(), our_port, "pw1"), 0);
}

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

// True when a TCP socket on 127.0.0.1:`port` is connected (/proc/net/tcp).
bool connected_on(uint16_t port) {
  std::FILE* f = std::fopen("/proc/net/tcp", "r");
  if (!f) return false;
  char line[512];
  char want[32];
  std::snprintf(want, sizeof want, "0100007F:%04X", port);
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) {
    unsigned state = 0;
    char local[64] = {};
    if (std::sscanf(line, " %*d: %63s %*s %x", local, &state) == 2)
      found = std::string(local) == want && state == 1;  // TCP_ESTABLISHED
  }
  std::fclose(f);
  return found;
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
    bool seen_local = false, seen_remote = false;
    std::atomic<bool> done{false};
    std::thread watch([&] {
      while (!done.load() && !(seen_local && seen_remote)) {
        seen_local = seen_local || connected_on(s.local.data_port);
        seen_remote = seen_remote || connected_on(s.remote.data_port);
        std::this_thread::sleep_for(20ms);
      }
    });
    results::TestResult r = session::run_netperf_test(s, control_at(port));
    done = true;
    watch.join();
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(seen_local) << "no connection from local port " << s.local.data_port;
    EXPECT_TRUE(seen_remote) << "no connection to remote port " << s.remote.data_port;
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
    Process p({netperf_bin(),
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
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "UDP_RR", "-l", "1",
               "-Y", "0x10,0x10", "-y", "1,1", "--", "-b", "4", "-P", ports});
    Outcome o = p.wait(60s);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  }
  // The data port asked for is the one the server binds: held elsewhere,
  // the test is refused and netperf says so.
  {
    PortHolder held;
    Process p({netperf_bin(), "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_STREAM", "-l", "1",
               "--", "-P", "," + std::to_string(held.port())});
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
