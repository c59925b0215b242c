// An iperf3 test as each end runs it (session/iperf3_test.h): which stream
// goes which way, what the omit period leaves out of the totals, the
// results message each end sends, and how the report pairs this end's
// figures with the peer's.
#include <gtest/gtest.h>

#include "session/iperf3_test.h"

namespace flowperf::session::iperf3 {
namespace {

ip::Params params(int parallel, bool reverse, bool bidir, bool udp = false) {
  ip::Params p;
  p.parallel = parallel;
  p.reverse = reverse;
  p.bidirectional = bidir;
  p.udp = udp;
  p.time = 2;
  p.len = udp ? 1000 : 131072;
  return p;
}

TEST(Iperf3Plan, StreamDirections) {
  // Forward: the client sends on every stream; reverse: the server does.
  for (bool client : {true, false}) {
    const Plan f = make_plan(params(3, false, false), client);
    EXPECT_EQ(f.streams, 3u);
    for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(f.sends(i), client);
    const Plan r = make_plan(params(2, true, false), client);
    for (uint32_t i = 0; i < 2; ++i) EXPECT_EQ(r.sends(i), !client);
    // --bidir: 2P connections, the first P from the client.
    const Plan b = make_plan(params(2, false, true), client);
    EXPECT_EQ(b.streams, 4u);
    EXPECT_EQ(b.sends(0), client);
    EXPECT_EQ(b.sends(1), client);
    EXPECT_EQ(b.sends(2), !client);
    EXPECT_EQ(b.sends(3), !client);
    EXPECT_TRUE(b.sends_any());
    EXPECT_TRUE(b.receives_any());
  }
  ip::Params n = params(1, false, false);
  n.time = 0;
  n.blockcount = 10;
  EXPECT_EQ(make_plan(n, true).count, 10u * 131072);
}

results::IntervalSample sample(double start, double end, uint64_t sent, uint64_t recv,
                               uint32_t retrans = 0) {
  results::IntervalSample s;
  s.start_s = start;
  s.end_s = end;
  results::IntervalFlow f;
  f.bytes_sent = sent;
  f.bytes_recv = recv;
  f.retrans = retrans;
  net::TcpInfo t;
  t.snd_cwnd = 10;
  t.snd_mss = 1000;
  t.rtt_us = static_cast<uint32_t>(100 * end);
  f.tcp = t;
  s.flows.push_back(f);
  return s;
}

TEST(Iperf3Plan, OmitPeriodIsLeftOutOfTheTotals) {
  ip::Params p = params(1, false, false);
  p.omit = 1;
  const Plan plan = make_plan(p, true);
  results::SideResult m;
  m.flows.resize(1);
  m.intervals = {sample(0, 1.001, 1000, 0, 7), sample(1.001, 2.0, 2000, 0, 1),
                 sample(2.0, 3.0, 3000, 0, 2)};
  const auto t = totals(plan, m);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].bytes, 5000u);    // not the omitted 1000
  EXPECT_EQ(t[0].retransmits, 3);  // not the omitted 7
  EXPECT_NEAR(t[0].seconds, 1.999, 1e-9);
  EXPECT_EQ(t[0].max_snd_cwnd, 10000u);
  EXPECT_EQ(t[0].max_rtt, 300u);
  EXPECT_EQ(t[0].min_rtt, 200u);
  EXPECT_EQ(t[0].mean_rtt, 250u);
  // In the report the omitted interval is marked and the rest start at 0.
  const auto iv = report_intervals(plan, m, {5});
  ASSERT_EQ(iv.size(), 3u);
  EXPECT_TRUE(iv[0].streams[0].omitted);
  EXPECT_FALSE(iv[1].streams[0].omitted);
  EXPECT_NEAR(iv[1].streams[0].start, 0.001, 1e-9);
  EXPECT_NEAR(iv[2].streams[0].end, 2.0, 1e-9);
  EXPECT_EQ(iv[2].streams[0].socket, 5);
  EXPECT_EQ(iv[2].streams[0].snd_cwnd, 10000u);
}

TEST(Iperf3Plan, UdpReceiverCountsLossAsIperf3Does) {
  const Plan plan = make_plan(params(1, false, false, true), /*client=*/false);
  results::SideResult m;
  m.flows.resize(1);
  results::IntervalSample s;
  s.end_s = 1;
  results::IntervalFlow f;
  f.bytes_recv = 90 * 1000;
  f.datagrams_recv = 90;
  f.lost = 10;
  f.jitter_ns = 250000;
  s.flows.push_back(f);
  m.intervals = {s};
  const auto t = totals(plan, m);
  EXPECT_EQ(t[0].packets, 100u);  // the highest sequence number: received + lost
  EXPECT_EQ(t[0].lost, 10);
  EXPECT_DOUBLE_EQ(t[0].jitter_s, 0.00025);
  const ip::Results r = results_message(plan, m, t, nullptr);
  EXPECT_EQ(r.sender_has_retransmits, -1);  // this end only receives
  ASSERT_EQ(r.streams.size(), 1u);
  EXPECT_EQ(r.streams[0].id, 1);
  EXPECT_EQ(r.streams[0].errors, 10);
  EXPECT_EQ(r.streams[0].packets, 100);
  EXPECT_EQ(r.streams[0].retransmits, -1);
  EXPECT_FALSE(r.congestion_used.has_value());  // UDP: none
}

TEST(Iperf3Plan, TheSenderCopiesThePeersJitterAndLoss) {
  const Plan plan =
      make_plan(params(1, true, false, true), /*client=*/false);  // -u -R: server sends
  results::SideResult m;
  m.flows.resize(1);
  const std::vector<StreamTotals> t(1);
  ip::Results peer;
  peer.streams.push_back({1, 5000, -1, 0.0001, 4, 50, 0, 2});
  const ip::Results r = results_message(plan, m, t, &peer);
  EXPECT_EQ(r.sender_has_retransmits, 0);  // a UDP sender
  EXPECT_DOUBLE_EQ(r.streams[0].jitter, 0.0001);
  EXPECT_EQ(r.streams[0].errors, 4);
}

TEST(Iperf3Plan, ReportPairsThisEndWithThePeer) {
  const Plan plan = make_plan(params(1, false, true), /*client=*/true);  // --bidir
  results::SideResult m;
  m.flows.resize(2);
  std::vector<StreamTotals> t(2);
  t[0].bytes = 100;  // stream 1: this end sent
  t[0].retransmits = 3;
  t[1].bytes = 200;  // stream 3: this end received
  ip::Results peer;
  peer.streams.push_back({1, 90, -1, 0, 0, 0, 0, 2});
  peer.streams.push_back({3, 210, 5, 0, 0, 0, 0, 2});
  peer.cpu_util_total = 12;
  const rp::EndInfo e = report_end(plan, m, t, peer, {5, 6}, true);
  ASSERT_EQ(e.streams.size(), 2u);
  EXPECT_TRUE(e.streams[0].sender);
  EXPECT_EQ(e.streams[0].id, 1);
  EXPECT_EQ(e.streams[0].sent.bytes, 100u);
  EXPECT_EQ(e.streams[0].received.bytes, 90u);
  EXPECT_FALSE(e.streams[1].sender);
  EXPECT_EQ(e.streams[1].id, 3);
  EXPECT_EQ(e.streams[1].sent.bytes, 210u);
  EXPECT_EQ(e.streams[1].sent.retransmits, 5);
  EXPECT_EQ(e.streams[1].received.bytes, 200u);
  EXPECT_EQ(e.streams[1].socket, 6);
  EXPECT_DOUBLE_EQ(e.remote.total, 12);
}

}  // namespace
}  // namespace flowperf::session::iperf3
