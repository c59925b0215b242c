// One server policy under every personality (session/server_policy.h),
// through `flowperf server` and the clients users run against it: the real
// netperf 2.7.1, iperf3 3.12 and qperf, and flowperf's own personalities.
// --max-rate paces what the server sends to netperf's TCP_MAERTS and to
// iperf3 -R as it paces flowperf's own TCP_MAERTS; qperf's -t never outlives
// --max-duration; the iperf3 port is the same server with the same limits;
// FLOWPERF_JSON makes each personality's client write flowperf's own JSON
// document, which `flowperf plot` draws.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/raw_client.h"
#include "support/paths.h"
#include "support/peers.h"
#include "support/ports.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// `flowperf server` on 127.0.0.1 with its iperf3 port, ready when constructed.
struct PolicyServer {
  explicit PolicyServer(std::vector<std::string> extra)
      : port(free_port()), iperf3_port(free_port()) {
    std::vector<std::string> argv = {flowperf_bin(),
                                     "server",
                                     "-B",
                                     "127.0.0.1",
                                     "-p",
                                     std::to_string(port),
                                     "--iperf3-port",
                                     std::to_string(iperf3_port)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc = std::make_unique<Process>(argv);
    ready = proc->wait_for_line("iperf3 clients also on", 10s);
  }
  uint16_t port, iperf3_port;
  std::unique_ptr<Process> proc;
  bool ready = false;
};

// netperf -k THROUGHPUT's value, in bit/s (netperf prints 10^6bits/s); -1 if absent.
double netperf_bps(const Outcome& o) {
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("THROUGHPUT=", 0) == 0) return std::stod(line.substr(11)) * 1e6;
  return -1;
}

// iperf3 -J's receiver figure, in bit/s; -1 if absent.
double iperf3_received_bps(const Outcome& o) {
  const auto j = nlohmann::json::parse(o.out, nullptr, false);
  if (j.is_discarded() || !j.contains("end") || !j["end"].contains("sum_received")) return -1;
  return j["end"]["sum_received"].value("bits_per_second", -1.0);
}

std::future<Outcome> start(std::vector<std::string> argv, std::chrono::seconds limit = 60s) {
  return std::async(std::launch::async,
                    [argv = std::move(argv), limit] { return Process(argv).wait(limit); });
}

// --max-rate 10M: the server's sending is paced for every protocol's
// client that makes it send. All four clients run at once (each test is
// paced on its own; 40 Mbit/s in all is nothing to loopback).
TEST(ServerPolicyE2E, MaxRatePacesTcpMaertsAndIperf3ReverseForEveryClient) {
  REQUIRE_PEER();
  REQUIRE_IPERF3();
  PolicyServer server({"--max-rate", "10M"});
  ASSERT_TRUE(server.ready);
  const std::string p = std::to_string(server.port), ip = std::to_string(server.iperf3_port);
  const std::vector<std::string> maerts = {"-H", "127.0.0.1",  "-p", p,    "-l",        "5",
                                           "-t", "TCP_MAERTS", "--", "-k", "THROUGHPUT"};
  auto with = [](std::string bin, std::vector<std::string> args) {
    args.insert(args.begin(), std::move(bin));
    return args;
  };
  const std::vector<std::string> reverse = {"-c", "127.0.0.1", "-p", ip, "-R", "-t", "5", "-J"};
  std::map<std::string, std::future<Outcome>> runs;
  runs.emplace("netperf 2.7.1", start(with(real_netperf(), maerts)));
  runs.emplace("flowperf's netperf", start(with(personality("netperf"), maerts)));
  runs.emplace("iperf3 3.12", start(with(real_iperf3(), reverse)));
  runs.emplace("flowperf's iperf3", start(with(personality("iperf3"), reverse)));
  for (auto& [who, run] : runs) {
    SCOPED_TRACE(who);
    const Outcome o = run.get();
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    const double bps =
        who.find("netperf") != std::string::npos ? netperf_bps(o) : iperf3_received_bps(o);
    // Expected ~10.7 Mbit/s: the kernel paces each send of the server's
    // data socket (SO_MAX_PACING_RATE, 1.25 MB/s), exact after the first
    // second, which carries a burst of ~0.4 MB (measured: 13.2-13.6 Mbit/s
    // in the first 1 s interval, then 9.4/10.5 alternating, ~10.0 on
    // average, with 128 KB sends). Over 5 s that is +7%; the bound is the
    // issue's 15%. Load cannot push it up (the pace is a ceiling) and
    // 10 Mbit/s is far below what a loaded loopback carries. Unpaced, it
    // is 15-24 Gbit/s.
    EXPECT_GT(bps, 10e6 * 0.85) << o.out;
    EXPECT_LT(bps, 10e6 * 1.15) << o.out;
  }
}

// qperf -t 100000 against --max-duration 5: refused at once, by the real
// qperf and by flowperf's, and the server says why in its log. flowperf's
// client always prints the server's words; the real one prints them when
// they arrive before its SIGURG handler has run, which under load they
// may not (Linux raises SIGURG before it queues the segment's data, and
// 0.4.11's handler reads what is there: "server: " alone, qperf-wire.md
// section 4). The server sends the '?' and the text in one segment, the
// most it can do.
TEST(ServerPolicyE2E, QperfAskingLongerThanMaxDurationIsRefused) {
  REQUIRE_QPERF();
  PolicyServer server({"--max-duration", "5"});
  ASSERT_TRUE(server.ready);
  const std::string why = "-t 100000: this server runs tests of at most 5 seconds";
  for (const std::string& qperf : {real_qperf(), personality("qperf")}) {
    SCOPED_TRACE(qperf);
    const auto t0 = Clock::now();
    const Outcome o = Process({qperf, "127.0.0.1", "-lp", std::to_string(server.port), "-t",
                               "100000", "-to", "100000", "tcp_bw"})
                          .wait(30s);
    // A refusal is one round trip; the issue allows 6 s.
    EXPECT_LT(Clock::now() - t0, 6s);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("server: "), std::string::npos) << o.out << o.err;
    if (qperf != real_qperf() || o.err.find("server: -") != std::string::npos) {
      EXPECT_NE(o.err.find("server: " + why), std::string::npos) << o.out << o.err;
    }
    EXPECT_TRUE(server.proc->wait_for_line("qperf server: " + why, 5s));
  }
}

// FLOWPERF_JSON=FILE: every personality's client writes flowperf's own
// document of its run beside its own output, and `flowperf plot` draws it.
TEST(ServerPolicyE2E, EveryPersonalitysClientWritesTheNativeJson) {
  PolicyServer server({});
  ASSERT_TRUE(server.ready);
  TempDir dir;
  const std::string p = std::to_string(server.port), ip = std::to_string(server.iperf3_port);
  struct Case {
    std::string who, test;
    std::vector<std::string> argv;
    std::string own_output;  // what the personality prints as ever
  };
  const std::vector<Case> cases = {
      {"netperf",
       "TCP_STREAM",
       {personality("netperf"), "-H", "127.0.0.1", "-p", p, "-l", "1", "-D", "0.25"},
       "Throughput"},
      {"iperf3",
       "TCP_MAERTS",
       {personality("iperf3"), "-c", "127.0.0.1", "-p", ip, "-t", "1", "-R"},
       "iperf Done."},
      {"qperf",
       "TCP_RR",
       {personality("qperf"), "127.0.0.1", "-lp", p, "-t", "1", "tcp_lat"},
       "latency"},
      {"flowperf",
       "UDP_STREAM",
       {flowperf_bin(), "-H", "127.0.0.1", "-p", p, "-t", "UDP_STREAM", "-l", "1", "-b", "10M",
        "-i", "0.25"},
       "Mbit/s"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.who);
    const std::string file = dir.path().string() + "/" + c.who + ".json";
    ::setenv("FLOWPERF_JSON", file.c_str(), 1);
    const Outcome o = Process(c.argv).wait(60s);
    ::unsetenv("FLOWPERF_JSON");
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_NE(o.out.find(c.own_output), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("\"schema_version\""), std::string::npos) << "the JSON went to stdout";
    std::ifstream f(file);
    const auto doc = nlohmann::json::parse(f, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << file << " is not JSON";
    EXPECT_EQ(doc["tool"]["name"], "flowperf");
    EXPECT_EQ(doc["test"], c.test);
    // Measured, not empty: the client's own side carried the data or the
    // transactions of its 1 s test.
    const std::string dumped = doc.dump();
    EXPECT_NE(dumped.find("\"bytes_"), std::string::npos);
    const std::string html = dir.path().string() + "/" + c.who + ".html";
    const Outcome plot = Process({flowperf_bin(), "plot", file, "-o", html}).wait(30s);
    ASSERT_EQ(plot.exit_code, 0) << plot.out << plot.err;
    std::ifstream s(html);
    const std::string drawn((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
    // A chart of the run (its intervals, or qperf's latency distribution),
    // and the test named in the header.
    EXPECT_NE(drawn.find("<svg"), std::string::npos) << html;
    EXPECT_NE(drawn.find(c.test), std::string::npos) << html;
  }
  // A file that cannot be written is said, and the run's status says it too.
  ::setenv("FLOWPERF_JSON", (dir.path().string() + "/no/such/dir/x.json").c_str(), 1);
  const Outcome o =
      Process({personality("netperf"), "-H", "127.0.0.1", "-p", p, "-l", "1"}).wait(60s);
  ::unsetenv("FLOWPERF_JSON");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(
      o.err.find("FLOWPERF_JSON=" + dir.path().string() + "/no/such/dir/x.json: cannot write"),
      std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("Throughput"), std::string::npos) << "the run's own output stands";
}

// The memory budget, with the default limits (--max-buffer 16M, --max-memory
// 256M), through every front end's client: a buffer larger than a stream may
// have and buffers larger than all tests may have together are refused,
// each naming its limit, before the server allocates anything: its peak
// resident memory stays far below what was asked (256 MiB twice took it
// from 7 MB to 532 MB before).
TEST(ServerPolicyE2E, MemoryBudgetRefusesBeforeAllocating) {
  PolicyServer server({});
  ASSERT_TRUE(server.ready);
  const std::string p = std::to_string(server.port), ip = std::to_string(server.iperf3_port);
  struct Case {
    std::string who;
    std::vector<std::string> argv;
    std::string limit;  // the option the refusal names
  };
  const std::vector<Case> cases = {
      {"flowperf, -m 256M -P 2",
       {flowperf_bin(), "-H", "127.0.0.1", "-p", p, "-t", "TCP_MAERTS", "-m", "256M", "-P", "2",
        "-l", "1"},
       "--max-buffer"},
      {"flowperf, -m 16M -P 100",
       {flowperf_bin(), "-H", "127.0.0.1", "-p", p, "-t", "TCP_MAERTS", "-m", "16M", "-P", "100",
        "-l", "1"},
       "--max-memory"},
      {"netperf, -S 256M",
       {personality("netperf"), "-H", "127.0.0.1", "-p", p, "-t", "TCP_MAERTS", "-l", "1", "--",
        "-S", "256M"},
       "--max-buffer"},
      {"iperf3, -w 64M",
       {personality("iperf3"), "-c", "127.0.0.1", "-p", ip, "-t", "1", "-w", "64M"},
       "--max-buffer"},
      {"qperf, -m 256M",
       {personality("qperf"), "127.0.0.1", "-lp", p, "-t", "1", "-m", "256M", "tcp_bw"},
       "--max-buffer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.who);
    const Outcome o = Process(c.argv).wait(60s);
    EXPECT_NE(o.exit_code, 0) << o.out << o.err;
    EXPECT_TRUE(server.proc->wait_for_line(c.limit, 10s))
        << "the server's log names no " << c.limit;
  }
  // flowperf's own client is told the server's words.
  const Outcome told = Process(cases[0].argv).wait(60s);
  EXPECT_NE(told.err.find("this server takes buffers of at most 16777216 bytes a stream "
                          "(--max-buffer)"),
            std::string::npos)
      << told.err;
  // Nothing of it was allocated (idle: ~7 MB; one 256 MiB buffer would
  // be 256 MB).
  const long peak = status_bytes(server.proc->pid(), "VmHWM:");
  ASSERT_GT(peak, 0);
  EXPECT_LT(peak, 100L << 20) << "peak RSS " << peak;
  // A test within the budget runs.
  const Outcome ok = Process({flowperf_bin(), "-H", "127.0.0.1", "-p", p, "-t", "TCP_MAERTS", "-m",
                              "1M", "-P", "2", "-l", "1"})
                         .wait(60s);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

}  // namespace
}  // namespace flowperf::testing
