// Human text for the native CLI: a header naming the test and both ends,
// one row per stream and a SUM row, latency percentiles for RR tests, and
// both sides' counts so a reader can check them against each other. A
// repeated test prints each run so, then the confidence intervals:
//
//   confidence: 95% intervals over 3 runs (at most 10); goal ±2.50% of the mean: achieved
//     throughput              9.41 Gbit/s  ±       52.31 Mbit/s  ±0.56%  achieved
#pragma once

#include <string>
#include <string_view>

#include "core/units.h"
#include "measure/confidence.h"
#include "results/test_result.h"

namespace flowperf::report {

struct TextOptions {
  core::RateUnit unit = core::RateUnit::Auto;  // -f
  bool per_stream = true;                      // rows per stream when there are several
  bool cpu = false;                            // --cpu: utilization and service demand
  bool nic = false;                            // --nic: interface counters of both ends
};

// `preset`: the name the test was asked by when it stands for several
// options (RRUL), printed in place of the test's own name.
std::string text_header(const results::TestResult& r, std::string_view preset = {});
std::string text_interval(const spec::TestSpec& spec, const results::IntervalSample& s,
                          const TextOptions& o);
std::string text_result(const results::TestResult& r, const TextOptions& o);

// A test repeated with --repeat/--confidence: the line before each run's
// result, then each figure's mean and interval over the runs (the loop's
// metrics are report::repeat_metrics), and whether the goal was met.
std::string text_run_heading(int run, int max_runs);
std::string text_confidence(const measure::ConfidenceLoop& loop, const TextOptions& o);

}  // namespace flowperf::report
