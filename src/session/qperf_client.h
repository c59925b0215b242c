// A client for qperf 0.4.11's protocol (proto/qperf_wire.h): runs one test
// against a real qperf server, or against flowperf's server, which answers
// qperf clients on the same port as the others. One control connection per
// test, as qperf's. The control exchange is qperf's; the data path is the
// engine's (session/side_runner.h); the result is a TestResult with the
// server's side filled in from its STAT, for report/qperf_report.
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

#include "proto/qperf_wire.h"
#include "results/test_result.h"
#include "session/qperf_control.h"

namespace flowperf::session {

struct QperfClientOptions {
  std::string host;
  uint16_t port = proto::qperf::kDefaultPort;
  double wait_s = 5;              // -ws: keep trying to connect this long
  double timeout_s = 5;           // -to (local): each control message
  proto::qperf::Request request;  // the remote side's values, index included
  // This end's side of a socket test.
  uint32_t msg_size = 0;
  double time_s = 2;
  const std::atomic<bool>* interrupt = nullptr;
};

// The server answered with its error text: print "server: <text>".
using QperfServerError = qperf::PeerError;
// Anything else that went wrong, in one line that names the peer.
struct QperfClientError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct QperfClientRun {
  results::TestResult result;
  proto::qperf::Stat stat;
  bool interrupted = false;
};

// tcp_bw, tcp_lat, udp_bw or udp_lat. Throws QperfServerError or
// QperfClientError.
QperfClientRun run_qperf_test(const QperfClientOptions& o);
// conf: the server's node, CPU, OS and version.
proto::qperf::Conf run_qperf_conf(const QperfClientOptions& o);
// quit: the server exits.
void run_qperf_quit(const QperfClientOptions& o);

}  // namespace flowperf::session
