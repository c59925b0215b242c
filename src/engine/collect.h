// Reads what a Side measured into results::SideResult, once its flows have
// finished (or were aborted).
#pragma once

#include <chrono>

#include "results/measurements.h"

namespace flowperf::engine {

class Side;

// Safe once the workers have stopped. `cap`: a flow still going (or ended)
// after it counts as ended then: when a stalled test was given up, its
// flows' time ends where the test did. The flows' own histograms move into
// the result (the Side's are left empty, not copied): call once per Side.
results::SideResult collect(Side& side, std::chrono::steady_clock::time_point cap =
                                            std::chrono::steady_clock::time_point::max());

}  // namespace flowperf::engine
