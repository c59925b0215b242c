// A deadline `seconds` from now on the monotonic clock, for the waits of
// control exchanges (connect, answer, drain), whose limits are given in
// seconds.
#pragma once

#include <chrono>

namespace flowperf::core {

inline std::chrono::steady_clock::time_point after(double seconds) {
  using Clock = std::chrono::steady_clock;
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace flowperf::core
