// iperf3's RSA authentication between flowperf's iperf3 personality and the
// real iperf3 3.12, both ways, with keys made by `openssl genrsa` and a users
// file holding `printf '{mario}rossi' | sha256sum`. Servers of both kinds run
// the same cases, so the real one shows what flowperf must do: a good
// password runs a test, a wrong one, an unknown user or no token is refused
// with SERVER_ERROR 142 (read off the wire by a raw client too) and the
// server goes on serving; a server without authentication ignores a token.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "auth/iperf3_rsa.h"
#include "e2e/iperf3_peers.h"
#include "net/fd.h"
#include "proto/iperf3_wire.h"
#include "support/paths.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

const char* kOpenssl = "/usr/bin/openssl";

#define REQUIRE_OPENSSL()                                          \
  if (::access(kOpenssl, X_OK) != 0) {                             \
    if (std::getenv("CI")) FAIL() << "no " << kOpenssl;            \
    GTEST_SKIP() << "no " << kOpenssl << " (apt install openssl)"; \
  }

// Keys and a users file in a temporary directory, made by the real tools.
class Iperf3Auth : public ::testing::TestWithParam<Side> {
 protected:
  static void SetUpTestSuite() {
    if (::access(kOpenssl, X_OK) != 0) return;
    dir_ = new TempDir("iperf3_auth_e2e");
    ASSERT_FALSE(dir_->path().empty());
    ASSERT_EQ(run({kOpenssl, "genrsa", "-out", file("private.pem"), "2048"}).exit_code, 0);
    ASSERT_EQ(run({kOpenssl, "rsa", "-in", file("private.pem"), "-outform", "PEM", "-pubout",
                   "-out", file("public.pem")})
                  .exit_code,
              0);
    const Outcome hash = run({"/bin/sh", "-c", "printf '{mario}rossi' | sha256sum"});
    ASSERT_EQ(hash.exit_code, 0);
    std::ofstream(file("users.csv")) << "# flowperf e2e\nmario," << hash.out.substr(0, 64) << "\n";
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static Outcome run(std::vector<std::string> argv) { return Process(argv).wait(30s); }
  static std::string file(const std::string& name) { return *dir_ / name; }

  static std::vector<std::string> server_auth() {
    return {"--rsa-private-key-path", file("private.pem"), "--authorized-users-path",
            file("users.csv")};
  }
  // A client run with IPERF3_PASSWORD set (or unset: nullptr). A real 3.12
  // server closes its listening socket between tests for a moment: a
  // connection refused then is tried again.
  static Outcome client(Side side, uint16_t port, const char* password,
                        std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/env"};
    if (password)
      argv.push_back(std::string("IPERF3_PASSWORD=") + password);
    else
      argv.insert(argv.end(), {"-u", "IPERF3_PASSWORD"});
    argv.insert(argv.end(), {binary(side), "-c", "127.0.0.1", "-p", std::to_string(port)});
    argv.insert(argv.end(), args.begin(), args.end());
    Outcome o;
    for (int attempt = 0; attempt < 50; ++attempt) {
      o = Process(argv).wait(60s);
      if (o.err.find("unable to connect to server: Connection refused") == std::string::npos) break;
      std::this_thread::sleep_for(100ms);
    }
    return o;
  }
  // --username and --rsa-public-key-path, then the rest.
  static std::vector<std::string> as(const std::string& user, std::vector<std::string> rest = {}) {
    std::vector<std::string> a = {"--username", user, "--rsa-public-key-path", file("public.pem")};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  }
  static TempDir* dir_;
};
TempDir* Iperf3Auth::dir_ = nullptr;

// The received bytes of a -J run, or -1.
double received_bytes(const Outcome& o) {
  const auto j = parse_json(o.out);
  if (j.is_discarded() || !j.contains("end") || !j["end"].contains("sum_received")) return -1;
  return j["end"]["sum_received"]["bytes"].get<double>();
}

bool refused(const Outcome& o) {
  return o.exit_code == 1 &&
         o.err.find("iperf3: error - test authorization failed") != std::string::npos;
}

// A flowperf server's stdout line that contains `what`, within 10 s.
bool server_said(Iperf3Server& s, const std::string& what) {
  for (int i = 0; i < 50; ++i) {
    auto line = s.proc->read_line(10s);
    if (!line) return false;
    if (line->find(what) != std::string::npos) return true;
  }
  return false;
}

// A raw iperf3 client: cookie, parameters with this token, then every byte
// the server sends until it closes (or 10 s pass), or only its first answer.
// A real 3.12 server is between tests for a moment after each (it may
// refuse the connection or answer busy then): tried again.
std::string raw_answer(uint16_t port, const std::string& token, bool first_only = false) {
  std::string failure;
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(100ms);
    net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      failure = "no connection";
      continue;
    }
    const std::string cookie = proto::iperf3::make_cookie();
    ::send(fd.get(), cookie.data(), cookie.size(), MSG_NOSIGNAL);
    std::string got;
    auto read_some = [&](int ms) {
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, ms) <= 0) return false;
      char buf[256];
      const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
      if (n <= 0) return false;
      got.append(buf, static_cast<size_t>(n));
      return true;
    };
    if (!read_some(10000) || got != std::string(1, '\x09')) {
      failure = "no PARAM_EXCHANGE, but " + std::to_string(got.size()) + " bytes";
      continue;
    }
    got.clear();
    proto::iperf3::Params p;
    p.time = 1;
    p.len = 131072;
    p.authtoken = token;
    const std::string json = proto::iperf3::encode_params(p);
    const auto len = proto::iperf3::length_prefix(static_cast<uint32_t>(json.size()));
    ::send(fd.get(), len.data(), len.size(), MSG_NOSIGNAL);
    ::send(fd.get(), json.data(), json.size(), MSG_NOSIGNAL);
    while (read_some(10000) && !first_only) {
    }
    return got;
  }
  return failure;
}

const std::string kRefusal("\xfe\x00\x00\x00\x8e", 5);  // SERVER_ERROR, 142, no errno

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---- a server with authentication, of either kind, and the real client ----

TEST_P(Iperf3Auth, RealClientWithTheRightPasswordRuns) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(GetParam(), server_auth());
  ASSERT_TRUE(srv.ready);
  const Outcome o = client(Side::kReal, srv.port, "rossi", as("mario", {"-t", "1", "-J"}));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_GT(received_bytes(o), 0) << o.out;
}

TEST_P(Iperf3Auth, RealClientRefusedForWrongPasswordUnknownUserOrNoToken) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(GetParam(), server_auth());
  ASSERT_TRUE(srv.ready);
  const Outcome wrong = client(Side::kReal, srv.port, "wrong", as("mario", {"-t", "1"}));
  EXPECT_TRUE(refused(wrong)) << wrong.exit_code << wrong.out << wrong.err;
  EXPECT_EQ(wrong.out.find("receiver"), std::string::npos) << wrong.out;
  const Outcome luigi = client(Side::kReal, srv.port, "rossi", as("luigi", {"-t", "1"}));
  EXPECT_TRUE(refused(luigi)) << luigi.exit_code << luigi.err;
  const Outcome none = client(Side::kReal, srv.port, nullptr, {"-t", "1"});
  EXPECT_TRUE(refused(none)) << none.exit_code << none.err;
  if (GetParam() == Side::kFlowperf) {
    // Each refusal is told with the name the token gave, or its absence.
    EXPECT_TRUE(server_said(srv, "test authorization failed (user 'mario': wrong password)"));
    EXPECT_TRUE(server_said(srv, "test authorization failed (user 'luigi': not in the users"));
    EXPECT_TRUE(server_said(srv, "test authorization failed (no token)"));
  }
  // The server goes on serving.
  const Outcome good = client(Side::kReal, srv.port, "rossi", as("mario", {"-t", "1", "-J"}));
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  EXPECT_GT(received_bytes(good), 0);
}

TEST_P(Iperf3Auth, RefusalOnTheWireIsServerError142WithoutErrno) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(GetParam(), server_auth());
  ASSERT_TRUE(srv.ready);
  const auth::RsaKey key = auth::load_rsa_public_key(file("public.pem"), "public");
  auto token = [&](const std::string& password, int64_t skew) {
    return auth::make_iperf3_token({"mario", password, unix_now() + skew}, key);
  };
  // No token, a wrong password, a clock an hour off either way, garbage.
  EXPECT_EQ(raw_answer(srv.port, ""), kRefusal);
  EXPECT_EQ(raw_answer(srv.port, token("wrong", 0)), kRefusal);
  EXPECT_EQ(raw_answer(srv.port, token("rossi", -3600)), kRefusal);
  EXPECT_EQ(raw_answer(srv.port, token("rossi", 3600)), kRefusal);
  EXPECT_EQ(raw_answer(srv.port, "bm90IGEgdG9rZW4="), kRefusal);
  // A good token, made by flowperf, is taken: the server goes on to
  // CREATE_STREAMS (10) and waits for the streams.
  const std::string good = raw_answer(srv.port, token("rossi", 0), /*first_only=*/true);
  EXPECT_EQ(good, std::string(1, '\x0a'));
}

TEST_P(Iperf3Auth, OneOffServerIsNotEndedByARefusal) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  std::vector<std::string> extra = server_auth();
  extra.push_back("-1");
  Iperf3Server srv(GetParam(), extra);
  ASSERT_TRUE(srv.ready);
  EXPECT_TRUE(refused(client(Side::kReal, srv.port, "wrong", as("mario", {"-t", "1"}))));
  const Outcome good = client(Side::kReal, srv.port, "rossi", as("mario", {"-t", "1", "-J"}));
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  EXPECT_GT(received_bytes(good), 0);
  const Outcome end = srv.proc->wait(10s);
  EXPECT_FALSE(end.timed_out) << "-1 server still running after its one test";
}

TEST_P(Iperf3Auth, ServerWithoutAuthenticationIgnoresAToken) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(GetParam());
  ASSERT_TRUE(srv.ready);
  auto args = as("mario", {"-t", "1", "-J"});
  const Outcome o = client(Side::kReal, srv.port, "anything", args);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_GT(received_bytes(o), 0);
}

TEST_P(Iperf3Auth, ServerWithAnUnreadableKeyStopsWithIperf3sMessage) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  const Outcome o =
      run({binary(GetParam()), "-s", "-p", std::to_string(free_port()), "--rsa-private-key-path",
           file("public.pem"), "--authorized-users-path", file("users.csv")});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("iperf3: parameter error - you must specify a path to a valid RSA private "
                       "key and a user credential file"),
            std::string::npos)
      << o.err;
}

// ---- the client of either kind, and a real server with authentication ----

TEST_P(Iperf3Auth, ClientWithTheRightPasswordRunsOnARealServer) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(Side::kReal, server_auth());
  ASSERT_TRUE(srv.ready);
  auto args = as("mario", {"-t", "1", "-J"});
  const Outcome o = client(GetParam(), srv.port, "rossi", args);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_GT(received_bytes(o), 0) << o.out;
  // The reverse direction too: the server sends once it has taken the token.
  args.push_back("-R");
  const Outcome r = client(GetParam(), srv.port, "rossi", args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(received_bytes(r), 0) << r.out;
}

TEST_P(Iperf3Auth, ClientWithAWrongPasswordIsToldAsIperf3TellsIt) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  Iperf3Server srv(Side::kReal, server_auth());
  ASSERT_TRUE(srv.ready);
  auto args = as("mario", {"-t", "1"});
  const Outcome o = client(GetParam(), srv.port, "wrong", args);
  EXPECT_TRUE(refused(o)) << o.exit_code << o.out << o.err;
  EXPECT_NE(o.out.find("Connecting to host 127.0.0.1"), std::string::npos) << o.out;
}

TEST_P(Iperf3Auth, ClientWithoutAPasswordOrTerminalStops) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  // stdin is /dev/null: no terminal to ask on. Nothing is connected to.
  auto args = as("mario");
  const Outcome o = client(GetParam(), 9, nullptr, args);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("iperf3: parameter error - you must specify a username, password, and "
                       "path to a valid RSA public key"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out.find("Password:"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("Connecting"), std::string::npos) << o.out;
}

// 3.12 reads the users file only when a client comes, and refuses every
// test if it cannot; flowperf reads it at start-up too, and stops.
TEST_P(Iperf3Auth, MissingUsersFile) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  const std::vector<std::string> extra = {"--rsa-private-key-path", file("private.pem"),
                                          "--authorized-users-path", file("nobody.csv")};
  if (GetParam() == Side::kReal) {
    Iperf3Server srv(Side::kReal, extra);
    ASSERT_TRUE(srv.ready);
    EXPECT_TRUE(refused(client(Side::kReal, srv.port, "rossi", as("mario", {"-t", "1"}))));
    return;
  }
  std::vector<std::string> argv = {kIperf3Personality, "-s", "-p", std::to_string(free_port())};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const Outcome o = run(argv);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("iperf3: error - --authorized-users-path " + file("nobody.csv") +
                       ": cannot open it: No such file or directory"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out.find("Server listening"), std::string::npos) << o.out;
}

// `flowperf server` takes the same three as --iperf3-*; with --keys too,
// iperf3 clients are served once they show a good token (flowperf's own
// keys they could not show).
class Iperf3AuthFlowperfServer : public Iperf3Auth {};

TEST_F(Iperf3AuthFlowperfServer, AuthenticatesIperf3Clients) {
  REQUIRE_IPERF3();
  REQUIRE_OPENSSL();
  const std::string keys = file("keys");
  std::ofstream(keys) << "alice 0123456789abcdef0123456789abcdef\n";
  ASSERT_EQ(::chmod(keys.c_str(), 0600), 0);
  Process server({::flowperf::testing::flowperf_bin(), "server", "-p", "0", "-B", "127.0.0.1",
                  "--keys", keys, "--iperf3-rsa-private-key", file("private.pem"),
                  "--iperf3-authorized-users", file("users.csv")});
  const std::string port = announced_port(server);
  ASSERT_FALSE(port.empty());
  const auto p = static_cast<uint16_t>(std::stoi(port));
  const Outcome good = client(Side::kReal, p, "rossi", as("mario", {"-t", "1", "-J"}));
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  EXPECT_GT(received_bytes(good), 0);
  EXPECT_TRUE(refused(client(Side::kReal, p, "wrong", as("mario", {"-t", "1"}))));
  EXPECT_TRUE(refused(client(Side::kReal, p, nullptr, {"-t", "1"})));
}

std::string side_name(const ::testing::TestParamInfo<Side>& p) { return name(p.param); }

INSTANTIATE_TEST_SUITE_P(Both, Iperf3Auth, ::testing::Values(Side::kReal, Side::kFlowperf),
                         side_name);

}  // namespace
}  // namespace flowperf::testing
