// netperf's demo mode (-D) decides when an interim result is printed: only
// once work was done (bytes moved, transactions completed) and at least the
// demo interval has passed since the last one; the interval printed is the
// real time since then. A flow starved of the CPU for a while therefore
// prints one longer interval, never a 0.00 one (flent turns a zero rate into
// a missing point and its aggregators then fail on it).
//
// flowperf samples its counters on a clock finer than the demo interval and
// feeds each sample here; this class, a pure function of those samples,
// keeps netperf's rule.
#pragma once

#include <optional>

namespace flowperf::report {

struct DemoInterval {
  double seconds = 0;  // since the previous interim result (or the start)
  double work = 0;     // units of work done over it (bytes or transactions)
};

class NetperfDemo {
 public:
  // An interval is long enough once it is within `slack_s` of -D's
  // interval: samples are taken a little after their tick, late by a
  // varying amount, and an interval that missed -D by that much would
  // otherwise wait a whole sampling step more (0.25 s instead of 0.2).
  explicit NetperfDemo(double interval_s, double slack_s = 0)
      : interval_s_(interval_s), slack_s_(slack_s) {}

  // One sample: `work` done since the previous sample, which ended `end_s`
  // seconds after the run's start. The interval to print, when one is due.
  std::optional<DemoInterval> add(double end_s, double work);

  // The run is over: what is left to print (netperf prints a last, shorter
  // interval when work was done since the previous one), and the next run
  // starts from zero.
  std::optional<DemoInterval> finish();

 private:
  double interval_s_, slack_s_;
  double start_s_ = 0;  // end of the last interval printed
  double last_s_ = 0;   // end of the last sample
  double work_ = 0;     // work since start_s_
};

}  // namespace flowperf::report
