// Side: the engine for one end of a test. It owns the flows, spreads them
// over worker threads, releases the threads together through a gate, and
// lets the controller (client) or session (server) move the phase from run
// to drain to abort.
//
// A worker holding a single flow that can block drives it with blocking
// sockets (one system call per send or receive); any other worker runs an
// epoll loop over its flows. With busy_poll, workers never sleep: a single
// flow is stepped again at once on EAGAIN, and the epoll loop polls with a
// zero timeout. The loop's timers are a heap, so a worker with thousands of
// flows does no per-flow work on a wake-up beyond the flows that are ready.
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/flow.h"
#include "measure/histogram.h"
#include "measure/live_latency.h"
#include "net/fd.h"

namespace flowperf::engine {

class Side {
 public:
  // Flows with their own histogram up to this many; above it, the flows of
  // one worker share a histogram (per-stream percentiles are then absent).
  static constexpr size_t kPerFlowHistogramLimit = 256;

  Side(std::vector<std::unique_ptr<Flow>> flows, unsigned threads, bool busy_poll = false);
  ~Side();
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;

  // Starts the worker threads; they wait at the gate. With cpu >= 0 they
  // run on that CPU alone (--cpu-bind, netperf -T); throws a runtime Error
  // when this process may not use it.
  void launch(int cpu = -1);
  // Before launch(): each worker's histograms also count into a LiveLatency
  // of the worker's own that interval samples read while the test runs.
  void enable_live_latency();
  // One per worker once enabled; empty otherwise.
  const std::vector<std::unique_ptr<measure::LiveLatency>>& live_latency() const { return live_; }
  // Opens the gate; every flow's clock starts now. Returns the start time.
  Clock::time_point go();
  // Moves every flow to phase p, waking workers that sleep in poll or epoll,
  // and with a signal (kWakeSignal) those that block in a UDP receive.
  void set_phase(Phase p) noexcept;
  static constexpr int kWakeSignal = SIGURG;  // ignored unless handled: harmless elsewhere
  Phase phase() const noexcept { return phase_.load(std::memory_order_relaxed); }
  // True once every flow has finished.
  bool all_finished() const noexcept;
  // Waits until every flow has finished or the deadline passes; returns as
  // soon as the last worker is done (workers signal when they finish).
  bool wait_finished(Clock::time_point deadline) const;
  // Joins the threads (after all_finished(), or after an abort).
  void join();

  const std::vector<std::unique_ptr<Flow>>& flows() const { return flows_; }
  // The latency histogram of all flows merged.
  measure::Histogram merged_histogram() const;
  bool per_flow_histograms() const { return flows_.size() <= kPerFlowHistogramLimit; }
  const measure::Histogram* flow_histogram(size_t i) const;
  // Moves flow i's own histogram out (it is left empty); nothing else may
  // record into it then: call once the workers have stopped.
  measure::Histogram take_flow_histogram(size_t i);
  Clock::time_point start_time() const { return start_; }
  unsigned threads() const { return static_cast<unsigned>(groups_.size()); }
  bool busy_poll() const { return busy_poll_; }

 private:
  void run_worker(size_t group) noexcept;
  // Signals the workers that block in a receive and have not finished.
  void signal_blocked_workers() const noexcept;

  std::vector<std::unique_ptr<Flow>> flows_;
  std::vector<std::vector<Flow*>> groups_;  // flows of each worker
  std::vector<net::Fd> wakers_;             // per worker: an eventfd set_phase() writes
  std::vector<char> signal_wake_;  // per worker: set_phase() signals it (Flow::wake_by_signal)
  std::vector<std::unique_ptr<measure::Histogram>> histograms_;
  std::vector<std::unique_ptr<measure::LiveLatency>> live_;  // per worker, enable_live_latency()
  std::vector<std::thread> threads_;
  std::vector<pthread_t> handles_;  // of threads_, for signal_blocked_workers()
  std::atomic<Phase> phase_{Phase::kRun};
  std::atomic<bool> gate_{false};
  std::atomic<size_t> finished_{0};
  mutable std::mutex done_mu_;  // taken once per worker, when it has finished
  mutable std::condition_variable done_cv_;
  Clock::time_point start_{};
  bool busy_poll_ = false;
};

}  // namespace flowperf::engine
