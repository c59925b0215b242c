// Authentication against an in-process server that holds keys: the good
// key runs a test; no key, a wrong secret, an unknown name, a key under
// another name, a replayed or tampered handshake, an old client and a
// client of another protocol are each refused with their own message; the
// data connections open only with the token derived from the session key;
// the server logs each attempt with the name used.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "auth/handshake.h"
#include "core/error.h"
#include "net/socket.h"
#include "net/sys.h"
#include "proto/framing.h"
#include "session/auth_exchange.h"
#include "session/controller.h"
#include "session/data_plane.h"
#include "session/server.h"
#include "support/log_file.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const auth::Key kAlice{"alice", "alice-secret-0123456789"};
const auth::Key kBob{"bob", "bob-secret-abcdefghijklmn"};

class AuthServerTest : public ::testing::Test {
 protected:
  void SetUp() override { start({{kAlice.name, kAlice.secret}, {kBob.name, kBob.secret}}); }
  void start(std::map<std::string, std::string> keys) {
    ServerConfig c;
    c.bind_host = "127.0.0.1";
    c.port = 0;
    c.log = log_.file();
    c.control_timeout_s = 2;
    c.keys = std::move(keys);
    server_ = std::make_unique<Server>(c);
    server_->bind();
    server_->start_background();
  }
  void TearDown() override { server_->stop(); }

  std::string server_log() { return log_.text(); }

  net::Fd connect() {
    auto a = net::resolve("127.0.0.1", server_->port(), IpFamily::kV4, SOCK_STREAM).front();
    int err = 0;
    net::Fd fd = net::connect_tcp(a, Clock::now() + 2s, &err);
    EXPECT_TRUE(fd.valid()) << err;
    seals_.erase(fd.get());  // a number a closed connection had
    return fd;
  }
  // Messages on a connection, sealed once authenticate() has run on it.
  void send(int fd, const proto::Message& m) {
    net::PlainChannel ch(fd);
    auto it = seals_.find(fd);
    ASSERT_TRUE(proto::send_message(ch, m, Clock::now() + 2s,
                                    it == seals_.end() ? nullptr : &it->second.first));
  }
  proto::Message read(int fd) {
    net::PlainChannel ch(fd);
    auto it = seals_.find(fd);
    proto::Message m;
    EXPECT_EQ(proto::read_message(ch, &m, Clock::now() + 5s, proto::kMaxFrame,
                                  it == seals_.end() ? nullptr : &it->second.second),
              proto::ReadStatus::kOk);
    return m;
  }
  static bool closed_by_peer(int fd) {
    char c;
    if (!net::sys::wait_readable(fd, Clock::now() + 5s)) return false;
    return ::recv(fd, &c, 1, 0) <= 0;
  }
  // The error a refused exchange ends with, then the close.
  proto::ErrorMsg refusal(int fd) {
    proto::Message m = read(fd);
    auto* e = std::get_if<proto::ErrorMsg>(&m);
    EXPECT_NE(e, nullptr) << proto::message_name(m);
    EXPECT_TRUE(closed_by_peer(fd));
    return e ? *e : proto::ErrorMsg{};
  }

  ClientOptions options(std::optional<auth::Key> key) {
    ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    o.key = std::move(key);
    return o;
  }
  static spec::TestSpec short_rr() {
    spec::TestSpec s;
    s.test = spec::TestKind::kTcpRr;
    s.duration_s = 0.2;
    return s;
  }
  // The message run_test fails with.
  std::string run_error(std::optional<auth::Key> key) {
    try {
      run_test(short_rr(), options(std::move(key)));
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kRuntime);
      return e.what();
    }
    return "(the test ran)";
  }
  // Alice's handshake on a new control connection; the data token.
  uint64_t authenticate(int fd) {
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    send(fd, h);
    send(fd, client.answer(std::get<proto::Challenge>(read(fd)), "here"));
    auto m = read(fd);
    EXPECT_TRUE(std::holds_alternative<proto::Welcome>(m)) << proto::message_name(m);
    if (!std::holds_alternative<proto::Welcome>(m)) return 0;
    const uint64_t token = client.verify(std::get<proto::Welcome>(m), "here");
    seals_.insert_or_assign(fd, std::pair{client.send_seal(), client.receive_seal()});
    return token;
  }
  // A UDP_RR test set up and started on a new control connection (with
  // Alice's key when the server holds keys); its server's UDP port.
  uint16_t start_udp_rr(int fd, bool with_key) {
    if (with_key) {
      authenticate(fd);
    } else {
      send(fd, proto::Hello{proto::kProtocolVersion, "t"});
      EXPECT_TRUE(std::holds_alternative<proto::Welcome>(read(fd)));
    }
    spec::TestSpec s;
    s.test = spec::TestKind::kUdpRr;
    s.duration_s = 5;
    send(fd, proto::Setup{s});
    auto m = read(fd);
    EXPECT_TRUE(std::holds_alternative<proto::SetupOk>(m)) << proto::message_name(m);
    if (!std::holds_alternative<proto::SetupOk>(m)) return 0;
    const auto ok = std::get<proto::SetupOk>(m);
    send(fd, proto::Start{});
    EXPECT_TRUE(std::holds_alternative<proto::Started>(read(fd)));
    return ok.udp_ports.empty() ? 0 : ok.udp_ports[0];
  }
  // Whether a one-byte request from `from` to the test's UDP port is answered.
  static bool answered(const char* from, uint16_t port) {
    auto src = net::resolve(from, 0, IpFamily::kV4, SOCK_DGRAM).front();
    auto dst = net::resolve("127.0.0.1", port, IpFamily::kV4, SOCK_DGRAM).front();
    net::Fd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    EXPECT_EQ(::bind(s.get(), src.sa(), src.len), 0);
    EXPECT_EQ(::sendto(s.get(), "r", 1, 0, dst.sa(), dst.len), 1);
    if (!net::sys::wait_readable(s.get(), Clock::now() + 500ms)) return false;
    char c;
    return ::recv(s.get(), &c, 1, 0) == 1;
  }
  void stop_test(int fd) {
    send(fd, proto::Stop{true, 0.1});
    auto m = read(fd);
    EXPECT_TRUE(std::holds_alternative<proto::Results>(m)) << proto::message_name(m);
  }
  void expect_still_serving() {
    TestResult r = run_test(short_rr(), options(kAlice));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.local_side.total().transactions, 0u);
  }

  std::map<int, std::pair<proto::FrameSeal, proto::FrameSeal>> seals_;  // fd: send, receive
  testing::LogFile log_;  // before server_: it outlives the server that writes to it
  std::unique_ptr<Server> server_;
};

TEST_F(AuthServerTest, TheRightKeyRunsATest) {
  for (const auth::Key& k : {kAlice, kBob}) {
    TestResult r = run_test(short_rr(), options(k));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.local_side.total().transactions, 0u);
    EXPECT_EQ(r.local_side.total().transactions, r.remote_side.total().transactions);
  }
  spec::TestSpec stream;
  stream.test = spec::TestKind::kTcpStream;
  stream.streams = 3;
  stream.duration_s = 0.2;
  TestResult r = run_test(stream, options(kAlice));
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.remote_side.total().bytes_recv, 0u);
  EXPECT_TRUE(log_.has("(key alice) TCP_STREAM x3: done")) << server_log();
}

TEST_F(AuthServerTest, NoKeyIsRefusedNamingAuthentication) {
  std::string e = run_error(std::nullopt);
  EXPECT_NE(e.find("accepts only authenticated clients: run the client with --key FILE"),
            std::string::npos)
      << e;
  EXPECT_TRUE(log_.has("refused: no key given (authentication required)")) << server_log();
  expect_still_serving();
}

TEST_F(AuthServerTest, WrongSecretUnknownNameAndAnotherNamesKeyAreRefused) {
  struct Case {
    auth::Key key;
    const char* logged;
  } cases[] = {
      {{"alice", "not-alices-secret-0000"}, "authentication failed for key 'alice' (wrong proof)"},
      {{"mallory", "mallory-secret-000000"},
       "authentication failed for key 'mallory' (unknown name)"},
      {{"alice", kBob.secret}, "authentication failed for key 'alice' (wrong proof)"},
  };
  for (const Case& c : cases) {
    std::string e = run_error(c.key);
    EXPECT_NE(e.find("authentication failed for key '" + c.key.name + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("check the --key file"), std::string::npos) << e;
    EXPECT_TRUE(log_.has(c.logged)) << server_log();
  }
  // The two failures read the same to the client: names are not revealed.
  std::string unknown = run_error(auth::Key{"zed", "0123456789abcdef"});
  std::string wrong = run_error(auth::Key{"bob", "0123456789abcdef"});
  unknown.replace(unknown.find("'zed'"), 5, "NAME");
  wrong.replace(wrong.find("'bob'"), 5, "NAME");
  EXPECT_EQ(unknown.substr(unknown.find(": ")), wrong.substr(wrong.find(": ")));
  EXPECT_EQ(server_->active_tests(), 0u);
  expect_still_serving();
}

// A client side of the handshake written out by hand, to replay and tamper.
struct Handshake {
  proto::Hello hello;
  proto::Auth answer;
};

TEST_F(AuthServerTest, AReplayedHandshakeIsRefused) {
  // A good exchange, recorded.
  Handshake rec;
  {
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    rec.hello = proto::Hello{proto::kProtocolVersion, "recorder"};
    client.fill(&rec.hello);
    send(fd.get(), rec.hello);
    auto m = read(fd.get());
    ASSERT_TRUE(std::holds_alternative<proto::Challenge>(m));
    rec.answer = client.answer(std::get<proto::Challenge>(m), "here");
    send(fd.get(), rec.answer);
    m = read(fd.get());
    ASSERT_TRUE(std::holds_alternative<proto::Welcome>(m)) << proto::message_name(m);
    client.verify(std::get<proto::Welcome>(m), "here");  // does not throw
  }
  // Played again on a new connection: the server's nonce is new.
  net::Fd fd = connect();
  send(fd.get(), rec.hello);
  auto m = read(fd.get());
  ASSERT_TRUE(std::holds_alternative<proto::Challenge>(m));
  send(fd.get(), rec.answer);
  EXPECT_EQ(refusal(fd.get()).code, "auth");
  EXPECT_TRUE(log_.has("authentication failed for key 'alice' (wrong proof)")) << server_log();
  expect_still_serving();
}

TEST_F(AuthServerTest, TamperedMessagesAreRefused) {
  auto flip = [](std::string hex, size_t at) {
    hex[at] = hex[at] == '0' ? '1' : '0';
    return hex;
  };
  {  // the proof changed on its way
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    send(fd.get(), h);
    auto m = read(fd.get());
    proto::Auth a = client.answer(std::get<proto::Challenge>(m), "here");
    a.proof = flip(a.proof, 17);
    send(fd.get(), a);
    EXPECT_EQ(refusal(fd.get()).code, "auth");
  }
  {  // the server's nonce changed on its way to the client
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    send(fd.get(), h);
    auto c = std::get<proto::Challenge>(read(fd.get()));
    c.nonce = flip(c.nonce, 0);
    send(fd.get(), client.answer(c, "here"));
    EXPECT_EQ(refusal(fd.get()).code, "auth");
  }
  {  // the client's nonce changed on its way to the server
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    h.nonce = flip(h.nonce, 63);
    send(fd.get(), h);
    auto c = std::get<proto::Challenge>(read(fd.get()));
    send(fd.get(), client.answer(c, "here"));
    EXPECT_EQ(refusal(fd.get()).code, "auth");
  }
  {  // the name changed on its way: bob's name on alice's proof
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    h.key_name = "bob";
    send(fd.get(), h);
    auto c = std::get<proto::Challenge>(read(fd.get()));
    send(fd.get(), client.answer(c, "here"));
    EXPECT_EQ(refusal(fd.get()).code, "auth");
  }
  {  // malformed nonce, malformed proof
    net::Fd fd = connect();
    proto::Hello h{proto::kProtocolVersion, "t", 2, "alice", "00zz"};
    send(fd.get(), h);
    EXPECT_EQ(refusal(fd.get()).code, "bad_message");
    fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h2{proto::kProtocolVersion, "t"};
    client.fill(&h2);
    send(fd.get(), h2);
    read(fd.get());
    send(fd.get(), proto::Auth{"short"});
    EXPECT_EQ(refusal(fd.get()).code, "auth");
  }
  {  // Setup before authenticating
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{proto::kProtocolVersion, "t"};
    client.fill(&h);
    send(fd.get(), h);
    read(fd.get());
    send(fd.get(), proto::Setup{short_rr()});
    proto::ErrorMsg e = refusal(fd.get());
    EXPECT_EQ(e.code, "bad_message");
    EXPECT_NE(e.message.find("expected auth, got setup"), std::string::npos) << e.message;
  }
  EXPECT_EQ(server_->active_tests(), 0u);
  expect_still_serving();
}

TEST_F(AuthServerTest, ClientRefusesAServerThatCannotProveTheKey) {
  // A Welcome whose proof is not the server's: the client stops there.
  ClientAuth client(kAlice);
  proto::Hello h;
  client.fill(&h);
  client.answer(proto::Challenge{proto::kProtocolVersion, auth::to_hex(auth::random_nonce())}, "x");
  proto::Welcome w;
  w.proof = auth::to_hex(auth::random_nonce());
  try {
    client.verify(w, "192.0.2.1:12865");
    ADD_FAILURE() << "a wrong server proof was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not prove it holds key 'alice'"), std::string::npos)
        << e.what();
  }
  w.proof.clear();
  EXPECT_THROW(client.verify(w, "x"), Error);
  // A server of protocol 2 would not seal its frames: the client stops at
  // its challenge.
  ClientAuth again(kAlice);
  again.fill(&h);
  try {
    again.answer(proto::Challenge{2, auth::to_hex(auth::random_nonce())}, "x");
    ADD_FAILURE() << "a protocol-2 challenge was answered";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("speaks flowperf protocol 2, which does not seal"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(AuthServerTest, DataConnectionsNeedTheDerivedToken) {
  net::Fd fd = connect();
  const uint64_t token = authenticate(fd.get());
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpStream;
  s.duration_s = 0.2;
  send(fd.get(), proto::Setup{s});
  auto m = read(fd.get());
  ASSERT_TRUE(std::holds_alternative<proto::SetupOk>(m)) << proto::message_name(m);
  const auto ok = std::get<proto::SetupOk>(m);
  EXPECT_EQ(ok.cookie, 0u) << "an authenticated server sent its data token in the clear";

  auto data = net::resolve("127.0.0.1", ok.tcp_port, IpFamily::kV4, SOCK_STREAM).front();
  auto greet = [&](uint64_t cookie) {
    int err = 0;
    net::Fd c = net::connect_tcp(data, Clock::now() + 2s, &err);
    EXPECT_TRUE(c.valid());
    uint8_t g[kGreetingBytes] = {};
    std::memcpy(g, &cookie, 8);
    EXPECT_EQ(::send(c.get(), g, sizeof g, 0), static_cast<ssize_t>(sizeof g));
    return c;
  };
  net::Fd zero = greet(0), wrong = greet(token ^ 1);
  EXPECT_TRUE(closed_by_peer(zero.get())) << "a data connection with no token was kept";
  EXPECT_TRUE(closed_by_peer(wrong.get())) << "a data connection with a wrong token was kept";
  net::Fd good = greet(token);
  send(fd.get(), proto::Start{});
  m = read(fd.get());
  EXPECT_TRUE(std::holds_alternative<proto::Started>(m)) << proto::message_name(m);
  stop_test(fd.get());  // nothing was sent: no drain to wait for
}

// UDP carries no token: an authenticated test's UDP socket takes datagrams
// from the client's address only (127.0.0.3 is another address on this
// host). So does an anonymous test's (NoKeysServerTest below): no answer of
// a UDP test goes to an address that did not open its control connection.
TEST_F(AuthServerTest, UdpDatagramsFromAnotherAddressAreDropped) {
  net::Fd fd = connect();
  const uint16_t port = start_udp_rr(fd.get(), true);
  ASSERT_NE(port, 0);
  EXPECT_FALSE(answered("127.0.0.3", port));
  EXPECT_TRUE(answered("127.0.0.1", port));
  stop_test(fd.get());
}

TEST_F(AuthServerTest, VersionsAreNegotiated) {
  {  // a flowperf of protocol 1 (before authentication): told to upgrade
    net::Fd fd = connect();
    send(fd.get(), proto::Hello{1, "flowperf 0.0.9"});
    proto::ErrorMsg e = refusal(fd.get());
    EXPECT_EQ(e.code, "auth");
    EXPECT_NE(e.message.find("predates authentication"), std::string::npos) << e.message;
  }
  {  // a future client that speaks only newer versions
    net::Fd fd = connect();
    send(fd.get(), proto::Hello{9, "flowperf 9", 5});
    proto::ErrorMsg e = refusal(fd.get());
    EXPECT_EQ(e.code, "version");
    EXPECT_NE(e.message.find("protocol 1-3, the client 5-9"), std::string::npos) << e.message;
  }
  {  // a flowperf of protocol 2 with a key: its frames would go unsealed
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{2, "flowperf 0.1.0"};
    client.fill(&h);
    h.min_version = 2;
    send(fd.get(), h);
    proto::ErrorMsg e = refusal(fd.get());
    EXPECT_EQ(e.code, "auth");
    EXPECT_NE(e.message.find("sealed (flowperf protocol 3)"), std::string::npos) << e.message;
  }
  {  // a future client that also speaks ours: served in ours
    net::Fd fd = connect();
    ClientAuth client(kAlice);
    proto::Hello h{9, "flowperf 9"};
    client.fill(&h);
    send(fd.get(), h);
    auto m = read(fd.get());
    ASSERT_TRUE(std::holds_alternative<proto::Challenge>(m));
    EXPECT_EQ(std::get<proto::Challenge>(m).version, proto::kProtocolVersion);
  }
}

TEST_F(AuthServerTest, OtherProtocolsAreRefusedWhenKeysAreRequired) {
  net::Fd fd = connect();
  std::string netperf(656, '\0');  // a netperf request's size, no flowperf magic
  netperf[3] = 1;
  ASSERT_EQ(::send(fd.get(), netperf.data(), netperf.size(), 0),
            static_cast<ssize_t>(netperf.size()));
  EXPECT_TRUE(closed_by_peer(fd.get()));
  EXPECT_TRUE(log_.has("(netperf client): this server requires authentication")) << server_log();
}

class NoKeysServerTest : public AuthServerTest {
 protected:
  void SetUp() override { start({}); }
};

TEST_F(NoKeysServerTest, UdpDatagramsFromAnotherAddressAreDroppedToo) {
  net::Fd fd = connect();
  const uint16_t port = start_udp_rr(fd.get(), false);
  ASSERT_NE(port, 0);
  EXPECT_FALSE(answered("127.0.0.3", port));
  EXPECT_TRUE(answered("127.0.0.1", port));
  stop_test(fd.get());
}

TEST_F(NoKeysServerTest, AClientWithAKeyRefusesAServerWithout) {
  std::string e = run_error(kAlice);
  EXPECT_NE(e.find("checks no keys (it was started without --keys)"), std::string::npos) << e;
  // Without a key the same server serves; a protocol-1 client too.
  TestResult r = run_test(short_rr(), options(std::nullopt));
  EXPECT_TRUE(r.error.empty()) << r.error;
  net::Fd fd = connect();
  send(fd.get(), proto::Hello{1, "flowperf 0.0.9"});
  auto m = read(fd.get());
  ASSERT_TRUE(std::holds_alternative<proto::Welcome>(m)) << proto::message_name(m);
  EXPECT_EQ(std::get<proto::Welcome>(m).version, 1u);
  EXPECT_TRUE(std::get<proto::Welcome>(m).proof.empty());
}

}  // namespace
}  // namespace flowperf::session
