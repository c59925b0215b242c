// The one server policy every protocol's session asks (session/server_policy.h):
// its refusals in the client's own option names, the pace of the server's
// sending, and the caps on what a client may make the server wait for.
#include "session/server_policy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "session/server.h"

namespace flowperf::session {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(ServerPolicy, TimesSaturatesInsteadOfWrapping) {
  EXPECT_EQ(times(3, 4), 12u);
  EXPECT_EQ(times(0, kMax), 0u);
  EXPECT_EQ(times(kMax, 1), kMax);
  // iperf3's -b per stream times -P: 2^63 × 2 wraps to 0 in plain arithmetic,
  // which an earlier check took for "unpaced" and another for "small".
  EXPECT_EQ(times(uint64_t{1} << 63, 2), kMax);
  EXPECT_EQ(times(uint64_t{1} << 40, uint64_t{1} << 40), kMax);
}

TEST(ServerPolicy, RefusalsNameTheClientsOptionAndTheLimit) {
  ServerConfig c;
  c.max_duration_s = 5;
  c.max_streams = 2;
  c.max_rate_bps = 10'000'000;
  const ServerPolicy policy(c);
  TestAsk ask;
  EXPECT_EQ(policy.refuse(ask), "");
  ask.duration_option = "-t";
  ask.duration_s = 100000;
  EXPECT_EQ(policy.refuse(ask), "-t 100000: this server runs tests of at most 5 seconds");
  ask.duration_s = 5;
  EXPECT_EQ(policy.refuse(ask), "");
  ask.streams = 3;
  EXPECT_EQ(policy.refuse(ask), "-P 3: this server runs at most 2 streams a test");
  ask.streams = 2;
  ask.udp_stream = true;
  EXPECT_EQ(policy.refuse(ask),
            "an unpaced UDP test: this server takes UDP streams of at most 10000000 bit/s in "
            "all; give -b 10000000 or less");
  ask.rate_bps = times(uint64_t{1} << 63, 2);
  EXPECT_EQ(policy.refuse(ask),
            "-b beyond 2^64 bit/s in all: this server takes UDP streams of at most 10000000 "
            "bit/s in all; give -b 10000000 or less");
  ask.rate_bps = 10'000'000;
  EXPECT_EQ(policy.refuse(ask), "");
  ask.rate_bps = 0;
  ask.rate_option = "";  // netperf, qperf: no way to pace
  EXPECT_EQ(policy.refuse(ask),
            "an unpaced UDP test: this server takes UDP streams of at most 10000000 bit/s in "
            "all, and this client cannot pace its sending");
  // Without limits nothing is refused for them.
  const ServerConfig open;
  EXPECT_EQ(ServerPolicy(open).refuse(TestAsk{.streams = 10000, .udp_stream = true}), "");
}

TEST(ServerPolicy, TheServersSendingIsPacedToItsShare) {
  ServerConfig c;
  const ServerPolicy none(c);
  net::SocketOptions o;
  none.pace(o, 4);
  EXPECT_EQ(o.max_pacing_rate, 0u);  // no --max-rate: nothing set
  c.max_rate_bps = 10'000'000;
  const ServerPolicy policy(c);
  EXPECT_EQ(policy.send_share(1), 1'250'000u);  // bytes/s
  EXPECT_EQ(policy.send_share(4), 312'500u);
  EXPECT_EQ(policy.send_share(0), 1'250'000u);
  EXPECT_EQ(policy.send_share(100'000'000), 1u);  // never 0 (0 would mean unpaced)
  policy.pace(o, 2);
  EXPECT_EQ(o.max_pacing_rate, 625'000u);
  o.max_pacing_rate = 1000;  // a client's own slower pace (iperf3 -b) stays
  policy.pace(o, 2);
  EXPECT_EQ(o.max_pacing_rate, 1000u);
}

TEST(ServerPolicy, AClientsTimesNeverOutliveTheServers) {
  ServerConfig c;
  c.max_duration_s = 5;
  c.control_timeout_s = 10;
  const ServerPolicy policy(c);
  EXPECT_DOUBLE_EQ(policy.test_seconds(2), 2);
  EXPECT_DOUBLE_EQ(policy.test_seconds(100000), 5);
  EXPECT_DOUBLE_EQ(policy.test_seconds(0), 5);  // "until stopped" ends at the limit
  EXPECT_DOUBLE_EQ(policy.control_wait_seconds(5), 5);
  EXPECT_DOUBLE_EQ(policy.control_wait_seconds(100000), 10);
  EXPECT_DOUBLE_EQ(policy.control_wait_seconds(4294967295.0), 10);
  EXPECT_DOUBLE_EQ(policy.control_wait_seconds(0), 10);
}

}  // namespace
}  // namespace flowperf::session
