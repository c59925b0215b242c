// flowperf's netperf client against flowperf's own server in this process:
// netperf's wire protocol end to end with no peer needed, so it always runs.
#include <gtest/gtest.h>

#include "e2e/netperf_peers.h"

namespace flowperf::testing {
namespace {

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
    // Each runs 1 s (make_spec) and ends within 0.3 s of it (CRR and CC: 300 ms with no
    // transaction); a padded end takes 5 s. 4.5 s leaves 3 s for a loaded machine.
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
    if (kind == TestKind::kUdpRr) {
      // UDP from another address than the control connection's is refused
      // at once (no reflection: docs/security.md), not left to time out.
      std::string error;
      try {
        error = session::run_netperf_test(s, o).error;
      } catch (const std::exception& e) {
        error = e.what();
      }
      EXPECT_NE(error.find("remote error 99"), std::string::npos) << error;  // EADDRNOTAVAIL
      continue;
    }
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
  // netperf's protocol carries an errno only: the reason is in the log.
  EXPECT_NE(log.find("UDP datagrams are taken only from the control connection's address "
                     "(127.0.0.1), and this test would send them from 127.0.0.3"),
            std::string::npos)
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
  // 1 s at 0.25 s: ticks at 0.25, 0.5 and 0.75 s and the end's sample, 4 calls. A late tick
  // keeps the count; 3 allows one lost to a stall of a whole interval (250 ms).
  EXPECT_GE(calls, 3);
  uint64_t sum = 0;
  for (const auto& i : r.intervals) sum += i.flows[0].transactions;
  EXPECT_EQ(sum, r.local_side.total().transactions);
}

}  // namespace
}  // namespace flowperf::testing
