// End-to-end tests of the modes that trade realism for speed and of scale:
// UDP_STREAM batching (--batch, --gso) keeps the sender's and receiver's
// counts exactly reconciled and is named in text and JSON; --busy-poll RR
// tests and --rst-close TCP_CRR complete and say so; 10,000 TCP_RR flows on
// two threads per side complete against a `flowperf server` process; a
// descriptor limit that is too low is refused up front, on either end, with
// exit 2. Real processes on 127.0.0.1; counts, not speeds, are asserted.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/process.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::string kBin = ::flowperf::testing::flowperf_bin();

// A `flowperf server` on an ephemeral port of 127.0.0.1. prefix: run it
// under `sh -c "<prefix>; exec flowperf server ..."` (e.g. a ulimit).
class Server {
 public:
  explicit Server(const std::string& prefix = "") {
    std::vector<std::string> argv = {kBin, "server", "-p", "0", "-B", "127.0.0.1"};
    if (!prefix.empty()) {
      std::string cmd = prefix + "; exec";
      for (auto& a : argv) cmd += " '" + a + "'";
      argv = {"/bin/sh", "-c", cmd};
    }
    proc_ = std::make_unique<Process>(argv);
    port_ = announced_port(*proc_);
  }
  const std::string& port() const { return port_; }

 private:
  std::unique_ptr<Process> proc_;
  std::string port_;
};

Outcome run(std::vector<std::string> argv, std::chrono::milliseconds limit = 60s) {
  Process p(std::move(argv));
  return p.wait(limit);
}

class PerfModes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new Server(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_FALSE(server_->port().empty()) << "the server did not start"; }

  static Outcome client(std::vector<std::string> args) {
    std::vector<std::string> argv = {kBin, "-H", "127.0.0.1", "-p", server_->port()};
    for (auto& a : args) argv.push_back(a);
    return run(argv);
  }
  static json run_json(std::vector<std::string> args) {
    args.push_back("--json");
    Outcome o = client(args);
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    json j = json::parse(o.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << o.out;
    return j;
  }
  static Server* server_;
};
Server* PerfModes::server_ = nullptr;

uint64_t u64(const json& j) { return j.get<uint64_t>(); }

// ---- UDP_STREAM batching: every datagram is counted once on each end ----

// 64 datagrams of 512 bytes fit the receiver's default socket buffer even if
// it does not run until the end, so none can be lost and the two ends' counts
// must match exactly.
constexpr uint64_t kDatagrams = 64, kSize = 512;

void ExpectExactlyDelivered(const json& j, uint64_t send_calls) {
  const json& t = j["total"];
  EXPECT_EQ(u64(t["datagrams_sent"]), kDatagrams);
  EXPECT_EQ(u64(t["datagrams_received"]), kDatagrams);
  EXPECT_EQ(u64(t["datagrams_lost"]), 0u);
  EXPECT_EQ(u64(t["out_of_order"]), 0u);
  EXPECT_EQ(u64(t["duplicates"]), 0u);
  EXPECT_EQ(u64(t["bytes_sent"]), kDatagrams * kSize);
  EXPECT_EQ(u64(t["bytes_received"]), kDatagrams * kSize);
  const json& sender = j["local"]["flows"][0];
  const json& receiver = j["remote"]["flows"][0];
  EXPECT_EQ(u64(sender["datagrams_sent"]), kDatagrams);
  EXPECT_EQ(u64(sender["send_calls"]), send_calls);
  EXPECT_EQ(u64(receiver["datagrams_recv"]), kDatagrams);
  EXPECT_EQ(u64(receiver["bytes_recv"]), kDatagrams * kSize);
  EXPECT_GE(u64(receiver["recv_calls"]), 1u);
  EXPECT_LE(u64(receiver["recv_calls"]), kDatagrams);
}

std::vector<std::string> CountedUdp(std::vector<std::string> extra) {
  std::vector<std::string> a = {
      "-t", "UDP_STREAM", "-m", std::to_string(kSize), "-n", std::to_string(kDatagrams * kSize)};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST_F(PerfModes, UdpBatchCountsReconcileExactly) {
  json j = run_json(CountedUdp({"--batch", "16"}));
  EXPECT_EQ(j["spec"]["batch"], 16);
  EXPECT_EQ(j["spec"]["gso"], false);
  ExpectExactlyDelivered(j, kDatagrams / 16);  // four sendmmsg calls
}

TEST_F(PerfModes, UdpBatchOneIsOneSendPerDatagram) {
  json j = run_json(CountedUdp({"--batch", "1"}));
  EXPECT_EQ(j["spec"]["batch"], 1);
  ExpectExactlyDelivered(j, kDatagrams);
}

TEST_F(PerfModes, UdpStreamBatchesByDefaultAndSaysSo) {
  json j = run_json(CountedUdp({}));
  EXPECT_EQ(j["spec"]["batch"], 32);
  ExpectExactlyDelivered(j, kDatagrams / 32);

  Outcome o = client(CountedUdp({}));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("batch 32 (sendmmsg/recvmmsg)"), std::string::npos) << o.out;
}

// With --gso the receiver still reads each datagram on its own; with --gro
// too it gets whole GSO buffers and splits them. Either way every datagram
// is counted once.
TEST_F(PerfModes, UdpGsoAndGroCountEveryDatagram) {
  struct Case {
    std::vector<std::string> flags;
    bool gro;
    const char* header;
  };
  for (const Case& c : {Case{{"--gso"}, false, "batch 16 (UDP GSO send/recvmmsg)"},
                        Case{{"--gso", "--gro"}, true, "batch 16 (UDP GSO send/GRO receive)"}}) {
    SCOPED_TRACE(c.header);
    std::vector<std::string> args = c.flags;
    args.insert(args.end(), {"--batch", "16", "--json"});
    Outcome o = client(CountedUdp(args));
    if (o.err.find("UDP GSO send failed") != std::string::npos)
      GTEST_SKIP() << "this kernel or route refuses UDP GSO: " << o.err;
    ASSERT_EQ(o.exit_code, 0) << o.err;
    json j = json::parse(o.out);
    EXPECT_EQ(j["spec"]["gso"], true);
    EXPECT_EQ(j["spec"]["gro"], c.gro);
    EXPECT_EQ(j["spec"]["batch"], 16);
    ExpectExactlyDelivered(j, kDatagrams / 16);  // one GSO buffer per call

    args.pop_back();
    Outcome text = client(CountedUdp(args));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find(c.header), std::string::npos) << text.out;
  }
}

TEST_F(PerfModes, UdpBatchUnderLossStillReconciles) {
  // Unpaced for a second: the receiver may fall behind and lose datagrams;
  // whatever happens, what was lost is what was sent and not received.
  json j = run_json({"-t", "UDP_STREAM", "-m", "64", "-l", "1", "--batch", "64"});
  const json& t = j["total"];
  const uint64_t sent = u64(t["datagrams_sent"]), received = u64(t["datagrams_received"]);
  EXPECT_GT(sent, 0u);
  EXPECT_LE(received, sent);
  EXPECT_EQ(u64(t["datagrams_lost"]), sent - received);
  EXPECT_EQ(u64(j["remote"]["flows"][0]["datagrams_recv"]) - u64(t["duplicates"]), received);
  EXPECT_EQ(u64(j["remote"]["flows"][0]["bytes_recv"]),
            u64(j["remote"]["flows"][0]["datagrams_recv"]) * 64);
  EXPECT_EQ(u64(t["bytes_sent"]), sent * 64);
}

TEST_F(PerfModes, BatchAndGsoOutsideUdpStreamAreUsageErrors) {
  Outcome o = client({"-t", "TCP_RR", "--batch", "8"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--batch 8: batching applies to UDP_STREAM only"), std::string::npos)
      << o.err;
  o = client({"-t", "TCP_STREAM", "--gso"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--gso"), std::string::npos) << o.err;
  o = client({"-t", "UDP_RR", "--gro"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--gro"), std::string::npos) << o.err;
  o = client({"-t", "UDP_STREAM", "--batch", "0"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--batch 0"), std::string::npos) << o.err;
}

// ---- busy-poll ----

TEST_F(PerfModes, BusyPollTcpRrCompletesAndSaysSo) {
  json j = run_json({"-t", "TCP_RR", "-l", "0.5", "--busy-poll"});
  EXPECT_EQ(j["spec"]["busy_poll"], true);
  EXPECT_GT(u64(j["total"]["transactions"]), 0u);
  EXPECT_EQ(j["total"]["transactions"], j["total"]["remote_transactions"]);
  EXPECT_TRUE(j["errors"].empty()) << j["errors"];

  Outcome o = client({"-t", "TCP_RR", "-l", "0.3", "--busy-poll"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("busy-poll"), std::string::npos) << o.out;
}

TEST_F(PerfModes, BusyPollCountedRunsOnEveryRrTest) {
  // Counted, on one thread (direct) and on an epoll loop of several flows.
  for (const char* test : {"TCP_RR", "TCP_CRR", "UDP_RR"}) {
    for (const char* streams : {"1", "4"}) {
      SCOPED_TRACE(std::string(test) + " -P " + streams);
      std::vector<std::string> args = {"-t",    test,        "-n", "400",        "-P",
                                       streams, "--threads", "2",  "--busy-poll"};
      // A long timeout: a loaded machine must not turn a slow answer into a loss.
      if (std::string(test) == "UDP_RR")
        args.insert(args.end(), {"--udp-rr-min-timeout", "100000"});
      json j = run_json(args);
      EXPECT_EQ(j["spec"]["busy_poll"], true);
      const uint64_t local = u64(j["total"]["transactions"]);
      EXPECT_EQ(local, 400u);
      EXPECT_GE(u64(j["total"]["remote_transactions"]), local);
      EXPECT_TRUE(j["errors"].empty()) << j["errors"];
    }
  }
}

TEST_F(PerfModes, BusyPollOnAStreamTestIsAUsageError) {
  Outcome o = client({"-t", "TCP_STREAM", "--busy-poll"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--busy-poll"), std::string::npos) << o.err;
}

// ---- RST close ----

TEST_F(PerfModes, RstCloseCrrCountsEveryTransactionAndSaysSo) {
  // One flow, blocking on both ends; then four busy-polling flows on two
  // threads, which puts the server's connections on its event loop: it
  // waits for each client's RST in both.
  for (bool busy : {false, true}) {
    SCOPED_TRACE(busy ? "-P 4 --busy-poll" : "-P 1");
    std::vector<std::string> args = {"-t", "TCP_CRR", "-n", "300", "--rst-close"};
    if (busy) args.insert(args.end(), {"-P", "4", "--threads", "2", "--busy-poll"});
    json j = run_json(args);
    EXPECT_EQ(j["spec"]["rst_close"], true);
    EXPECT_EQ(u64(j["total"]["transactions"]), 300u);
    EXPECT_EQ(u64(j["total"]["remote_transactions"]), 300u);
    EXPECT_TRUE(j["errors"].empty()) << j["errors"];
  }
  Outcome o = client({"-t", "TCP_CRR", "-n", "50", "--rst-close"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("RST close"), std::string::npos) << o.out;
}

TEST_F(PerfModes, RstCloseOutsideTcpCrrIsAUsageError) {
  for (const char* test : {"TCP_RR", "TCP_CC", "UDP_RR", "TCP_STREAM"}) {
    Outcome o = client({"-t", test, "--rst-close"});
    EXPECT_EQ(o.exit_code, 2) << test;
    EXPECT_NE(o.err.find("--rst-close"), std::string::npos) << o.err;
  }
}

// ---- sendfile ----

TEST_F(PerfModes, SendfileStreamsCountEveryByteAndSaySo) {
  // TCP_STREAM sends from the client, TCP_MAERTS from the server; one flow
  // blocking, then two flows on two threads (non-blocking, epoll).
  for (const char* test : {"TCP_STREAM", "TCP_MAERTS"}) {
    for (bool many : {false, true}) {
      SCOPED_TRACE(std::string(test) + (many ? " -P 2" : " -P 1"));
      std::vector<std::string> args = {"-t", test, "-n", "8M", "-m", "64K", "--sendfile"};
      if (many) args.insert(args.end(), {"-P", "2", "--threads", "2"});
      json j = run_json(args);
      EXPECT_EQ(j["spec"]["sendfile"], true);
      // Sent by the sending end's flows, received by the other end's.
      EXPECT_EQ(u64(j["total"]["bytes_sent"]), 8u << 20);
      EXPECT_EQ(u64(j["total"]["bytes_received"]), 8u << 20);
      const bool up = std::string(test) == "TCP_STREAM";
      uint64_t sent = 0, received = 0;
      for (const json& f : j[up ? "local" : "remote"]["flows"]) sent += u64(f["bytes_sent"]);
      for (const json& f : j[up ? "remote" : "local"]["flows"]) received += u64(f["bytes_recv"]);
      EXPECT_EQ(sent, 8u << 20);
      EXPECT_EQ(received, 8u << 20);
      EXPECT_TRUE(j["errors"].empty()) << j["errors"];
    }
  }
  Outcome o = client({"-t", "TCP_STREAM", "-n", "1M", "--sendfile"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("sendfile"), std::string::npos) << o.out;
}

TEST_F(PerfModes, SendfileOutsideTcpStreamsIsAUsageError) {
  for (const char* test : {"UDP_STREAM", "TCP_RR", "TCP_CRR", "UDP_RR"}) {
    Outcome o = client({"-t", test, "--sendfile"});
    EXPECT_EQ(o.exit_code, 2) << test;
    EXPECT_NE(o.err.find("--sendfile"), std::string::npos) << o.err;
  }
}

// ---- call latency ----

uint64_t histogram_count(const json& latency) {
  uint64_t n = 0;
  for (const json& b : latency["buckets"]) n += u64(b[1]);
  return n;
}

uint64_t sum_of(const json& side, const char* key) {
  uint64_t n = 0;
  for (const json& f : side["flows"]) n += u64(f[key]);
  return n;
}

// Each send and receive call is timed once: a side's histogram holds as
// many times as the side made calls that moved data (TCP: both ends; UDP:
// the sender). Without --call-latency a stream test's histograms are empty.
TEST_F(PerfModes, CallLatencyTimesEachCallThatMovedData) {
  for (const char* test : {"TCP_STREAM", "TCP_MAERTS"}) {
    for (bool many : {false, true}) {
      SCOPED_TRACE(std::string(test) + (many ? " -P 2" : " -P 1"));
      std::vector<std::string> args = {"-t", test, "-n", "8M", "-m", "64K", "--call-latency"};
      if (many) args.insert(args.end(), {"-P", "2", "--threads", "2"});
      json j = run_json(args);
      EXPECT_EQ(j["spec"]["call_latency"], true);
      const bool up = std::string(test) == "TCP_STREAM";
      const json& sender = j[up ? "local" : "remote"];
      const json& receiver = j[up ? "remote" : "local"];
      // 8M in 64K sends: 128 calls when each takes all 64K, more when the
      // socket has less room than that (a non-blocking send then moves part
      // of it, likelier under memory pressure). The full suite failed here
      // once, beside tests of thousands of flows, with an exact 128 in this
      // place; its output was lost, and 150 runs under stress-ng alone did
      // not repeat it. Every call that moved data is timed, whatever their
      // number: that is what is asserted.
      EXPECT_EQ(sum_of(sender, "bytes_sent"), 8u << 20);
      EXPECT_GE(sum_of(sender, "send_calls"), 128u);
      EXPECT_EQ(histogram_count(sender["latency"]), sum_of(sender, "send_calls"));
      EXPECT_GE(sum_of(receiver, "recv_calls"), 1u);
      EXPECT_EQ(histogram_count(receiver["latency"]), sum_of(receiver, "recv_calls"));
      EXPECT_GT(u64(sender["latency"]["min"]), 0u);
    }
  }
  json udp =
      run_json({"-t", "UDP_STREAM", "-n", "64K", "-m", "1K", "--batch", "1", "--call-latency"});
  EXPECT_EQ(sum_of(udp["local"], "send_calls"), 64u);
  EXPECT_EQ(histogram_count(udp["local"]["latency"]), 64u);
  json off = run_json({"-t", "TCP_STREAM", "-n", "1M"});
  EXPECT_EQ(histogram_count(off["local"]["latency"]), 0u);
  EXPECT_EQ(histogram_count(off["remote"]["latency"]), 0u);
  Outcome text = client({"-t", "TCP_STREAM", "-n", "1M", "--call-latency"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("call latency"), std::string::npos) << text.out;
  for (const char* test : {"TCP_RR", "TCP_CRR", "UDP_RR"}) {
    Outcome o = client({"-t", test, "--call-latency"});
    EXPECT_EQ(o.exit_code, 2) << test;
    EXPECT_NE(o.err.find("--call-latency"), std::string::npos) << o.err;
  }
}

// ---- many flows ----

TEST_F(PerfModes, UdpRrManyFlowsOnTwoThreads) {
  // Many UDP_RR flows on two epoll loops: each flow's timeout lives in the
  // worker's timer heap.
  json j = run_json({"-t", "UDP_RR", "-l", "1", "-P", "64", "--threads", "2"});
  EXPECT_GT(u64(j["total"]["transactions"]), 0u);
  EXPECT_GE(u64(j["total"]["remote_transactions"]), u64(j["total"]["transactions"]));
  EXPECT_TRUE(j["errors"].empty()) << j["errors"];
}

uint64_t HardFileLimit() {
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  return rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max;
}

uint64_t EphemeralPorts() {
  std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range");
  uint64_t lo = 0, hi = 0;
  f >> lo >> hi;
  return hi >= lo ? hi - lo + 1 : 0;
}

TEST(PerfScale, TenThousandTcpRrFlowsOnTwoThreads) {
  // Each process holds one socket per flow plus a few dozen others.
  constexpr uint64_t kFlows = 10000, kNeeded = kFlows + 100;
  if (HardFileLimit() < kNeeded)
    GTEST_SKIP() << "-P 10000 needs about " << kNeeded
                 << " descriptors per process; the hard open-file limit is " << HardFileLimit()
                 << " (ulimit -Hn)";
  if (EphemeralPorts() < kFlows + 1000)
    GTEST_SKIP() << "-P 10000 needs 10000 local ports; net.ipv4.ip_local_port_range has only "
                 << EphemeralPorts();
  Server server;
  ASSERT_FALSE(server.port().empty());
  // Counted: three transactions per flow, so every one of the 10,000 flows
  // must finish its own, however slow the machine.
  Outcome o = run({kBin, "-H", "127.0.0.1", "-p", server.port(), "-t", "TCP_RR", "-P", "10000",
                   "--threads", "2", "-n", "30000", "--json"},
                  170s);
  ASSERT_FALSE(o.timed_out);
  ASSERT_EQ(o.exit_code, 0) << o.err.substr(0, 2000);
  json j = json::parse(o.out);
  EXPECT_TRUE(j["errors"].empty()) << j["errors"];
  EXPECT_EQ(j["local"]["threads"], 2);
  EXPECT_EQ(j["remote"]["threads"], 2);
  ASSERT_EQ(j["streams"].size(), kFlows);
  uint64_t wrong = 0;
  for (const auto& s : j["streams"]) wrong += u64(s["transactions"]) != 3;
  EXPECT_EQ(wrong, 0u) << "every flow did its three transactions";
  EXPECT_EQ(u64(j["total"]["transactions"]), 30000u);
  EXPECT_EQ(u64(j["total"]["remote_transactions"]), 30000u);
}

// ---- a descriptor limit that is too low: refused up front, exit 2 ----

Outcome UnderLimit(const std::string& limit, std::vector<std::string> args) {
  std::string cmd = "ulimit -n " + limit + "; exec '" + kBin + "'";
  for (auto& a : args) cmd += " '" + a + "'";
  return run({"/bin/sh", "-c", cmd}, 30s);
}

TEST(PerfScale, TooFewDescriptorsForTheClientIsAUsageError) {
  Outcome o = UnderLimit("256", {"-H", "127.0.0.1", "-p", "9", "-t", "TCP_RR", "-P", "1000"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("-P 1000 needs about"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("the open-file limit is 256 (ulimit -n)"), std::string::npos) << o.err;
}

TEST(PerfScale, TooFewDescriptorsForTheEmbeddedServerCountsBothEnds) {
  Outcome o = UnderLimit("1500", {"-t", "TCP_RR", "-P", "1000"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("both ends run in this process"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("the open-file limit is 1500"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("flowperf server"), std::string::npos) << o.err;
}

TEST(PerfScale, TooFewDescriptorsOnTheServerIsRefusedWithExit2) {
  Server small("ulimit -n 300");
  ASSERT_FALSE(small.port().empty());
  Outcome o = run({kBin, "-H", "127.0.0.1", "-p", small.port(), "-t", "TCP_RR", "-P", "1000"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("needs about"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("on the server"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("is 300"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flowperf::testing
