// Tests for flowperf::measure::Histogram: bucket layout invariants, brute-force accuracy against
// sorted samples for several distributions, exact statistics, merge, and snapshot round trips.
#include "measure/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace flowperf::measure {
namespace {

using Samples = std::vector<uint64_t>;
__extension__ typedef unsigned __int128 U128;

constexpr uint64_t kTwo40 = uint64_t{1} << 40;
constexpr double kPercentiles[] = {1, 10, 25, 50, 75, 90, 99, 99.9, 99.99};
// The same percentiles in units of 0.01, so the oracle's rank is computed in integers.
constexpr uint64_t kPercentilesX100[] = {100, 1000, 2500, 5000, 7500, 9000, 9900, 9990, 9999};

uint64_t ToU64(double x) {
  if (!(x > 0)) return 0;
  if (x >= 18446744073709549568.0) return UINT64_MAX;  // largest double below 2^64
  return static_cast<uint64_t>(x);
}

Histogram Build(const Samples& samples) {
  Histogram h;
  for (uint64_t v : samples) h.record(v);
  return h;
}

// Checks every statistic of `h` against a brute-force computation over `samples`.
void ExpectMatchesSamples(const Histogram& h, Samples samples) {
  std::sort(samples.begin(), samples.end());
  const uint64_t n = samples.size();
  ASSERT_EQ(h.count(), n);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(h.min(), samples.front());
  EXPECT_EQ(h.max(), samples.back());

  U128 sum = 0;
  for (uint64_t v : samples) sum += v;
  const long double exact_mean = static_cast<long double>(sum) / static_cast<long double>(n);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(exact_mean));

  for (size_t k = 0; k < std::size(kPercentiles); ++k) {
    const double p = kPercentiles[k];
    SCOPED_TRACE("p=" + std::to_string(p));
    const uint64_t rank = std::max<uint64_t>(1, (kPercentilesX100[k] * n + 9999) / 10000);
    const uint64_t truth = samples[rank - 1];
    const uint64_t got = h.percentile(p);
    if (truth >= kTwo40) {
      // Overflow bucket: the histogram can only report the exact max.
      EXPECT_EQ(got, h.max());
      continue;
    }
    const double err = std::fabs(static_cast<double>(got) - static_cast<double>(truth));
    EXPECT_LE(err, 0.01 * static_cast<double>(truth)) << "truth=" << truth << " got=" << got;
    EXPECT_LE(err, static_cast<double>(truth) / 128.0) << "truth=" << truth << " got=" << got;
    if (truth < 2 * Histogram::kSubBuckets) {
      EXPECT_EQ(got, truth);
    }
  }
  EXPECT_EQ(h.percentile(0), samples.front());
  EXPECT_EQ(h.percentile(100), samples.back());

  if (samples.back() < kTwo40) {
    long double acc = 0;
    for (uint64_t v : samples) {
      const long double d = static_cast<long double>(v) - exact_mean;
      acc += d * d;
    }
    const double truth = static_cast<double>(std::sqrt(acc / static_cast<long double>(n)));
    // Documented bound: the error is at most the largest per-sample quantisation error.
    EXPECT_NEAR(h.stddev(), truth, static_cast<double>(samples.back()) / 128.0 + 1e-6);
  }
}

// ---------------------------------------------------------------------------------------------
// Layout

TEST(HistogramLayout, BucketCountAndMemory) {
  EXPECT_EQ(Histogram::bucket_count(), 2241u);
  EXPECT_LE(Histogram::bucket_count() * sizeof(uint64_t), 24u * 1024u);
}

TEST(HistogramLayout, EveryBucketIsConsistent) {
  const uint32_t n = Histogram::bucket_count();
  EXPECT_EQ(Histogram::bucket_low(0), 0u);
  EXPECT_EQ(Histogram::bucket_high(n - 1), UINT64_MAX);
  EXPECT_EQ(Histogram::bucket_low(n - 1), kTwo40);
  for (uint32_t i = 0; i < n; ++i) {
    SCOPED_TRACE("bucket " + std::to_string(i));
    const uint64_t lo = Histogram::bucket_low(i);
    const uint64_t hi = Histogram::bucket_high(i);
    ASSERT_LE(lo, hi);
    ASSERT_EQ(Histogram::index_of(lo), i);
    ASSERT_EQ(Histogram::index_of(hi), i);
    if (i + 1 < n) {
      ASSERT_EQ(hi + 1, Histogram::bucket_low(i + 1));
    }
  }
}

TEST(HistogramLayout, SmallValuesHaveTheirOwnBucket) {
  for (uint64_t v = 0; v < 2 * Histogram::kSubBuckets; ++v) {
    EXPECT_EQ(Histogram::index_of(v), v);
    EXPECT_EQ(Histogram::bucket_low(static_cast<uint32_t>(v)), v);
    EXPECT_EQ(Histogram::bucket_high(static_cast<uint32_t>(v)), v);
  }
}

TEST(HistogramLayout, BucketWidthGivesTheErrorBound) {
  // Every non-overflow bucket is at most 1/64 of its lowest value wide, so its midpoint is within
  // 1/128 of any value in it.
  for (uint32_t i = 0; i + 1 < Histogram::bucket_count(); ++i) {
    const uint64_t lo = Histogram::bucket_low(i);
    const uint64_t hi = Histogram::bucket_high(i);
    const uint64_t mid = lo + (hi - lo) / 2;
    EXPECT_LE(static_cast<double>(mid - lo), static_cast<double>(lo) / 128.0) << i;
    EXPECT_LE(static_cast<double>(hi - mid), static_cast<double>(hi) / 128.0) << i;
  }
}

TEST(HistogramLayout, IndexOfBracketsRandomValuesOfEveryMagnitude) {
  std::mt19937_64 rng(7);
  for (int bits = 0; bits <= 64; ++bits) {
    for (int k = 0; k < 2000; ++k) {
      const uint64_t v = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
      const uint32_t i = Histogram::index_of(v);
      ASSERT_LT(i, Histogram::bucket_count());
      ASSERT_LE(Histogram::bucket_low(i), v);
      ASSERT_GE(Histogram::bucket_high(i), v);
    }
  }
  EXPECT_EQ(Histogram::index_of(kTwo40 - 1), Histogram::bucket_count() - 2);
  EXPECT_EQ(Histogram::index_of(kTwo40), Histogram::bucket_count() - 1);
  EXPECT_EQ(Histogram::index_of(UINT64_MAX), Histogram::bucket_count() - 1);
}

// ---------------------------------------------------------------------------------------------
// Accuracy against brute force, per distribution

struct Distribution {
  std::string name;
  std::function<Samples(std::mt19937_64&)> generate;
};

void PrintTo(const Distribution& d, std::ostream* os) { *os << d.name; }

constexpr size_t kN = 200000;

const Distribution kDistributions[] = {
    {"Uniform",
     [](std::mt19937_64& rng) {
       std::uniform_int_distribution<uint64_t> d(0, 10'000'000);
       Samples s(kN);
       for (auto& v : s) v = d(rng);
       return s;
     }},
    {"Exponential",
     [](std::mt19937_64& rng) {
       std::exponential_distribution<double> d(1.0 / 50'000.0);  // mean 50 us
       Samples s(kN);
       for (auto& v : s) v = ToU64(d(rng));
       return s;
     }},
    {"LogNormal",
     [](std::mt19937_64& rng) {
       std::lognormal_distribution<double> d(10.0, 2.5);  // median ~22 us, very long tail
       Samples s(kN);
       for (auto& v : s) v = ToU64(d(rng));
       return s;
     }},
    {"Pareto",
     [](std::mt19937_64& rng) {
       std::uniform_real_distribution<double> u(0.0, 1.0);
       Samples s(kN);
       for (auto& v : s) v = ToU64(1000.0 / std::pow(1.0 - u(rng), 1.0 / 1.2));
       return s;
     }},
    {"Constant", [](std::mt19937_64&) { return Samples(kN, 123'456'789); }},
    {"Tiny",
     [](std::mt19937_64& rng) {
       std::uniform_int_distribution<uint64_t> d(0, 200);
       Samples s(kN);
       for (auto& v : s) v = d(rng);
       return s;
     }},
    {"HugeNearAndAbove2Pow40",
     [](std::mt19937_64& rng) {
       std::uniform_int_distribution<uint64_t> d(kTwo40 - kTwo40 / 4, kTwo40 + kTwo40 / 16);
       Samples s(kN);
       for (auto& v : s) v = d(rng);
       s[0] = UINT64_MAX;
       return s;
     }},
    {"HugeBelow2Pow40",
     [](std::mt19937_64& rng) {
       std::uniform_int_distribution<uint64_t> d(kTwo40 / 2, kTwo40 - 1);
       Samples s(kN);
       for (auto& v : s) v = d(rng);
       return s;
     }},
};

class HistogramAccuracy : public ::testing::TestWithParam<Distribution> {};

TEST_P(HistogramAccuracy, PercentilesWithinOnePercentAndExactStats) {
  std::mt19937_64 rng(12345);
  const Samples samples = GetParam().generate(rng);
  ExpectMatchesSamples(Build(samples), samples);
}

TEST_P(HistogramAccuracy, SmallSampleCounts) {
  // Rank rounding matters most when count is small.
  std::mt19937_64 rng(99);
  Samples all = GetParam().generate(rng);
  for (size_t n : {1, 2, 3, 7, 10, 99, 101, 1000, 10001}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const Samples s(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    ExpectMatchesSamples(Build(s), s);
  }
}

TEST_P(HistogramAccuracy, MergeEqualsHistogramOfConcatenation) {
  std::mt19937_64 rng(2024);
  const Samples a = GetParam().generate(rng);
  const Samples b = kDistributions[2].generate(rng);  // log-normal, overlapping ranges
  Histogram ha = Build(a);
  ha.merge(Build(b));
  Samples both = a;
  both.insert(both.end(), b.begin(), b.end());
  const Histogram expected = Build(both);
  EXPECT_EQ(ha, expected);
  ExpectMatchesSamples(ha, both);
}

TEST_P(HistogramAccuracy, SnapshotRoundTripIsIdentical) {
  std::mt19937_64 rng(31337);
  const Histogram h = Build(GetParam().generate(rng));
  const Histogram::Snapshot s = h.snapshot();
  EXPECT_EQ(s.buckets, h.nonzero_buckets());
  const Histogram r = Histogram::from_snapshot(s);
  EXPECT_EQ(r, h);
  EXPECT_EQ(r.count(), h.count());
  EXPECT_EQ(r.min(), h.min());
  EXPECT_EQ(r.max(), h.max());
  EXPECT_EQ(r.mean(), h.mean());
  EXPECT_EQ(r.stddev(), h.stddev());
  for (double p : kPercentiles) EXPECT_EQ(r.percentile(p), h.percentile(p)) << p;
  EXPECT_EQ(r.snapshot(), s);
}

INSTANTIATE_TEST_SUITE_P(Distributions, HistogramAccuracy, ::testing::ValuesIn(kDistributions),
                         [](const ::testing::TestParamInfo<Distribution>& param_info) {
                           return param_info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Behaviour

TEST(Histogram, EmptyReturnsZeros) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  for (double p : {0.0, 1.0, 50.0, 99.99, 100.0}) EXPECT_EQ(h.percentile(p), 0u);
  EXPECT_TRUE(h.nonzero_buckets().empty());
  const Histogram::Snapshot s = h.snapshot();
  EXPECT_TRUE(s.buckets.empty());
  EXPECT_EQ(s.min, 0u);
  EXPECT_EQ(s.max, 0u);
  EXPECT_EQ(s.sum_lo, 0u);
  EXPECT_EQ(s.sum_hi, 0u);
  EXPECT_EQ(Histogram::from_snapshot(s), h);
}

TEST(Histogram, HotPathIsNoexcept) {
  Histogram h;
  static_assert(noexcept(h.record(1)));
  static_assert(noexcept(h.record_n(1, 2)));
  static_assert(noexcept(Histogram::index_of(1)));
}

TEST(Histogram, SingleValue) {
  Histogram h;
  h.record(1'000'003);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.min(), 1'000'003u);
  EXPECT_EQ(h.max(), 1'000'003u);
  EXPECT_EQ(h.mean(), 1'000'003.0);
  EXPECT_EQ(h.stddev(), 0.0);
  // Clamping to [min, max] makes a one-sample histogram exact at every percentile.
  for (double p : kPercentiles) EXPECT_EQ(h.percentile(p), 1'000'003u);
}

TEST(Histogram, PercentileArgumentEdges) {
  Histogram h;
  for (uint64_t v = 10; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.percentile(-5), 10u);
  EXPECT_EQ(h.percentile(0), 10u);
  EXPECT_EQ(h.percentile(std::numeric_limits<double>::quiet_NaN()), 10u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.percentile(250), 100u);
  EXPECT_EQ(h.percentile(std::numeric_limits<double>::infinity()), 100u);
  EXPECT_EQ(h.percentile(1e-300), 10u);  // rank rounds up to 1
}

TEST(Histogram, PercentileRankIsCeilOfPTimesCount) {
  // 999 x 5 and one 100: the 99.9th percentile of 1000 samples is rank 999, i.e. 5. A naive
  // ceil(99.9 / 100 * 1000) in floating point gives 1000.
  Histogram h;
  h.record_n(5, 999);
  h.record(100);
  EXPECT_EQ(h.percentile(99.9), 5u);
  EXPECT_EQ(h.percentile(99.91), 100u);

  Histogram g;
  g.record_n(5, 9999);
  g.record(100);
  EXPECT_EQ(g.percentile(99.99), 5u);
  EXPECT_EQ(g.percentile(99.995), 100u);

  Histogram e;  // 0..99 once each: exact region, rank r -> value r - 1
  for (uint64_t v = 0; v < 100; ++v) e.record(v);
  EXPECT_EQ(e.percentile(1), 0u);
  EXPECT_EQ(e.percentile(1.5), 1u);
  EXPECT_EQ(e.percentile(50), 49u);
  EXPECT_EQ(e.percentile(50.01), 50u);
  EXPECT_EQ(e.percentile(99), 98u);
  EXPECT_EQ(e.percentile(99.5), 99u);
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  for (uint64_t v : Samples{0, 7, 1000, 123'456'789, kTwo40 + 5, UINT64_MAX}) {
    a.record_n(v, 37);
    for (int i = 0; i < 37; ++i) b.record(v);
  }
  EXPECT_EQ(a, b);
  a.record_n(999, 0);  // no-op: in particular min/max must not move
  EXPECT_EQ(a, b);
  Histogram c;
  c.record_n(42, 0);
  EXPECT_EQ(c, Histogram());
  EXPECT_EQ(c.min(), 0u);
}

TEST(Histogram, MergeWithEmptyAndSelf) {
  std::mt19937_64 rng(5);
  const Samples s = kDistributions[1].generate(rng);
  const Histogram h = Build(s);
  Histogram m = h;
  m.merge(Histogram());
  EXPECT_EQ(m, h);
  Histogram e;
  e.merge(h);
  EXPECT_EQ(e, h);
  m.merge(m);
  Samples twice = s;
  twice.insert(twice.end(), s.begin(), s.end());
  EXPECT_EQ(m, Build(twice));
}

TEST(Histogram, ClearResetsToEmpty) {
  Histogram h;
  h.record(5);
  h.record(UINT64_MAX);
  h.clear();
  EXPECT_EQ(h, Histogram());
  EXPECT_EQ(h.min(), 0u);
  h.record(77);
  EXPECT_EQ(h.min(), 77u);
  EXPECT_EQ(h.max(), 77u);
}

TEST(Histogram, CopyAndMoveLeaveUsableHistograms) {
  Histogram a;
  a.record(10);
  Histogram b = std::move(a);  // `a` is empty now, and usable
  EXPECT_EQ(a, Histogram());   // NOLINT(bugprone-use-after-move): that is the point
  a.record(20);                // must not crash (checked under ASan)
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(a.min(), 20u);
  EXPECT_EQ(b.count(), 1u);
  EXPECT_EQ(b.min(), 10u);
  Histogram c;
  c = std::move(b);
  b.record(30);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.count(), 1u);
  EXPECT_EQ(c.count(), 1u);
  EXPECT_EQ(c.percentile(50), 10u);
  Histogram d = c;  // a copy owns its own counters
  d.record(10);
  EXPECT_EQ(c.count(), 1u);
  EXPECT_EQ(d.count(), 2u);
}

// Counters are held for the groups from the smallest value's to the largest's, no more.
TEST(Histogram, CountersCoverOnlyTheGroupsBetweenTheValuesSeen) {
  Histogram h;
  EXPECT_EQ(h.groups_in_use(), 0u);
  h.record(25'000);  // [16384, 32768)
  h.record(30'000);
  EXPECT_EQ(h.groups_in_use(), 1u);
  h.record(40'000);  // [32768, 65536)
  EXPECT_EQ(h.groups_in_use(), 2u);
  h.record(10'000);  // [8192, 16384): grows downwards
  EXPECT_EQ(h.groups_in_use(), 3u);
  EXPECT_EQ(h.min(), 10'000u);
  const uint64_t p50 = h.percentile(50);
  Histogram copy = h;
  EXPECT_EQ(copy.groups_in_use(), 3u);
  EXPECT_EQ(copy, h);
  EXPECT_EQ(Histogram::from_snapshot(h.snapshot()), h);
  h.clear();  // keeps its counters, zeroed
  EXPECT_EQ(h.groups_in_use(), 3u);
  EXPECT_EQ(h, Histogram());  // held zeros equal counters not held
  Histogram m;
  m.record(5);
  m.merge(copy);
  m.merge(m);  // doubles every count
  EXPECT_EQ(m.count(), 10u);
  EXPECT_EQ(m.percentile(100), 40'000u);
  EXPECT_EQ(m.min(), 5u);
  copy.record(uint64_t{1} << 50);  // the overflow bucket: the run reaches the last group
  EXPECT_EQ(copy.groups_in_use(), Histogram::kOverflowIndex / Histogram::kSubBuckets + 1 -
                                      Histogram::index_of(10'000) / Histogram::kSubBuckets);
  EXPECT_EQ(copy.percentile(40), p50);
}

// Percentiles over counters held in part against a plain walk of the snapshot's buckets, and the
// snapshot round trip, on values spread over many ranges with gaps between them.
TEST(Histogram, SparseGroupsGiveTheSamePercentilesAsAPlainWalk) {
  Histogram h;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int shift = static_cast<int>(x % 5) * 9;  // ranges ~2^0, 2^9, 2^18, 2^27, 2^36
    h.record((x >> 40) % (uint64_t{1} << (shift + 6)) + (uint64_t{1} << shift));
  }
  const Histogram::Snapshot s = h.snapshot();
  EXPECT_EQ(Histogram::from_snapshot(s), h);
  EXPECT_EQ(Histogram::from_snapshot(s).snapshot(), s);
  for (double p : {0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99}) {
    double r = p / 100.0 * static_cast<double>(h.count());
    if (std::fabs(r - std::round(r)) <= r * 1e-12) r = std::round(r);  // as percentile() does
    const auto rank = static_cast<uint64_t>(std::ceil(r));
    uint64_t seen = 0;
    uint32_t index = 0;
    for (const auto& b : s.buckets) {
      seen += b.count;
      index = b.index;
      if (seen >= rank) break;
    }
    const uint64_t low = Histogram::bucket_low(index);
    const uint64_t mid =
        std::clamp(low + (Histogram::bucket_high(index) - low) / 2, h.min(), h.max());
    EXPECT_EQ(h.percentile(p), mid) << "p=" << p;
  }
}

TEST(Histogram, StddevExactForSmallValuesAndConstants) {
  Histogram h;
  h.record_n(2, 3);
  h.record_n(10, 1);  // mean 4, variance (3*4 + 36) / 4 = 12
  EXPECT_NEAR(h.stddev(), std::sqrt(12.0), 1e-12);
  Histogram c;
  c.record_n(987'654'321'000ull, 1000);
  EXPECT_EQ(c.stddev(), 0.0);
  EXPECT_EQ(c.mean(), 987'654'321'000.0);
}

TEST(Histogram, SumAndMeanDoNotOverflow) {
  Histogram h;
  h.record_n(UINT64_MAX, uint64_t{1} << 62);
  h.record_n(UINT64_MAX, uint64_t{1} << 62);
  h.record(UINT64_MAX);
  EXPECT_EQ(h.count(), (uint64_t{1} << 63) + 1);
  EXPECT_EQ(h.mean(), static_cast<double>(UINT64_MAX));
  EXPECT_EQ(h.max(), UINT64_MAX);
  EXPECT_EQ(h.min(), UINT64_MAX);
  EXPECT_EQ(h.percentile(50), UINT64_MAX);
  const Histogram::Snapshot s = h.snapshot();
  EXPECT_NE(s.sum_hi, 0u);
  EXPECT_EQ(Histogram::from_snapshot(s), h);
  EXPECT_NEAR(static_cast<double>(s.sum()), std::ldexp(1.0, 127), std::ldexp(1.0, 80));
}

TEST(Histogram, MeanIsExactWhereDoubleSumsWouldNot) {
  // 2^53 + 1 is not a double; an accumulating double sum would drift.
  Histogram h;
  const uint64_t big = (uint64_t{1} << 53) + 1;
  h.record_n(big, 1000);
  h.record(big + 2);
  h.record(big - 2);
  EXPECT_EQ(h.mean(), static_cast<double>(big));
}

// ---------------------------------------------------------------------------------------------
// from_snapshot validation

Histogram::Snapshot ValidSnapshot() {
  Histogram h;
  h.record(3);
  h.record(1000);
  h.record(1'000'000);
  h.record(1'000'001);
  return h.snapshot();
}

TEST(HistogramSnapshot, ValidBaselineIsAccepted) {
  EXPECT_NO_THROW(Histogram::from_snapshot(ValidSnapshot()));
}

TEST(HistogramSnapshot, RejectsBadInput) {
  using Mutation = std::function<void(Histogram::Snapshot&)>;
  const std::vector<std::pair<std::string, Mutation>> cases = {
      {"index out of range",
       [](auto& s) {
         s.buckets.push_back({Histogram::bucket_count(), 1});
       }},
      {"huge index", [](auto& s) { s.buckets.back().index = UINT32_MAX; }},
      {"duplicate index", [](auto& s) { s.buckets.insert(s.buckets.begin() + 1, s.buckets[1]); }},
      {"descending", [](auto& s) { std::swap(s.buckets[1], s.buckets[2]); }},
      {"zero count", [](auto& s) { s.buckets[1].count = 0; }},
      {"count overflow",
       [](auto& s) {
         s.buckets[1].count = UINT64_MAX;
         s.buckets[2].count = UINT64_MAX;
       }},
      {"min > max", [](auto& s) { std::swap(s.min, s.max); }},
      {"min not in first bucket", [](auto& s) { s.min = 2; }},
      {"max not in last bucket", [](auto& s) { s.max = 2'000'000; }},
      {"max in last bucket but first bucket dropped",
       [](auto& s) { s.buckets.erase(s.buckets.begin()); }},
      {"sum too small", [](auto& s) { s.sum_lo = 10; }},
      {"sum too large", [](auto& s) { s.sum_hi = 1; }},
      {"empty with min",
       [](auto& s) {
         s = Histogram::Snapshot{{}, 5, 0, 0, 0};
       }},
      {"empty with sum",
       [](auto& s) {
         s = Histogram::Snapshot{{}, 0, 0, 1, 0};
       }},
      {"one sample, min != max",
       [](auto& s) {
         s = Histogram::Snapshot{{{Histogram::index_of(100'000), 1}}, 100'000, 100'001, 100'000, 0};
       }},
  };
  for (const auto& [name, mutate] : cases) {
    SCOPED_TRACE(name);
    Histogram::Snapshot s = ValidSnapshot();
    mutate(s);
    EXPECT_THROW(Histogram::from_snapshot(s), std::invalid_argument);
  }
}

}  // namespace
}  // namespace flowperf::measure
