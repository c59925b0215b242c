// Human text for the native CLI: a header naming the test and both ends,
// one row per stream and a SUM row, latency percentiles for RR tests, and
// both sides' counts so a reader can check them against each other.
#pragma once

#include <string>

#include "core/units.h"
#include "session/controller.h"

namespace flowperf::report {

struct TextOptions {
  core::RateUnit unit = core::RateUnit::Auto;  // -f
  bool per_stream = true;                      // rows per stream when there are several
  bool cpu = false;                            // --cpu: utilization and service demand
  bool nic = false;                            // --nic: interface counters of both ends
};

std::string text_header(const session::TestResult& r);
std::string text_interval(const spec::TestSpec& spec, const session::IntervalSample& s,
                          const TextOptions& o);
std::string text_result(const session::TestResult& r, const TextOptions& o);

}  // namespace flowperf::report
