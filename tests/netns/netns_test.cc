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
#include "netns/fixture.h"
#include "support/stall_watch.h"

namespace flowperf::testing::netns {

using nlohmann::json;
using namespace std::chrono_literals;

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
  // The machine's own stalls while the test runs (a virtual CPU taken away
  // for a while): tbf's timers and both ends stop with it, and the link
  // carries nothing meanwhile. Seen in a flake hunt under load: 115 ms in
  // one run of 20 (an interval 23.6% short, the whole run 2.8%).
  StallWatch stalls;
  json j = client({"-t", "TCP_STREAM", "-l", "4", "-i", "0.5"});
  stalls.stop();
  ASSERT_TRUE(j.is_object());
  QdiscStats after = qdisc_stats(net_->b);
  const double stalled_s = std::chrono::duration<double>(stalls.total()).count();
  if (stalls.longest() > 10ms)
    note(label + ": the machine stalled, " + std::to_string(stalled_s * 1e3) +
         " ms in all (longest " + std::to_string(stalls.longest().count() / 1'000'000) +
         " ms; watched at " + (stalls.realtime() ? "real-time" : "normal") +
         " priority): the bounds below widen by as much of the link's time");
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
  // (see shape()). 3% of the 4 s is 120 ms of link time lost that way; a stall of the whole
  // machine loses its own length besides.
  const double stall_pct = 100.0 * stalled_s / elapsed;
  EXPECT_LT(std::fabs(err), 3.0 + stall_pct) << "goodput off the link's truth by more than 3%";

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
    // of the link's bytes, more than either is late on a machine the test has to itself. A stall
    // of the machine (measured above) takes its length from an interval, at most all of it from
    // one; an interval above the link's rate has no such excuse.
    EXPECT_LT(off, 10.0) << "interval " << i << ": " << rate / 1e6 << " Mbit/s";
    EXPECT_GT(off, -10.0 - 100.0 * stalled_s / dt)
        << "interval " << i << ": " << rate / 1e6 << " Mbit/s";
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
  // their way when the client stopped: answers to requests it had given up
  // on, the server having stalled (a busy machine) as the test ended. They
  // count as timeouts, not late. The client's timeout backs off (doubles)
  // with each timeout in a row, from at least 50 us up to 2 s, so one stall
  // leaves at most log2(2 s / 50 us) + 1 = 17 requests given up on behind
  // it (seen in a hunt: 6; before the back-off, CI saw 2).
  constexpr uint64_t kInFlightAtEnd = 17;
  uint64_t arrived = u64(s["datagrams_sent"]) - resp_drops - resp_socket_drops;
  EXPECT_LE(u64(c["datagrams_recv"]), arrived);
  const uint64_t in_flight = arrived - std::min(arrived, u64(c["datagrams_recv"]));
  EXPECT_LE(in_flight, kInFlightAtEnd);
  // Every answer received completed its transaction or was late; every
  // request completed or timed out.
  // (An answer to none of the last 256 requests given up on, after a stall
  // of that many timeouts, counts apart, as a duplicate.)
  EXPECT_EQ(u64(c["datagrams_recv"]), transactions + late + u64(c["duplicates"]));
  EXPECT_EQ(requests, transactions + timeouts);
  // Every answer that came, late or not, is in the latency, from its own
  // request's send.
  EXPECT_EQ(u64(t["latency_us"]["count"]), transactions + late);
  // So the timeouts are the drops, plus the late ones (the timeout was too
  // short for them), plus those still in flight at the end: exactly.
  const uint64_t socket_drops = req_socket_drops + resp_socket_drops;
  uint64_t lost = timeouts - late - u64(c["duplicates"]);
  EXPECT_EQ(lost, req_drops + resp_drops + socket_drops + in_flight);

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

}  // namespace flowperf::testing::netns
