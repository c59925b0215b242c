// Confidence intervals for a test run several times (netperf's -I/-i,
// flowperf's --repeat/--confidence): Student's t quantiles, the statistics of
// a series of runs, and ConfidenceLoop, which decides after each run whether
// another one is needed.
//
// The rule is netperf's. A metric is confident when the two-sided `level`%
// confidence interval for its mean,
//
//     mean ± t(level, n-1) · s / √n        (s: sample standard deviation)
//
// is at most `width_pct`% of the mean wide in all, that is ±width_pct/2 %.
// After run n the loop stops when n ≥ min and either every governing metric
// is confident or n = max. One run has no interval (no degrees of freedom),
// so a single run is never confident.
//
// Metrics that do not govern (netperf's CPU figures under -r, or a figure
// flowperf only reports) get their interval computed all the same.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace flowperf::measure {

// The two-sided Student's t quantile: the t with P(|T| ≤ t) = level_pct/100
// for `df` degrees of freedom (t(95, 1) = 12.706, t(95, ∞) = 1.960).
// `df` ≤ 0 gives infinity (no interval from one sample); kInfiniteDf or any
// df past 10^6 gives the normal quantile. level_pct must lie in (0, 100).
inline constexpr int64_t kInfiniteDf = INT64_MAX;
double student_t(double level_pct, int64_t df);

// A series' mean and its confidence interval.
struct Interval {
  size_t n = 0;
  double mean = 0;
  double stddev = 0;      // sample standard deviation (n - 1); 0 for n < 2
  double half_width = 0;  // t · s / √n; infinity for n < 2
  // The interval's full width as a percentage of |mean| (netperf's
  // "Confidence intervals: Throughput : x%"). 0 when every value is the
  // same (even 0); infinity when the mean is 0 but the values differ, or
  // for n < 2.
  double width_pct = 0;
};

Interval confidence_interval(std::span<const double> values, double level_pct);

// What a repeated test is asked to achieve.
struct ConfidenceGoal {
  int level_pct = 95;      // two-sided confidence level
  double width_pct = 5;    // the interval's full width, percent of the mean
  int min_iterations = 1;  // never stop before this many runs
  int max_iterations = 1;  // never run more than this many (≥ min_iterations)
};

// Decides, run by run, whether a test must run again.
//
//   ConfidenceLoop loop(goal, {{"throughput", true}, {"local cpu", true}});
//   do { run(); } while (loop.add({throughput, cpu}));
class ConfidenceLoop {
 public:
  struct Metric {
    std::string name;
    bool governs = true;  // its interval must be within the width to stop early
  };

  // Throws std::invalid_argument for a goal without a sense (level outside
  // (0, 100), width ≤ 0, min < 1, max < min) or no metrics.
  ConfidenceLoop(ConfidenceGoal goal, std::vector<Metric> metrics);

  // Records one run's values, one per metric in the constructor's order
  // (std::invalid_argument otherwise). Returns true while another run is
  // needed: fewer than min runs, or not yet confident and fewer than max.
  bool add(std::span<const double> values);
  bool add(std::initializer_list<double> values) {
    return add(std::span<const double>(values.begin(), values.size()));
  }

  bool done() const { return done_; }
  int iterations() const { return static_cast<int>(runs_); }
  // Every governing metric within the width (false before two runs).
  bool achieved() const;
  bool achieved(size_t metric) const;
  Interval interval(size_t metric) const;
  std::span<const double> values(size_t metric) const { return series_.at(metric); }

  const ConfidenceGoal& goal() const { return goal_; }
  const std::vector<Metric>& metrics() const { return metrics_; }

 private:
  ConfidenceGoal goal_;
  std::vector<Metric> metrics_;
  std::vector<std::vector<double>> series_;  // per metric, one value per run
  size_t runs_ = 0;
  bool done_ = false;
};

}  // namespace flowperf::measure
