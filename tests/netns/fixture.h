// What the ground-truth tests on a real link share (netns_test.cc: rates,
// loss, IPv6 and MTU; netns_paths_test.cc: stalls, latency and the
// monitor): the namespaces' addresses, the frame overheads tbf charges,
// the "[ truth ]" lines, the fixture that makes the pair of namespaces and
// runs flowperf in them, and the reconciliations that hold whatever the
// link did. Each test file includes it once.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "netns/netns.h"
#include "support/paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing::netns {

using nlohmann::json;
using Counters = std::map<std::string, uint64_t>;

const std::string kBin = ::flowperf::testing::flowperf_bin();
const std::string kPort = "12865", kPort6 = "12866";
const std::string kServer4 = "10.77.0.1", kServer6 = "fd77::1";

// Bytes of header around a TCP segment's payload as tbf charges it: tbf
// charges qdisc_pkt_len(skb), which on an Ethernet-type device such as veth
// is the frame from the destination MAC to the end of the payload: 14 bytes
// of Ethernet header, no preamble, no FCS, no inter-frame gap. A GSO packet
// is charged as its segments (qdisc_pkt_len_init adds every segment's
// headers, and tbf splits a GSO packet bigger than its burst). So a full
// IPv4 segment with timestamps is 14 + 20 + 20 + 12 + MSS bytes: 1514 for
// the 1448-byte MSS of a 1500-byte MTU. The rate tests check this against
// tbf's own byte counter, and goodput = rate × MSS / (MSS + 66).
constexpr double kTcpFrameOverhead = 14 + 20 + 20 + 12;
// A UDP datagram's frame: 14 + 20 (IPv4) + 8 (UDP) + payload; 1472 bytes of
// payload (flowperf's default size) fill a 1514-byte frame.
constexpr double kUdpFrameOverhead = 14 + 20 + 8;
constexpr double kUdpPayload = 1472;

// ---- printing the numbers for the record ----

// A rate or count against its truth; returns the relative error in %.
inline double report(const std::string& what, double expected, double measured, const char* unit) {
  double err = expected != 0 ? (measured / expected - 1) * 100 : 0;
  std::printf("[ truth    ] %-46s expected %14.3f  measured %14.3f %-7s error %+7.3f%%\n",
              what.c_str(), expected, measured, unit, err);
  std::fflush(stdout);
  return err;
}

// A share (loss) against its probability; prints the difference in points
// and in binomial standard deviations for n trials.
inline void report_share(const std::string& what, double expected, double measured, uint64_t n) {
  double sigma = std::sqrt(expected * (1 - expected) / static_cast<double>(n));
  std::printf(
      "[ truth    ] %-46s expected %13.4f%%  measured %13.4f%%  n=%-8llu diff %+.4f points "
      "(%+.2f sigma)\n",
      what.c_str(), expected * 100, measured * 100, static_cast<unsigned long long>(n),
      (measured - expected) * 100, sigma > 0 ? (measured - expected) / sigma : 0.0);
  std::fflush(stdout);
}

inline void note(const std::string& text) {
  std::printf("[ truth    ] %s\n", text.c_str());
  std::fflush(stdout);
}

uint64_t u64(const json& j) { return j.get<uint64_t>(); }
inline double d(const json& j) { return j.get<double>(); }

// The snd_mss flowperf reports from TCP_INFO, when its JSON has it.
inline std::optional<uint64_t> reported_mss(const json& doc) {
  const json& f = doc["local"]["flows"][0];
  if (f.contains("tcp_info") && f["tcp_info"].contains("snd_mss"))
    return u64(f["tcp_info"]["snd_mss"]);
  return std::nullopt;
}

// ---- the fixture ----

// The kernel's truth about one UDP test: the counters of A (receiver) and
// B (sender), what B's root qdisc dropped (all protocols: with a short tbf
// queue that includes a few segments of the TCP control connection), and
// what nftables dropped entering A. A datagram is lost for one of three
// causes, each counted by the kernel.
struct UdpTruth {
  bool v6 = false;
  Counters a, b;
  uint64_t qdisc_drops = 0, nft_drops = 0;

  // Dropped leaving B, by its qdisc or the veth: IP's OutDiscards (send()
  // still succeeds: without IP_RECVERR the kernel turns that ENOBUFS into
  // success). TCP's drops are not counted there.
  uint64_t send_drops() const { return b.at(v6 ? "Ip6OutDiscards" : "Ip.OutDiscards"); }
  // Arrived at A but not delivered to the server's socket: a full receive
  // buffer, when the server was not scheduled in time on a busy machine.
  // That is the machine's speed, not the link's loss.
  uint64_t socket_drops() const { return a.at(v6 ? "Udp6InErrors" : "Udp.InErrors"); }
  uint64_t link_drops() const { return send_drops() + nft_drops; }
  std::string causes() const {
    return "nftables " + std::to_string(nft_drops) + ", leaving B " + std::to_string(send_drops()) +
           " (B's qdisc dropped " + std::to_string(qdisc_drops) +
           " packets of all kinds), A's receiving socket " + std::to_string(socket_drops());
  }
};

class Netns : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root (run ctest as root)";
    net_ = std::make_unique<NetnsPair>();
    if (!net_->skip_reason.empty()) GTEST_SKIP() << net_->skip_reason;
    ASSERT_EQ(net_->error, "") << "setting up the namespaces failed";
    server_ = start_server(kServer4, kPort);
    ASSERT_TRUE(server_) << "flowperf server did not start in " << net_->a;
  }

  // `flowperf server` inside A; ready once its port is listening there.
  std::unique_ptr<Process> start_server(const std::string& addr, const std::string& port) {
    auto p = std::make_unique<Process>(
        net_->in(net_->a, {kBin, "server", "-q", "-p", port, "-B", addr}));
    for (int i = 0; i < 100; ++i) {
      Cmd c = net_->exec(net_->a, {tool("ss"), "-Hltn", "sport", "=", ":" + port});
      if (c.ok() && !c.out.empty()) return p;
      std::this_thread::sleep_for(50ms);
    }
    return nullptr;
  }

  // A flowperf client in B; its --json document, or null after a failure
  // (already reported).
  json client(std::vector<std::string> args, const std::string& host = kServer4,
              const std::string& port = kPort) {
    std::vector<std::string> argv = {kBin, "-H", host, "-p", port};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--json");
    Process p(net_->in(net_->b, argv));
    // Generous: every test here runs at most a few seconds, so hitting this
    // means flowperf hung.
    Outcome o = p.wait(60s);
    EXPECT_FALSE(o.timed_out) << "flowperf hung: " << join(argv);
    EXPECT_EQ(o.exit_code, 0) << join(argv) << "\n" << o.err;
    json j = json::parse(o.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "no JSON from " << join(argv) << "\n" << o.out << o.err;
    if (!j.is_object() || o.timed_out) return json();
    EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
    EXPECT_TRUE(j["total"]["receiver_counted"].get<bool>());
    return j;
  }

  void must(std::vector<std::string> argv) {
    Cmd c = run(argv);
    ASSERT_TRUE(c.ok()) << join(argv) << ": " << c.what();
  }

  // tbf on ns's veth egress. Queue: a long one (50 ms) that a TCP window
  // fills; or a short one, 40 frames, for UDP beyond the rate (see
  // UdpStreamAboveTbfRateDeliversTheLinkRate). Burst: 10 ms at the rate, at
  // least two frames. tbf dequeues from a timer; when a busy machine runs it
  // late, the tokens saved meanwhile (at most the burst) are all that keeps
  // the link from losing that time. With 2.5 ms, a loaded 2-CPU machine cost
  // the link up to 3.7% (TCP, 200 Mbit/s) and 5.5% (UDP, 50 Mbit/s). The
  // price: the first burst goes out at once, 10 ms in a 4 s test (+0.25%),
  // which the expected rates include.
  enum class Queue { kLong, kShort };
  static uint64_t burst_bytes(uint64_t rate_bps, int mtu) {
    return std::max<uint64_t>(rate_bps / 8 / 100, 2 * (static_cast<uint64_t>(mtu) + 14));
  }
  static uint64_t short_queue_bytes(int mtu) { return 40 * (static_cast<uint64_t>(mtu) + 14); }
  void shape(const std::string& ns, uint64_t rate_bps, Queue queue, int mtu = 1500) {
    uint64_t burst = burst_bytes(rate_bps, mtu);
    std::vector<std::string> argv = {tool("tc"), "-n", ns, "qdisc", "replace", "dev"};
    argv.insert(argv.end(), {NetnsPair::kDev, "root", "tbf"});
    argv.insert(argv.end(), {"rate", std::to_string(rate_bps) + "bit"});
    argv.insert(argv.end(), {"burst", std::to_string(burst)});
    if (queue == Queue::kLong)
      argv.insert(argv.end(), {"latency", "50ms"});
    else
      argv.insert(argv.end(), {"limit", std::to_string(short_queue_bytes(mtu))});
    must(argv);
  }

  // Drops `percent` % of the packets that `match` selects as they enter ns
  // (its input hook: a drop on the sender's output hook would make send()
  // fail with EPERM instead of losing the packet on the way).
  void drop_on_input(const std::string& ns, const std::string& match, int percent) {
    const std::string table = std::string("inet ") + kNftTable;
    std::string rules = "add table " + table + "; add chain " + table +
                        " in { type filter hook input priority 0; policy accept; }; add rule " +
                        table + " in " + match +
                        (percent >= 100 ? std::string()  // all: a black hole
                                        : " numgen random mod 100 < " + std::to_string(percent)) +
                        " counter drop";
    must(net_->in(ns, {tool("nft"), rules}));
  }

  bool have(const char* name) { return !tool(name).empty(); }

  // The TCP MSS the kernel must pick for this MTU: the MTU less the IP and
  // TCP headers, less 12 bytes of timestamps option when B has them on.
  uint64_t expected_mss(int mtu, bool v6) {
    Cmd ts = net_->exec(net_->b, {tool("cat"), "/proc/sys/net/ipv4/tcp_timestamps"});
    int opt = (ts.ok() && std::atoi(ts.out.c_str()) != 0) ? 12 : 0;
    return static_cast<uint64_t>(mtu - (v6 ? 40 : 20) - 20 - opt);
  }

  void set_mtu(int mtu) {
    for (const auto& ns : {net_->a, net_->b})
      must({net_->ip(), "-n", ns, "link", "set", "dev", NetnsPair::kDev, "mtu",
            std::to_string(mtu)});
  }

  // One TCP_STREAM through tbf at rate_bps on both directions' egress:
  // goodput against rate × MSS / (MSS + 66), and tbf's byte counter against
  // payload + 66 bytes per packet.
  void tcp_stream_through_tbf(uint64_t rate_bps, int mtu, const std::string& label);
  // tbf 1 Mbit/s, burst 1,600 bytes, on the client's egress (see TcpRrLatencyIsTbfsTokenTime).
  void shape_1mbit();
  // tbf 20 Mbit/s, 100 ms of queue, on the client's egress (see ACubicStreamFillsTheQueue...).
  void shape_bloated();
  double probe_delay_us(const std::string& cc);

  // A UDP_STREAM with the kernel's counters read around it into k.
  json udp_stream(std::vector<std::string> args, UdpTruth& k, const std::string& host = kServer4,
                  const std::string& port = kPort) {
    k.v6 = host.find(':') != std::string::npos;
    Counters a0 = snmp(*net_, net_->a), b0 = snmp(*net_, net_->b);
    uint64_t qdisc0 = qdisc_stats(net_->b).drops, nft0 = nft_dropped(*net_, net_->a);
    json j = client(std::move(args), host, port);
    k.a = delta(a0, snmp(*net_, net_->a));
    k.b = delta(b0, snmp(*net_, net_->b));
    k.qdisc_drops = qdisc_stats(net_->b).drops - qdisc0;
    k.nft_drops = nft_dropped(*net_, net_->a) - nft0;
    return j;
  }

  void udp_stream_loss(int percent);
  json udp_rr_with_loss(int percent);
  // UDP_RR's rate without loss and with 5% loss each way, printed.
  std::pair<double, double> udp_rr_cost();

  std::unique_ptr<NetnsPair> net_;  // declared first: destroyed after the servers
  std::unique_ptr<Process> server_, server6_;
};

// ---- reconciliation: what holds exactly, whatever the link did ----

inline void expect_tcp_stream_reconciles(const json& j) {
  const json& t = j["total"];
  EXPECT_GT(u64(t["bytes_sent"]), 0u);
  EXPECT_EQ(u64(t["bytes_sent"]), u64(t["bytes_received"]));
  EXPECT_EQ(u64(j["local"]["flows"][0]["bytes_sent"]), u64(j["remote"]["flows"][0]["bytes_recv"]));
}

inline void expect_rr_reconciles(const json& j, uint64_t req, uint64_t resp) {
  const json& t = j["total"];
  const json& c = j["local"]["flows"][0];
  EXPECT_GT(u64(t["transactions"]), 0u);
  EXPECT_EQ(u64(t["transactions"]), u64(t["remote_transactions"]));
  EXPECT_EQ(u64(c["bytes_sent"]), u64(t["transactions"]) * req);
  EXPECT_EQ(u64(c["bytes_recv"]), u64(t["transactions"]) * resp);
}

inline void expect_udp_stream_reconciles(const json& j, const UdpTruth& k, uint64_t size) {
  const json& t = j["total"];
  uint64_t sent = u64(t["datagrams_sent"]), received = u64(t["datagrams_received"]),
           lost = u64(t["datagrams_lost"]);
  EXPECT_GT(sent, 0u);
  EXPECT_LE(received, sent);
  EXPECT_EQ(lost, sent - received);
  EXPECT_EQ(u64(t["duplicates"]), 0u);
  EXPECT_EQ(u64(t["bytes_sent"]), sent * size);
  EXPECT_EQ(u64(t["bytes_received"]), received * size);
  const std::string udp = k.v6 ? "Udp6" : "Udp.";
  // B's UDP handed every datagram flowperf counts as sent to IP, which sent
  // it on or dropped it.
  EXPECT_EQ(k.b.at(udp + "OutDatagrams") + k.send_drops(), sent) << "sender's kernel disagrees";
  // A's UDP delivered to the server exactly what the server counts.
  EXPECT_EQ(k.a.at(udp + "InDatagrams"), u64(j["remote"]["flows"][0]["datagrams_recv"]))
      << "receiver's kernel disagrees";
  // Every datagram lost is one the kernel dropped, for one of the causes.
  EXPECT_EQ(lost, k.link_drops() + k.socket_drops()) << k.causes();
  if (k.socket_drops() > 0)
    note("A's receiving socket dropped " + std::to_string(k.socket_drops()) +
         " datagrams (the machine was busy); flowperf rightly counts them as lost, and they are "
         "left out of the comparison with the link's loss");
}

}  // namespace flowperf::testing::netns
