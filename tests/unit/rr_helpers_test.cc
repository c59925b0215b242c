// The request/response flows' small helpers: the batch a tight UDP_RR loop
// adds to its counters (exact totals, sized by pace), the UDP_RR client's
// timeout (RFC 6298 in fixed point, and its shortcut for telling a round
// trip within the timeout), and whether a TCP_CRR connection has options to
// set. Time points are made up: no clock is read and nothing is timed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>

#include "engine/flow.h"
#include "engine/rr_flows.h"
#include "engine/rr_internal.h"

namespace flowperf::engine {
namespace {

using namespace std::chrono_literals;
using rr::Batch;

const Clock::time_point kT0 = Clock::time_point(10s);

TEST(RrBatch, FlushAddsEveryTransactionExactly) {
  FlowCounters c;
  c.transactions.add(5);  // what the flow had before the loop
  Batch b(kT0, 1);
  for (uint64_t i = 1; i <= 7; ++i) b.add(i);  // answers of 1..7 bytes
  b.flush(c, 100);
  EXPECT_EQ(c.transactions.get(), 12u);
  EXPECT_EQ(c.datagrams_sent.get(), 7u);
  EXPECT_EQ(c.send_calls.get(), 7u);
  EXPECT_EQ(c.bytes_sent.get(), 700u);
  EXPECT_EQ(c.datagrams_recv.get(), 7u);
  EXPECT_EQ(c.recv_calls.get(), 7u);
  EXPECT_EQ(c.bytes_recv.get(), 28u);
  // Flushed means empty: a second flush adds nothing.
  b.flush(c, 100);
  EXPECT_EQ(c.transactions.get(), 12u);
  EXPECT_EQ(c.bytes_recv.get(), 28u);
}

// Adds transactions to b until it is due (at most kMost + 1): how many.
uint64_t fill(Batch& b) {
  uint64_t n = 0;
  do {
    b.add(1);
    ++n;
  } while (!b.due() && n <= Batch::kMost);
  return n;
}

TEST(RrBatch, FirstBatchHoldsWhatItWasToldTo) {
  Batch b(kT0, 1);
  EXPECT_FALSE(b.due());
  EXPECT_EQ(fill(b), 1u);
  Batch c(kT0, Batch::kMost);
  EXPECT_EQ(fill(c), Batch::kMost);
}

// At loopback pace (10 µs a transaction) a batch grows to kMost; at a WAN's
// (a transaction every few ms, longer than kSpan) every transaction is
// published as it completes; in between, a batch spans about kSpan.
TEST(RrBatch, SizeFollowsThePace) {
  FlowCounters c;
  Batch b(kT0, 1);
  Clock::time_point t = kT0;
  EXPECT_EQ(fill(b), 1u);
  b.publish(c, 1, t += 10us);
  EXPECT_EQ(fill(b), Batch::kMost);
  // kMost transactions in 8 ms: two fit in kSpan (1 ms).
  b.publish(c, 1, t += 8ms);
  EXPECT_EQ(fill(b), 2u);
  // Two in 32 ms: one at a time.
  b.publish(c, 1, t += 32ms);
  EXPECT_EQ(fill(b), 1u);
  // One in 250 µs: four.
  b.publish(c, 1, t += 250us);
  EXPECT_EQ(fill(b), 4u);
  EXPECT_EQ(c.transactions.get(), 1 + Batch::kMost + 2 + 1);
}

// A clock that did not move (or a stale start) does not divide by zero.
TEST(RrBatch, NoTimeElapsedMeansTheLargestBatch) {
  FlowCounters c;
  Batch b(kT0, 1);
  b.add(1);
  b.publish(c, 1, kT0);
  EXPECT_EQ(fill(b), Batch::kMost);
}

TEST(RttTimeout, FirstRoundTripSetsThreeTimesIt) {
  RttTimeout t;
  t.min_ns = 1000;
  EXPECT_EQ(t.timeout_ns(), RttTimeout::kFirstNs);
  t.on_rtt(40'000);
  // srtt = r, rttvar = r / 2: srtt + 4 x rttvar = 3r.
  EXPECT_EQ(t.timeout_ns(), 120'000);
  EXPECT_FALSE(t.outlasts(120'000));
  EXPECT_TRUE(t.outlasts(120'001));
}

TEST(RttTimeout, FloorAndCap) {
  RttTimeout t;
  t.min_ns = 5'000'000;
  t.on_rtt(10'000);  // 30 µs computed, 5 ms floor
  EXPECT_EQ(t.timeout_ns(), 5'000'000);
  EXPECT_FALSE(t.outlasts(4'999'999));
  EXPECT_TRUE(t.outlasts(5'000'001));
  RttTimeout slow;
  slow.on_rtt(1'500'000'000);  // 4.5 s computed, 2 s cap
  EXPECT_EQ(slow.timeout_ns(), RttTimeout::kMaxNs);
  EXPECT_TRUE(slow.outlasts(RttTimeout::kMaxNs + 1));
  EXPECT_FALSE(slow.outlasts(RttTimeout::kMaxNs));
}

// Steady round trips: the deviation decays and 2 x srtt becomes the timeout.
TEST(RttTimeout, SteadyRoundTripsSettleAtTwiceTheRoundTrip) {
  RttTimeout t;
  for (int i = 0; i < 200; ++i) t.on_rtt(50'000);
  EXPECT_EQ(t.srtt8 >> 3, 50'000);
  EXPECT_EQ(t.timeout_ns(), 100'000);
}

// outlasts() takes a shortcut for round trips within 2 x srtt; whatever the
// estimator's state and the floor, it must answer as the full computation.
TEST(RttTimeout, OutlastsAgreesWithTheTimeout) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 200; ++round) {
    RttTimeout t;
    t.min_ns = static_cast<int64_t>(rng() % 3) * 1'000'000;  // 0, 1 ms or 2 ms
    const int64_t scale = int64_t{1} << (rng() % 32);        // 1 ns to 2 s
    const int samples = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < samples; ++i)
      t.on_rtt(static_cast<int64_t>(rng() % static_cast<uint64_t>(scale)) + 1);
    const int64_t to = t.timeout_ns();
    for (int64_t rtt :
         {int64_t{0}, int64_t{1}, to - 1, to, to + 1, (t.srtt8 >> 2) - 1, t.srtt8 >> 2,
          (t.srtt8 >> 2) + 1, RttTimeout::kMaxNs, RttTimeout::kMaxNs + 1})
      EXPECT_EQ(t.outlasts(rtt), rtt > to) << "rtt " << rtt << " srtt8 " << t.srtt8 << " rttvar4 "
                                           << t.rttvar4 << " min " << t.min_ns;
  }
}

}  // namespace
}  // namespace flowperf::engine
