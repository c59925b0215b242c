// Interval samples (-i) of one side, client or server: per flow, what its
// counters moved by and its TCP state at the interval's end; for the side,
// CPU utilization and the data path's interface counters over the interval.
// The caller's loop asks due() and calls sample(); finish() adds the last,
// partial interval, taken once the flows are done.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/collect.h"
#include "engine/worker.h"
#include "net/socket.h"
#include "session/side_meter.h"

namespace flowperf::session {

class IntervalSampler {
 public:
  using Clock = std::chrono::steady_clock;

  // interval_s <= 0: never due. local: this side's address on the data
  // path, to find its interface (nullptr: no interface counters).
  IntervalSampler(const engine::Side& side, double interval_s, Clock::time_point t0,
                  const net::Address* local);

  Clock::time_point next() const { return next_; }
  bool due(Clock::time_point now) const { return now >= next_; }
  // Takes the sample for [last end, now] and schedules the next.
  results::IntervalSample sample(Clock::time_point now);
  // The last, partial interval (so that the intervals add up to the
  // totals).
  std::optional<results::IntervalSample> finish(Clock::time_point now);

 private:
  struct Mark {
    uint64_t bytes_sent = 0, bytes_recv = 0, transactions = 0;
    uint64_t datagrams_sent = 0, datagrams_recv = 0, seq_expected = 0, duplicates = 0;
    uint64_t out_of_order = 0, timeouts = 0, retrans = 0;
  };
  results::IntervalSample take(Clock::time_point now);

  const engine::Side& side_;
  double interval_s_;
  Clock::time_point t0_, next_;
  double last_s_ = 0;
  std::vector<Mark> last_;
  SideMeter meter_;  // CPU and interface counters, lap by lap
  // Each worker's LiveLatency counts at the last sample, and a read's room.
  std::vector<std::vector<uint64_t>> live_last_;
  std::vector<uint64_t> live_now_, live_diff_;
};

}  // namespace flowperf::session
