// Unit tests for measure::SeqTracker: counting of unique, out-of-order and duplicate datagrams,
// the duplicate-detection window (its edge, and how big jumps clear it), and the RFC 3550
// interarrival jitter checked against values worked out by hand.
#include "measure/seq_tracker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace flowperf::measure {
namespace {

constexpr uint64_t kW = SeqTracker::kWindow;

// Feeds sequence numbers with no timestamps.
void Feed(SeqTracker& t, const std::vector<uint64_t>& seqs) {
  for (uint64_t s : seqs) t.on_datagram(s, 0, 0);
}

void ExpectCounts(const SeqTracker& t, uint64_t unique, uint64_t out_of_order,
                  uint64_t duplicates) {
  EXPECT_EQ(t.unique(), unique);
  EXPECT_EQ(t.out_of_order(), out_of_order);
  EXPECT_EQ(t.duplicates(), duplicates);
}

// ---------------------------------------------------------------------------------------------
// Counting

TEST(SeqTracker, StartsEmpty) {
  SeqTracker t;
  EXPECT_FALSE(t.any());
  ExpectCounts(t, 0, 0, 0);
  EXPECT_EQ(t.highest(), 0u);
  EXPECT_EQ(t.jitter_ns(), 0.0);
}

TEST(SeqTracker, InOrder) {
  SeqTracker t;
  for (uint64_t s = 0; s < 10000; ++s) t.on_datagram(s, 0, 0);
  EXPECT_TRUE(t.any());
  ExpectCounts(t, 10000, 0, 0);
  EXPECT_EQ(t.highest(), 9999u);
}

TEST(SeqTracker, FirstDatagramNeedNotBeZero) {
  SeqTracker t;
  Feed(t, {1000, 1001, 1002});
  ExpectCounts(t, 3, 0, 0);
  EXPECT_EQ(t.highest(), 1002u);
  // An earlier one arriving afterwards is late, not a duplicate.
  t.on_datagram(999, 0, 0);
  ExpectCounts(t, 4, 1, 0);
  EXPECT_EQ(t.highest(), 1002u);
}

TEST(SeqTracker, GapsAreNotCounted) {
  SeqTracker t;
  Feed(t, {0, 1, 2, 5, 6, 10, 100});
  ExpectCounts(t, 7, 0, 0);
  EXPECT_EQ(t.highest(), 100u);
  // Loss, as the report computes it: datagrams sent (101) minus unique.
  EXPECT_EQ(t.highest() + 1 - t.unique(), 94u);
}

TEST(SeqTracker, ReorderingCountsOutOfOrderAndUnique) {
  SeqTracker t;
  Feed(t, {0, 1, 3, 2, 4});
  ExpectCounts(t, 5, 1, 0);
  EXPECT_EQ(t.highest(), 4u);

  SeqTracker r;
  Feed(r, {0, 5, 4, 3, 2, 1});  // all but the first two arrive late
  ExpectCounts(r, 6, 4, 0);
  EXPECT_EQ(r.highest(), 5u);
}

TEST(SeqTracker, LateArrivalFillsAGap) {
  SeqTracker t;
  Feed(t, {0, 1, 2, 5, 6});
  ExpectCounts(t, 5, 0, 0);
  Feed(t, {4, 3});
  ExpectCounts(t, 7, 2, 0);
  EXPECT_EQ(t.highest(), 6u);
}

TEST(SeqTracker, DuplicatesAreCountedButNotUnique) {
  SeqTracker t;
  Feed(t, {0, 0});
  ExpectCounts(t, 1, 0, 1);

  SeqTracker u;
  Feed(u, {0, 1, 1, 2, 2, 2, 3});
  ExpectCounts(u, 4, 0, 3);
  EXPECT_EQ(u.highest(), 3u);
}

TEST(SeqTracker, DuplicateOfALateArrival) {
  SeqTracker t;
  Feed(t, {0, 2, 1, 1, 2, 0});
  ExpectCounts(t, 3, 1, 3);
}

TEST(SeqTracker, DuplicateOlderThanTheWindowCountsAsOutOfOrder) {
  SeqTracker t;
  Feed(t, {0, 1, 5000});
  ExpectCounts(t, 3, 0, 0);
  t.on_datagram(0, 0, 0);  // a copy of 0, but 5000 - 0 >= kWindow: can no longer be checked
  ExpectCounts(t, 4, 1, 0);
  t.on_datagram(1, 0, 0);
  ExpectCounts(t, 5, 2, 0);
}

TEST(SeqTracker, WindowEdge) {
  SeqTracker t;
  Feed(t, {1, kW});  // a jump of kWindow - 1: bit 1 stays set
  ExpectCounts(t, 2, 0, 0);
  t.on_datagram(1, 0, 0);  // kW - 1 behind: still inside the window, a real duplicate
  ExpectCounts(t, 2, 0, 1);
  t.on_datagram(0, 0, 0);  // exactly kW behind: outside, counted as out of order
  ExpectCounts(t, 3, 1, 1);
}

TEST(SeqTracker, PartialJumpClearsOnlyTheSkippedSlots) {
  SeqTracker t;
  Feed(t, {7, 7 + kW - 1});  // clears every slot but 7's, then sets slot 6
  ExpectCounts(t, 2, 0, 0);
  t.on_datagram(kW - 2, 0, 0);  // skipped, in the window: late, not a duplicate
  ExpectCounts(t, 3, 1, 0);
  t.on_datagram(8, 0, 0);  // skipped; its slot was cleared
  ExpectCounts(t, 4, 2, 0);
  t.on_datagram(7, 0, 0);  // seen before and still in the window
  ExpectCounts(t, 4, 2, 1);
  t.on_datagram(kW - 2, 0, 0);  // the late one, again
  ExpectCounts(t, 4, 2, 2);
}

TEST(SeqTracker, JumpOfExactlyTheWindowClearsEverything) {
  SeqTracker t;
  Feed(t, {7, 8, 8 + kW});  // slot 7 held seq 7; the jump must clear it
  ExpectCounts(t, 3, 0, 0);
  t.on_datagram(7 + kW, 0, 0);  // same slot as 7, one behind the highest: new, late
  ExpectCounts(t, 4, 1, 0);
}

TEST(SeqTracker, HugeJumpClearsTheWindow) {
  SeqTracker t;
  Feed(t, {100, 101, 102});
  t.on_datagram(100 + 10 * kW, 0, 0);
  ExpectCounts(t, 4, 0, 0);
  // The same slots as 101 and 102, inside the window of the new highest: new, late.
  Feed(t, {101 + 9 * kW, 102 + 9 * kW});
  ExpectCounts(t, 6, 2, 0);
  // Now they are duplicates.
  Feed(t, {101 + 9 * kW, 102 + 9 * kW});
  ExpectCounts(t, 6, 2, 2);
}

TEST(SeqTracker, LargeSequenceNumbers) {
  SeqTracker t;
  const uint64_t base = uint64_t{1} << 63;
  Feed(t, {base, base + 1, base + 3, base + 2, base + 2});
  ExpectCounts(t, 4, 1, 1);
  EXPECT_EQ(t.highest(), base + 3);
}

// BUG: SeqTracker::clear_range(from, to) loops `for (s = from; s <= to; ++s)`, which never ends
// when to == UINT64_MAX (s wraps to 0). A datagram carrying sequence number 2^64-1 that arrives
// less than kWindow after the highest seen (sequence numbers come straight off the wire) hangs
// the receiving worker. The child process gets 2 seconds before SIGALRM kills it.
TEST(SeqTrackerDeathTest, SequenceNumberAtUint64MaxDoesNotHang) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        alarm(2);
        SeqTracker t;
        t.on_datagram(std::numeric_limits<uint64_t>::max() - 1, 0, 0);
        t.on_datagram(std::numeric_limits<uint64_t>::max(), 0, 0);
        _exit(t.unique() == 2 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// Jitter (RFC 3550 6.4.1): D = transit(i) - transit(i-1), J += (|D| - J) / 16, in arrival order.

TEST(SeqTrackerJitter, MatchesTheRfcFormulaWorkedByHand) {
  SeqTracker t;
  // transit = recv - send: 100, 150, 80, 80, 500
  t.on_datagram(0, 1000, 1100);
  EXPECT_EQ(t.jitter_ns(), 0.0);  // one transit time: nothing to compare yet
  t.on_datagram(1, 2000, 2150);   // |D| = 50:  J = 50/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 3.125);
  t.on_datagram(2, 3000, 3080);  // |D| = 70:  J = 3.125 + (70 - 3.125)/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 7.3046875);
  t.on_datagram(3, 4000, 4080);  // |D| = 0:   J = 7.3046875 * 15/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 6.84814453125);
  t.on_datagram(4, 5000, 5500);  // |D| = 420: J = 6.84814453125 + (420 - 6.84814453125)/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 32.670135498046875);
}

TEST(SeqTrackerJitter, ClockOffsetDoesNotMatter) {
  // The same transit differences with the receiver's clock far behind the sender's (negative
  // transit times).
  SeqTracker t;
  const int64_t off = -5'000'000'000;
  t.on_datagram(0, 1'000'000'000'000, 1'000'000'000'100 + off);
  t.on_datagram(1, 1'000'000'001'000, 1'000'000'001'150 + off);
  t.on_datagram(2, 1'000'000'002'000, 1'000'000'002'080 + off);
  t.on_datagram(3, 1'000'000'003'000, 1'000'000'003'080 + off);
  t.on_datagram(4, 1'000'000'004'000, 1'000'000'004'500 + off);
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 32.670135498046875);
}

TEST(SeqTrackerJitter, ZeroForConstantTransit) {
  SeqTracker t;
  int64_t send = 1'000'000;
  for (uint64_t s = 0; s < 1000; ++s) {
    send += 1000 + static_cast<int64_t>((s * 7919) % 5000);  // irregular sending
    t.on_datagram(s, send, send + 777);
  }
  EXPECT_EQ(t.jitter_ns(), 0.0);
  EXPECT_EQ(t.unique(), 1000u);
}

TEST(SeqTrackerJitter, DuplicatesDoNotChangeIt) {
  SeqTracker t;
  t.on_datagram(0, 1000, 1100);  // transit 100
  t.on_datagram(1, 2000, 2200);  // transit 200: J = 100/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 6.25);
  t.on_datagram(1, 2000, 12000);  // a copy of 1, much later: transit 10000
  EXPECT_EQ(t.duplicates(), 1u);
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 6.25);
  // The next D is against 1's first transit (200), not the copy's: D = 0.
  t.on_datagram(2, 3000, 3200);
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 5.859375);  // 6.25 * 15/16
}

TEST(SeqTrackerJitter, LateArrivalsCountInArrivalOrder) {
  SeqTracker t;
  t.on_datagram(0, 1000, 1100);  // transit 100
  t.on_datagram(2, 3000, 3200);  // transit 200: J = 6.25
  t.on_datagram(1, 2000, 2100);  // late, transit 100: |D| = 100, J = 6.25 + (100 - 6.25)/16
  EXPECT_EQ(t.out_of_order(), 1u);
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 12.109375);
}

TEST(SeqTrackerJitter, UnknownTimestampsAreSkipped) {
  SeqTracker t;
  t.on_datagram(0, 1000, 1100);  // transit 100
  t.on_datagram(1, 0, 5000);     // no send time
  t.on_datagram(2, 3000, 0);     // no receive time
  EXPECT_EQ(t.jitter_ns(), 0.0);
  t.on_datagram(3, 4000, 4100);  // transit 100 again: D = 0 against datagram 0
  EXPECT_EQ(t.jitter_ns(), 0.0);
  t.on_datagram(4, 5000, 5260);  // transit 260: J = 160/16
  EXPECT_DOUBLE_EQ(t.jitter_ns(), 10.0);
  EXPECT_EQ(t.unique(), 5u);
}

}  // namespace
}  // namespace flowperf::measure
