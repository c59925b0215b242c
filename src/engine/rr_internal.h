// Helpers the request/response flows share (rr_flows.cc, udp_rr_flows.cc);
// not part of the engine's interface.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>

#include "engine/flow.h"
#include "measure/histogram.h"

namespace flowperf::engine::rr {

inline bool again(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

inline int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// A transaction's round trip from a to b into h (when there is one).
inline void record(measure::Histogram* h, Clock::time_point a, Clock::time_point b) noexcept {
  int64_t ns = ns_between(a, b);
  if (h) h->record(ns > 0 ? static_cast<uint64_t>(ns) : 0);
}

}  // namespace flowperf::engine::rr
