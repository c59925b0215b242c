// Helpers the request/response flows share (rr_flows.cc, crr_flows.cc,
// udp_rr_flows.cc); not part of the engine's interface.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>

#include "engine/flow.h"
#include "measure/histogram.h"

namespace flowperf::engine::rr {

inline bool again(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

// Reads until EOF; true when EOF was seen, false when it would block.
// *err is set on a real error. (Defined in rr_flows.cc.)
bool drain_to_eof(int fd, FlowCounters& c, int* err);

inline int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// Clock::now() without its call through libstdc++: steady_clock is
// CLOCK_MONOTONIC, read here with libc's clock_gettime (the vDSO). For
// once-per-transaction reads.
inline Clock::time_point now() noexcept {
  static_assert(Clock::is_steady);
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return Clock::time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
}

// One datagram sent (n bytes), or, after a transient error (n < 0: ENOBUFS,
// a refused port), a send error; for UDP_RR, that request then times out.
inline void count_sent(FlowCounters& c, ssize_t n) noexcept {
  if (n < 0) {
    c.send_errors.add(1);
    return;
  }
  c.bytes_sent.add(static_cast<uint64_t>(n));
  c.datagrams_sent.add(1);
  c.send_calls.add(1);
}

// One datagram of n bytes received, in a call of its own.
inline void count_received(FlowCounters& c, ssize_t n) noexcept {
  c.bytes_recv.add(static_cast<uint64_t>(n));
  c.datagrams_recv.add(1);
  c.recv_calls.add(1);
}

// Whole UDP_RR transactions a tight loop has done but not yet added to the
// flow's counters: each is a datagram sent and one received, in one call
// each, so seven counter updates per transaction become two local
// additions. The loop adds the batch when due() and whatever is left when
// it ends, so the totals are exact. A blocking loop runs for the whole
// test: publish() sizes its batches to span about kSpan (at most kMost
// transactions, at least one) from the last batch's pace, so interval
// samples lag by about kSpan. After a sudden slow-down one batch may take
// up to kMost of the new, longer gaps; a gap longer than the blocking
// wake-up ends the loop, and with it the batch. A non-blocking loop ends
// at its first EAGAIN: it needs no clock, only flush() every kMost.
class Batch {
 public:
  static constexpr uint64_t kMost = 16;
  static constexpr Clock::duration kSpan = std::chrono::milliseconds(1);
  // first: how many transactions the first batch holds.
  Batch(Clock::time_point now, uint64_t first) noexcept : limit_(first), since_(now) {}
  void add(uint64_t bytes_in) noexcept {
    ++n_;
    bytes_in_ += bytes_in;
  }
  bool due() const noexcept { return n_ >= limit_; }
  // Adds the batch to c (bytes_out: the size of each datagram sent) and
  // sizes the next one.
  void publish(FlowCounters& c, uint64_t bytes_out, Clock::time_point now) noexcept {
    const Clock::duration took = now - since_;
    limit_ = took <= Clock::duration::zero()
                 ? kMost
                 : std::clamp<uint64_t>(static_cast<uint64_t>(n_ * kSpan.count() / took.count()), 1,
                                        kMost);
    since_ = now;
    flush(c, bytes_out);
  }
  void flush(FlowCounters& c, uint64_t bytes_out) noexcept {
    if (n_ == 0) return;
    c.bytes_sent.add(n_ * bytes_out);
    c.datagrams_sent.add(n_);
    c.send_calls.add(n_);
    c.bytes_recv.add(bytes_in_);
    c.datagrams_recv.add(n_);
    c.recv_calls.add(n_);
    c.transactions.add(n_);
    n_ = bytes_in_ = 0;
  }

 private:
  uint64_t n_ = 0, bytes_in_ = 0, limit_;
  Clock::time_point since_;
};

// A transaction's round trip from a to b into h (when there is one).
inline void record(measure::Histogram* h, Clock::time_point a, Clock::time_point b) noexcept {
  int64_t ns = ns_between(a, b);
  if (h) h->record(ns > 0 ? static_cast<uint64_t>(ns) : 0);
}

}  // namespace flowperf::engine::rr
