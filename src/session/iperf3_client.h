// A client for iperf3's protocol (proto/iperf3_wire.h): runs one test
// against a real `iperf3 -s`, or against flowperf's server, which answers
// iperf3 clients on its iperf3 port. The control exchange is iperf3's; the
// data path is flowperf's engine (session/side_runner.h); what comes back
// is iperf3's report model, which the front end prints as text or -J.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/ip_family.h"
#include "net/socket.h"
#include "proto/iperf3_wire.h"
#include "results/iperf3_run.h"
#include "results/test_result.h"

namespace flowperf::session {

struct Iperf3ClientOptions {
  std::string host;
  uint16_t port = proto::iperf3::kDefaultPort;
  IpFamily family = IpFamily::kAny;
  std::string bind_host;         // -B: the control and data sockets' source address
  uint16_t cport = 0;            // --cport: stream i binds cport + i (0: any port)
  double connect_timeout_s = 0;  // --connect-timeout; 0: 30 s
  proto::iperf3::Params params;  // what the server is told (len filled in when 0)
  double interval_s = 1;         // -i; 0: no interval reports
  int cpu = -1;                  // -A: the CPU this end's data path runs on
  uint64_t fq_rate = 0;          // --fq-rate bits/s, on this end's sockets
  double rcv_timeout_s = 120;    // --rcv-timeout: a receiving test with no data this long fails
  // --cntl-ka: TCP keepalive on the control connection (0s: the system's).
  std::optional<net::Keepalive> control_keepalive;
  // -V: the lines the exchange itself prints (the keepalive in force).
  std::function<void(const std::string&)> verbose;
  const std::atomic<bool>* interrupt = nullptr;
  // --username: makes the parameters' "authtoken" as they are sent (its
  // time is then); empty: none is sent.
  std::function<std::string()> authtoken;
  // -d: each step of the control exchange (states, the JSON both ways).
  std::function<void(const std::string&)> debug;
  // The server answered (iperf3 prints "Connecting to host ..." now).
  std::function<void(const results::iperf3::StartInfo&)> on_connecting;
  // The streams are connected (the "[  5] local ... connected to ..." lines).
  std::function<void(const results::iperf3::StartInfo&)> on_start;
  std::function<void(const results::iperf3::Interval&)> on_interval;
};

// A failure in iperf3's words, without "iperf3: error - ": "unable to
// connect to server: Connection refused", "the server is busy running a
// test. try again later".
struct Iperf3Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Iperf3ClientRun {
  results::iperf3::Report report;
  // The same test as flowperf's renderers take it (iperf3::test_result).
  results::TestResult result;
  bool interrupted = false;  // the user stopped it: the peer was told (CLIENT_TERMINATE)
  std::string error;         // it failed after the start ("the server has terminated")
};

// Throws Iperf3Error when the test cannot start; after the start, failures
// come back in `error` with what was measured.
Iperf3ClientRun run_iperf3_client(const Iperf3ClientOptions& options);

}  // namespace flowperf::session
