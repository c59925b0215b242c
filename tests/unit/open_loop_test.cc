// The open-loop schedule (engine/open_loop.h): when requests are due, fixed
// and Poisson; what is counted about sends; the request window growing up
// to its cap; each flow's share of the test (engine::open_loop_plan); and
// the spec's checks and JSON for --rate, --arrival, --seed and
// --max-outstanding.
#include "engine/open_loop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/rr_flows.h"
#include "engine/test_plan.h"
#include "spec/spec_json.h"
#include "spec/test_spec.h"

namespace flowperf::engine {
namespace {

using namespace std::chrono_literals;

int64_t ns(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

TEST(Schedule, FixedGapsCountFromTheStartNotFromTheLastSend) {
  Schedule s;
  s.plan({4000, false, 1, 0.5, 8});  // 250 µs gaps, half a gap in
  EXPECT_TRUE(s.on());
  const Clock::time_point t0 = Clock::now();
  s.start(t0);
  for (int k = 0; k < 10'000; ++k) {
    ASSERT_EQ(ns(s.due() - t0), static_cast<int64_t>((k + 0.5) * 250'000)) << k;
    s.advance();
  }
}

TEST(Schedule, OffUntilPlanned) {
  Schedule s;
  EXPECT_FALSE(s.on());
}

TEST(Schedule, PoissonGapsHaveTheAskedMeanAndRepeatForASeed) {
  auto gaps = [](uint64_t seed) {
    Schedule s;
    s.plan({10'000, true, seed, 0, 1});  // mean gap 100 µs
    const Clock::time_point t0{std::chrono::seconds(1)};
    s.start(t0);
    std::vector<int64_t> g;
    Clock::time_point last = t0;
    for (int k = 0; k < 200'000; ++k) {
      g.push_back(ns(s.due() - last));
      last = s.due();
      s.advance();
    }
    return g;
  };
  const std::vector<int64_t> a = gaps(7), b = gaps(7), c = gaps(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0, sq = 0;
  int below_mean = 0;
  for (int64_t x : a) {
    ASSERT_GE(x, 0);
    sum += static_cast<double>(x);
    sq += static_cast<double>(x) * static_cast<double>(x);
    below_mean += x < 100'000;
  }
  const double n = static_cast<double>(a.size()), mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 100'000, 1'000);  // 1%: the standard error is 0.22%
  EXPECT_NEAR(sd, 100'000, 2'000);    // exponential: sd = mean
  // P(gap < mean) = 1 - 1/e = 0.632 for exponential gaps.
  EXPECT_NEAR(below_mean / n, 0.632, 0.01);
}

TEST(Schedule, CountsSendsLateHeldAndTheLongestDelay) {
  FlowCounters c;
  const Clock::time_point due = Clock::now();
  count_send(c, due, due + 10us, false);
  count_send(c, due, due + 2ms, true);
  count_send(c, due, due + 500us, false);
  EXPECT_EQ(c.sched_intended.get(), 3u);
  EXPECT_EQ(c.sched_late.get(), 1u);  // only the one over 1 ms
  EXPECT_EQ(c.sched_held.get(), 1u);
  EXPECT_EQ(c.sched_max_lag_ns.get(), 2'000'000u);
}

TEST(Schedule, HeldTellsWhichRequestsWaitedForTheCap) {
  Schedule s;
  s.plan({1000, false, 1, 0, 4});
  const Clock::time_point t0 = Clock::now();
  s.start(t0);
  EXPECT_FALSE(s.held(t0));
  s.note_full(t0 + 5ms);
  EXPECT_TRUE(s.held(t0 + 5ms));
  EXPECT_FALSE(s.held(t0 + 6ms));
}

TEST(Schedule, RequestsDueButNeverSentAreCounted) {
  FlowCounters c;
  Schedule s;
  s.plan({1000, false, 1, 0, 1});  // due at 0, 1, 2, ... ms
  const Clock::time_point t0 = Clock::now();
  s.start(t0);
  s.advance();                      // request 0 went out
  count_unsent(c, s, t0 + 4500us);  // 1, 2, 3 and 4 never did
  EXPECT_EQ(c.sched_unsent.get(), 4u);
  EXPECT_EQ(ns(s.due() - t0), 5'000'000);
}

TEST(RequestWindow, AnOpenLoopsRingGrowsToItsCapInOrder) {
  RequestWindow w;
  w.reset_open(40);
  EXPECT_EQ(w.window, 16u);
  const Clock::time_point t0{};
  // Wrap the ring first, so growing has to unwrap it.
  for (uint64_t i = 0; i < 10; ++i) {
    ASSERT_FALSE(w.full());
    w.push(t0, t0, i);
  }
  for (int i = 0; i < 10; ++i) w.pop();
  uint64_t seq = 100;
  while (!w.full()) {
    w.push(t0, t0 + std::chrono::nanoseconds(seq), seq);
    ++seq;
  }
  EXPECT_EQ(w.count, 40u);
  EXPECT_EQ(w.window, 40u);
  for (uint32_t k = 0; k < w.count; ++k) {
    EXPECT_EQ(w.nth(k).seq, 100 + k);
    EXPECT_EQ(w.nth(k).from, t0 + std::chrono::nanoseconds(100 + k));
  }
}

TEST(RequestWindow, ABurstsRingIsFixed) {
  RequestWindow w;
  w.reset(3);
  EXPECT_EQ(w.window, 4u);
  EXPECT_EQ(w.limit, 4u);
  for (uint64_t i = 0; i < 4; ++i) w.push({}, {}, i);
  EXPECT_TRUE(w.full());
  EXPECT_EQ(w.window, 4u);
}

TEST(OpenLoopPlan, TheRateIsSharedAndTheFixedSchedulesInterleave) {
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpRr;
  s.rate_tps = 8000;
  s.streams = 4;
  s.max_outstanding = 33;
  for (uint32_t i = 0; i < 4; ++i) {
    const OpenLoopPlan p = open_loop_plan(s, i);
    EXPECT_DOUBLE_EQ(p.rate_per_s, 2000);
    EXPECT_DOUBLE_EQ(p.phase, i / 4.0);
    EXPECT_EQ(p.limit, 33u);
    EXPECT_FALSE(p.poisson);
  }
  // Each flow its own random sequence, the same for the same seed.
  EXPECT_NE(open_loop_plan(s, 0).seed, open_loop_plan(s, 1).seed);
  EXPECT_EQ(open_loop_plan(s, 2).seed, open_loop_plan(s, 2).seed);
  spec::TestSpec other = s;
  other.seed = 2;
  EXPECT_NE(open_loop_plan(s, 0).seed, open_loop_plan(other, 0).seed);
}

}  // namespace
}  // namespace flowperf::engine

namespace flowperf::spec {
namespace {

TestSpec rr(TestKind k = TestKind::kTcpRr) {
  TestSpec s;
  s.test = k;
  s.rate_tps = 1000;
  return s;
}

std::string problems(const TestSpec& s) {
  std::string all;
  for (const auto& p : validate(s, End::kLocal)) all += p + "\n";
  return all;
}

TEST(OpenLoopSpec, EveryRequestResponseTestTakesARate) {
  EXPECT_EQ(problems(rr()), "");
  EXPECT_EQ(problems(rr(TestKind::kUdpRr)), "");
  EXPECT_EQ(problems(rr(TestKind::kTcpCrr)), "");
  EXPECT_EQ(problems(rr(TestKind::kTcpCc)), "");
}

TEST(OpenLoopSpec, EveryMisuseIsNamed) {
  TestSpec s = rr(TestKind::kTcpStream);
  EXPECT_NE(problems(s).find("--rate: open-loop load applies to TCP_RR, UDP_RR, TCP_CRR and "
                             "TCP_CC, not TCP_STREAM"),
            std::string::npos)
      << problems(s);
  s = rr();
  s.burst = 3;
  EXPECT_NE(problems(s).find("--rate with --burst"), std::string::npos) << problems(s);
  s = rr();
  s.rate_tps = -5;
  EXPECT_NE(problems(s).find("--rate -5: transactions a second must be more than 0"),
            std::string::npos)
      << problems(s);
  s = rr();
  s.rate_tps = 0.5;
  s.duration_s = 1;
  EXPECT_NE(problems(s).find("schedules no request"), std::string::npos) << problems(s);
  s = rr();
  s.max_outstanding = 0;
  EXPECT_NE(problems(s).find("--max-outstanding 0"), std::string::npos) << problems(s);
  TestSpec closed;
  closed.test = TestKind::kTcpRr;
  closed.arrival = Arrival::kPoisson;
  EXPECT_NE(problems(closed).find("give --rate too"), std::string::npos) << problems(closed);
}

TEST(OpenLoopSpec, TheScheduleTravelsInTheSpecJson) {
  TestSpec s = rr(TestKind::kUdpRr);
  s.rate_tps = 2500.5;
  s.arrival = Arrival::kPoisson;
  s.seed = 99;
  s.max_outstanding = 7;
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j["arrival"], "poisson");
  EXPECT_EQ(j["rate_tps"], 2500.5);
  const TestSpec back = spec_from_json(j);
  EXPECT_EQ(back.rate_tps, 2500.5);
  EXPECT_EQ(back.arrival, Arrival::kPoisson);
  EXPECT_EQ(back.seed, 99u);
  EXPECT_EQ(back.max_outstanding, 7u);
  nlohmann::json bad = j;
  bad["arrival"] = "bursty";
  EXPECT_THROW(spec_from_json(bad), std::invalid_argument);
}

}  // namespace
}  // namespace flowperf::spec
