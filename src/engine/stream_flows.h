// The stream family: bulk transfer over TCP (TCP_STREAM, TCP_MAERTS) and UDP
// (UDP_STREAM). One sender and one receiver flow per protocol serve both
// directions; which side runs which is the test descriptor's business.
//
// TCP sender:   SEND* ──(phase ≠ run or quota met)──► shutdown(WR) ─► wait EOF ─► done
// TCP receiver: RECV* ──(EOF)──► shutdown(WR) ─► done
// UDP sender:   SEND* (paced when a rate is set) ──(phase ≠ run or quota met)──► done
// UDP receiver: RECV* ──(phase = drain)──► RECV until 50 ms of silence ─► done
#pragma once

#include <memory>
#include <vector>

#include "engine/flow.h"
#include "measure/seq_tracker.h"
#include "net/fd.h"

namespace flowperf::engine {

class TcpSendFlow final : public Flow {
 public:
  TcpSendFlow(net::Fd fd, uint32_t send_size, uint64_t quota_bytes);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  uint32_t size_;
  uint64_t quota_;  // 0 = no limit
  uint64_t sent_ = 0;
  bool shut_ = false;
};

class TcpRecvFlow final : public Flow {
 public:
  TcpRecvFlow(net::Fd fd, uint32_t recv_size);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  uint32_t size_;
};

// Each datagram starts with a header when there is room: sequence number
// (8 bytes), then the sender's steady-clock time in ns (8 bytes).
inline constexpr uint32_t kUdpSeqBytes = 8;
inline constexpr uint32_t kUdpHeaderBytes = 16;

class UdpSendFlow final : public Flow {
 public:
  UdpSendFlow(net::Fd fd, uint32_t size, uint64_t quota_bytes, uint64_t rate_bps);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  uint32_t size_;
  uint64_t quota_;
  uint64_t seq_ = 0;
  std::chrono::nanoseconds gap_{0};  // time per datagram at the target rate
  Clock::time_point next_due_{};
  uint64_t sent_bytes_ = 0;
};

class UdpRecvFlow final : public Flow {
 public:
  UdpRecvFlow(net::Fd fd, uint32_t recv_size);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  bool can_block() const noexcept override { return false; }
  const measure::SeqTracker& tracker() const { return tracker_; }
  // netperf's end-of-test mark: a zero-length datagram ends the flow (it is
  // not counted). Off by default: an empty datagram is then just counted.
  bool end_on_empty = false;
  // Drain ends after this much silence once the sender has stopped.
  static constexpr std::chrono::milliseconds kQuiet{50};
  static constexpr std::chrono::milliseconds kMaxDrain{1000};

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  uint32_t size_;
  measure::SeqTracker tracker_;
  Clock::time_point last_rx_{};
  Clock::time_point drain_start_{};
  bool draining_ = false;
};

}  // namespace flowperf::engine
