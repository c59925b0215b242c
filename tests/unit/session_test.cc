// The server's side of the control protocol, in process: version checks,
// malformed input, the test limit and invalid specs each get an error
// message back before the connection closes, and the server keeps serving.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
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

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerConfig c;
    c.bind_host = "127.0.0.1";
    c.port = 0;
    c.log = nullptr;
    c.control_timeout_s = 1;
    c.max_tests = 1;
    server_ = std::make_unique<Server>(c);
    server_->bind();
    server_->start_background();
  }
  void TearDown() override { server_->stop(); }

  net::Fd connect() {
    auto a = net::resolve("127.0.0.1", server_->port(), IpFamily::kV4, SOCK_STREAM).front();
    int err = 0;
    net::Fd fd = net::connect_tcp(a, Clock::now() + 2s, &err);
    EXPECT_TRUE(fd.valid()) << err;
    return fd;
  }

  // Reads the next message; fails the test on anything but a message.
  proto::Message read(int fd) {
    proto::Message m;
    EXPECT_EQ(proto::read_message(fd, &m, Clock::now() + 5s), proto::ReadStatus::kOk);
    return m;
  }

  static bool closed_by_peer(int fd) {
    char c;
    if (!net::sys::wait_readable(fd, Clock::now() + 5s)) return false;
    return ::recv(fd, &c, 1, 0) == 0;
  }

  // A normal test still runs after whatever a case did.
  // A first frame whose header says `len` bytes: refused as bad_message,
  // naming the limit, and closed, without its body ever sent.
  void expect_refused_from_header(uint32_t len) {
    net::Fd fd = connect();
    auto h = proto::make_header(len);
    ASSERT_EQ(::send(fd.get(), h.data(), h.size(), 0), static_cast<ssize_t>(h.size()));
    auto m = read(fd.get());
    auto* e = std::get_if<proto::ErrorMsg>(&m);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->code, "bad_message");
    EXPECT_NE(e->message.find("limit"), std::string::npos) << e->message;
    EXPECT_TRUE(closed_by_peer(fd.get()));
    expect_still_serving();
  }

  void expect_still_serving() {
    // The previous case's session releases its test slot as it ends, a
    // moment after its last reply; with a limit of 1, wait for that.
    for (int i = 0; i < 200 && server_->active_tests() > 0; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(server_->active_tests(), 0u);
    spec::TestSpec s;
    s.test = spec::TestKind::kTcpRr;
    s.duration_s = 0.2;
    ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    TestResult r = run_test(s, o);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.local_side.total().transactions, 0u);
    EXPECT_EQ(r.local_side.total().transactions, r.remote_side.total().transactions);
  }

  std::unique_ptr<Server> server_;
};

TEST_F(ServerTest, VersionMismatchGetsAnErrorThenClose) {
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Hello{99, "future"}, Clock::now() + 1s));
  auto m = read(fd.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "version");
  EXPECT_NE(e->message.find("protocol 1"), std::string::npos) << e->message;
  EXPECT_TRUE(closed_by_peer(fd.get()));
  expect_still_serving();
}

TEST_F(ServerTest, MalformedBodyGetsBadMessage) {
  net::Fd fd = connect();
  std::string body = "{not json";
  auto h = proto::make_header(static_cast<uint32_t>(body.size()));
  ASSERT_EQ(::send(fd.get(), h.data(), h.size(), 0), static_cast<ssize_t>(h.size()));
  ASSERT_EQ(::send(fd.get(), body.data(), body.size(), 0), static_cast<ssize_t>(body.size()));
  auto m = read(fd.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "bad_message");
  EXPECT_TRUE(closed_by_peer(fd.get()));
  expect_still_serving();
}

TEST_F(ServerTest, OversizedFrameIsRefusedWithoutReadingIt) {
  expect_refused_from_header(proto::kMaxClientFrame + 1);
}

// Before the handshake is done, only its small frames are taken: a hello
// over 16 KiB is refused from its header, never read.
TEST_F(ServerTest, HandshakeFramesAreSmall) {
  expect_refused_from_header(proto::kMaxHandshakeFrame + 1);
}

TEST_F(ServerTest, MessageOutOfTurn) {
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Start{}, Clock::now() + 1s));
  auto m = read(fd.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "bad_message");
  EXPECT_NE(e->message.find("expected hello, got start"), std::string::npos) << e->message;
}

TEST_F(ServerTest, InvalidSpecIsRefusedWithEveryProblem) {
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Hello{}, Clock::now() + 1s));
  ASSERT_TRUE(std::holds_alternative<proto::Welcome>(read(fd.get())));
  spec::TestSpec s;
  s.streams = 0;
  s.duration_s = -1;
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Setup{s}, Clock::now() + 1s));
  auto m = read(fd.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "invalid_spec");
  EXPECT_NE(e->message.find("-P 0"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("-l -1"), std::string::npos) << e->message;
}

TEST_F(ServerTest, SilentClientTimesOutAndFreesItsSlot) {
  // Connect, say hello (taking the only test slot), then say nothing.
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Hello{}, Clock::now() + 1s));
  ASSERT_TRUE(std::holds_alternative<proto::Welcome>(read(fd.get())));
  auto m = read(fd.get());  // the 1 s control timeout passes
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "timeout");
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(server_->active_tests(), 0u);
  expect_still_serving();
}

TEST_F(ServerTest, BusyWhileTheOnlySlotIsTaken) {
  net::Fd first = connect();
  ASSERT_TRUE(proto::send_message(first.get(), proto::Hello{}, Clock::now() + 1s));
  ASSERT_TRUE(std::holds_alternative<proto::Welcome>(read(first.get())));
  net::Fd second = connect();
  ASSERT_TRUE(proto::send_message(second.get(), proto::Hello{}, Clock::now() + 1s));
  auto m = read(second.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "busy");
  EXPECT_NE(e->message.find("server busy (1 tests running, limit 1)"), std::string::npos)
      << e->message;
}

TEST_F(ServerTest, QuitIsRefusedUnlessAllowed) {
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Hello{}, Clock::now() + 1s));
  ASSERT_TRUE(std::holds_alternative<proto::Welcome>(read(fd.get())));
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Quit{}, Clock::now() + 1s));
  auto m = read(fd.get());
  auto* e = std::get_if<proto::ErrorMsg>(&m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "refused");
  expect_still_serving();
}

TEST_F(ServerTest, ClientHelloCarriesHostFactsBack) {
  net::Fd fd = connect();
  ASSERT_TRUE(proto::send_message(fd.get(), proto::Hello{}, Clock::now() + 1s));
  auto m = read(fd.get());
  auto* w = std::get_if<proto::Welcome>(&m);
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->hostname.empty());
  EXPECT_GE(w->cores, 1u);
  EXPECT_NE(w->software.find("flowperf"), std::string::npos);
}

}  // namespace
}  // namespace flowperf::session
