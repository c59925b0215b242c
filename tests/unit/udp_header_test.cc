// UDP stream datagrams in iperf3's layout (../shared/protocols/iperf3-wire.md
// §7.3): big-endian seconds, microseconds and a sequence number from 1 (32
// or 64 bits). A sender writes them and a receiver reads them back; bytes
// sent by hand in the recorded layout are read the same way.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstring>
#include <string>

#include "engine/stream_flows.h"
#include "net/fd.h"
#include "support/net.h"

namespace flowperf::engine {
namespace {

uint32_t be32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}

TEST(UdpHeader, SenderWritesIperf3Layout) {
  for (bool wide : {false, true}) {
    net::Fd a, b;
    ASSERT_TRUE(testing::udp_pair(a, b));
    const int peer = b.get();
    UdpSendFlow send(std::move(a), 64, 3 * 64, 0);
    send.header = wide ? UdpHeader::kIperf3Wide : UdpHeader::kIperf3;
    std::atomic<Phase> phase{Phase::kRun};
    EXPECT_TRUE(send.step(phase, Clock::now()).done);  // quota met
    char d[64];
    timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    for (uint32_t seq = 1; seq <= 3; ++seq) {
      ASSERT_EQ(::recv(peer, d, sizeof d, MSG_DONTWAIT), 64);
      if (wide) {
        EXPECT_EQ(be32(d + 8), 0u);
        EXPECT_EQ(be32(d + 12), seq);
      } else {
        EXPECT_EQ(be32(d + 8), seq);
      }
      // The time is the monotonic clock's, in seconds and microseconds.
      EXPECT_LE(std::abs(static_cast<int64_t>(be32(d)) - now.tv_sec), 1);
      EXPECT_LT(be32(d + 4), 1'000'000u);
    }
  }
}

TEST(UdpHeader, ReceiverReadsRecordedLayout) {
  net::Fd a, b;
  ASSERT_TRUE(testing::udp_pair(a, b));
  const int sender = a.get();
  UdpRecvFlow recv(std::move(b), 64);
  recv.header = UdpHeader::kIperf3;
  // The first datagram recorded from iperf3 3.12 (-l 64 -u -b 0), then
  // sequence 2, then 5 (3 and 4 lost), then 4 late.
  unsigned char d[64] = {0x00, 0x00, 0x0d, 0xab, 0x00, 0x01, 0xa7, 0xc4, 0x00, 0x00, 0x00, 0x01};
  auto send_seq = [&](uint32_t seq, uint32_t usec) {
    const uint32_t s = htonl(seq), u = htonl(usec);
    std::memcpy(d + 8, &s, 4);
    std::memcpy(d + 4, &u, 4);
    ASSERT_EQ(::send(sender, d, sizeof d, 0), 64);
  };
  send_seq(1, 108484);
  send_seq(2, 108519);
  send_seq(5, 108600);
  send_seq(4, 108650);
  std::atomic<Phase> phase{Phase::kRun};
  recv.set_mode(false);
  for (int i = 0; i < 8 && recv.counters.datagrams_recv.get() < 4; ++i)
    recv.step(phase, Clock::now());
  EXPECT_EQ(recv.counters.datagrams_recv.get(), 4u);
  EXPECT_EQ(recv.tracker().highest(), 4u);  // sequence 5, counted from 0
  EXPECT_EQ(recv.tracker().unique(), 4u);   // so one (3) is lost
  EXPECT_EQ(recv.counters.out_of_order.get(), 1u);
  EXPECT_GT(recv.tracker().jitter_ns(), 0.0);
}

// qperf's datagrams carry nothing: a sender without a header leaves every
// byte as filled, and a receiver counts what arrives without reading it
// (no sequence, so no loss, order or jitter).
TEST(UdpHeader, NoHeaderLeavesThePayloadAlone) {
  net::Fd a, b;
  ASSERT_TRUE(testing::udp_pair(a, b));
  const int peer = b.get();
  UdpSendFlow send(std::move(a), 64, 2 * 64, 0, {}, "q");
  send.header = UdpHeader::kNone;
  std::atomic<Phase> phase{Phase::kRun};
  EXPECT_TRUE(send.step(phase, Clock::now()).done);
  char d[64];
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(::recv(peer, d, sizeof d, MSG_DONTWAIT), 64);
    EXPECT_EQ(std::string(d, sizeof d), std::string(64, 'q'));
  }
  net::Fd c, e;
  ASSERT_TRUE(testing::udp_pair(c, e));
  const int sender = c.get();
  UdpRecvFlow recv(std::move(e), 64);
  recv.header = UdpHeader::kNone;
  recv.touch = true;
  for (uint32_t seq : {7u, 1u, 7u}) {  // would be out of order and duplicate with a header
    std::memset(d, 0, sizeof d);
    std::memcpy(d, &seq, sizeof seq);
    ASSERT_EQ(::send(sender, d, sizeof d, 0), 64);
  }
  recv.set_mode(false);
  for (int i = 0; i < 8 && recv.counters.datagrams_recv.get() < 3; ++i)
    recv.step(phase, Clock::now());
  EXPECT_EQ(recv.counters.datagrams_recv.get(), 3u);
  EXPECT_EQ(recv.counters.bytes_recv.get(), 3u * 64);
  EXPECT_EQ(recv.counters.out_of_order.get(), 0u);
  EXPECT_EQ(recv.counters.duplicates.get(), 0u);
  EXPECT_EQ(recv.tracker().unique(), 0u);
}

// iperf3 -b RATE/N: N datagrams back to back, then a wait that keeps the
// rate. At 512 bit/s a 64-byte datagram is due once a second.
TEST(UdpBurst, SendsABurstThenWaits) {
  for (uint32_t burst : {0u, 5u}) {
    net::Fd a, b;
    ASSERT_TRUE(testing::udp_pair(a, b));
    const int peer = b.get();
    UdpSendFlow send(std::move(a), 64, 0, 512);
    send.burst = burst;
    std::atomic<Phase> phase{Phase::kRun};
    const auto t0 = Clock::now();
    const Wait w = send.step(phase, t0);
    EXPECT_FALSE(w.done);
    const uint32_t expect = burst ? burst : 1;
    EXPECT_GE(w.deadline - t0, std::chrono::milliseconds(1000 * expect - 100));
    char d[64];
    uint32_t got = 0;
    while (::recv(peer, d, sizeof d, MSG_DONTWAIT) == 64) ++got;
    EXPECT_EQ(got, expect);
  }
}

}  // namespace
}  // namespace flowperf::engine
