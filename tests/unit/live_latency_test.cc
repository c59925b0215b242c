// LiveLatency and Histogram::tap: what a worker records, another thread
// reads while it runs; interval histograms with the full one's percentiles.
#include "measure/live_latency.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

namespace flowperf::measure {
namespace {

std::vector<uint64_t> diff(const std::vector<uint64_t>& now, const std::vector<uint64_t>& before) {
  std::vector<uint64_t> d(now.size());
  for (size_t i = 0; i < now.size(); ++i) d[i] = now[i] - before[i];
  return d;
}

TEST(LiveLatency, ATappedHistogramCountsIntoItAndTheDifferenceIsAnInterval) {
  LiveLatency live;
  Histogram h;
  h.tap(live.counters());
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> ns(10.5, 0.8);  // around 36 us, a long tail
  for (int i = 0; i < 50'000; ++i) h.record(static_cast<uint64_t>(ns(rng)));
  std::vector<uint64_t> first, second;
  live.read(first);
  const auto whole = histogram_of_counts(first);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->count(), h.count());
  // The same buckets, so the same percentiles (the midpoint rule) inside
  // the extremes, and the extremes within their bucket.
  for (double p : {10.0, 50.0, 90.0, 99.0, 99.9})
    EXPECT_EQ(whole->percentile(p), h.percentile(p)) << p;
  EXPECT_EQ(Histogram::index_of(whole->max()), Histogram::index_of(h.max()));
  EXPECT_EQ(Histogram::index_of(whole->min()), Histogram::index_of(h.min()));

  // The next interval: only what came after the first read.
  Histogram later;
  for (int i = 0; i < 1000; ++i) {
    h.record(5'000'000);
    later.record(5'000'000);
  }
  h.record_n(7'000'000, 10);
  later.record_n(7'000'000, 10);
  live.read(second);
  const auto interval = histogram_of_counts(diff(second, first));
  ASSERT_TRUE(interval);
  EXPECT_EQ(interval->count(), 1010u);
  EXPECT_EQ(interval->percentile(50), later.percentile(50));
  EXPECT_EQ(Histogram::index_of(interval->percentile(100)), Histogram::index_of(7'000'000));
  EXPECT_FALSE(histogram_of_counts(diff(second, second)));
}

TEST(LiveLatency, CopiesAndMovesDoNotTakeTheTap) {
  LiveLatency live;
  Histogram h;
  h.tap(live.counters());
  h.record(1000);
  Histogram copy = h;
  copy.record(2000);
  Histogram moved = std::move(copy);
  moved.record(3000);
  Histogram assigned;
  assigned = h;
  assigned.record(4000);
  std::vector<uint64_t> counts;
  live.read(counts);
  EXPECT_EQ(histogram_of_counts(counts)->count(), 1u);
  // Assigning to a tapped histogram keeps its tap.
  h = Histogram();
  h.record(5000);
  live.read(counts);
  EXPECT_EQ(histogram_of_counts(counts)->count(), 2u);
  h.tap(nullptr);
  h.record(6000);
  live.read(counts);
  EXPECT_EQ(histogram_of_counts(counts)->count(), 2u);
}

// One thread records, another reads as it goes: every read is a count the
// writer had reached, never more, and the last one is all of it.
TEST(LiveLatency, ReadsWhileAnotherThreadRecords) {
  LiveLatency live;
  Histogram h;
  h.tap(live.counters());
  constexpr uint64_t kSamples = 2'000'000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t i = 0; i < kSamples; ++i) h.record(1000 + (i % 5000));
    done.store(true);
  });
  uint64_t last = 0;
  std::vector<uint64_t> counts;
  while (!done.load()) {
    live.read(counts);
    uint64_t total = 0;
    for (uint64_t c : counts) total += c;
    EXPECT_GE(total, last);
    EXPECT_LE(total, kSamples);
    last = total;
  }
  writer.join();
  live.read(counts);
  EXPECT_EQ(histogram_of_counts(counts)->count(), kSamples);
}

}  // namespace
}  // namespace flowperf::measure
