// iperf3 clients on flowperf's server. iperf3 sends its control connection
// and its TCP data connections to one port, each starting with the test's
// 37-byte cookie; the dispatch table (session/dispatch.h) hands every
// connection that starts with a cookie to serve_iperf3_connection(), which
// either gives it to the test waiting for that cookie's data connections
// (the desk below) or serves it as a new test's control connection. Unlike
// iperf3 3.12, which runs one test at a time and answers "busy", tests run
// side by side up to the server's limit (ServerConfig::max_tests; 1 gives
// iperf3's behaviour).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "auth/iperf3_rsa.h"
#include "auth/iperf3_users.h"
#include "net/fd.h"
#include "net/socket.h"
#include "session/access_policy.h"

namespace flowperf::session {

struct SessionContext;

// iperf3's RSA authentication (iperf3 -s --rsa-private-key-path KEY
// --authorized-users-path FILE [--time-skew-threshold N]
// [--use-pkcs1-padding]): every iperf3 test must carry a token from a user
// in the file, or it is refused as iperf3 refuses it (SERVER_ERROR 142, no
// errno, then the connection closes).
struct Iperf3Auth {
  std::shared_ptr<const auth::RsaKey> private_key;
  std::string users_path;  // read again for each test, as iperf3 does
  int skew_threshold_s = auth::kIperf3DefaultSkewSeconds;
  // OAEP as iperf3 3.17 and later; PKCS#1 v1.5 for clients up to 3.16.
  auth::RsaPadding padding = auth::RsaPadding::kOaep;
  // The tokens taken, shared by every session of the server.
  std::shared_ptr<auth::Iperf3ReplayCache> replay = std::make_shared<auth::Iperf3ReplayCache>();
};

// How a test ended, for the server's front end: iperf3 -s prints its banner
// again after each, and -1 stops after the first that is not kUnauthorized
// (3.12: "Authentication failure doesn't count for 1-off test").
enum class Iperf3TestEnd { kCompleted, kFailed, kUnauthorized };

// How the server serves iperf3 tests: iperf3 -s's own output, and
// authentication.
struct Iperf3ServerOptions {
  bool json = false;      // -J: each test's report as iperf3's JSON
  char format = 'a';      // -f
  double interval_s = 1;  // -i; 0: no interval lines
  bool forceflush = false;
  // Where the per-test output goes (stdout for iperf3 -s); empty: nowhere.
  std::function<void(const std::string&)> print;
  // Called after each iperf3 test that started, or was refused for its token.
  std::function<void(Iperf3TestEnd)> on_test_end;
  // Not set: tokens are ignored (3.12 without authentication does the same).
  std::optional<Iperf3Auth> auth;
  // --cntl-ka: TCP keepalive on each control connection (0s: the system's).
  std::optional<net::Keepalive> control_keepalive;
  bool verbose = false;  // -V: the keepalive in force, per test, to `print`
  // --server-max-duration (iperf3 3.20): tests longer than this (-t plus
  // -O), and those without a time (-t 0, -n, -k), are refused with error
  // 37; 0: only the server's own --max-duration applies.
  int max_duration_s = 0;
};

// The server's shared state for iperf3 tests: which cookies wait for data
// connections, and the turn to take UDP streams on the shared port.
class Iperf3Desk {
 public:
  using Clock = std::chrono::steady_clock;

  // A test now expects data connections that begin with `cookie`, from
  // its control connection's address `peer`. False when another test holds
  // that cookie already (a second control connection with it is refused).
  bool open(const std::string& cookie, std::optional<IpAddr> peer);
  // The test is over: later connections with its cookie are refused.
  void close(const std::string& cookie);
  // A connection (already past its cookie) whose cookie is a test's:
  // returns true when the desk took it (a test waits for it, or the test
  // no longer takes streams, or it comes from another address than the
  // test's control connection: then it was refused as iperf3 refuses a
  // stray stream). `number`: the order the server accepted it in.
  bool offer(const std::string& cookie, net::Fd fd, uint64_t number, std::optional<IpAddr> from);
  // Connections refused for coming from another address than their test's.
  uint64_t strangers() const { return strangers_.load(); }
  // Waits for n data connections; they come back in the order the server
  // accepted them. Fewer when the deadline passes or `control` has
  // something to say (the client gave up).
  std::vector<net::Fd> take(const std::string& cookie, size_t n, Clock::time_point deadline,
                            int control);
  // iperf3's UDP streams say hello on the shared UDP port without a
  // cookie: one test at a time sets its UDP streams up.
  std::mutex& udp_turn() { return udp_turn_; }

 private:
  struct Waiting {
    std::optional<IpAddr> peer;
    bool taking = true;
    std::vector<std::pair<uint64_t, net::Fd>> arrived;
  };
  std::atomic<uint64_t> strangers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Waiting> tests_;
  std::mutex udp_turn_;
};

// The iperf3 row of the dispatch table.
void serve_iperf3_connection(int control, const SessionContext& ctx);

}  // namespace flowperf::session
