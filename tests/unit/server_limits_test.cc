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
#include "session/controller.h"
#include "session/server.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Limits : public ::testing::Test {
 protected:
  void start(ServerConfig c) {
    c.bind_host = "127.0.0.1";
    c.port = 0;
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
  // The first test's end frees its source's slot.
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

}  // namespace
}  // namespace flowperf::session
