// The one server policy every protocol's session asks (session/server_policy.h):
// its refusals in the client's own option names, the pace of the server's
// sending, and the caps on what a client may make the server wait for.
#include "session/server_policy.h"

#include <gtest/gtest.h>

#include <atomic>
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

// The memory budget: a stream's largest buffer against --max-buffer (a
// refusal like any other), and all the test's buffers against what the
// running tests leave of --max-memory (taken with the slot, given back
// with it).
TEST(ServerPolicy, BuffersAreCountedBeforeATestStarts) {
  ServerConfig c;  // the defaults: 16 MiB a buffer, 256 MiB in all
  const ServerPolicy policy(c);
  TestAsk ask;
  ask.buffer_options = "-m";
  ask.largest_buffer = 256u << 20;
  ask.stream_buffers = 256u << 20;
  ask.streams = 2;
  EXPECT_EQ(policy.refuse(ask),
            "a buffer of 268435456 bytes (-m): this server takes buffers of at most 16777216 "
            "bytes a stream (--max-buffer)");
  ask.largest_buffer = ask.stream_buffers = 16u << 20;
  EXPECT_EQ(policy.refuse(ask), "");
  EXPECT_EQ(ServerPolicy::memory_of(ask), 2 * ((16u << 20) + kStreamOverheadBytes));

  MemoryBudget budget(c.max_memory_bytes);
  std::atomic<uint32_t> active{0};
  {
    TestSlot first(&active);
    EXPECT_EQ(policy.take_memory(first, &budget, ask), "");
    EXPECT_EQ(budget.in_use(), ServerPolicy::memory_of(ask));
    // 100 streams of 16 MiB are more than the whole budget.
    TestAsk big = ask;
    big.streams = 100;
    TestSlot second(&active);
    EXPECT_NE(policy.take_memory(second, &budget, big)
                  .find("are more than this server gives all its tests together (256.0 MiB, "
                        "--max-memory); ask for fewer streams (-P) or smaller buffers (-m)"),
              std::string::npos);
    // Fourteen streams fit alone, but not beside the first test's two.
    big.streams = 14;
    EXPECT_NE(policy.take_memory(second, &budget, big)
                  .find("this server's memory for tests is in use (32.0 of 256.0 MiB"),
              std::string::npos);
    EXPECT_EQ(budget.in_use(), ServerPolicy::memory_of(ask)) << "a refusal takes nothing";
  }
  EXPECT_EQ(budget.in_use(), 0u) << "the slot gave its share back";
  // No slot without a budget is refused for memory.
  TestSlot free_slot(&active);
  EXPECT_EQ(policy.take_memory(free_slot, nullptr, ask), "");
  // Without limits (0), nothing is refused for buffers.
  ServerConfig open;
  open.max_buffer_bytes = 0;
  ask.largest_buffer = uint64_t{1} << 40;
  EXPECT_EQ(ServerPolicy(open).refuse(ask), "");
}

TEST(MemoryBudget, NeverPassesItsLimitAndSaysWhatIsInUse) {
  MemoryBudget b(100);
  uint64_t in_use = 0;
  EXPECT_TRUE(b.reserve(60, &in_use));
  EXPECT_FALSE(b.reserve(41, &in_use));
  EXPECT_EQ(in_use, 60u);
  EXPECT_TRUE(b.reserve(40, &in_use));
  EXPECT_FALSE(b.reserve(1, &in_use));
  EXPECT_FALSE(b.reserve(UINT64_MAX, &in_use));
  b.release(100);
  EXPECT_EQ(b.in_use(), 0u);
  EXPECT_FALSE(b.reserve(101, &in_use));
}

}  // namespace
}  // namespace flowperf::session
