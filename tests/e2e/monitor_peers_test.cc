// `flowperf monitor` with a target of each protocol, each served by the
// real tool: a netserver (netperf 2.7.1 from the peers' build), Debian's
// `iperf3 -s` and `qperf`, and a `flowperf server`. Each target's tests run
// through the client of its protocol; /metrics has every target's series,
// alike, and a real Prometheus scrapes them.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/metrics_http.h"
#include "support/net.h"
#include "support/paths.h"
#include "support/peers.h"
#include "support/ports.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;

// A server in the foreground on its own port, accepting when constructed
// (`port` 0 when it never did).
struct Daemon {
  Daemon(std::vector<std::string> argv, uint16_t p, const std::string& banner = "") : port(p) {
    proc = std::make_unique<Process>(std::move(argv));
    // iperf3 3.12 takes a probe connection for a failed test: its banner says it is ready.
    const bool ready = banner.empty() ? wait_accepting(port) : proc->wait_for_line(banner, 10s);
    if (!ready) port = 0;
  }
  ~Daemon() {
    proc->signal(SIGTERM);
    proc->wait(10s);
  }
  uint16_t port;
  std::unique_ptr<Process> proc;
};

TEST(MonitorPeers, EveryProtocolsTargetThroughItsOwnServer) {
  REQUIRE_PEER();
  REQUIRE_IPERF3();
  REQUIRE_QPERF();
  REQUIRE_PROMETHEUS();
  TempDir dir("flowperf-monitor-peers");
  const uint16_t np = free_port(), ip = free_port(), qp = free_port(), fp = free_port();
  Daemon net({real_netserver(), "-D", "-p", std::to_string(np), "-L", "127.0.0.1"}, np);
  Daemon iperf3({real_iperf3(), "-s", "-p", std::to_string(ip), "--forceflush"}, ip,
                "Server listening");
  Daemon qperf({real_qperf(), "-lp", std::to_string(qp)}, qp);
  Daemon flow({flowperf_bin(), "server", "-B", "127.0.0.1", "-p", std::to_string(fp)}, fp);
  ASSERT_NE(net.port, 0) << "netserver did not start";
  ASSERT_NE(iperf3.port, 0) << "iperf3 -s did not start";
  ASSERT_NE(qperf.port, 0) << "qperf did not start";
  ASSERT_NE(flow.port, 0) << "flowperf server did not start";

  auto target = [](const std::string& name, const std::string& protocol, uint16_t port,
                   const std::string& tests) {
    return "  - {name: " + name + ", host: 127.0.0.1, protocol: " + protocol +
           ", port: " + std::to_string(port) + ", every: 3s, jitter: 0, tests: [" + tests + "]}\n";
  };
  const std::string cfg = dir.path().string() + "/m.yaml";
  std::ofstream(cfg) << "targets:\n"
                     << target("np", "netperf", np, "{test: TCP_RR, length: 1s}")
                     << target("i3", "iperf3", ip, "{test: TCP_STREAM, length: 1s}")
                     << target("qp", "qperf", qp, "{test: TCP_RR, length: 1s}")
                     << target("fp", "flowperf", fp, "{test: TCP_RR, length: 1s}");
  Process mon({flowperf_bin(), "monitor", cfg, "--listen", "127.0.0.1:0"});
  const std::string p = announced_port(mon);
  ASSERT_FALSE(p.empty());
  const int port = std::stoi(p);

  // Each target's first round starts at once and lasts about 1 s (qperf's
  // and iperf3's tests count whole seconds, and iperf3 adds its set-up);
  // 30 s is the poll's limit. The figures: a loopback TCP_RR runs 30k-200k
  // transactions a second here and a TCP stream 15-24 Gbit/s; 100/s and
  // 10 MB/s are under 1% of either, room for any load, and 0 means the
  // figure was not carried over at all.
  std::string text;
  for (const char* rr : {"np", "qp", "fp"}) {
    SCOPED_TRACE(rr);
    text = wait_for(port, "flowperf_tests_total" + labels(rr, "TCP_RR", "both"), 1);
    EXPECT_GT(value_of(text, "flowperf_transactions_per_second" + labels(rr, "TCP_RR", "both")),
              100)
        << text;
  }
  text = wait_for(port, "flowperf_tests_total" + labels("i3", "TCP_STREAM", "send"), 1);
  EXPECT_GT(
      value_of(text, "flowperf_throughput_bytes_per_second" + labels("i3", "TCP_STREAM", "send")),
      1e7)
      << text;
  EXPECT_EQ(text.find("\nflowperf_test_failures_total{"), std::string::npos) << text;

  // Prometheus scrapes all four alike.
  const Prometheus prom(dir.path().string(), port);
  const auto series = prom.wait_for_series("flowperf_tests_total", 4);
  ASSERT_EQ(series.size(), 4u) << series.dump();
  std::set<std::string> targets;
  for (const auto& s : series) targets.insert(s["metric"]["target"].get<std::string>());
  EXPECT_EQ(targets, (std::set<std::string>{"np", "i3", "qp", "fp"}));
  mon.signal(SIGTERM);
  EXPECT_FALSE(mon.wait(10s).timed_out);
}

}  // namespace
}  // namespace flowperf::testing
