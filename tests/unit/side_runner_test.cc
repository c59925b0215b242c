// SideRunner is what every client and server driver runs a side with: the
// gate, the interval samples, the ends (drain, stall, abort), collecting.
// Here it drives flows that need no socket: each counts a transaction a
// millisecond, and ends (or not) as the test asks.
#include "session/side_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using engine::Phase;

class TickFlow final : public engine::Flow {
 public:
  struct Script {
    uint64_t limit = 0;           // finishes after this many transactions; 0: never
    bool ends_at_drain = true;    // false: ignores the drain (only an abort ends it)
    bool moves_in_drain = false;  // keeps counting while it ignores the drain
  };
  explicit TickFlow(Script s) : s_(s) {}
  engine::Wait step(engine::PhaseRef phase, Clock::time_point now) noexcept override {
    const Phase p = engine::load(phase);
    if (p == Phase::kAbort) return engine::finished();
    if (p == Phase::kDrain && s_.ends_at_drain) return engine::finished();
    if (s_.limit && counters.transactions.get() >= s_.limit) return engine::finished();
    if (p == Phase::kRun || s_.moves_in_drain) counters.transactions.add(1);
    engine::Wait w;
    w.deadline = now + 1ms;
    return w;
  }
  int initial_fd() const noexcept override { return -1; }
  bool can_block() const noexcept override { return false; }

 private:
  Script s_;
};

std::unique_ptr<SideRunner> Runner(TickFlow::Script s, SideRunner::Options o = {}, int n = 2) {
  std::vector<std::unique_ptr<engine::Flow>> flows;
  for (int i = 0; i < n; ++i) {
    flows.push_back(std::make_unique<TickFlow>(s));
    flows.back()->index = static_cast<uint32_t>(i);
  }
  auto r = std::make_unique<SideRunner>(std::move(flows), std::move(o));
  r->launch();
  r->go();
  return r;
}

// A driver whose control exchange fails between launch() and go() (the
// server refuses Start) drops the runner with its workers still at the
// gate: they must be released to see the abort, or the drop never returns.
TEST(SideRunner, ARunnerDroppedBeforeItsGateOpensLetsItsWorkersGo) {
  std::vector<std::unique_ptr<engine::Flow>> flows;
  flows.push_back(std::make_unique<TickFlow>(TickFlow::Script{}));
  auto r = std::make_unique<SideRunner>(std::move(flows), SideRunner::Options{});
  r->launch();
  const auto t0 = Clock::now();
  r.reset();
  EXPECT_LT(Clock::now() - t0, 5s);
}

TEST(SideRunner, RunsToItsEndAndTheIntervalsAddUpToTheTotal) {
  SideRunner::Options o;
  o.interval_s = 0.05;
  int seen = 0;
  o.on_interval = [&](const results::IntervalSample&) { ++seen; };
  auto r = Runner({}, o);
  EXPECT_EQ(r->run(Clock::now() + 300ms), SideRunner::End::kTimeUp);
  EXPECT_TRUE(r->drain_for(Clock::now() + 5s));
  const results::SideResult side = r->finish(Clock::now());
  ASSERT_GE(side.intervals.size(), 4u);
  EXPECT_EQ(seen, static_cast<int>(side.intervals.size()));
  uint64_t in_intervals = 0;
  for (const auto& iv : side.intervals)
    for (const auto& f : iv.flows) in_intervals += f.transactions;
  EXPECT_GT(side.total().transactions, 0u);
  EXPECT_EQ(in_intervals, side.total().transactions);
  EXPECT_TRUE(side.total().finished);
}

TEST(SideRunner, ACountedTestEndsWhenEveryFlowHasFinished) {
  auto r = Runner({.limit = 20});
  const auto t0 = Clock::now();
  EXPECT_EQ(r->run(Clock::time_point::max()), SideRunner::End::kFinished);
  EXPECT_LT(Clock::now() - t0, 10s);
  EXPECT_EQ(r->finish(std::nullopt).total().transactions, 40u);
}

TEST(SideRunner, ThePollStopsTheRunAndIsNeverAskedToWaitPastATick) {
  auto r = Runner({});
  int turns = 0;
  bool too_long = false;
  auto end = r->run(
      Clock::time_point::max(),
      [&](Clock::time_point until) {
        too_long = too_long || until > Clock::now() + 50ms;
        return ++turns == 3 ? SideRunner::Turn::kStop : SideRunner::Turn::kGoOn;
      },
      true, 20ms);
  EXPECT_EQ(end, SideRunner::End::kStopped);
  EXPECT_EQ(turns, 3);
  EXPECT_FALSE(too_long);
  r->abort();
  r->finish(std::nullopt);
}

TEST(SideRunner, AnInterruptEndsTheRun) {
  std::atomic<bool> interrupt{false};
  SideRunner::Options o;
  o.interrupt = &interrupt;
  auto r = Runner({}, o);
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    interrupt = true;
  });
  EXPECT_EQ(r->run(Clock::time_point::max()), SideRunner::End::kInterrupted);
  t.join();
  EXPECT_TRUE(r->drain_for(Clock::now() + 5s));
  r->finish(std::nullopt);
}

TEST(SideRunner, ADrainThatDoesNotEndIsAborted) {
  auto r = Runner({.ends_at_drain = false});
  r->run(Clock::now() + 20ms);
  EXPECT_FALSE(r->drain_for(Clock::now() + 50ms));
  const auto side = r->finish(std::nullopt);
  EXPECT_FALSE(side.total().finished);
  EXPECT_EQ(r->side().phase(), Phase::kAbort);
}

TEST(SideRunner, AStalledDrainSaysSoAndAMovingOneRunsToTheHardLimit) {
  {
    auto r = Runner({.ends_at_drain = false});
    r->run(Clock::now() + 20ms);
    const std::string why = r->drain_watching(100ms, Clock::now() + 10s);
    EXPECT_NE(why.find("stalled"), std::string::npos) << why;
    r->finish(std::nullopt);
  }
  {
    auto r = Runner({.ends_at_drain = false, .moves_in_drain = true});
    r->run(Clock::now() + 20ms);
    const auto t0 = Clock::now();
    const std::string why = r->drain_watching(100ms, Clock::now() + 300ms);
    EXPECT_NE(why.find("drain limit"), std::string::npos) << why;
    EXPECT_GE(Clock::now() - t0, 300ms);
    r->finish(std::nullopt);
  }
  {
    auto r = Runner({});
    r->run(Clock::now() + 20ms);
    EXPECT_EQ(r->drain_watching(100ms, Clock::now() + 10s), "");
    r->finish(std::nullopt);
  }
}

}  // namespace
}  // namespace flowperf::session
