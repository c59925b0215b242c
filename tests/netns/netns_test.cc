// Ground-truth tests on a real link: a flowperf server in network namespace
// A, clients in namespace B, a veth pair between them. The link's truth is
// set (a tbf rate, an nftables loss rate, an MTU, IPv6) and also read back
// from the kernel's own counters (tbf's bytes and drops, the drop rules'
// counters, /proc/net/snmp). flowperf's numbers must agree with that truth:
// exactly where the kernel counts the same thing, within a stated tolerance
// where the truth is a rate or a probability.
//
// Each test prints its expected and measured numbers ("[ truth ]" lines).
// Needs root; without it, or where namespaces cannot be made, every test
// skips and says why. Traffic only ever goes to 10.77.0.0/24 and fd77::/64
// on the veth, inside the namespaces this suite makes and deletes.
#include "netns/netns.h"

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

#include "support/paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing::netns {
namespace {

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
double report(const std::string& what, double expected, double measured, const char* unit) {
  double err = expected != 0 ? (measured / expected - 1) * 100 : 0;
  std::printf("[ truth    ] %-46s expected %14.3f  measured %14.3f %-7s error %+7.3f%%\n",
              what.c_str(), expected, measured, unit, err);
  std::fflush(stdout);
  return err;
}

// A share (loss) against its probability; prints the difference in points
// and in binomial standard deviations for n trials.
void report_share(const std::string& what, double expected, double measured, uint64_t n) {
  double sigma = std::sqrt(expected * (1 - expected) / static_cast<double>(n));
  std::printf(
      "[ truth    ] %-46s expected %13.4f%%  measured %13.4f%%  n=%-8llu diff %+.4f points "
      "(%+.2f sigma)\n",
      what.c_str(), expected * 100, measured * 100, static_cast<unsigned long long>(n),
      (measured - expected) * 100, sigma > 0 ? (measured - expected) / sigma : 0.0);
  std::fflush(stdout);
}

void note(const std::string& text) {
  std::printf("[ truth    ] %s\n", text.c_str());
  std::fflush(stdout);
}

uint64_t u64(const json& j) { return j.get<uint64_t>(); }
double d(const json& j) { return j.get<double>(); }

// The snd_mss flowperf reports from TCP_INFO, when its JSON has it.
std::optional<uint64_t> reported_mss(const json& doc) {
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

void expect_tcp_stream_reconciles(const json& j) {
  const json& t = j["total"];
  EXPECT_GT(u64(t["bytes_sent"]), 0u);
  EXPECT_EQ(u64(t["bytes_sent"]), u64(t["bytes_received"]));
  EXPECT_EQ(u64(j["local"]["flows"][0]["bytes_sent"]), u64(j["remote"]["flows"][0]["bytes_recv"]));
}

void expect_rr_reconciles(const json& j, uint64_t req, uint64_t resp) {
  const json& t = j["total"];
  const json& c = j["local"]["flows"][0];
  EXPECT_GT(u64(t["transactions"]), 0u);
  EXPECT_EQ(u64(t["transactions"]), u64(t["remote_transactions"]));
  EXPECT_EQ(u64(c["bytes_sent"]), u64(t["transactions"]) * req);
  EXPECT_EQ(u64(c["bytes_recv"]), u64(t["transactions"]) * resp);
}

void expect_udp_stream_reconciles(const json& j, const UdpTruth& k, uint64_t size) {
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

// ---- 1. rate: TCP_STREAM through tbf ----

void Netns::tcp_stream_through_tbf(uint64_t rate_bps, int mtu, const std::string& label) {
  if (!have("tc")) GTEST_SKIP() << "tc (iproute2) is not installed";
  // Both directions shaped, as a symmetric link: data leaves B, ACKs leave A.
  ASSERT_NO_FATAL_FAILURE(shape(net_->a, rate_bps, Queue::kLong, mtu));
  ASSERT_NO_FATAL_FAILURE(shape(net_->b, rate_bps, Queue::kLong, mtu));
  QdiscStats before = qdisc_stats(net_->b);
  // 4 s: TCP has no slow start to speak of here (the RTT is microseconds, so
  // the window opens in a few ms), and the sender's elapsed time ends only
  // when the receiver has read everything (its end-of-file), so the bytes
  // still queued at the stop are both counted and timed. The whole-test
  // goodput is then unbiased. The receiver's -i intervals show the rate is
  // steady, not an average of bursts.
  json j = client({"-t", "TCP_STREAM", "-l", "4", "-i", "0.5"});
  ASSERT_TRUE(j.is_object());
  QdiscStats after = qdisc_stats(net_->b);
  expect_tcp_stream_reconciles(j);

  uint64_t mss = expected_mss(mtu, false);
  if (auto r = reported_mss(j)) {
    EXPECT_EQ(*r, mss) << "flowperf's TCP_INFO snd_mss";
    report(label + " snd_mss", static_cast<double>(mss), static_cast<double>(*r), "B");
  }
  // The link's truth over the client's elapsed time: rate × time, plus the
  // bucket's first burst, of which MSS / (MSS + 66) is payload. (The queue
  // left at the stop is drained within that time: the sender waits.)
  double elapsed = j["total"]["elapsed_s"];
  double wire_bits = static_cast<double>(rate_bps) * elapsed + 8.0 * burst_bytes(rate_bps, mtu);
  double expected = wire_bits / elapsed * mss / (mss + kTcpFrameOverhead);
  double measured = j["total"]["bits_per_second"];
  double err = report(label + " goodput", expected / 1e6, measured / 1e6, "Mbit/s");
  // Expected 0: the truth above counts tbf's first burst and the queue drained at the end. What
  // moves it is the emulator: a tbf timer run later than its 10 ms burst covers loses link time
  // (see shape()). 3% of the 4 s is 120 ms of link time lost that way.
  EXPECT_LT(std::fabs(err), 3.0) << "goodput off the link's truth by more than 3%";

  // Every whole interval but the first (the window opening, tbf's first
  // burst) delivers the link's goodput within 10%.
  const json& riv = j["remote"]["intervals"];
  // 4 s at 0.5 s: the server ticks at 0.5-3.5 s (4 s if Stop comes later) and adds its last
  // sample after the drain, 8 or 9; a late tick keeps the count, and 6 allows two lost.
  ASSERT_GE(riv.size(), 6u);
  double worst = 0;
  for (size_t i = 1; i + 1 < riv.size(); ++i) {
    const json& iv = riv[i];
    const double dt = iv["end_s"].get<double>() - iv["start_s"].get<double>();
    if (dt < 0.4) continue;  // a short one, after a late sample
    const double rate = 8.0 * static_cast<double>(u64(iv["flows"][0]["bytes_recv"])) / dt;
    const double off = 100.0 * (rate - expected) / expected;
    if (std::fabs(off) > std::fabs(worst)) worst = off;
    // A read or a tbf dequeue run late moves bytes into the next interval: 10% of 0.5 s is 50 ms
    // of the link's bytes, more than either is late on a machine the test has to itself.
    EXPECT_LT(std::fabs(off), 10.0) << "interval " << i << ": " << rate / 1e6 << " Mbit/s";
  }
  note(label + ": the receiver's worst 0.5 s interval is " + std::to_string(worst) +
       "% off the link's goodput");

  // What tbf charged: every packet on B's egress is a data segment or the
  // control connection's, each payload plus 66 bytes (14 + 20 + 32).
  uint64_t bytes = after.bytes - before.bytes, packets = after.packets - before.packets;
  double payload_plus_headers = static_cast<double>(u64(j["total"]["bytes_received"])) +
                                kTcpFrameOverhead * static_cast<double>(packets);
  double tbf_err = report(label + " tbf bytes vs payload+66/pkt", payload_plus_headers,
                          static_cast<double>(bytes), "B");
  // Off only by the payload of B's control messages (Hello, Setup, Start, Stop: a few KB) and
  // the odd ARP or neighbour packet; 0.2% of the 25 MB that 50 Mbit/s carries in 4 s is 50 KB.
  EXPECT_LT(std::fabs(tbf_err), 0.2) << "tbf does not charge the frame we assume";
  // How busy tbf kept the link: below the rate, the emulator (a late timer
  // on a busy machine) or TCP (an empty queue) left it idle for a while.
  report(label + " tbf carried, all frames", wire_bits / elapsed / 1e6,
         static_cast<double>(bytes) * 8 / elapsed / 1e6, "Mbit/s");
}

TEST_F(Netns, TcpStreamGoodputMatchesTbfAt50Mbit) {
  tcp_stream_through_tbf(50'000'000, 1500, "TCP_STREAM tbf 50M");
}

TEST_F(Netns, TcpStreamGoodputMatchesTbfAt200Mbit) {
  tcp_stream_through_tbf(200'000'000, 1500, "TCP_STREAM tbf 200M");
}

// ---- 2. rate: UDP_STREAM below and above tbf ----

// The long queue: flowperf's pacer catches up after a late wake-up by
// sending back to back, and on a busy machine such a burst can exceed a
// 20-frame queue (measured: 5.9% loss at 40M with one). A sender below the
// link rate should lose nothing to those bursts, as behind a real switch
// port's buffer.
TEST_F(Netns, UdpStreamBelowTbfRateLosesNothing) {
  if (!have("tc")) GTEST_SKIP() << "tc (iproute2) is not installed";
  ASSERT_NO_FATAL_FAILURE(shape(net_->b, 50'000'000, Queue::kLong));
  UdpTruth k;
  json j = udp_stream({"-t", "UDP_STREAM", "-l", "4", "-b", "40M"}, k);
  ASSERT_TRUE(j.is_object());
  expect_udp_stream_reconciles(j, k, 1472);

  const json& t = j["total"];
  uint64_t sent = u64(t["datagrams_sent"]);
  double loss = t["loss_percent"].get<double>() / 100;
  double link_loss = static_cast<double>(k.link_drops()) / static_cast<double>(sent);
  report_share("UDP_STREAM 40M on tbf 50M: loss", 0, loss, sent);
  report_share("UDP_STREAM 40M on tbf 50M: loss on the link", 0, link_loss, sent);
  // Expected 0: the 50 ms queue (312 KB, about 200 frames) holds the catch-up burst of a wake-up
  // up to some 60 ms late. 0.5% is 68 of the ~13,600 datagrams 40 Mbit/s sends in 4 s.
  EXPECT_LT(link_loss, 0.005) << k.causes();
  double offered = t["offered_bits_per_second"], delivered = t["bits_per_second"];
  report("UDP_STREAM 40M on tbf 50M: offered", 40, offered / 1e6, "Mbit/s");
  report("UDP_STREAM 40M on tbf 50M: delivered", offered / 1e6, delivered / 1e6, "Mbit/s");
  // All that was offered arrived, whether or not a busy server read it. Both rates divide by
  // the same elapsed time, so this is the loss check above in rates: under 0.5% may be missing.
  double dropped_at_socket = 8.0 * 1472 * k.socket_drops() / t["elapsed_s"].get<double>();
  EXPECT_NEAR(delivered + dropped_at_socket, offered, 0.005 * offered);
}

// A tbf on the sender's own interface pushes back on the sender: packets
// waiting in it are charged to the sending socket, and once the socket's send
// buffer (about 200 KB by default) is full, send() waits. With a 50 ms queue
// (312 KB at 50 Mbit/s) a 100 Mbit/s UDP sender is slowed to the link rate
// and loses nothing (measured: offered 48.8 Mbit/s, no loss): true, but not
// a lossy bottleneck. A queue of 40 frames (about 90 fit in the send buffer)
// overflows first, so the excess is dropped at the bottleneck as on a
// router's port, tbf counts the drops, and send() still succeeds.
TEST_F(Netns, UdpStreamAboveTbfRateDeliversTheLinkRate) {
  if (!have("tc")) GTEST_SKIP() << "tc (iproute2) is not installed";
  const uint64_t rate = 50'000'000;
  ASSERT_NO_FATAL_FAILURE(shape(net_->b, rate, Queue::kShort));
  UdpTruth k;
  json j = udp_stream({"-t", "UDP_STREAM", "-l", "4", "-b", "100M"}, k);
  ASSERT_TRUE(j.is_object());
  expect_udp_stream_reconciles(j, k, 1472);

  const json& t = j["total"];
  // The link's truth over the sender's elapsed time: rate × time, plus the
  // bucket's first burst, plus the full queue that drains after the sender
  // stopped (the server still counts it); payload / frame of it is payload.
  double elapsed = t["elapsed_s"];
  uint64_t extra = burst_bytes(rate, 1500) + short_queue_bytes(1500);
  double wire_bits = static_cast<double>(rate) * elapsed + 8.0 * static_cast<double>(extra);
  double link = wire_bits / elapsed * kUdpPayload / (kUdpPayload + kUdpFrameOverhead);
  double delivered = t["bits_per_second"], offered = t["offered_bits_per_second"];
  report("UDP_STREAM 100M on tbf 50M: offered", 100, offered / 1e6, "Mbit/s");
  double err =
      report("UDP_STREAM 100M on tbf 50M: delivered", link / 1e6, delivered / 1e6, "Mbit/s");
  // Expected 0; what moves it is tbf dequeuing later than its 10 ms burst covers on a busy
  // machine (with 2.5 ms it cost up to 5.5% here, see shape()). 5% of 4 s is 200 ms of link time.
  EXPECT_LT(std::fabs(err), 5.0);
  // What reached A (received, or dropped at A's socket) is what tbf really
  // carried: this tells the emulator's shortfall from flowperf's error.
  double carried = static_cast<double>(u64(t["datagrams_received"]) + k.socket_drops()) *
                   kUdpPayload * 8 / elapsed;
  report("UDP_STREAM 100M on tbf 50M: reached A", link / 1e6, carried / 1e6, "Mbit/s");
  // The rest of what was offered is lost on the link.
  uint64_t sent = u64(t["datagrams_sent"]);
  double expected_loss = 1 - link / offered, loss = t["loss_percent"].get<double>() / 100;
  double link_loss = static_cast<double>(k.link_drops()) / static_cast<double>(sent);
  report_share("UDP_STREAM 100M on tbf 50M: loss", expected_loss, loss, sent);
  report_share("UDP_STREAM 100M on tbf 50M: loss on the link", expected_loss, link_loss, sent);
  // About 51% expected (1 - 48.9 / 100 Mbit/s). A link that carried 5% less (the bound above)
  // adds 2.4 points, so 3 points holds as long as the rate check does.
  EXPECT_NEAR(link_loss, expected_loss, 0.03) << k.causes();
  report("UDP_STREAM 100M on tbf 50M: lost vs all drops",
         static_cast<double>(k.link_drops() + k.socket_drops()),
         static_cast<double>(u64(t["datagrams_lost"])), "dgrams");
  note("tbf dropped " + std::to_string(k.qdisc_drops) + " packets, " +
       std::to_string(k.send_drops()) + " of them UDP (Ip.OutDiscards)");
  EXPECT_GT(k.send_drops(), 0u);
  EXPECT_LE(k.send_drops(), k.qdisc_drops);
}

// ---- 3. loss: nftables drops ----

void Netns::udp_stream_loss(int percent) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  ASSERT_NO_FATAL_FAILURE(drop_on_input(net_->a, "meta l4proto udp", percent));
  UdpTruth k;
  // 80 Mbit/s of 1472-byte datagrams for 4 s: 27,000 datagrams, with no
  // rate limit on the link.
  json j = udp_stream({"-t", "UDP_STREAM", "-l", "4", "-b", "80M"}, k);
  ASSERT_TRUE(j.is_object());
  expect_udp_stream_reconciles(j, k, 1472);

  const json& t = j["total"];
  uint64_t sent = u64(t["datagrams_sent"]), lost = u64(t["datagrams_lost"]);
  // The pacer catches up after late wake-ups: only a sender kept off the CPU for about a second
  // falls under 20,000 (74% of the 27,000 due).
  ASSERT_GE(sent, 20000u) << "too few datagrams for the statistics";
  const std::string label = "UDP_STREAM nft " + std::to_string(percent) + "%";
  double p = percent / 100.0, loss = static_cast<double>(lost) / static_cast<double>(sent);
  // flowperf's loss is exact (checked above, cause by cause); what the link
  // lost is flowperf's count less what a busy machine's receiving socket
  // dropped, which is 0 on a quiet machine.
  double link_loss = static_cast<double>(lost - k.socket_drops()) / static_cast<double>(sent);
  report_share(label + ": loss", p, loss, sent);
  report_share(label + ": loss on the link", p, link_loss, sent);
  report(label + ": lost vs nft + socket drops",
         static_cast<double>(k.nft_drops + k.socket_drops()), static_cast<double>(lost), "dgrams");
  // Each datagram is dropped independently with probability p, so the count
  // is binomial: 4 sigma fails a correct flowperf once in ~16,000 runs.
  double sigma = std::sqrt(p * (1 - p) / static_cast<double>(sent));
  EXPECT_NEAR(link_loss, p, 4 * sigma) << k.causes();
  EXPECT_EQ(k.send_drops(), 0u) << "nothing limits the rate here";
}

TEST_F(Netns, UdpStreamLossMatchesNftablesAt1Percent) { udp_stream_loss(1); }
TEST_F(Netns, UdpStreamLossMatchesNftablesAt5Percent) { udp_stream_loss(5); }

// UDP_RR with `percent` % of datagrams dropped entering each namespace:
// requests entering A, responses entering B. The request/response
// bookkeeping must match the drops one for one. Besides nftables, a full
// receive buffer drops datagrams (Udp.InErrors): the server's, when it is
// not scheduled for some milliseconds on a busy machine while the client
// times out and sends on every 50 us. That is the machine, not the link,
// and is counted apart.
json Netns::udp_rr_with_loss(int percent) {
  drop_on_input(net_->a, "meta l4proto udp", percent);
  drop_on_input(net_->b, "meta l4proto udp", percent);
  if (HasFatalFailure()) return json();
  Counters a0 = snmp(*net_, net_->a), b0 = snmp(*net_, net_->b);
  json j = client({"-t", "UDP_RR", "-l", "3"});
  if (!j.is_object()) return j;
  const uint64_t req_socket_drops = delta(a0, snmp(*net_, net_->a)).at("Udp.InErrors"),
                 resp_socket_drops = delta(b0, snmp(*net_, net_->b)).at("Udp.InErrors");
  if (req_socket_drops + resp_socket_drops > 0)
    note("UDP_RR " + std::to_string(percent) + "%: full receive buffers dropped " +
         std::to_string(req_socket_drops) + " requests and " + std::to_string(resp_socket_drops) +
         " responses (a busy machine)");
  uint64_t req_drops = nft_dropped(*net_, net_->a), resp_drops = nft_dropped(*net_, net_->b);
  const json &c = j["local"]["flows"][0], &s = j["remote"]["flows"][0], &t = j["total"];
  uint64_t requests = u64(c["datagrams_sent"]), transactions = u64(t["transactions"]),
           timeouts = u64(t["timeouts"]), late = u64(t["late"]);
  // Every request the server got is one A did not drop, and it answered each.
  EXPECT_EQ(u64(s["datagrams_recv"]), requests - req_drops - req_socket_drops);
  EXPECT_EQ(u64(s["datagrams_sent"]), u64(s["datagrams_recv"]));
  // Every answer B did not drop reached the client, except those still on
  // their way when the client stopped: the answer to its last request and,
  // under load, a late answer to the request before it, which had timed out
  // just before (seen in CI: two). Both count as timeouts, not late.
  constexpr uint64_t kInFlightAtEnd = 2;
  uint64_t arrived = u64(s["datagrams_sent"]) - resp_drops - resp_socket_drops;
  EXPECT_LE(u64(c["datagrams_recv"]), arrived);
  EXPECT_GE(u64(c["datagrams_recv"]) + kInFlightAtEnd, arrived);
  // Every answer received completed its transaction or was late; every
  // request completed or timed out.
  EXPECT_EQ(u64(c["datagrams_recv"]), transactions + late);
  EXPECT_EQ(requests, transactions + timeouts);
  // So the timeouts are the drops, plus the late ones (the timeout was too
  // short for them), plus those still in flight at the end.
  const uint64_t socket_drops = req_socket_drops + resp_socket_drops;
  uint64_t lost = timeouts - late;
  EXPECT_GE(lost, req_drops + resp_drops + socket_drops);
  EXPECT_LE(lost, req_drops + resp_drops + socket_drops + kInFlightAtEnd);

  // A transaction survives if neither of its datagrams is dropped (by
  // nftables: the socket drops are left out of the share).
  double p = percent / 100.0, q = 1 - (1 - p) * (1 - p);
  double measured = static_cast<double>(lost - socket_drops) / static_cast<double>(requests);
  std::string label = "UDP_RR nft " + std::to_string(percent) + "% each way";
  report_share(label + ": lost transactions", q, measured, requests);
  report(label + ": timeouts-late vs nft + socket drops",
         static_cast<double>(req_drops + resp_drops + socket_drops), static_cast<double>(lost),
         "tx");
  double sigma = std::sqrt(q * (1 - q) / static_cast<double>(requests));
  // Binomial over the requests, as for UDP_STREAM: 4 sigma fails a correct flowperf about once
  // in 16,000 runs.
  EXPECT_NEAR(measured, q, 4 * sigma);
  return j;
}

TEST_F(Netns, UdpRrCountsLostTransactionsAt1Percent) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  udp_rr_with_loss(1);
}

std::pair<double, double> Netns::udp_rr_cost() {
  json base = client({"-t", "UDP_RR", "-l", "3"});
  if (!base.is_object()) return {0, 0};
  json lossy = udp_rr_with_loss(5);
  if (!lossy.is_object()) return {0, 0};
  double clean = base["total"]["transactions_per_second"],
         with_loss = lossy["total"]["transactions_per_second"];
  report("UDP_RR 5% loss each way: rate vs loss-free", clean, with_loss, "tx/s");
  // Where the time went: the run's time less the round trips of the
  // transactions that completed, over the timeouts.
  const json& t = lossy["total"];
  double waiting_us = t["elapsed_s"].get<double>() * 1e6 -
                      t["latency_us"]["mean"].get<double>() * u64(t["transactions"]);
  double per_timeout = waiting_us / std::max<double>(1, u64(t["timeouts"]));
  note("UDP_RR 5% loss: " + std::to_string(per_timeout) + " us lost per timeout; mean RTT " +
       std::to_string(t["latency_us"]["mean"].get<double>()) + " us; --udp-rr-min-timeout " +
       std::to_string(u64(lossy["spec"]["udp_rr_min_timeout_us"])) + " us");
  return {clean, with_loss};
}

TEST_F(Netns, UdpRrCountsLostTransactionsAt5PercentAndReportsTheCost) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  auto [clean, with_loss] = udp_rr_cost();
  // Only that both runs completed transactions: what the loss costs depends on the machine's
  // load, so it is printed, not asserted (see the disabled test below).
  EXPECT_GT(clean, 0);
  EXPECT_GT(with_loss, 0);
}

// Disabled: passes only on a quiet machine. With 5% loss each way, 9.75% of
// transactions lose a datagram. With the timeout flowperf computes
// (max(2 srtt, srtt + 4 rttvar), at least --udp-rr-min-timeout = 50 us) and
// a ~10 us round trip, an attempt costs on average 0.9025 × 10 + 0.0975 × 50
// = 14 us and succeeds with probability 0.9025: UDP_RR should keep about
// 64% of its loss-free rate. Measured on a quiet machine (µs waits, the
// client blocking for its answer): 55% (46,703 against 84,759 tx/s; 134 us
// lost per timeout, as wake-ups after a timeout run late); under load it
// falls to 25-30%, so this stays out of CI's run. Since loss-free UDP_RR
// blocks in recv (two system calls) while lossy UDP_RR still waits on an
// exact timer, the share is lower where the loss-free rate is high: on a
// busy 2-core VM (Dec 2026) about 200,000 tx/s loss-free, 47,000-50,000
// with loss (21-22%; before that change 41,000-42,000, 21-26%).
TEST_F(Netns, DISABLED_UdpRrKeepsHalfItsRateUnder5PercentLoss) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  auto [clean, with_loss] = udp_rr_cost();
  EXPECT_GE(with_loss, 0.5 * clean);
}

// TCP under loss: both directions drop 5% of the data connections' segments
// (not the control connection's: its messages start and stop the test, and
// a loss there only delays them). It must complete, not hang, and count.
TEST_F(Netns, TcpStreamAndTcpRrCompleteUnderSegmentLoss) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  // One segment per packet: with TSO/GSO a veth packet carries up to 64 KB
  // of segments, and dropping it would drop them all at once.
  for (const auto& ns : {net_->a, net_->b})
    ASSERT_NO_FATAL_FAILURE(
        must({net_->ip(), "-n", ns, "link", "set", "dev", NetnsPair::kDev, "gso_max_segs", "1"}));
  const std::string data = "tcp dport != " + kPort + " tcp sport != " + kPort;
  ASSERT_NO_FATAL_FAILURE(drop_on_input(net_->a, data, 5));
  ASSERT_NO_FATAL_FAILURE(drop_on_input(net_->b, data, 5));

  json s = client({"-t", "TCP_STREAM", "-l", "3"});
  ASSERT_TRUE(s.is_object());
  expect_tcp_stream_reconciles(s);
  uint64_t stream_drops = nft_dropped(*net_, net_->a) + nft_dropped(*net_, net_->b);
  // At 5% the first drop comes after about 20 segments; 3 s of a stream without one is not a
  // chance to reckon with, and each drop is retransmitted.
  EXPECT_GT(stream_drops, 0u);
  const json& f = s["local"]["flows"][0];
  std::string retrans = "n/a";
  if (f.contains("tcp_info")) {
    EXPECT_GT(u64(f["tcp_info"]["total_retrans"]), 0u);
    retrans = std::to_string(u64(f["tcp_info"]["total_retrans"]));
  }
  note("TCP_STREAM with 5% segment loss: " +
       std::to_string(s["total"]["bits_per_second"].get<double>() / 1e6) + " Mbit/s, " +
       std::to_string(stream_drops) + " segments dropped, sender retransmitted " + retrans +
       ", bytes sent = received = " + std::to_string(u64(s["total"]["bytes_received"])));

  json r = client({"-t", "TCP_RR", "-l", "3"});
  ASSERT_TRUE(r.is_object());
  expect_rr_reconciles(r, 1, 1);
  uint64_t rr_drops = nft_dropped(*net_, net_->a) + nft_dropped(*net_, net_->b) - stream_drops;
  // As for the stream: a drop every 20 segments or so, and 3 s of transactions hold many more.
  EXPECT_GT(rr_drops, 0u);
  note("TCP_RR with 5% segment loss: " +
       std::to_string(r["total"]["transactions_per_second"].get<double>()) + " tx/s, " +
       std::to_string(rr_drops) + " segments dropped, " +
       std::to_string(u64(r["total"]["transactions"])) + " transactions on both sides");
}

// TCP_CRR's two ways to end a connection, seen in the kernel of each
// namespace: by default the server closes first (FIN both ways), so each
// connection leaves a TIME_WAIT socket in the server's namespace; with
// --rst-close the client ends each one with an RST, and the server waits
// for it: no TIME_WAIT anywhere, one RST sent per connection by the client.
TEST_F(Netns, TcpCrrRstCloseEndsEachConnectionWithAnRst) {
  constexpr uint64_t kN = 300;
  // TIME_WAIT sockets in ns, the control connection's left out.
  auto time_wait = [this](const std::string& ns) {
    Cmd c = net_->exec(ns, {tool("ss"), "-Htan", "state", "time-wait"});
    EXPECT_TRUE(c.ok()) << c.what();
    uint64_t n = 0;
    std::istringstream lines(c.out);
    for (std::string line; std::getline(lines, line);)
      if (line.find(":" + kPort + " ") == std::string::npos && !line.ends_with(":" + kPort)) ++n;
    return n;
  };
  // Blocking sockets on both ends, then busy-polling ones (the server's
  // event loop: a server has a CRR flow per thread, and a flow alone on its
  // thread blocks unless it busy-polls).
  uint64_t rsts = 0;
  for (bool busy : {false, true}) {
    SCOPED_TRACE(busy ? "--busy-poll" : "blocking");
    Counters a0 = snmp(*net_, net_->a), b0 = snmp(*net_, net_->b);
    std::vector<std::string> args = {"-t", "TCP_CRR", "-n", std::to_string(kN), "--rst-close"};
    if (busy) args.push_back("--busy-poll");
    json r = client(args);
    ASSERT_TRUE(r.is_object());
    EXPECT_EQ(r["spec"]["rst_close"], true);
    EXPECT_EQ(u64(r["total"]["transactions"]), kN);
    EXPECT_EQ(u64(r["total"]["remote_transactions"]), kN);
    rsts = delta(b0, snmp(*net_, net_->b)).at("Tcp.OutRsts");
    EXPECT_GE(rsts, kN) << "the client's closes sent " << rsts << " RSTs";
    // The server had not closed its end: each RST found it established.
    EXPECT_GE(delta(a0, snmp(*net_, net_->a)).at("Tcp.EstabResets"), kN);
    EXPECT_EQ(time_wait(net_->a), 0u);
    EXPECT_EQ(time_wait(net_->b), 0u);
  }

  // The default, for contrast: the server closed first, once per connection.
  Counters b0 = snmp(*net_, net_->b);
  json g = client({"-t", "TCP_CRR", "-n", std::to_string(kN)});
  ASSERT_TRUE(g.is_object());
  EXPECT_EQ(u64(g["total"]["transactions"]), kN);
  EXPECT_EQ(time_wait(net_->a), kN);
  EXPECT_EQ(time_wait(net_->b), 0u);
  EXPECT_LT(delta(b0, snmp(*net_, net_->b)).at("Tcp.OutRsts"), kN);
  note("TCP_CRR x " + std::to_string(kN) + ": --rst-close sent " + std::to_string(rsts) +
       " RSTs and left no TIME_WAIT; the default left " + std::to_string(time_wait(net_->a)) +
       " TIME_WAIT sockets on the server's side");
}

// ---- 4. IPv6 ----

TEST_F(Netns, Ipv6TcpRrAndUdpStream) {
  server6_ = start_server(kServer6, kPort6);
  ASSERT_TRUE(server6_) << "flowperf server did not start on " << kServer6;

  json r = client({"-t", "TCP_RR", "-l", "2"}, kServer6, kPort6);
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["endpoints"]["remote"]["host"], kServer6);
  EXPECT_EQ(r["endpoints"]["local"]["host"], "fd77::2");
  expect_rr_reconciles(r, 1, 1);
  if (auto mss = reported_mss(r)) {
    EXPECT_EQ(*mss, expected_mss(1500, true));
    report("IPv6 TCP_RR: snd_mss", static_cast<double>(expected_mss(1500, true)),
           static_cast<double>(*mss), "B");
  }
  note("IPv6 TCP_RR: " + std::to_string(u64(r["total"]["transactions"])) +
       " transactions, both sides agree");

  // 1452 bytes fill a 1500-byte IPv6 packet (40 + 8 + 1452): no fragments.
  UdpTruth k;
  json u =
      udp_stream({"-t", "UDP_STREAM", "-l", "2", "-b", "50M", "-m", "1452"}, k, kServer6, kPort6);
  ASSERT_TRUE(u.is_object());
  expect_udp_stream_reconciles(u, k, 1452);
  EXPECT_EQ(k.b.at("Ip6FragCreates"), 0u);
  report("IPv6 UDP_STREAM -m 1452: received vs Udp6InDatagrams",
         static_cast<double>(k.a.at("Udp6InDatagrams")),
         static_cast<double>(u64(u["total"]["datagrams_received"])), "dgrams");

  // With no -m, a client talking IPv6 sends 1452-byte datagrams: none is
  // fragmented (1472, IPv4's default, would leave as two fragments each).
  UdpTruth d;
  json v = udp_stream({"-t", "UDP_STREAM", "-l", "2", "-b", "50M"}, d, kServer6, kPort6);
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v["spec"]["send_size"], 1452);
  expect_udp_stream_reconciles(v, d, 1452);
  EXPECT_EQ(d.b.at("Ip6FragCreates"), 0u);
  note("IPv6 UDP_STREAM with the default size: " +
       std::to_string(u64(v["total"]["datagrams_sent"])) + " datagrams sent as " +
       std::to_string(d.b.at("Ip6FragCreates")) + " fragments");
}

// ---- 5. MTU 9000 ----

TEST_F(Netns, Mtu9000TcpStreamMatchesTbf) {
  ASSERT_NO_FATAL_FAILURE(set_mtu(9000));
  for (const auto& ns : {net_->a, net_->b}) {
    Cmd c = run({net_->ip(), "-n", ns, "-j", "link", "show", "dev", NetnsPair::kDev});
    json j = json::parse(c.out, nullptr, false);
    ASSERT_TRUE(j.is_array() && !j.empty()) << c.what();
    EXPECT_EQ(u64(j[0]["mtu"]), 9000u);
  }
  // The same truth as at 1500 bytes with an 8948-byte MSS in a 9014-byte
  // frame: 99.3% of the rate is goodput instead of 95.6%.
  tcp_stream_through_tbf(50'000'000, 9000, "TCP_STREAM MTU 9000 tbf 50M");
}

// ---- 5. a data path that stalls: the client gives up with a clear message ----

// nftables in A drops every TCP segment but the control port's.
Cmd firewall_data_ports(NetnsPair& net) {
  const std::string table = std::string("inet ") + kNftTable + "_stall";
  std::string rules = "add table " + table + "; add chain " + table +
                      " in { type filter hook input priority 0; policy accept; }; add rule " +
                      table + " in tcp dport != " + kPort + " counter drop";
  return run(net.in(net.a, {tool("nft"), rules}));
}

TEST_F(Netns, FirewalledDataPortFailsWithAClearMessage) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  Cmd fw = firewall_data_ports(*net_);
  ASSERT_TRUE(fw.ok()) << fw.what();
  std::vector<std::string> argv = {kBin, "-H",         kServer4, "-p", kPort,
                                   "-t", "TCP_STREAM", "-l",     "2"};
  Process p(net_->in(net_->b, argv));
  const auto t0 = std::chrono::steady_clock::now();
  Outcome o = p.wait(60s);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(o.timed_out) << "flowperf hung on a firewalled data port";
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("data connection"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("firewall"), std::string::npos) << o.err;
  // The client gives up on its data connections after 15 s (kDataConnectS in
  // session/controller.cc): 30 s is twice that, and waiting out the kernel's own SYN retries
  // (six by default, about two minutes) would fail.
  EXPECT_LT(took, 30.0) << "the data connections' timeout is too long";
  note("firewalled data port: gave up after " + std::to_string(took) + " s: " + o.err);
}

// The data path is cut about 1.5 s into a 3-second test: the client reports
// what it measured up to the test's end, says the data path stalled, and
// exits 1 within the stall timeout instead of hanging.
TEST_F(Netns, DataPathCutMidTestIsReportedAsAStall) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  for (const char* test : {"TCP_STREAM", "TCP_RR"}) {
    SCOPED_TRACE(test);
    std::vector<std::string> argv = {kBin, "-H", kServer4, "-p", kPort,
                                     "-t", test, "-l",     "3",  "--json"};
    Process p(net_->in(net_->b, argv));
    std::this_thread::sleep_for(1500ms);
    Cmd fw = firewall_data_ports(*net_);
    ASSERT_TRUE(fw.ok()) << fw.what();
    Outcome o = p.wait(60s);
    ASSERT_FALSE(o.timed_out) << "flowperf hung on a stalled data path";
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_NE(o.err.find("stalled"), std::string::npos) << o.err;
    json j = json::parse(o.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << o.out << o.err;
    // What was measured before the cut is there, over the test's own time.
    const char* work = std::string(test) == "TCP_RR" ? "transactions" : "bytes_sent";
    EXPECT_GT(u64(j["total"][work]), 0u) << j["total"].dump();
    // A stalled drain's time is cut where the drain began (the cap in session/controller.cc), so
    // elapsed is the 3 s and the run loop's lateness in seeing the end; counting the 5 s wait
    // for progress would give 8 s.
    EXPECT_NEAR(j["total"]["elapsed_s"].get<double>(), 3.0, 0.5) << j["total"].dump();
    run(net_->in(net_->a, {tool("nft"), "delete table inet " + std::string(kNftTable) + "_stall"}));
  }
}

// ---- 8. latency: TCP_RR against tbf's token time, closed and open loop ----

// Over `tbf rate 1mbit burst 1600` on the client's egress, a 1,250-byte
// request (1,316 bytes on the wire with its headers, as tbf charges them:
// see kTcpFrameOverhead) waits for its tokens: 1,316 x 8 / 1e6 s = 10.528 ms,
// the burst holding less than two requests' worth. The answer (1 byte) comes
// back unshaped. That is each transaction's round trip, give or take the
// veth's microseconds and tbf's timer; netperf 2.7 measured 10.497 ms here.
void Netns::shape_1mbit() {
  must({tool("tc"), "-n", net_->b, "qdisc", "replace", "dev", NetnsPair::kDev, "root", "tbf",
        "rate", "1mbit", "burst", "1600", "latency", "100ms"});
}
constexpr double kTokenTimeUs = (1250 + kTcpFrameOverhead) * 8;  // 1 Mbit/s: 8 us a byte

TEST_F(Netns, TcpRrLatencyIsTbfsTokenTime) {
  shape_1mbit();
  json closed = client({"-t", "TCP_RR", "-r", "1250,1", "-l", "3"});
  ASSERT_TRUE(closed.is_object());
  const double p50 = closed["total"]["latency_us"]["p50"];
  const double err = report("TCP_RR 1250,1 on tbf 1mbit: p50", kTokenTimeUs, p50, "us");
  // 3% of 10,528 us is 316 us: a late tbf timer or a slow wake-up moves single transactions,
  // and the median of the ~280 in 3 s takes little of that.
  EXPECT_LT(std::fabs(err), 3.0);

  // Open loop at 50 a second: the bucket refills for 20 ms between requests,
  // more than the 1,600 bytes it holds, so each request finds it full and goes
  // out at once: the round trip is the veth's, not the token time. (The closed
  // loop sends the next request at once and always waits for tokens.)
  json open = client({"-t", "TCP_RR", "-r", "1250,1", "-l", "3", "--rate", "50"});
  ASSERT_TRUE(open.is_object());
  const double open_p50 = open["total"]["latency_us"]["p50"];
  note("TCP_RR 1250,1 on tbf 1mbit, open loop 50/s: p50 " + std::to_string(open_p50) + " us");
  // Tens of us expected; a quarter of the token time (2.6 ms) is far above that and far below a
  // request that waited for its tokens. 3 s at 50/s: 150 due, and as the schedule sends late
  // requests once the worker runs, only the ends move the count: 3 is 60 ms of schedule.
  EXPECT_LT(open_p50, kTokenTimeUs / 4);
  EXPECT_NEAR(open["total"]["open_loop"]["sent"].get<double>(), 150, 3);
}

// Twice what the link carries: requests queue behind each other, and each
// one's latency counts from when it was due, so it grows through the run;
// the closed loop at the same time shows the link's 10.5 ms and nothing of
// the queue, because it never offers more than the link takes.
TEST_F(Netns, AnOpenLoopAboveTheLinksRateShowsTheQueue) {
  shape_1mbit();
  json open = client({"-t", "TCP_RR", "-r", "1250,1", "-l", "3", "--rate", "190"});
  ASSERT_TRUE(open.is_object());
  const json& lat = open["total"]["latency_us"];
  note("TCP_RR 1250,1 on tbf 1mbit, open loop 190/s: p50 " + std::to_string(d(lat["p50"])) +
       " us, p99 " + std::to_string(d(lat["p99"])) + " us, answered " +
       std::to_string(d(open["total"]["transactions_per_second"])) + "/s");
  // Half the requests wait for the half before them: after 1.5 s, about
  // 0.75 s of queue. 100 ms is a seventh of that, about ten times a request's own 10.5 ms. The link
  // carries at most 1e6 / 8 / 1,250 = 100 requests a second even without headers: under 110/s.
  EXPECT_GT(d(lat["p50"]), 100'000) << lat.dump();
  EXPECT_LT(d(open["total"]["transactions_per_second"]), 110);
}

// ---- latency under load: a probe beside a stream, through a queue ----

// tbf 20 Mbit/s with 100 ms of queue on the client's egress: the bufferbloat
// a home router has. Idle, a probe's round trip is the veth's (tens of us);
// a cubic stream fills the queue until tbf drops, so the probe's requests,
// queued behind the stream's segments, wait tens of milliseconds (fping
// through the same link: 35-60 ms). BBR paces at the rate it measures and
// keeps the queue near empty.
void Netns::shape_bloated() {
  must({tool("tc"), "-n", net_->b, "qdisc", "replace", "dev", NetnsPair::kDev, "root", "tbf",
        "rate", "20mbit", "burst", "16kb", "latency", "100ms"});
}

// Loaded p50 less idle p50 of a 4 s TCP_STREAM with congestion control `cc`
// and a TCP_RR probe at 50/s.
double Netns::probe_delay_us(const std::string& cc) {
  json j = client({"-t", "TCP_STREAM", "-l", "4", "-K", cc, "--probe", "50", "--baseline", "1"});
  if (!j.is_object()) return NAN;
  const json& p = j["probe"];
  EXPECT_EQ(j["local"]["flows"][0]["tcp_info"]["congestion_control"], cc);
  const double idle = d(p["idle"]["latency_us"]["p50"]),
               loaded = d(p["loaded"]["latency_us"]["p50"]);
  note("TCP_STREAM -K " + cc + " on tbf 20mbit latency 100ms: probe p50 idle " +
       std::to_string(idle) + " us, loaded " + std::to_string(loaded) + " us (p99 " +
       std::to_string(d(p["loaded"]["latency_us"]["p99"])) + " us); stream " +
       std::to_string(d(j["total"]["bits_per_second"]) / 1e6) + " Mbit/s");
  // Idle, a round trip is the veth's, tens of us: 2 ms is far above, and far below the tens of
  // ms of the full queue. 4 s at 50/s is 200 sent; the loaded probe starts a handshake after
  // the stream, while the queue still fills: 10 (5%) is 200 ms of schedule for that.
  EXPECT_LT(idle, 2'000) << "the idle link should answer in well under 2 ms";
  EXPECT_NEAR(d(p["loaded"]["open_loop"]["sent"]), 200, 10);
  EXPECT_TRUE(p["loaded"]["errors"].empty()) << p["loaded"]["errors"];
  return loaded - idle;
}

TEST_F(Netns, ACubicStreamFillsTheQueueAndTheProbeWaitsInIt) {
  shape_bloated();
  const double cubic = probe_delay_us("cubic");
  // The README has cubic adding 78 ms to the probe's median here and BBR 5 ms (fping through
  // the queue: 35-60 ms). 20 ms is a quarter of cubic's, and cubic / 2 is about 8 times BBR's.
  EXPECT_GT(cubic, 20'000) << "the queue tbf holds (100 ms) should cost the probe tens of ms";
  const double bbr = probe_delay_us("bbr");
  EXPECT_LT(bbr, cubic / 2) << "BBR keeps the queue short";
}

// ---- flowperf monitor: a firewall that answers nothing ----

// A monitor in B with two targets in A: the server, and a port that
// nftables black-holes (every packet to it dropped entering A, so a SYN
// gets no answer at all). The black-holed target costs its own thread a
// connect timeout each round and is counted as "timeout"; the other keeps
// its one-second schedule. The metrics are read over HTTP inside B.
TEST_F(Netns, TheMonitorCountsABlackHoledTargetAndKeepsTheOthersSchedule) {
  if (!have("nft")) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
  drop_on_input(net_->a, "tcp dport 12899", 100);
  TempDir dir("flowperf-netns-monitor");
  const std::string cfg = dir / "m.yaml";
  {
    std::FILE* f = std::fopen(cfg.c_str(), "w");
    ASSERT_TRUE(f);
    std::fprintf(f,
                 "targets:\n"
                 "  - {name: up, host: %s, port: %s, every: 1s, jitter: 0,\n"
                 "     tests: [{test: TCP_RR, length: 300ms}]}\n"
                 "  - {name: hole, host: %s, port: 12899, every: 1s, jitter: 0,\n"
                 "     connect_timeout: 1s, tests: [{test: TCP_RR, length: 300ms}]}\n",
                 kServer4.c_str(), kPort.c_str(), kServer4.c_str());
    std::fclose(f);
  }
  Process mon(net_->in(net_->b, {kBin, "monitor", cfg, "--listen", "127.0.0.1:0"}));
  const std::string port = announced_port(mon);
  ASSERT_FALSE(port.empty()) << "the monitor did not start";
  std::this_thread::sleep_for(4500ms);
  const Cmd got =
      net_->exec(net_->b, {tool("bash"), "-c",
                           "exec 3<>/dev/tcp/127.0.0.1/" + port +
                               "; printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3"});
  mon.signal(SIGTERM);
  const Outcome o = mon.wait(15s);
  ASSERT_TRUE(got.ok()) << got.what();
  auto value = [&](const std::string& series) {
    const auto at = got.out.find("\n" + series + " ");
    return at == std::string::npos ? -1.0 : std::atof(got.out.c_str() + at + series.size() + 2);
  };
  const std::string up = R"({target="up",test="TCP_RR",streams="1",direction="both")";
  const std::string hole = R"({target="hole",test="TCP_RR",streams="1",direction="both")";
  const double rounds = value("flowperf_tests_total" + up + "}");
  const double timeouts = value("flowperf_test_failures_total" + hole + R"(,reason="timeout"})");
  std::printf(
      "[ truth ] monitor, 4.5 s: %g rounds to the server (every 1 s), %g timeouts of 1 s "
      "to the black hole; nftables dropped %llu packets\n",
      rounds, timeouts, static_cast<unsigned long long>(nft_dropped(*net_, net_->a)));
  // The round at 4 s ends by about 4.3 s, so 5 are expected and 4 allows one finished late.
  // The hole's rounds each take their 1 s connect timeout, the next starting at once: about 4
  // by 4.5 s, 2 with room. Over the veth a round trip is tens of us: thousands a second.
  EXPECT_GE(rounds, 4) << got.out;  // at 0, 1, 2, 3 and 4 s: the black hole held nothing up
  EXPECT_GE(timeouts, 2) << got.out;
  EXPECT_GT(value("flowperf_transactions_per_second" + up + "}"), 100);
  EXPECT_GT(nft_dropped(*net_, net_->a), 0u);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("hole TCP_RR streams=1: failed (timeout): no answer from 10.77.0.1:12899"),
            std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace flowperf::testing::netns
