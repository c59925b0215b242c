#include "session/side_runner.h"

#include <fmt/format.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <thread>

#include "engine/collect.h"

namespace flowperf::session {

using namespace std::chrono_literals;

namespace {

// Progress of a side's flows: everything they counted, plus the bytes still
// queued in their sockets (a TCP sender in drain counts nothing more, but its
// send queue shrinks while the peer keeps acknowledging).
uint64_t progress_mark(const engine::Side& side, uint64_t* queued) {
  uint64_t mark = 0;
  *queued = 0;
  for (const auto& f : side.flows()) {
    const auto& c = f->counters;
    mark += c.bytes_sent.get() + c.bytes_recv.get() + c.transactions.get() +
            c.datagrams_recv.get() + c.connects.get();
    if (int fd = f->initial_fd(); fd >= 0) {
      int q = 0;
      if (::ioctl(fd, SIOCOUTQ, &q) == 0 && q > 0) *queued += static_cast<uint64_t>(q);
    }
  }
  return mark + *queued;
}

}  // namespace

SideRunner::SideRunner(std::vector<std::unique_ptr<engine::Flow>> flows, Options options)
    : options_(std::move(options)),
      side_(std::move(flows), std::max(1u, options_.threads), options_.busy_poll) {}

// The Side's own destructor aborts the flows, opens the gate (workers
// launched but never released must see the abort) and joins.
SideRunner::~SideRunner() = default;

void SideRunner::launch() {
  // -i: each interval's latency percentiles, read while the workers run.
  if (options_.interval_s > 0) side_.enable_live_latency();
  side_.launch(options_.cpu);
}

SideRunner::Clock::time_point SideRunner::go() {
  const Clock::time_point t0 = side_.go();
  const net::Address* at = options_.meter_at ? &*options_.meter_at : nullptr;
  if (at) meter_.start(at);
  sampler_.emplace(side_, options_.interval_s, t0, at);
  return t0;
}

void SideRunner::sample(Clock::time_point now) {
  auto s = sampler_->sample(now);
  if (options_.on_interval) options_.on_interval(s);
  intervals_.push_back(std::move(s));
}

SideRunner::End SideRunner::run(Clock::time_point end, const Poll& poll, bool until_finished,
                                Clock::duration tick) {
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (options_.interrupt && options_.interrupt->load()) return End::kInterrupted;
    if (now >= end || (options_.stop && options_.stop->load())) return End::kTimeUp;
    if (until_finished && side_.all_finished()) return End::kFinished;
    if (sampler_ && sampler_->due(now)) sample(now);
    // Wake for the next event, when the last flow finishes (a counted test
    // ends then), and at least every tick to notice Ctrl-C.
    const auto until = std::min({end, sampler_ ? sampler_->next() : end, now + tick});
    if (poll) {
      if (poll(until) == Turn::kStop) return End::kStopped;
    } else {
      side_.wait_finished(until);
    }
  }
}

bool SideRunner::drain_for(Clock::time_point deadline) {
  side_.set_phase(engine::Phase::kDrain);
  if (side_.wait_finished(deadline)) return true;
  side_.set_phase(engine::Phase::kAbort);
  return false;
}

std::string SideRunner::drain_watching(Clock::duration quiet, Clock::time_point hard) {
  side_.set_phase(engine::Phase::kDrain);
  uint64_t queued = 0;
  uint64_t mark = progress_mark(side_, &queued);
  Clock::time_point last_move = Clock::now();
  std::string why;
  while (!side_.all_finished()) {
    const Clock::time_point now = Clock::now();
    uint64_t q = 0;
    if (uint64_t m = progress_mark(side_, &q); m != mark) {
      mark = m;
      queued = q;
      last_move = now;
    }
    if (now - last_move >= quiet) {
      why = fmt::format(
          "the data path stalled: nothing moved for {:.0f} s after the test's end{} — is a "
          "firewall dropping the data connections, or is the link down?",
          std::chrono::duration<double>(quiet).count(),
          queued ? fmt::format(", with {} bytes still queued to send", queued) : "");
      break;
    }
    if (now >= hard) {
      why = "the flows did not finish within the drain limit after the test's end";
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  if (!why.empty()) side_.set_phase(engine::Phase::kAbort);
  return why;
}

void SideRunner::abort() noexcept { side_.set_phase(engine::Phase::kAbort); }

void SideRunner::end_measuring() { meter_.finish(measured_); }

results::SideResult SideRunner::finish(std::optional<Clock::time_point> last_sample_at,
                                       Clock::time_point cap) {
  end_measuring();
  side_.join();
  if (last_sample_at && sampler_)
    if (auto s = sampler_->finish(*last_sample_at)) {
      if (options_.on_interval) options_.on_interval(*s);
      intervals_.push_back(std::move(*s));
    }
  results::SideResult r = engine::collect(side_, cap);
  r.cpu = measured_.cpu;
  r.nic = measured_.nic;
  r.intervals = std::move(intervals_);
  return r;
}

}  // namespace flowperf::session
