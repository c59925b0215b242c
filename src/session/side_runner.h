// SideRunner: one end of a running test, the same for every protocol and
// for both the client and the server. It owns the engine's Side and does
// what every driver does around it:
//
//   launch() ─► go() ─► run(end, poll) ─┬─ drain_for()/drain_watching() ─► finish()
//   workers     gate opens;   samples      │   let in-flight work end
//   wait at     meter and     intervals    └─ abort() ───────────────────► finish()
//   the gate    sampler start              give up now                     join, last interval,
//                                                                          collect, CPU figures
//
// A protocol adapter supplies only its control exchange: the messages it
// sends or awaits before go(), between run() and the end, and after
// finish(); and, through run()'s `poll`, what it watches while the test
// runs (its control connection, its own timers).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/flow.h"
#include "engine/worker.h"
#include "net/socket.h"
#include "results/measurements.h"
#include "session/interval_sampler.h"
#include "session/side_meter.h"

namespace flowperf::session {

class SideRunner {
 public:
  using Clock = std::chrono::steady_clock;

  struct Options {
    unsigned threads = 1;
    bool busy_poll = false;
    int cpu = -1;           // the CPU the workers run on (--cpu-bind, netperf -T); -1: any
    double interval_s = 0;  // -i; 0: no interval samples
    // This side's address toward the peer: CPU and the interface's counters
    // are measured over the test. Unset: nothing is measured.
    std::optional<net::Address> meter_at;
    // Set from a signal handler: run() returns kInterrupted.
    const std::atomic<bool>* interrupt = nullptr;
    // Set by whoever runs this side beside something else: run() returns
    // kTimeUp, as if the test's time were up.
    const std::atomic<bool>* stop = nullptr;
    // Called with each interval sample as it is taken (and the last one).
    std::function<void(const results::IntervalSample&)> on_interval;
  };

  SideRunner(std::vector<std::unique_ptr<engine::Flow>> flows, Options options);
  ~SideRunner();
  SideRunner(const SideRunner&) = delete;
  SideRunner& operator=(const SideRunner&) = delete;

  // Starts the worker threads; they wait at the gate.
  void launch();
  // Opens the gate; the meter and the sampler start now. Returns the time.
  Clock::time_point go();

  // Why run() returned.
  enum class End { kTimeUp, kFinished, kInterrupted, kStopped };
  // What the protocol's poll says after its turn.
  enum class Turn { kGoOn, kStop };
  // The protocol's turn: watch the control connection or its timers, for
  // no longer than `until`. Without one, run() sleeps until a flow event.
  using Poll = std::function<Turn(Clock::time_point until)>;

  // Runs until `end`, until every flow has finished (when
  // `until_finished`), until the user interrupts, or until `poll` says
  // stop; takes interval samples on the way. A turn lasts at most `tick`.
  End run(Clock::time_point end, const Poll& poll = nullptr, bool until_finished = true,
          Clock::duration tick = std::chrono::milliseconds(10));

  // Lets the flows finish what is in flight until `deadline`; aborts them
  // if they have not. Returns whether they all finished.
  bool drain_for(Clock::time_point deadline);
  // The same, for a drain that may take long (full buffers on a slow
  // link): gives up only when nothing moved for `quiet`, or at `hard`.
  // Returns "" when every flow finished, else why it gave up (the flows
  // are then aborted).
  std::string drain_watching(Clock::duration quiet, Clock::time_point hard);
  // Stops every flow now.
  void abort() noexcept;

  // The CPU and interface figures are taken now (at the latest, by finish()).
  void end_measuring();
  // Joins the workers and collects what the side measured. `last_sample_at`:
  // when to end the last, partial interval (none: no last sample, as after
  // an interrupt). `cap`: flows still running count as ended then.
  results::SideResult finish(std::optional<Clock::time_point> last_sample_at,
                             Clock::time_point cap = Clock::time_point::max());

  engine::Side& side() { return side_; }
  const engine::Side& side() const { return side_; }
  Clock::time_point start_time() const { return side_.start_time(); }
  // The samples taken so far (finish() hands them over in the result).
  const std::vector<results::IntervalSample>& intervals() const { return intervals_; }

 private:
  void sample(Clock::time_point now);

  Options options_;
  engine::Side side_;
  std::optional<IntervalSampler> sampler_;
  SideMeter meter_;
  results::SideResult measured_;  // the meter's figures, once taken
  std::vector<results::IntervalSample> intervals_;
};

}  // namespace flowperf::session
