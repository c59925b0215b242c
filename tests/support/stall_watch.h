// StallWatch: how long the machine itself stopped while a test ran. One
// thread per CPU, pinned to it, at real-time priority when allowed, wakes
// every millisecond; a wake-up that comes late by more than a few
// milliseconds is time that CPU ran nothing of ours: the hypervisor took
// the virtual CPU, or interrupts and softirqs held it. Tests whose truth is
// a rate over time (a link emulator's timers, a receiver's intervals) widen
// their bound by what this measured, rather than by a guess, and say so.
// (At normal priority, when real time is refused, the wake-ups also wait
// for the CPU's other tasks, so the stalls read longer: the bound errs wide.)
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

namespace flowperf::testing {

class StallWatch {
 public:
  // Starts watching every online CPU.
  StallWatch();
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // Stops watching (the figures then stay as they are). Idempotent.
  void stop();
  // The longest time any one CPU was held, past its wake-up's due time
  // (wake-ups late by less than kSlack count as on time).
  std::chrono::nanoseconds longest() const;
  // Per CPU, the sum of those times; the largest of these sums.
  std::chrono::nanoseconds total() const;
  // Whether the watch threads ran at real-time priority.
  bool realtime() const;

  static constexpr std::chrono::milliseconds kSlack{2};

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace flowperf::testing
