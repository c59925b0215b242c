// TLS on flowperf's control connection, against an in-process server with
// a certificate made for the test (openssl's command line, a CA and a
// server certificate for 127.0.0.1): a test runs over TLS and a recording
// relay between the two ends sees no plaintext message go by (and does see
// them without TLS); a plain client, an untrusted CA, a name the
// certificate does not hold, and TLS to a server without it each fail with
// their own message; keys and TLS work together.
#include "net/tls.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "core/error.h"
#include "net/socket.h"
#include "session/controller.h"
#include "session/server.h"
#include "support/temp_dir.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::TempDir;

// A CA, a server certificate it signed for 127.0.0.1, and a second CA.
struct Certificates {
  TempDir dir{"flowperf-tls"};
  bool ok = false;
  Certificates() {
    const std::string d = dir.path().string();
    const std::string script =
        "cd " + d +
        " && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
        "-subj '/CN=flowperf test CA' "
        "&& openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr "
        "-subj '/CN=127.0.0.1' "
        "&& printf 'subjectAltName=IP:127.0.0.1\\n' > ext "
        "&& openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
        "-out server.pem -days 2 -extfile ext "
        "&& openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 "
        "-subj '/CN=another CA' ) > /dev/null 2>&1";
    ok = std::system(("( " + script).c_str()) == 0;
  }
  std::string operator/(const std::string& f) const { return dir / f; }
};

// Which record of a connection a relay rewrites one byte of: in one
// direction, the n-th flowperf frame (in the clear) or the n-th TLS
// application-data record, counted from 0.
struct Tamper {
  bool to_server = true;
  bool tls = false;
  int record = -1;  // -1: none
};

// Relays one connection to `to`, keeping what the client sent, and
// rewriting one byte of one record when told to.
class Relay {
 public:
  explicit Relay(uint16_t to, Tamper tamper = {}) : tamper_(tamper) {
    auto a = net::resolve("127.0.0.1", 0, IpFamily::kV4, SOCK_STREAM).front();
    listener_ = net::bind_socket(a, SOCK_STREAM);
    port_ = net::local_address(listener_.get()).port();
    thread_ = std::thread([this, to] { run(to); });
  }
  ~Relay() { thread_.join(); }
  uint16_t port() const { return port_; }
  std::string sent() {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }
  bool rewrote() const { return rewrote_; }

 private:
  // Whole records of `held` (what direction `to_server` has buffered): the
  // ones to pass on now, one of them rewritten when it is the one.
  std::string take_records(std::string& held, bool to_server) {
    const size_t header = tamper_.tls ? 5 : 8;
    std::string out;
    for (;;) {
      if (held.size() < header) break;
      const auto* h = reinterpret_cast<const uint8_t*>(held.data());
      const size_t body =
          tamper_.tls ? (size_t{h[3]} << 8 | h[4])
                      : (size_t{h[4]} << 24 | size_t{h[5]} << 16 | size_t{h[6]} << 8 | h[7]);
      if (held.size() < header + body) break;
      const bool counted = !tamper_.tls || h[0] == 23;  // TLS application data
      std::string record = held.substr(0, header + body);
      held.erase(0, header + body);
      if (counted && to_server == tamper_.to_server && seen_[to_server]++ == tamper_.record &&
          body > 4) {
        record[header + 4] = static_cast<char>(record[header + 4] ^ 0x01);
        rewrote_ = true;
      }
      out += record;
    }
    return out;
  }
  void run(uint16_t to) {
    net::Fd in(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    auto a = net::resolve("127.0.0.1", to, IpFamily::kV4, SOCK_STREAM).front();
    int err = 0;
    net::Fd out = net::connect_tcp(a, Clock::now() + 2s, &err);
    if (!in || !out) return;
    char buf[65536];
    std::string held[2];
    for (;;) {
      pollfd p[2] = {{in.get(), POLLIN, 0}, {out.get(), POLLIN, 0}};
      if (::poll(p, 2, 10000) <= 0) return;
      for (int i = 0; i < 2; ++i) {
        if (!p[i].revents) continue;
        const ssize_t n = ::recv(p[i].fd, buf, sizeof buf, 0);
        if (n <= 0) return;
        const bool to_server = i == 0;
        if (to_server) {
          std::lock_guard<std::mutex> lock(mu_);
          sent_.append(buf, static_cast<size_t>(n));
        }
        std::string pass(buf, static_cast<size_t>(n));
        if (tamper_.record >= 0) {
          held[i].append(pass);
          pass = take_records(held[i], to_server);
        }
        if (!pass.empty() && ::send(to_server ? out.get() : in.get(), pass.data(), pass.size(),
                                    MSG_NOSIGNAL) != static_cast<ssize_t>(pass.size()))
          return;
      }
    }
  }
  Tamper tamper_;
  int seen_[2] = {0, 0};
  std::atomic<bool> rewrote_{false};
  net::Fd listener_;
  uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::string sent_;
};

class Tls : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(certs_.ok) << "openssl could not make the certificates"; }
  void start(bool tls, std::map<std::string, std::string> keys = {}) {
    ServerConfig c;
    c.bind_host = "127.0.0.1";
    c.port = 0;
    c.log = nullptr;
    c.control_timeout_s = 2;
    if (tls) c.tls = net::TlsContext::server(certs_ / "server.pem", certs_ / "server.key");
    c.keys = std::move(keys);
    server_ = std::make_unique<Server>(c);
    server_->bind();
    server_->start_background();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  ClientOptions options(const std::string& ca, const std::string& host = "127.0.0.1") {
    ClientOptions o;
    o.host = host;
    o.port = server_->port();
    if (!ca.empty()) o.tls = net::TlsContext::client(certs_ / ca);
    return o;
  }
  static spec::TestSpec rr() {
    spec::TestSpec s;
    s.test = spec::TestKind::kTcpRr;
    s.duration_s = 0.2;
    return s;
  }
  std::string error_of(const ClientOptions& o) {
    try {
      run_test(rr(), o);
    } catch (const Error& e) {
      return e.what();
    }
    return "(the test ran)";
  }
  Certificates certs_;
  std::unique_ptr<Server> server_;
};

TEST_F(Tls, ATestRunsOverTlsAndNoMessageCrossesInTheClear) {
  start(true);
  ClientOptions o = options("ca.pem");
  Relay relay(server_->port());
  o.port = relay.port();
  TestResult r = run_test(rr(), o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.local_side.total().transactions, 0u);
  const std::string wire = relay.sent();
  ASSERT_GT(wire.size(), 100u);
  EXPECT_EQ(static_cast<uint8_t>(wire[0]), 0x16) << "not a TLS handshake record";
  // A frame header is "FP", version 1, flags 0: four bytes, so that random
  // ciphertext holds them by chance about once in 4 GB (two bytes, "FP"
  // alone, turned up in a few kilobytes of it once in about twenty runs).
  const std::string header("FP\x01\x00", 4);
  for (const std::string& plain : {header, std::string("\"setup\""), std::string("\"hello\""),
                                   std::string("TCP_RR"), std::string("flowperf")})
    EXPECT_EQ(wire.find(plain), std::string::npos) << plain << " went by in the clear";
}

TEST_F(Tls, WithoutTlsTheSameRelaySeesTheMessages) {
  start(false);
  ClientOptions o = options("");
  Relay relay(server_->port());
  o.port = relay.port();
  TestResult r = run_test(rr(), o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_NE(relay.sent().find("\"setup\""), std::string::npos);  // the relay does see plaintext
}

TEST_F(Tls, EachWayOfGettingItWrongHasItsMessage) {
  start(true);
  std::string e = error_of(options(""));
  EXPECT_NE(e.find("takes flowperf clients over TLS only: run the client with --tls-ca FILE"),
            std::string::npos)
      << e;
  e = error_of(options("other.pem"));
  EXPECT_NE(e.find("the server's TLS certificate is not trusted: "), std::string::npos) << e;
  EXPECT_NE(e.find("check --tls-ca"), std::string::npos) << e;
  e = error_of(options("ca.pem", "localhost"));  // the certificate names 127.0.0.1 only
  EXPECT_NE(e.find("hostname mismatch"), std::string::npos) << e;
  server_->stop();
  start(false);
  e = error_of(options("ca.pem"));
  EXPECT_NE(e.find("TLS handshake failed: the server closed the connection — is it a flowperf "
                   "server started with --tls-cert?"),
            std::string::npos)
      << e;
  // Files that are not what they should be.
  try {
    net::TlsContext::server(certs_ / "server.pem", certs_ / "other.key");
    ADD_FAILURE() << "a key that is not the certificate's was taken";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("is not the key of the certificate"), std::string::npos)
        << err.what();
  }
  EXPECT_THROW(net::TlsContext::client(certs_ / "server.key"), Error);
  EXPECT_THROW(net::TlsContext::server(certs_ / "absent.pem", certs_ / "server.key"), Error);
}

// A raw OpenSSL client offering only `ciphers` at TLS 1.2: the suite the
// server agreed to, or "" when the handshake failed.
std::string negotiate_tls12(uint16_t port, const char* ciphers) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_security_level(ctx, 0);  // let the client offer what it likes
  std::string agreed;
  if (SSL_CTX_set_cipher_list(ctx, ciphers) == 1) {
    auto a = net::resolve("127.0.0.1", port, IpFamily::kV4, SOCK_STREAM).front();
    int err = 0;
    net::Fd fd = net::connect_tcp(a, Clock::now() + 2s, &err);
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd.get());
    if (SSL_connect(ssl) == 1) agreed = SSL_get_cipher_name(ssl);
    SSL_free(ssl);
  }
  SSL_CTX_free(ctx);
  return agreed;
}

// The server takes forward-secret AEAD suites only: a client that offers
// nothing else but an old CBC suite without (EC)DHE is turned away.
TEST_F(Tls, OnlyForwardSecretAeadSuites) {
  ::signal(SIGPIPE, SIG_IGN);  // a refused handshake's last write meets a closed socket
  start(true);
  EXPECT_EQ(negotiate_tls12(server_->port(), "AES128-SHA"), "");
  EXPECT_EQ(negotiate_tls12(server_->port(), "AES256-GCM-SHA384"), "");     // static RSA
  EXPECT_EQ(negotiate_tls12(server_->port(), "ECDHE-RSA-AES128-SHA"), "");  // CBC
  EXPECT_EQ(negotiate_tls12(server_->port(), "ECDHE-RSA-AES128-GCM-SHA256"),
            "ECDHE-RSA-AES128-GCM-SHA256");
  // A client offering every suite gets a forward-secret AEAD one.
  const std::string any = negotiate_tls12(server_->port(), "ALL:@SECLEVEL=0");
  EXPECT_EQ(any.rfind("ECDHE-", 0), 0u) << any;
  EXPECT_TRUE(any.find("GCM") != std::string::npos || any.find("CHACHA20") != std::string::npos)
      << any;
}

// A relay that rewrites one byte of a control message after the
// authenticated handshake makes the test fail with an authentication error:
// with keys, every later frame is sealed (in the clear) and every TLS
// record is checked by TLS itself; either end may be the one that finds it.
TEST_F(Tls, ARewrittenControlMessageEndsTheTestAsAnAuthenticationFailure) {
  const std::map<std::string, std::string> keys = {{"alice", "alice-secret-0123456789"}};
  struct Case {
    const char* name;
    bool tls;
    Tamper tamper;
  };
  // In the clear, client to server: hello (0), auth (1), setup (2); server
  // to client: challenge, welcome, setup_ok. Over TLS 1.3 the client's
  // Finished is its first application-data record, so the setup is its
  // 4th; the server finds the record bad and its alert tells the client.
  const Case cases[] = {
      {"setup, in the clear", false, {true, false, 2}},
      {"setup_ok, in the clear", false, {false, false, 2}},
      {"start, in the clear", false, {true, false, 3}},
      {"setup, over TLS", true, {true, true, 3}},
      {"start, over TLS", true, {true, true, 4}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    start(c.tls, keys);
    Relay relay(server_->port(), c.tamper);
    ClientOptions o = options(c.tls ? "ca.pem" : "");
    o.port = relay.port();
    o.key = auth::Key{"alice", "alice-secret-0123456789"};
    const std::string e = error_of(o);
    EXPECT_TRUE(relay.rewrote()) << "the relay found no such record";
    EXPECT_NE(e.find("authentication failed mid-test"), std::string::npos) << e;
    server_->stop();
    server_.reset();
  }
  // The same relay passing everything unchanged: the test runs.
  start(false, keys);
  Relay relay(server_->port(), Tamper{true, false, 1000});
  ClientOptions o = options("");
  o.port = relay.port();
  o.key = auth::Key{"alice", "alice-secret-0123456789"};
  const TestResult r = run_test(rr(), o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(relay.rewrote());
}

TEST_F(Tls, KeysAndTlsTogether) {
  start(true, {{"alice", "alice-secret-0123456789"}});
  ClientOptions o = options("ca.pem");
  o.key = auth::Key{"alice", "alice-secret-0123456789"};
  TestResult r = run_test(rr(), o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.local_side.total().transactions, 0u);
  o.key = auth::Key{"alice", "wrong-secret-0123456789"};
  EXPECT_NE(error_of(o).find("authentication failed for key 'alice'"), std::string::npos);
}

}  // namespace
}  // namespace flowperf::session
