// NetperfDemo: netperf -D's rule for when an interim result is printed, fed
// samples as flowperf's sampler takes them (four per demo interval).
#include "report/netperf_demo.h"

#include <gtest/gtest.h>

#include <vector>

namespace flowperf::report {
namespace {

struct Sample {
  double end_s, work;
};

// Everything the demo prints for these samples, the run's finish included.
std::vector<DemoInterval> run(double interval_s, const std::vector<Sample>& samples) {
  NetperfDemo demo(interval_s);
  std::vector<DemoInterval> out;
  for (const auto& s : samples)
    if (auto d = demo.add(s.end_s, s.work)) out.push_back(*d);
  if (auto d = demo.finish()) out.push_back(*d);
  return out;
}

TEST(NetperfDemo, SteadyFlowPrintsOneIntervalPerDemoInterval) {
  std::vector<Sample> s;
  for (int i = 1; i <= 8; ++i) s.push_back({0.05 * i, 100});
  const auto out = run(0.2, s);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].seconds, 0.2, 1e-9);
  EXPECT_EQ(out[0].work, 400);
  EXPECT_NEAR(out[1].seconds, 0.2, 1e-9);
  EXPECT_EQ(out[1].work, 400);
}

TEST(NetperfDemo, StarvedFlowPrintsOneLongerIntervalNotAZeroOne) {
  // Work until 0.2 s, nothing from 0.2 to 0.65 s, then work again.
  const auto out = run(0.2, {{0.05, 10},
                             {0.1, 10},
                             {0.15, 10},
                             {0.2, 10},
                             {0.25, 0},
                             {0.3, 0},
                             {0.4, 0},
                             {0.5, 0},
                             {0.6, 0},
                             {0.65, 0},
                             {0.7, 30}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].seconds, 0.2, 1e-9);
  EXPECT_NEAR(out[1].seconds, 0.5, 1e-9);  // 0.2 to 0.7: the real length
  EXPECT_EQ(out[1].work, 30);
  for (const auto& d : out) EXPECT_GT(d.work, 0);
}

TEST(NetperfDemo, WorkBeforeTheIntervalIsUpWaitsForIt) {
  const auto out = run(1.0, {{0.3, 5}, {0.6, 5}, {0.9, 5}, {1.2, 5}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].seconds, 1.2, 1e-9);
  EXPECT_EQ(out[0].work, 20);
}

TEST(NetperfDemo, FinishPrintsTheShortRestOnlyWhenWorkWasDone) {
  // 0.2 to 0.3 s holds work: printed at the end, 0.1 s long.
  auto out = run(0.2, {{0.1, 1}, {0.2, 1}, {0.3, 1}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[1].seconds, 0.1, 1e-9);
  // Nothing moved after the last interval: nothing more is printed.
  out = run(0.2, {{0.1, 1}, {0.2, 1}, {0.3, 0}});
  ASSERT_EQ(out.size(), 1u);
  // A flow that never moved prints nothing at all.
  EXPECT_TRUE(run(0.2, {{0.1, 0}, {0.2, 0}, {0.5, 0}}).empty());
}

TEST(NetperfDemo, IntervalsAddUpToTheLastWorkingSample) {
  std::vector<Sample> s;
  for (int i = 1; i <= 40; ++i) s.push_back({0.05 * i, (i % 7 == 0 || i % 6 == 0) ? 0.0 : 1.0});
  double total = 0, work = 0;
  for (const auto& d : run(0.2, s)) total += d.seconds, work += d.work;
  EXPECT_NEAR(total, 2.0, 1e-9);
  double expect_work = 0;
  for (const auto& x : s) expect_work += x.work;
  EXPECT_EQ(work, expect_work);
}

TEST(NetperfDemo, SlackTakesASampleThatLandedJustShortOfTheInterval) {
  // Ticks every 0.05 s, each sample a few ms late by a varying amount.
  const std::vector<Sample> late = {{0.053, 1}, {0.104, 1}, {0.152, 1}, {0.207, 1},
                                    {0.251, 1}, {0.302, 1}, {0.356, 1}, {0.401, 1}};
  // Without slack 0.401 - 0.207 = 0.194 is short: only finish() prints it.
  EXPECT_EQ(run(0.2, late).size(), 2u);
  ASSERT_EQ(run(0.2, late)[1].seconds, 0.401 - 0.207);  // the finish() rest
  NetperfDemo demo(0.2, 0.025);
  std::vector<DemoInterval> out;
  for (const auto& s : late)
    if (auto d = demo.add(s.end_s, s.work)) out.push_back(*d);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].seconds, 0.207, 1e-9);
  EXPECT_NEAR(out[1].seconds, 0.194, 1e-9);  // the real length, not 0.2
  EXPECT_EQ(out[1].work, 4);
  // Slack never lets a sample well short of the interval through.
  NetperfDemo strict(0.2, 0.025);
  EXPECT_FALSE(strict.add(0.17, 5));
}

TEST(NetperfDemo, NextRunStartsFromZero) {
  NetperfDemo demo(0.2);
  ASSERT_TRUE(demo.add(0.25, 1));
  EXPECT_TRUE(demo.finish() == std::nullopt);  // nothing since the printed one
  auto d = demo.add(0.2, 3);                   // the second run's clock starts at zero again
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->seconds, 0.2, 1e-9);
  // Without a finish in between, an earlier time still means a new run.
  NetperfDemo missed(0.2);
  ASSERT_FALSE(missed.add(0.1, 1));
  d = missed.add(0.05, 1);
  EXPECT_FALSE(d);
  d = missed.add(0.2, 1);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->seconds, 0.2, 1e-9);
  EXPECT_EQ(d->work, 2);
}

}  // namespace
}  // namespace flowperf::report
