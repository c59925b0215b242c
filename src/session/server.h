// The server: an accept loop for control connections (session/intake.h
// holds each, threadless, until its protocol is known) and then one session
// thread per connection. Each session runs one test at a time on its own
// data sockets and worker threads, so any number of clients (up to the
// limits) test at once. The limits of a server open to the public live here
// too: who may connect, how many tests a source runs, how long, how many
// streams, how fast. Nothing here is global: several servers, and clients,
// can live in one process (the embedded loopback server does exactly that).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "net/fd.h"
#include "net/socket.h"
#include "net/tls.h"
#include "session/access_policy.h"
#include "session/intake.h"
#include "session/iperf3_server.h"
#include "session/test_slot.h"

namespace flowperf::session {

struct ServerConfig {
  std::string bind_host;  // empty: every address
  uint16_t port = 12865;  // 0: an ephemeral port
  // More ports served alike (--iperf3-port): the same protocols, limits and
  // counters, one accept loop; a test counts once whichever port it came to.
  std::vector<uint16_t> more_ports;
  IpFamily family = IpFamily::kAny;
  uint32_t max_tests = 100;       // tests running at once
  double max_duration_s = 3600;   // longest test the server runs
  double control_timeout_s = 10;  // longest wait for any control message outside a test
  // Control connections that have not yet said which protocol they speak,
  // held at once; beyond it the oldest is closed. They hold no thread.
  uint32_t max_pending = 256;
  // --allow / --deny: which source addresses may connect at all.
  AccessLists access;
  // Per source address (an IPv6 /64 counts as one): tests at once and tests
  // started in the last minute. 0: no limit.
  uint32_t max_tests_per_source = 0;
  uint32_t max_tests_per_minute = 0;
  // Largest stream count (-P) and rate a test may ask for; 0: the
  // protocol's own limits. The rate caps UDP tests' -b (an unpaced UDP test
  // is refused) and paces the server's own TCP data sockets.
  uint32_t max_streams = 0;
  uint64_t max_rate_bps = 0;
  // Buffers: the largest a stream may ask of the server (a message, a
  // socket buffer), and all running tests' together, counted before a test
  // starts (session/server_policy.h). Sized for a small public server;
  // 0: no limit.
  uint64_t max_buffer_bytes = 16ull << 20;
  uint64_t max_memory_bytes = 256ull << 20;
  std::FILE* log = stderr;         // one line per test; nullptr: quiet
  bool allow_remote_quit = false;  // qperf's `quit` may stop this server
  // netserver -Z: a netperf client's first message must be this passphrase,
  // or the connection is closed. Native clients are then refused (flowperf's
  // protocol has no passphrase yet). Empty: none asked for.
  std::string netperf_passphrase;
  // flowperf server --keys: name -> secret. Not empty: flowperf clients must
  // authenticate (session/auth_exchange.h), and clients of the other
  // protocols, which cannot, are refused.
  std::map<std::string, std::string> keys;
  // --tls-cert/--tls-key: flowperf clients speak over TLS, and only so.
  std::shared_ptr<net::TlsContext> tls;
  // How iperf3 tests show their output (iperf3 -s); by default they show none.
  Iperf3ServerOptions iperf3;
};

// One line of the server's log (ServerConfig::log; nowhere when null),
// flushed at once: the log is often a pipe (a service manager's journal,
// a test reading it), where a line left in a buffer says nothing.
void log_line(const ServerConfig& c, const std::string& line);

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the control port. Throws a runtime Error.
  void bind();
  uint16_t port() const { return port_; }
  net::Address address() const { return address_; }
  // Every bound address: address() first, then more_ports' in order.
  const std::vector<net::Address>& addresses() const { return addresses_; }
  // Accepts and serves until stop().
  void serve();
  // Serves on a background thread.
  void start_background();
  // Stops accepting, ends running sessions, and waits for them.
  void stop();
  // Asks serve() to return soon; safe from any thread (not from a signal handler).
  void request_stop();
  uint32_t active_tests() const { return active_.load(); }
  uint64_t sessions_served() const { return served_.load(); }

 private:
  struct SessionSlot {
    std::thread thread;
    std::atomic<bool> done{false};
    int control_fd = -1;
    uint64_t number = 0;  // accept order
  };
  void reap(bool all);
  // Gives a claimed connection its session thread, or refuses it.
  void admit(Intake::Arrival a);
  void run_session(SessionSlot* slot, net::Fd control, const ProtocolRow* row,
                   Intake::Clock::time_point first_message_by, std::optional<IpAddr> peer);
  // The accept loop's own log lines (refusals at the door), at most a few a
  // second: a flood must not become a flood of log lines.
  void door_log(const std::string& line);

  ServerConfig config_;
  net::Fd listen_on(uint16_t port);

  std::vector<net::Fd> listeners_;
  std::vector<net::Address> addresses_;
  net::Fd wake_;  // eventfd: stop() wakes the accept loop
  uint16_t port_ = 0;
  net::Address address_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint32_t> active_{0};
  std::atomic<uint64_t> served_{0};
  Iperf3Desk iperf3_desk_;
  SourceLimits sources_;
  AuthFailures auth_failures_;
  MemoryBudget memory_{config_.max_memory_bytes ? config_.max_memory_bytes : UINT64_MAX};
  std::chrono::steady_clock::time_point door_log_second_{};
  uint32_t door_log_lines_ = 0, door_log_dropped_ = 0;
  std::mutex mu_;
  std::list<SessionSlot> sessions_;
  std::thread background_;
};

// Why a client of `row`'s protocol is refused at the door of a server with
// this configuration, or "": any authentication set up (flowperf's --keys,
// iperf3's RSA tokens, netserver -Z) covers every protocol, so a protocol
// that cannot show what the server asks for is refused.
std::string unauthenticated_protocol(const ServerConfig& c, const ProtocolRow& row);

}  // namespace flowperf::session
