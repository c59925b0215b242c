// An open-loop request schedule (TestSpec::rate_tps): when each request of
// one flow is due, whatever became of the earlier ones. A flow sends each
// request at its intended time if it can, later if it cannot (its cap of
// requests in flight reached, or its worker behind), and counts the
// request's latency from the intended time either way: a stall then costs
// every request that should have gone out during it, as users would feel
// it, not one slow transaction (coordinated omission).
//
// The times are computed from the schedule's start, not from the previous
// request's send, so the achieved rate does not drift with how late sends
// were. Fixed gaps: request k of a flow is due at start + (k + phase) x gap,
// the flows' phases spread evenly over one gap so that together they send
// at an even rate. Poisson: exponential gaps from a per-flow random
// sequence (SplitMix64, seeded from the test's seed and the flow's index),
// the same for the same seed on any machine.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/flow.h"

namespace flowperf::engine {

struct OpenLoopPlan {
  double rate_per_s = 0;  // this flow's rate (the test's, divided over the flows)
  bool poisson = false;
  uint64_t seed = 1;
  double phase = 0;    // fixed gaps: this flow's offset, in gaps, [0, 1)
  uint32_t limit = 1;  // requests in flight at most
};

// A request that goes out later than this after its intended time is late.
inline constexpr int64_t kLateSendNs = 1'000'000;

class Schedule {
 public:
  void plan(const OpenLoopPlan& p) noexcept {
    gap_ns_ = 1e9 / p.rate_per_s;
    poisson_ = p.poisson;
    rng_ = p.seed;
    phase_ = p.phase;
    first_ns_ = poisson_ ? next_gap() : phase_ * gap_ns_;
  }
  bool on() const noexcept { return gap_ns_ > 0; }
  // Fixes the schedule's origin (the flow's first step).
  void start(Clock::time_point t0) noexcept {
    t0_ = t0;
    k_ = 0;
    at_ns_ = first_ns_;
    full_seen_ = {};
    due_ = t0_ + std::chrono::nanoseconds(static_cast<int64_t>(at_ns_));
  }
  bool started() const noexcept { return t0_ != Clock::time_point{}; }
  // When the next request is due.
  Clock::time_point due() const noexcept { return due_; }
  // Moves on to the request after the one due now.
  void advance() noexcept {
    ++k_;
    at_ns_ = poisson_ ? at_ns_ + next_gap() : (static_cast<double>(k_) + phase_) * gap_ns_;
    due_ = t0_ + std::chrono::nanoseconds(static_cast<int64_t>(at_ns_));
  }
  // The flow found the cap of requests in flight reached at `now` while a
  // request was due; held() then tells which requests waited for it.
  void note_full(Clock::time_point now) noexcept { full_seen_ = now; }
  bool held(Clock::time_point due) const noexcept { return due <= full_seen_; }

  // The next uniform 64-bit value of the sequence (SplitMix64).
  uint64_t next_random() noexcept {
    uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  // An exponential gap of mean gap_ns_: -ln(u) x mean, u uniform in (0, 1].
  double next_gap() noexcept {
    const double u = static_cast<double>((next_random() >> 11) + 1) * 0x1.0p-53;
    return -std::log(u) * gap_ns_;
  }
  double gap_ns_ = 0, phase_ = 0, first_ns_ = 0, at_ns_ = 0;
  bool poisson_ = false;
  uint64_t rng_ = 1;
  uint64_t k_ = 0;
  Clock::time_point t0_{}, due_{}, full_seen_{};
};

// What an open-loop flow tells about its schedule besides latencies; kept
// in the flow's counters (FlowCounters::sched_*), written by its worker.
// Records one request sent at `sent` that was due at `due`; `held`: it was
// due while the cap of requests in flight was reached.
inline void count_send(FlowCounters& c, Clock::time_point due, Clock::time_point sent,
                       bool held) noexcept {
  const int64_t lag = std::chrono::duration_cast<std::chrono::nanoseconds>(sent - due).count();
  c.sched_intended.add(1);
  if (lag > kLateSendNs) c.sched_late.add(1);
  if (held) c.sched_held.add(1);
  if (lag > 0 && static_cast<uint64_t>(lag) > c.sched_max_lag_ns.get())
    c.sched_max_lag_ns.set(static_cast<uint64_t>(lag));
}

// The requests due by `end` that were never sent (the test ended first);
// counted once, when the flow leaves the run phase. At most `most` are
// counted one by one (a schedule far behind is summed up to there).
inline void count_unsent(FlowCounters& c, Schedule& s, Clock::time_point end,
                         uint64_t most = uint64_t{1} << 24) noexcept {
  uint64_t n = 0;
  while (n < most && s.due() <= end) {
    ++n;
    s.advance();
  }
  c.sched_unsent.add(n);
}

}  // namespace flowperf::engine
