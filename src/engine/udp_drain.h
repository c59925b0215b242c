// The end of a UDP receiver's test (UdpRecvFlow, UdpRrServerFlow). A UDP
// receiver sees no end of file: once the drain phase begins it reads
// without blocking until everything the sender says it sent is in
// (expect()), or until kQuiet passes with nothing new, and at most kMaxDrain
// after the drain began.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "engine/flow.h"

namespace flowperf::engine {

class UdpDrain {
 public:
  static constexpr std::chrono::milliseconds kQuiet{50};
  static constexpr std::chrono::milliseconds kMaxDrain{1000};

  // At the top of each step: notices the drain phase. True while draining
  // (reads must then not block; the worker times the quiet spell).
  bool update(PhaseRef phase, Clock::time_point now) noexcept {
    if (!active_ && load(phase) == Phase::kDrain) {
      active_ = true;
      start_ = last_rx_ = now;
    }
    return active_;
  }
  bool active() const noexcept { return active_; }
  // A datagram came in at t (only draining receivers need to say so).
  void arrived(Clock::time_point t) noexcept { last_rx_ = t; }
  // The sender sent n datagrams in all (any thread, before the drain phase).
  void expect(uint64_t n) noexcept { expected_.store(n, std::memory_order_relaxed); }
  // Draining, after reading all that was queued, with `received` distinct
  // datagrams counted so far: finished, or the wait for more.
  Wait next(int fd, uint64_t received) const noexcept {
    if (received >= expected_.load(std::memory_order_relaxed)) return finished();
    const Clock::time_point now = Clock::now();
    if (now - last_rx_ >= kQuiet || now - start_ >= kMaxDrain) return finished();
    Wait w = wait_read(fd);
    w.deadline = std::min(last_rx_ + kQuiet, start_ + kMaxDrain);
    return w;
  }

 private:
  bool active_ = false;
  Clock::time_point start_{}, last_rx_{};
  std::atomic<uint64_t> expected_{UINT64_MAX};  // UINT64_MAX: not known
};

}  // namespace flowperf::engine
