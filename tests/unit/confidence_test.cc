// Student's t quantiles, confidence intervals of a series, and the loop that
// decides when a repeated test may stop.
#include "measure/confidence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace flowperf::measure {
namespace {

// Two-sided quantiles to 12 significant digits, from an arbitrary-precision
// root of the regularized incomplete beta function (I_x(df/2, 1/2) = 1 - level,
// t = √(df·(1 - x) / x)); the last row is the normal quantile.
struct TRow {
  int64_t df;
  double t95, t99;
};
constexpr TRow kT[] = {
    {1, 12.7062047362, 63.6567411629},           {2, 4.30265272975, 9.92484320092},
    {3, 3.18244630528, 5.84090930973},           {4, 2.7764451052, 4.60409487135},
    {5, 2.57058183564, 4.03214298356},           {9, 2.2621571628, 3.24983554159},
    {10, 2.22813885199, 3.16927267262},          {29, 2.04522964213, 2.75638590367},
    {30, 2.0422724563, 2.74999565357},           {100, 1.98397151852, 2.62589052144},
    {1000, 1.96233908083, 2.58075469807},        {1001, 1.96233670528, 2.58074976875},
    {5000, 1.96043855171, 2.57681296656},        {10000, 1.96020123989, 2.57632104667},
    {kInfiniteDf, 1.95996398454, 2.57582930355},
};

TEST(StudentT, MatchesReferenceQuantiles) {
  for (const auto& r : kT) {
    EXPECT_NEAR(student_t(95, r.df), r.t95, r.t95 * 1e-9) << "df " << r.df;
    EXPECT_NEAR(student_t(99, r.df), r.t99, r.t99 * 1e-9) << "df " << r.df;
  }
}

// netperf's own table (3 decimals) for the degrees of freedom its 30
// iterations can reach: every entry agrees with ours to its last digit.
TEST(StudentT, AgreesWithNetperfsTable) {
  const double t95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  const double t99[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                        3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                        2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
  for (int df = 1; df <= 30; ++df) {
    EXPECT_NEAR(student_t(95, df), t95[df - 1], 0.0005 + 1e-12) << "df " << df;
    EXPECT_NEAR(student_t(99, df), t99[df - 1], 0.0005 + 1e-12) << "df " << df;
  }
}

TEST(StudentT, FallsTowardsTheNormalQuantile) {
  double previous = std::numeric_limits<double>::infinity();
  for (int64_t df : {1, 2, 5, 50, 999, 1000, 1001, 5000, 999999, 1000000}) {
    const double t = student_t(95, df);
    EXPECT_LT(t, previous) << "df " << df;
    EXPECT_GE(t, student_t(95, kInfiniteDf)) << "df " << df;
    previous = t;
  }
  // From a million on, the normal quantile is t to 6 significant digits.
  EXPECT_EQ(student_t(95, int64_t{1} << 40), student_t(95, kInfiniteDf));
}

TEST(StudentT, NoDegreesOfFreedomAndBadLevels) {
  EXPECT_TRUE(std::isinf(student_t(95, 0)));
  EXPECT_THROW(student_t(0, 5), std::invalid_argument);
  EXPECT_THROW(student_t(100, 5), std::invalid_argument);
  EXPECT_THROW(student_t(std::nan(""), 5), std::invalid_argument);
  // Any level works, not only netperf's two: 90% at df 4 is 2.131847.
  EXPECT_NEAR(student_t(90, 4), 2.13184678633, 1e-9);
}

TEST(ConfidenceInterval, MeanSampleStddevAndHalfWidth) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  Interval i = confidence_interval(v, 95);
  EXPECT_EQ(i.n, 5u);
  EXPECT_DOUBLE_EQ(i.mean, 3);
  EXPECT_NEAR(i.stddev, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(i.half_width, 2.7764451052 * std::sqrt(2.5) / std::sqrt(5.0), 1e-9);
  EXPECT_NEAR(i.width_pct, 200 * i.half_width / 3, 1e-9);
}

// netperf computes the same width from a population variance:
// 2·t·√(var / (n - 1)) / mean.
TEST(ConfidenceInterval, SameWidthAsNetperfsFormula) {
  const std::vector<double> v = {9410.5, 9388.1, 9502.7, 9299.9, 9455.0, 9371.3};
  double sum = 0, squares = 0;
  for (double x : v) sum += x, squares += x * x;
  const double n = static_cast<double>(v.size()), mean = sum / n;
  const double var = squares / n - mean * mean;
  const double netperf = 100 * 2 * student_t(99, 5) * std::sqrt(var / (n - 1)) / mean;
  EXPECT_NEAR(confidence_interval(v, 99).width_pct, netperf, 1e-6);
}

TEST(ConfidenceInterval, DegenerateSeries) {
  EXPECT_TRUE(std::isinf(confidence_interval(std::vector<double>{}, 95).width_pct));
  Interval one = confidence_interval(std::vector<double>{7}, 95);
  EXPECT_DOUBLE_EQ(one.mean, 7);
  EXPECT_TRUE(std::isinf(one.width_pct));
  // Every run the same: no width, even at zero (netperf's unmeasured CPU, -1).
  EXPECT_EQ(confidence_interval(std::vector<double>{0, 0, 0}, 95).width_pct, 0);
  EXPECT_EQ(confidence_interval(std::vector<double>{-1, -1, -1}, 95).width_pct, 0);
  // A zero mean with spread has no finite relative width.
  EXPECT_TRUE(std::isinf(confidence_interval(std::vector<double>{-1, 1}, 95).width_pct));
}

ConfidenceLoop throughput_loop(int level, double width, int min, int max) {
  return ConfidenceLoop({level, width, min, max}, {{"throughput", true}});
}

// Runs the loop over a series; returns how many values it took.
int runs_taken(ConfidenceLoop& loop, const std::vector<double>& series) {
  for (double v : series)
    if (!loop.add({v})) break;
  return loop.iterations();
}

// 100, 104, 96, then 100s: the 95% width is 19.9% after 3 runs, 10.4% after
// 4, 7.02% after 5, 5.31% after 6 and 4.27% after 7.
const std::vector<double> kSettling = {100, 104, 96, 100, 100, 100, 100, 100, 100, 100};

TEST(ConfidenceLoop, StopsOnTheFirstRunWithinTheWidth) {
  ConfidenceLoop loop = throughput_loop(95, 5, 3, 10);
  for (int n = 1; n <= 6; ++n) {
    EXPECT_TRUE(loop.add({kSettling[n - 1]})) << "run " << n;
    EXPECT_FALSE(loop.achieved()) << "run " << n;
  }
  EXPECT_NEAR(loop.interval(0).width_pct, 5.31, 0.01);
  EXPECT_FALSE(loop.add({kSettling[6]}));
  EXPECT_TRUE(loop.done());
  EXPECT_TRUE(loop.achieved());
  EXPECT_EQ(loop.iterations(), 7);
  EXPECT_NEAR(loop.interval(0).width_pct, 4.27, 0.01);
  EXPECT_THROW(loop.add({100}), std::logic_error);
}

TEST(ConfidenceLoop, AWiderGoalStopsSooner) {
  ConfidenceLoop loop = throughput_loop(95, 11, 3, 10);
  EXPECT_EQ(runs_taken(loop, kSettling), 4);
  EXPECT_TRUE(loop.achieved());
  // 99% needs more runs than 95% for the same width.
  ConfidenceLoop strict = throughput_loop(99, 11, 3, 10);
  EXPECT_GT(runs_taken(strict, kSettling), 4);
}

TEST(ConfidenceLoop, NeverBeforeMin) {
  // Identical runs are confident from the second on; min holds the loop.
  ConfidenceLoop loop = throughput_loop(99, 5, 5, 10);
  EXPECT_EQ(runs_taken(loop, std::vector<double>(10, 42)), 5);
  EXPECT_TRUE(loop.achieved());
  // With min 1 one run is still not enough: it has no interval.
  ConfidenceLoop early = throughput_loop(99, 5, 1, 10);
  EXPECT_TRUE(early.add({42}));
  EXPECT_FALSE(early.achieved());
  EXPECT_FALSE(early.add({42}));
  EXPECT_EQ(early.iterations(), 2);
}

TEST(ConfidenceLoop, AlwaysStopsAtMax) {
  ConfidenceLoop loop = throughput_loop(99, 5, 3, 4);
  EXPECT_EQ(runs_taken(loop, {1, 100, 1, 100, 1, 100}), 4);
  EXPECT_TRUE(loop.done());
  EXPECT_FALSE(loop.achieved());
  // min = max: exactly that many, confident or not (netperf -i 3,3).
  ConfidenceLoop fixed = throughput_loop(99, 0.1, 3, 3);
  EXPECT_EQ(runs_taken(fixed, {1, 100, 1, 100}), 3);
  ConfidenceLoop calm = throughput_loop(99, 50, 3, 3);
  EXPECT_EQ(runs_taken(calm, std::vector<double>(5, 1)), 3);
  EXPECT_TRUE(calm.achieved());
  // One run asked for, one run made.
  ConfidenceLoop once = throughput_loop(95, 5, 1, 1);
  EXPECT_FALSE(once.add({1}));
  EXPECT_FALSE(once.achieved());
}

TEST(ConfidenceLoop, EveryGoverningMetricMustBeWithin) {
  // Throughput settles; CPU swings. Both govern: the loop runs to max.
  ConfidenceLoop both({95, 5, 3, 6}, {{"throughput", true}, {"cpu", true}});
  const double cpu[] = {10, 40, 10, 40, 10, 40};
  int n = 0;
  while (both.add({kSettling[n], cpu[n]})) ++n;
  EXPECT_EQ(both.iterations(), 6);
  EXPECT_FALSE(both.achieved());
  EXPECT_FALSE(both.achieved(1));
  // The same CPU figures only reported (netperf -r): throughput decides.
  ConfidenceLoop result_only({95, 11, 3, 6}, {{"throughput", true}, {"cpu", false}});
  n = 0;
  while (result_only.add({kSettling[n], cpu[n]})) ++n;
  EXPECT_EQ(result_only.iterations(), 4);
  EXPECT_TRUE(result_only.achieved());
  EXPECT_FALSE(result_only.achieved(1));
  EXPECT_GT(result_only.interval(1).width_pct, 11);
  EXPECT_EQ(result_only.values(1).size(), 4u);
}

TEST(ConfidenceLoop, RejectsGoalsWithoutSense) {
  using M = std::vector<ConfidenceLoop::Metric>;
  EXPECT_THROW(ConfidenceLoop({95, 5, 3, 2}, M{{"x", true}}), std::invalid_argument);
  EXPECT_THROW(ConfidenceLoop({95, 5, 0, 2}, M{{"x", true}}), std::invalid_argument);
  EXPECT_THROW(ConfidenceLoop({95, 0, 1, 2}, M{{"x", true}}), std::invalid_argument);
  EXPECT_THROW(ConfidenceLoop({100, 5, 1, 2}, M{{"x", true}}), std::invalid_argument);
  EXPECT_THROW(ConfidenceLoop({95, 5, 1, 2}, M{}), std::invalid_argument);
  ConfidenceLoop loop({95, 5, 1, 2}, M{{"x", true}, {"y", true}});
  EXPECT_THROW(loop.add({1}), std::invalid_argument);
}

}  // namespace
}  // namespace flowperf::measure
