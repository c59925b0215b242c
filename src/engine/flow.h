// Flow: one stream of a test on one side (a TCP connection, a UDP socket, or
// for TCP_CRR a sequence of connections). A flow is a small state machine:
// step() does as much I/O as the socket allows, then says what it waits for.
// Workers drive flows either one at a time with blocking sockets (fewest
// system calls per transaction) or many at a time with epoll.
//
// Counters are written only by the worker thread that owns the flow; other
// threads read them with relaxed loads for interval reports. Nothing here
// locks or throws once the test has started, and the only allocations are
// a latency histogram widening its run of counters the first time a value
// lands outside it (a few times early in a test; see measure/histogram.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "measure/histogram.h"

namespace flowperf::engine {

using Clock = std::chrono::steady_clock;

// A counter with one writer. add() is a plain load/store pair (no lock
// prefix); readers on other threads see a recent value.
class Counter {
 public:
  void add(uint64_t n) noexcept {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void set(uint64_t n) noexcept { v_.store(n, std::memory_order_relaxed); }
  uint64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

struct FlowCounters {
  Counter bytes_sent, bytes_recv;
  Counter send_calls, recv_calls;
  Counter transactions;  // completed request/response pairs
  Counter datagrams_sent, datagrams_recv;
  Counter timeouts;      // UDP_RR: requests whose response did not come in time
  Counter late;          // UDP_RR: responses that came after their timeout
  Counter out_of_order;  // UDP: datagrams older than one already received
  Counter duplicates;    // UDP: datagrams received twice
  Counter send_errors;   // transient send failures (ENOBUFS, refused) that were retried
  Counter connects;      // TCP_CRR: connections opened
  // UDP receivers, published for interval samples: the highest sequence
  // number seen + 1, and the running jitter (ns).
  Counter seq_expected, jitter_ns;
  // Open-loop clients (engine/open_loop.h): requests sent, those sent more
  // than kLateSendNs after their intended time, those that waited for the
  // cap of requests in flight, those due but never sent, and the longest
  // delay of a send (ns).
  Counter sched_intended, sched_late, sched_held, sched_unsent, sched_max_lag_ns;
};

// Test phases, shared by all workers of one side.
enum class Phase : int {
  kRun = 0,    // do the work
  kDrain = 1,  // stop originating work; finish what is in flight (EOF, last response)
  kAbort = 2,  // give up now
};

// Flows read the phase through this reference on every loop turn, so a
// flow that never blocks (a busy sender) still sees the phase change.
using PhaseRef = const std::atomic<Phase>&;
inline Phase load(PhaseRef p) noexcept { return p.load(std::memory_order_relaxed); }

struct Wait {
  int fd = -1;
  uint32_t events = 0;                                    // EPOLLIN/EPOLLOUT wanted on fd
  Clock::time_point deadline = Clock::time_point::max();  // wake at the latest then
  bool done = false;
};

inline Wait wait_read(int fd) { return Wait{fd, 0x001 /*EPOLLIN*/}; }
// Edge-triggered read wait, for a flow that has just sent a message and
// expects nothing before its answer: the answer's arrival is the edge, so
// the flow need not first read to EAGAIN (one system call fewer per
// message). epoll honours the edge; poll() ignores the flag.
inline Wait wait_answer(int fd) { return Wait{fd, 0x001 /*EPOLLIN*/ | (1u << 31) /*EPOLLET*/}; }
inline Wait wait_write(int fd) { return Wait{fd, 0x004 /*EPOLLOUT*/}; }
inline Wait finished() {
  Wait w;
  w.done = true;
  return w;
}

class Flow;

// Fills n bytes at buf with `pattern` over and over (a fill file's bytes,
// netperf -F); leaves them alone when the pattern is empty.
void fill_with(char* buf, size_t n, std::string_view pattern) noexcept;

// What a flow needs from the worker that drives it.
class FlowHost {
 public:
  virtual ~FlowHost() = default;
  // Called before a flow closes a socket the worker may have registered.
  virtual void forget_fd(Flow* flow, int fd) noexcept = 0;
};

class Flow {
 public:
  virtual ~Flow() = default;
  // Does all the I/O it can. Must not block for long when its socket is
  // non-blocking; in blocking mode it may block in one system call, bounded
  // by the socket timeouts the worker set.
  virtual Wait step(PhaseRef phase, Clock::time_point now) noexcept = 0;
  // The socket the flow starts with (-1 for flows that open their own).
  virtual int initial_fd() const noexcept = 0;
  // Flows that open their own connections (TCP_CRR, TCP_CC clients): the
  // MSS the kernel gave the first of them (TCP_MAXSEG), 0 when none yet.
  virtual uint32_t connection_mss() const noexcept { return 0; }
  // Flows that need exact timer wake-ups (UDP_RR timeouts) return false and
  // are then driven with poll even when alone on a worker.
  virtual bool can_block() const noexcept { return true; }
  // Called once before start, in blocking (true) or epoll (false) mode.
  virtual void set_mode(bool blocking) noexcept;
  // UDP receivers: the peer sent n datagrams in all, so once n have come in
  // the drain need not wait for a quiet spell. Set before the drain phase.
  virtual void expect_datagrams(uint64_t n) noexcept { (void)n; }
  // A flow that may sit in a blocking receive that no peer ends (UDP has
  // no end of stream) is woken by a signal when the phase changes: the
  // receive then fails with EINTR and the flow looks at the phase again.
  virtual bool wake_by_signal() const noexcept { return false; }

  FlowHost* host = nullptr;
  uint32_t host_slot = 0;  // the host's own number for this flow
  uint32_t index = 0;      // stream number within the test
  FlowCounters counters;
  measure::Histogram* histogram = nullptr;  // where latencies go (may be shared per worker)
  Clock::time_point started{}, ended{};
  // When the run phase ended (ns on Clock), set by the Side before it moves
  // the phase on: open-loop flows count the requests due until then that
  // they never sent, however late their worker sees the change.
  std::atomic<int64_t> run_ended_ns{0};
  std::atomic<bool> is_finished{false};
  std::string error;  // set only on failure, outside the fast path
  int error_errno = 0;

 protected:
  // When the run phase ended: run_ended_ns, or now if it is not set (a
  // phase moved on by hand, as tests do).
  Clock::time_point run_end() const noexcept {
    const int64_t ns = run_ended_ns.load(std::memory_order_acquire);
    return ns ? Clock::time_point(Clock::duration(ns)) : Clock::now();
  }
  // Records a failure; the flow then returns finished().
  Wait fail(const char* what, int err) noexcept;
  // Closes a socket this flow opened, telling the worker first.
  void close_fd(int& fd) noexcept;
  // Blocking-mode sockets wake up this often so that phase changes are seen.
  static void apply_mode(int fd, bool blocking) noexcept;
  // The wake-up timeouts alone, for a socket created blocking.
  static void set_wake_timeouts(int fd) noexcept;
  bool blocking_ = false;
};

}  // namespace flowperf::engine
