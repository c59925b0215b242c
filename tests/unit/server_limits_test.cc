// The limits of a server open to the public, against an in-process server:
// --allow/--deny, tests at once and a minute per source address, streams,
// rate (the UDP -b cap, and the server's TCP sending paced, read back as
// the throughput the client receives), and idle connections beyond
// --max-pending closed oldest first. Each refusal has its own message and
// the server goes on serving.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <thread>

#include "core/error.h"
#include "net/socket.h"
#include "net/sys.h"
#include "proto/framing.h"
#include "proto/qperf_wire.h"
#include "session/controller.h"
#include "session/qperf_client.h"
#include "session/server.h"
#include "support/ports.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Limits : public ::testing::Test {
 protected:
  void start(ServerConfig c) {
    c.bind_host = "127.0.0.1";
    if (c.more_ports.empty()) c.port = 0;  // with more ports: the test chose them all
    c.log = nullptr;
    c.control_timeout_s = 2;
    server_ = std::make_unique<Server>(c);
    server_->bind();
    server_->start_background();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  ClientOptions options() const {
    ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    return o;
  }
  // Polls until no test holds a slot; false at `limit`.
  bool slots_free_within(Clock::duration limit) {
    const auto end = Clock::now() + limit;
    while (server_->active_tests() != 0) {
      if (Clock::now() >= end) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  }
  static spec::TestSpec test(spec::TestKind k, double seconds = 0.2) {
    spec::TestSpec s;
    s.test = k;
    s.duration_s = seconds;
    return s;
  }
  // The Error a test is refused with ("(the test ran)" when it ran).
  std::string refused(const spec::TestSpec& s, ExitCode want = ExitCode::kRuntime) {
    try {
      TestResult r = run_test(s, options());
      return r.error.empty() ? "(the test ran)" : "(failed while running: " + r.error + ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), want) << e.what();
      return e.what();
    }
  }
  void expect_runs(const spec::TestSpec& s) {
    TestResult r = run_test(s, options());
    EXPECT_TRUE(r.error.empty()) << r.error;
  }
  // A control connection from another loopback address (127.0.0.0/8 is all loopback).
  net::Fd connect_from(const char* source) {
    net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&from), sizeof from), 0);
    auto to = net::resolve("127.0.0.1", server_->port(), IpFamily::kV4, SOCK_STREAM).front();
    EXPECT_EQ(::connect(fd.get(), to.sa(), to.len), 0);
    return fd;
  }
  static proto::Message read(int fd) {
    proto::Message m;
    EXPECT_EQ(proto::read_message(fd, &m, Clock::now() + 5s), proto::ReadStatus::kOk);
    return m;
  }
  std::unique_ptr<Server> server_;
};

TEST_F(Limits, DenyAndAllowLists) {
  ServerConfig c;
  c.access.deny.push_back(parse_cidr("127.0.0.0/8", "--deny"));
  start(c);
  std::string e = refused(test(spec::TestKind::kTcpRr));
  EXPECT_NE(e.find("your address 127.0.0.1 is refused by this server (--deny 127.0.0.0/8)"),
            std::string::npos)
      << e;
  server_->stop();

  c = ServerConfig{};
  c.access.allow.push_back(parse_cidr("10.0.0.0/8", "--allow"));
  start(c);
  e = refused(test(spec::TestKind::kTcpRr));
  EXPECT_NE(e.find("is not allowed on this server (it is outside --allow 10.0.0.0/8)"),
            std::string::npos)
      << e;
  // Another protocol's client is closed at the door.
  auto to = net::resolve("127.0.0.1", server_->port(), IpFamily::kV4, SOCK_STREAM).front();
  int err = 0;
  net::Fd np = net::connect_tcp(to, Clock::now() + 2s, &err);
  std::string request(656, '\0');
  request[3] = 97;  // DO_OMNI
  ASSERT_EQ(::send(np.get(), request.data(), request.size(), 0), 656);
  char b;
  ASSERT_TRUE(net::sys::wait_readable(np.get(), Clock::now() + 5s));
  EXPECT_LE(::recv(np.get(), &b, 1, 0), 0);
  server_->stop();

  c = ServerConfig{};
  c.access.allow.push_back(parse_cidr("127.0.0.0/8", "--allow"));
  c.access.deny.push_back(parse_cidr("127.0.0.2", "--deny"));
  start(c);
  expect_runs(test(spec::TestKind::kTcpRr));
  net::Fd other = connect_from("127.0.0.2");
  ASSERT_TRUE(proto::send_message(other.get(), proto::Hello{}, Clock::now() + 2s));
  auto m = read(other.get());
  ASSERT_TRUE(std::holds_alternative<proto::ErrorMsg>(m));
  EXPECT_NE(std::get<proto::ErrorMsg>(m).message.find("127.0.0.2 is refused"), std::string::npos);
}

TEST_F(Limits, TestsAtOnceFromOneSource) {
  ServerConfig c;
  c.max_tests_per_source = 1;
  start(c);
  auto running = std::async(std::launch::async, [&] {
    return run_test(test(spec::TestKind::kTcpStream, 1.5), options());
  });
  for (int i = 0; i < 200 && server_->active_tests() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server_->active_tests(), 1u);
  std::string e = refused(test(spec::TestKind::kTcpRr));
  EXPECT_NE(e.find("127.0.0.1 already runs 1 test on this server (limit 1 at once per address) "
                   "— wait for one to end"),
            std::string::npos)
      << e;
  // Another address is not held back by this one's test.
  net::Fd other = connect_from("127.0.0.3");
  ASSERT_TRUE(proto::send_message(other.get(), proto::Hello{}, Clock::now() + 2s));
  EXPECT_TRUE(std::holds_alternative<proto::Welcome>(read(other.get())));
  other.reset();
  TestResult first = running.get();
  EXPECT_TRUE(first.error.empty()) << first.error;
  // The first test's end frees its source's slot: when the server's session
  // ends, just after the client has its results (under ASan, a CI run
  // started the next test before, and was refused). 5 s is slack.
  for (int i = 0; i < 500 && server_->active_tests() != 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server_->active_tests(), 0u);
  expect_runs(test(spec::TestKind::kTcpRr));
}

TEST_F(Limits, TestsAMinuteFromOneSource) {
  ServerConfig c;
  c.max_tests_per_minute = 2;
  start(c);
  expect_runs(test(spec::TestKind::kTcpRr, 0.1));
  expect_runs(test(spec::TestKind::kTcpRr, 0.1));
  std::string e = refused(test(spec::TestKind::kTcpRr, 0.1));
  EXPECT_NE(e.find("127.0.0.1 started 2 tests in the last minute (limit 2 per minute per "
                   "address) — try again in "),
            std::string::npos)
      << e;
}

TEST_F(Limits, StreamsAndDuration) {
  ServerConfig c;
  c.max_streams = 2;
  c.max_duration_s = 5;
  start(c);
  spec::TestSpec s = test(spec::TestKind::kTcpStream);
  s.streams = 3;
  std::string e = refused(s, ExitCode::kUsage);
  EXPECT_NE(e.find("-P 3: this server runs at most 2 streams a test"), std::string::npos) << e;
  s.duration_s = 6;
  s.streams = 1;
  e = refused(s, ExitCode::kUsage);
  EXPECT_NE(e.find("-l 6: this server runs tests of at most 5 seconds"), std::string::npos) << e;
  s.duration_s = 0.2;
  s.streams = 2;
  expect_runs(s);
}

TEST_F(Limits, RateCapsUdpAndPacesTheServersTcp) {
  ServerConfig c;
  c.max_rate_bps = 100'000'000;
  start(c);
  spec::TestSpec udp = test(spec::TestKind::kUdpStream);
  std::string e = refused(udp, ExitCode::kUsage);
  EXPECT_NE(e.find("an unpaced UDP test: this server takes UDP streams of at most 100000000 "
                   "bit/s in all; give -b 100000000 or less"),
            std::string::npos)
      << e;
  udp.rate_bps = 200'000'000;
  e = refused(udp, ExitCode::kUsage);
  EXPECT_NE(e.find("-b 200000000: this server"), std::string::npos) << e;
  udp.rate_bps = 50'000'000;
  expect_runs(udp);

  // TCP_MAERTS: the server sends, paced to the cap (two streams share it).
  spec::TestSpec maerts = test(spec::TestKind::kTcpMaerts, 1);
  maerts.streams = 2;
  TestResult r = run_test(maerts, options());
  ASSERT_TRUE(r.error.empty()) << r.error;
  const double bps =
      8.0 * static_cast<double>(r.local_side.total().bytes_recv) / r.local_side.elapsed_s;
  EXPECT_LT(bps, 100e6 * 1.15) << "the server's TCP sending was not paced";
  EXPECT_GT(bps, 100e6 * 0.5);
}

TEST_F(Limits, IdleConnectionsBeyondMaxPendingAreClosedOldestFirst) {
  ServerConfig c;
  c.max_pending = 8;
  start(c);
  // The oldest: a flowperf client stopped inside its first frame, told why.
  net::Fd oldest = connect_from("127.0.0.1");
  ASSERT_EQ(::send(oldest.get(), "FP", 2, 0), 2);
  std::this_thread::sleep_for(50ms);
  std::vector<net::Fd> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(connect_from("127.0.0.1"));
  auto m = read(oldest.get());
  ASSERT_TRUE(std::holds_alternative<proto::ErrorMsg>(m));
  EXPECT_EQ(std::get<proto::ErrorMsg>(m).code, "busy");
  // 21 connections, 8 kept: the oldest and then the first 12 silent ones
  // were closed; the last 8 still wait.
  for (size_t i = 0; i < idle.size(); ++i) {
    char b;
    const bool closed = net::sys::wait_readable(idle[i].get(), Clock::now() + 100ms) &&
                        ::recv(idle[i].get(), &b, 1, 0) <= 0;
    EXPECT_EQ(closed, i < 12) << "connection " << i;
  }
  // And a real client still gets in.
  expect_runs(test(spec::TestKind::kTcpRr));
}

// Connects to 127.0.0.1:port (a blocking socket), or an empty Fd.
net::Fd connect_to(uint16_t port) {
  auto to = net::resolve("127.0.0.1", port, IpFamily::kV4, SOCK_STREAM).front();
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (::connect(fd.get(), to.sa(), to.len) != 0) fd.reset();
  return fd;
}

bool write_all(int fd, const void* data, size_t n) {
  return net::sys::write_all(fd, data, n, Clock::now() + 2s) == net::sys::IoStatus::kOk;
}

bool read_exactly(int fd, void* data, size_t n) {
  return net::sys::read_exact(fd, data, n, Clock::now() + 5s) == net::sys::IoStatus::kOk;
}

// --iperf3-port is a second port of the same server: a test counts once,
// whichever port it came to (two Servers counted each its own, so every
// limit doubled).
TEST_F(Limits, LimitsCountOnceAcrossPorts) {
  ServerConfig c;
  c.max_tests = 1;
  c.port = testing::free_port();
  c.more_ports = {testing::free_port()};
  start(c);
  ASSERT_EQ(server_->addresses().size(), 2u);
  EXPECT_EQ(server_->addresses()[1].port(), c.more_ports[0]);
  auto running = std::async(std::launch::async, [&] {
    return run_test(test(spec::TestKind::kTcpStream, 1.5), options());
  });
  for (int i = 0; i < 200 && server_->active_tests() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server_->active_tests(), 1u);
  ClientOptions other = options();
  other.port = c.more_ports[0];
  try {
    run_test(test(spec::TestKind::kTcpRr), other);
    ADD_FAILURE() << "a second test ran on the other port beside the first (limit 1)";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("server busy (1 tests running, limit 1)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(running.get().error.empty());
  // Both ports serve, one test at a time.
  TestResult r = run_test(test(spec::TestKind::kTcpRr), other);
  EXPECT_TRUE(r.error.empty()) << r.error;
}

// qperf's client chooses its own timeout (-to, up to 2^32-1 s) and its
// test's length: neither outlives the server's --max-duration and
// --control-timeout.
TEST_F(Limits, QperfClientsTimesNeverOutliveTheServers) {
  namespace qw = proto::qperf;
  ServerConfig c;
  c.max_duration_s = 5;
  c.max_tests = 1;
  start(c);  // --control-timeout 2
  // -t 100000: refused at once, in the server's words.
  QperfClientOptions q;
  q.host = "127.0.0.1";
  q.port = server_->port();
  q.request.req_index = static_cast<uint16_t>(qw::Index::kTcpLat);
  q.request.msg_size = q.msg_size = 1;
  q.request.time = 100000;
  q.time_s = 100000;
  const auto asked = Clock::now();
  try {
    run_qperf_test(q);
    ADD_FAILURE() << "a 100000 s qperf test ran on a server of 5 s tests";
  } catch (const QperfServerError& e) {
    EXPECT_NE(std::string(e.what()).find("-t 100000: this server runs tests of at most 5 seconds"),
              std::string::npos)
        << e.what();
  }
  // Refused, not run: well inside the 5 s the issue allows (the refusal is
  // one round trip; 4 s leaves room for any load).
  EXPECT_LT(Clock::now() - asked, 4s);
  // A refusal by the policy holds no slot (it is decided before one is
  // taken), so the next client is not told "busy". The wait covers the
  // refused session's end on a loaded machine; it should not be needed.
  ASSERT_TRUE(slots_free_within(2s));

  // A client that asks -to 100000, starts a 1 s test and then goes silent:
  // the server waits for its "synchronization after test" no longer than
  // its own control timeout (2 s), and the slot is free again.
  qw::Request req;
  req.req_index = static_cast<uint16_t>(qw::Index::kTcpLat);
  req.msg_size = 1;
  req.time = 1;
  req.timeout = 100000;
  net::Fd control = connect_to(server_->port());
  ASSERT_TRUE(control);
  const auto bytes = qw::encode_request(req);
  ASSERT_TRUE(write_all(control.get(), bytes.data(), bytes.size()));
  uint8_t port_bytes[qw::kPortBytes];
  ASSERT_TRUE(read_exactly(control.get(), port_bytes, sizeof port_bytes));
  net::Fd data = connect_to(qw::decode_port(port_bytes));
  ASSERT_TRUE(data);
  // "synchronization before test" both ways: the test starts.
  ASSERT_TRUE(write_all(control.get(), qw::kSyncBefore.data(), qw::kSyncBefore.size()));
  std::string sync(qw::kSyncBefore.size(), '\0');
  ASSERT_TRUE(read_exactly(control.get(), sync.data(), sync.size()));
  ASSERT_EQ(sync, qw::kSyncBefore);
  const auto started = Clock::now();
  ASSERT_EQ(server_->active_tests(), 1u);
  // Silent from here on (no request on the data connection, no reply on
  // the control one), and both connections stay open. Expected free at
  // 1 s (the test) + 2 s (the control timeout); 3 s more is room for a
  // loaded machine, and far from the 100000 s the client asked for.
  EXPECT_TRUE(slots_free_within(6s)) << "the silent client still holds its slot";
  EXPECT_GE(Clock::now() - started, 900ms) << "the slot was freed before the test's own time";
}
// Any authentication covers every protocol: with --keys, iperf3's RSA
// tokens or netserver -Z set up, only the protocols that can show what is
// asked for get in; the refusal names what the server asks for.
TEST(AuthenticationAtTheDoor, EveryProtocolOrRefused) {
  auto row = [](const std::string& name) -> const ProtocolRow& {
    for (const auto& r : protocol_table())
      if (name == r.name) return r;
    throw std::runtime_error("no row " + name);
  };
  ServerConfig open;
  for (const auto& r : protocol_table()) EXPECT_EQ(unauthenticated_protocol(open, r), "") << r.name;

  ServerConfig keys;
  keys.keys = {{"alice", "0123456789abcdef"}};
  EXPECT_EQ(unauthenticated_protocol(keys, row("flowperf")), "");
  for (const char* other : {"iperf3", "qperf", "netperf"})
    EXPECT_EQ(
        unauthenticated_protocol(keys, row(other)),
        std::string("this server requires authentication (flowperf's keys (--keys)), which ") +
            other + " clients cannot give here");

  ServerConfig rsa;
  rsa.iperf3.auth = Iperf3Auth{};
  EXPECT_EQ(unauthenticated_protocol(rsa, row("iperf3")), "");
  for (const char* other : {"flowperf", "qperf", "netperf"})
    EXPECT_NE(unauthenticated_protocol(rsa, row(other)).find("(iperf3's RSA tokens)"),
              std::string::npos)
        << other;

  ServerConfig both = keys;
  both.iperf3.auth = Iperf3Auth{};
  EXPECT_EQ(unauthenticated_protocol(both, row("flowperf")), "");
  EXPECT_EQ(unauthenticated_protocol(both, row("iperf3")), "");
  EXPECT_NE(unauthenticated_protocol(both, row("qperf"))
                .find("(flowperf's keys (--keys), iperf3's RSA tokens)"),
            std::string::npos);

  ServerConfig passphrase;
  passphrase.netperf_passphrase = "secret";
  EXPECT_EQ(unauthenticated_protocol(passphrase, row("netperf")), "");
  EXPECT_NE(unauthenticated_protocol(passphrase, row("iperf3")).find("netperf's passphrase (-Z)"),
            std::string::npos);
}

}  // namespace
}  // namespace flowperf::session
