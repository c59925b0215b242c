// The stream family: bulk transfer over TCP (TCP_STREAM, TCP_MAERTS) and UDP
// (UDP_STREAM). One sender and one receiver flow per protocol serve both
// directions; which side runs which is the test descriptor's business.
//
// TCP sender:   SEND* ──(phase ≠ run or quota met)──► shutdown(WR) ─► wait EOF ─► done
// TCP receiver: RECV* ──(EOF)──► shutdown(WR) ─► done
// UDP sender:   SEND* (paced when a rate is set) ──(phase ≠ run or quota met)──► done
// UDP receiver: RECV* ──(phase = drain)──► RECV until all the sender sent is in
//               (when told: Flow::expect_datagrams) or 50 ms of silence ─► done
//
// UDP batching (--batch N, --gso, --gro) changes how many datagrams one system call
// moves, never what is counted: every datagram carries its own sequence
// number, the sender counts what the kernel accepted, the receiver counts
// each datagram (each GRO segment) it reads, so both ends still reconcile
// exactly. With batching the receiver takes arrival times from the kernel
// (SO_TIMESTAMPNS), one per datagram or GRO buffer, so jitter stays a
// per-datagram measure rather than a per-call one.
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/flow.h"
#include "engine/udp_drain.h"
#include "measure/seq_tracker.h"
#include "net/fd.h"
#include "spec/test_spec.h"

namespace flowperf::engine {

// TCP stream buffers start on a page boundary, as netperf's and iperf3's
// do. One from malloc starts 16 bytes into a page: it spans a page more
// than its size, and every copy into and out of the kernel is unaligned.
struct FreeBytes {
  void operator()(char* p) const noexcept { std::free(p); }
};
using PageBuffer = std::unique_ptr<char[], FreeBytes>;
// `size` bytes (at least one page), page-aligned; throws std::bad_alloc.
PageBuffer page_buffer(size_t size);

// --call-latency: how long each send (receive) call took, from its first
// try until the kernel took (gave) the data, waits for room (for data)
// included: the time a blocking call would have taken, as netperf times
// its stream calls. Recorded in the flow's histogram; off, it costs a branch.
class CallTimer {
 public:
  bool on = false;
  void start() noexcept {
    if (on && t0_ == Clock::time_point{}) t0_ = Clock::now();
  }
  void done(measure::Histogram* h) noexcept {
    if (!on) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_);
    if (h) h->record(static_cast<uint64_t>(std::max<int64_t>(ns.count(), 0)));
    t0_ = {};
  }

 private:
  Clock::time_point t0_{};
};

class TcpSendFlow final : public Flow {
 public:
  // With `from_file` (--sendfile) each send is a sendfile(2) from an
  // in-memory file (memfd) holding one send's worth of the same pattern.
  // `fill`: the bytes to send, repeated (netperf -F); empty: our pattern.
  TcpSendFlow(net::Fd fd, uint32_t send_size, uint64_t quota_bytes, bool from_file = false,
              std::string_view fill = {});
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // The file sendfile() reads, -1 without --sendfile (tests write into it).
  int source_fd() const noexcept { return file_.get(); }
  CallTimer call_timer;

 private:
  net::Fd fd_;
  net::Fd file_;        // --sendfile: the memfd sent from
  int file_error_ = 0;  // errno of making it, reported by the first step
  PageBuffer buf_;
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
  // Read through every byte received (qperf's access_recv: a CPU cost only).
  bool touch = false;
  CallTimer call_timer;

 private:
  net::Fd fd_;
  PageBuffer buf_;
  uint32_t size_;
  uint64_t touch_sink_ = 0;  // what touch_bytes() read, kept so the reads stay
};

// Reads every byte of a received buffer, so that the data passes through
// the CPU's caches (qperf's access_recv); returns a sum nobody needs.
uint64_t touch_bytes(const char* p, size_t n) noexcept;

// Each datagram starts with a header when there is room: sequence number
// (8 bytes), then the sender's steady-clock time in ns (8 bytes).
inline constexpr uint32_t kUdpSeqBytes = 8;
inline constexpr uint32_t kUdpHeaderBytes = 16;

// What a datagram's header looks like. flowperf's own: sequence number then
// send time, native byte order, 16 bytes. iperf3's (its wire, §7.3 of
// ../shared/protocols/iperf3-wire.md): big-endian seconds and microseconds
// of the sender's monotonic clock, then the sequence number from 1, as 32
// bits or (--udp-counters-64bit) 64. None: the payload is not read or
// written (qperf's datagrams carry nothing but their length), so no loss,
// order or jitter is tracked.
using UdpHeader = spec::UdpHeader;

// How a UDP flow moves datagrams: one per system call (send/recv), or up to
// `batch` per call (sendmmsg/recvmmsg); with `gso` the sender passes one UDP
// GSO buffer of up to `batch` datagrams per call, with `gro` the receiver
// takes GRO-coalesced buffers.
struct UdpBatching {
  uint32_t batch = 1;
  bool gso = false;  // sender
  bool gro = false;  // receiver
};

class UdpSendFlow final : public Flow {
 public:
  // `fill`: each datagram's bytes after its header, repeated from the
  // datagram's start (netperf -F); empty: our pattern.
  UdpSendFlow(net::Fd fd, uint32_t size, uint64_t quota_bytes, uint64_t rate_bps,
              UdpBatching how = {}, std::string_view fill = {});
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  UdpHeader header = UdpHeader::kFlowperf;  // set before the start
  // Paced: datagrams sent back to back each time the pace allows one
  // (iperf3 -b RATE/N), the pace kept on average; 0 or 1: one at a time.
  uint32_t burst = 0;
  CallTimer call_timer;  // the sends' times (a wait for the pace is not one)

 private:
  // Writes datagram i's header (sequence number seq, send time t).
  void stamp(char* d, uint64_t seq, Clock::time_point t) const noexcept;
  // Sends datagrams [0, n) of the batch buffer; the number sent, or -1 with errno.
  ssize_t send_batch(uint32_t n) noexcept;

  net::Fd fd_;
  std::unique_ptr<char[]> buf_;  // `batch` datagrams of `size` bytes, back to back
  uint32_t size_;
  uint64_t quota_;
  UdpBatching how_;
  std::unique_ptr<mmsghdr[]> msgs_;  // sendmmsg: one per datagram
  std::unique_ptr<iovec[]> iovs_;
  uint64_t seq_ = 0;
  std::chrono::nanoseconds gap_{0};  // time per datagram at the target rate
  Clock::time_point next_due_{};
  uint64_t due_left_ = 0;  // paced: datagrams that may go now without a wait
  uint64_t sent_bytes_ = 0;
};

class UdpRecvFlow final : public Flow {
 public:
  UdpRecvFlow(net::Fd fd, uint32_t recv_size, UdpBatching how = {});
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // Alone on a worker it blocks in recv/recvmmsg: a sender then finds no
  // poller to wake on every datagram it queues, which on loopback is a
  // good part of the sender's cost.
  const measure::SeqTracker& tracker() const { return tracker_; }
  // netperf's end-of-test mark: a zero-length datagram ends the flow (it is
  // not counted). Off by default: an empty datagram is then just counted.
  bool end_on_empty = false;
  UdpHeader header = UdpHeader::kFlowperf;  // set before the start
  bool touch = false;                       // as TcpRecvFlow's
  void expect_datagrams(uint64_t n) noexcept override { drain_.expect(n); }
  bool wake_by_signal() const noexcept override { return true; }

 private:
  // Reads what is queued, one call; the number of messages, 0 when none,
  // -1 on an error to report (errno), -2 when the end-of-test mark came.
  int receive_once() noexcept;
  // Accounts one datagram (its first `len` bytes are at p); arrival in ns.
  void on_datagram(const char* p, size_t len, int64_t arrival_ns) noexcept;

  net::Fd fd_;
  std::unique_ptr<char[]> buf_;  // `batch` slots of `size` bytes
  uint32_t size_;
  uint64_t touch_sink_ = 0;
  UdpBatching how_;
  std::unique_ptr<mmsghdr[]> msgs_;
  std::unique_ptr<iovec[]> iovs_;
  std::unique_ptr<char[]> control_;  // per slot: receive timestamp, GRO segment size
  measure::SeqTracker tracker_;
  UdpDrain drain_;
};

}  // namespace flowperf::engine
